import { RecencyMap } from '../support/recency-map.js';
import { CallerContexts } from './caller-contexts.js';
import type { OutboundRegistry } from './outbound-registry.js';
import { parseToolArguments, TOOL_INPUT_SCHEMA } from './tool-arguments.js';
import { callRemoteSkill, type ToolResult } from './tool-call.js';
import { ToolError } from './tool-error.js';
import { assignToolNames, toolKey, type ToolNameRequest } from './tool-names.js';

export type { ToolResult } from './tool-call.js';
export { ToolError, type ToolErrorKind } from './tool-error.js';

/** One model tool: one enabled skill of a connected outbound connection. */
export interface ToolDefinition {
  readonly name: string;
  readonly description: string;
  readonly inputSchema: typeof TOOL_INPUT_SCHEMA;
  readonly connectionId: string;
  readonly connectionName: string;
  readonly skillId: string;
}

export interface ToolCallOptions {
  /** Whose conversation this is: calls with the same callerId share a remote contextId per connection. Default `default`. */
  readonly callerId?: string;
  /** Aborting it ends the call and cancels the remote task. */
  readonly signal?: AbortSignal;
}

const DEFAULT_CALLER = 'default';
/** Interrupted tasks whose shown status is remembered, so that their continuation is recognised. */
const INTERRUPTED_LIMIT = 1000;

/**
 * The tools of the connected outbound connections, for executors that call them and for
 * GET /a2a/api/tools. The table is rebuilt whenever the connections change.
 */
export class ToolRegistry {
  readonly #outbounds: OutboundRegistry;
  readonly #contexts = new CallerContexts();
  /** taskId → key of the interrupted status a caller was shown. */
  readonly #interrupted = new RecencyMap<string, string>();
  #table:
    | { readonly version: number; readonly tools: readonly ToolDefinition[]; readonly byName: ReadonlyMap<string, ToolDefinition> }
    | undefined;

  constructor(outbounds: OutboundRegistry) {
    this.#outbounds = outbounds;
  }

  /** Every tool, ordered by name. */
  list(): ToolDefinition[] {
    return [...this.#current().tools];
  }

  get(name: string): ToolDefinition | undefined {
    return this.#current().byName.get(name);
  }

  /**
   * Calls a tool. Resolves with the remote's answer (also for INPUT_REQUIRED and AUTH_REQUIRED,
   * whose text names the taskId to continue with); rejects with a ToolError otherwise.
   */
  async call(name: string, args: unknown, options: ToolCallOptions = {}): Promise<ToolResult> {
    const tool = this.get(name);
    if (tool === undefined)
      throw new ToolError(
        'unknown-tool',
        `no tool is named ${name}; GET /a2a/api/tools lists the tools of the connected outbound connections`,
        { tool: name },
      );
    const parsed = parseToolArguments(name, args);
    const connection = this.#outbounds.client(tool.connectionId);
    if (connection === undefined) {
      const state = this.#outbounds.view(tool.connectionId)?.state ?? 'removed';
      throw new ToolError('not-connected', `tool ${name} cannot be called: its outbound connection "${tool.connectionName}" is ${state}`, {
        tool: name,
      });
    }
    const callerId = options.callerId ?? DEFAULT_CALLER;
    const contextId = this.#contexts.get(callerId, tool.connectionId);
    const answeredStatus = parsed.taskId === undefined ? undefined : this.#interrupted.get(parsed.taskId);
    try {
      const { result, interruptedStatus } = await callRemoteSkill({
        tool: name,
        connection,
        skillId: tool.skillId,
        args: parsed,
        ...(contextId === undefined ? {} : { contextId }),
        ...(answeredStatus === undefined ? {} : { answeredStatus }),
        ...(options.signal === undefined ? {} : { signal: options.signal }),
      });
      if (result.contextId !== undefined) this.#contexts.remember(callerId, tool.connectionId, result.contextId);
      if (result.taskId !== undefined) this.#rememberInterrupted(result.taskId, interruptedStatus);
      return result;
    } catch (error) {
      // A failed task still belongs to the conversation the caller continues.
      if (error instanceof ToolError && error.contextId !== undefined)
        this.#contexts.remember(callerId, tool.connectionId, error.contextId);
      throw error;
    }
  }

  #rememberInterrupted(taskId: string, status: string | undefined): void {
    if (status === undefined) {
      this.#interrupted.delete(taskId);
      return;
    }
    this.#interrupted.set(taskId, status);
    this.#interrupted.trimTo(INTERRUPTED_LIMIT);
  }

  #current(): { tools: readonly ToolDefinition[]; byName: ReadonlyMap<string, ToolDefinition> } {
    const version = this.#outbounds.version;
    if (this.#table?.version === version) return this.#table;
    const requests: (ToolNameRequest & { readonly description: string })[] = [];
    const connections = new Set<string>();
    for (const config of this.#outbounds.list()) {
      connections.add(config.id);
      for (const skill of this.#outbounds.view(config.id)?.toolSkills ?? []) {
        const description = config.skillOverrides[skill.id]?.description ?? skill.description;
        requests.push({ connectionId: config.id, connectionName: config.name, skillId: skill.id, rank: config.createdAt, description });
      }
    }
    this.#contexts.retain(connections);
    const names = assignToolNames(requests);
    const tools = requests
      .map((request): ToolDefinition => ({
        name: names.get(toolKey(request.connectionId, request.skillId)) ?? '',
        description: request.description,
        inputSchema: TOOL_INPUT_SCHEMA,
        connectionId: request.connectionId,
        connectionName: request.connectionName,
        skillId: request.skillId,
      }))
      .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    this.#table = { version, tools, byName: new Map(tools.map((tool) => [tool.name, tool])) };
    return this.#table;
  }
}
