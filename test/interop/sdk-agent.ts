import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { Role, TaskState, type AgentCard, type Artifact, type Message, type Part, type Task } from '@a2a-js/sdk';
import {
  AgentEvent,
  DefaultPushNotificationSender,
  DefaultRequestHandler,
  InMemoryPushNotificationStore,
  InMemoryTaskStore,
  type AgentExecutor,
  type ExecutionEventBus,
  type PushNotificationSender,
  type PushNotificationStore,
  type RequestContext,
} from '@a2a-js/sdk/server';
import { UserBuilder, agentCardHandler, jsonRpcHandler, restHandler } from '@a2a-js/sdk/server/express';
import express from 'express';
import { captureSdkConsole, type SdkConsoleCapture } from './sdk-console.js';
import { tckPlan } from './tck-plan.js';

/**
 * A third-party A2A 1.0 agent, built only with the official @a2a-js/sdk (1.3.0) server side
 * the way its README and samples build one: an AgentExecutor publishing events on an
 * ExecutionEventBus, a DefaultRequestHandler over an InMemoryTaskStore, and the SDK's Express
 * middlewares for the agent card and the JSON-RPC binding. a2a-hub's conformance suite runs
 * against it (test/conformance/sdk-agent.test.ts) to tell the suite's opinions from the spec's.
 *
 * "sdk-echo" answers `echo: <text>` as an artifact streamed in two chunks, and follows a2a-hub's
 * test-directive convention (docs/test-directives.md), implemented here from that document
 * alone, so that the suite's cooperative checks can reach every lifecycle.
 */

export interface SdkAgent {
  /** The agent's base URL (its card is at /.well-known/agent-card.json). */
  readonly url: string;
  /** The first interface its card declares (the JSON-RPC endpoint unless only HTTP+JSON is served). */
  readonly endpoint: string;
  readonly card: AgentCard;
  /** The errors the SDK logged while the agent was open, kept out of the test output (./sdk-console.ts). */
  sdkLog(): string[];
  close(): Promise<void>;
}

/** Where the SDK's JSON-RPC middleware is mounted. */
export const SDK_AGENT_JSONRPC_PATH = '/a2a/jsonrpc';
/** Where the SDK's HTTP+JSON middleware is mounted. */
export const SDK_AGENT_REST_PATH = '/a2a/rest';

export interface SdkAgentOptions {
  /** The bindings served and declared, in the card's order. Default: JSON-RPC only. */
  readonly bindings?: readonly ('JSONRPC' | 'HTTP+JSON')[];
  /** capabilities.streaming of the card (the SDK serves streams either way). Default true. */
  readonly streaming?: boolean;
  /**
   * capabilities.pushNotifications of the card. When true the agent keeps configs in the SDK's
   * in-memory store and delivers with its DefaultPushNotificationSender, shown only the configs
   * whose URL is on loopback: the SDK has no destination policy, and the suite's property checks
   * register generated URLs on hosts that must never be looked up. Default false.
   */
  readonly push?: boolean;
  /** Replaces the SDK's in-memory push config store (with `push`), e.g. by one that misbehaves on purpose. */
  readonly pushStore?: PushNotificationStore;
  /** Replaces the SDK's push sender (with `push`); it is given the store the configs are in. */
  readonly pushSender?: (store: PushNotificationStore) => PushNotificationSender;
  /**
   * How a client can ask the agent for a lifecycle: `directives` (a2a-hub's test directives, advertised
   * on the card; the default), `tck` (the official TCK's messageId prefixes, ./tck-plan.ts; not
   * advertised, as TCK agents do not) or `none` (a plain echo agent that completes every task).
   */
  readonly convention?: 'directives' | 'tck' | 'none';
}
export const TEST_DIRECTIVES_URI = 'https://a2a-hub.dev/extensions/test-directives/v1';
const DIRECTIVE_KEY = 'a2a-hub/test';

/** An Express app served on 127.0.0.1, on a port of the system's choosing, with the SDK's console kept out of the test output. */
export async function listenOnLoopback(app: express.Express): Promise<{ server: Server; url: string; sdkConsole: SdkConsoleCapture }> {
  const server = createServer(app);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  return { server, url: `http://127.0.0.1:${port}`, sdkConsole: captureSdkConsole() };
}

/** Starts sdk-echo on 127.0.0.1, on a port of the system's choosing. */
export async function startSdkAgent(options: SdkAgentOptions = {}): Promise<SdkAgent> {
  const app = express();
  const { server, url, sdkConsole } = await listenOnLoopback(app);
  const bindings = options.bindings ?? ['JSONRPC'];
  const interfaces = bindings.map((binding) => ({
    url: `${url}${binding === 'JSONRPC' ? SDK_AGENT_JSONRPC_PATH : SDK_AGENT_REST_PATH}`,
    protocolBinding: binding,
    tenant: '',
    protocolVersion: '1.0',
  }));
  const endpoint = interfaces[0]?.url ?? '';

  // The card must name the real endpoint, known only once the port is: routes are mounted now,
  // before the URL is handed to anyone, so no request can arrive first.
  const convention = options.convention ?? 'directives';
  const card = sdkEchoCard(interfaces, options.streaming ?? true, options.push ?? false, convention === 'directives');
  // validateInputModes (off by default) makes the SDK refuse parts whose mediaType the card's
  // defaultInputModes leave out with ContentTypeNotSupportedError, as §3.1.1 asks.
  const pushStore =
    options.pushStore ?? (options.push === true || options.pushSender !== undefined ? new InMemoryPushNotificationStore() : undefined);
  const requestHandler = new DefaultRequestHandler(
    card,
    new InMemoryTaskStore(),
    new EchoExecutor(convention === 'directives' ? directivePlan : convention === 'tck' ? tckPlan : echoPlan),
    undefined,
    pushStore,
    pushStore === undefined ? undefined : (options.pushSender?.(pushStore) ?? new DefaultPushNotificationSender(loopbackOnly(pushStore))),
    undefined,
    undefined,
    { validateInputModes: true },
  );
  app.use('/.well-known/agent-card.json', agentCardHandler({ agentCardProvider: requestHandler }));
  if (bindings.includes('JSONRPC'))
    app.use(SDK_AGENT_JSONRPC_PATH, jsonRpcHandler({ requestHandler, userBuilder: UserBuilder.noAuthentication }));
  if (bindings.includes('HTTP+JSON'))
    app.use(SDK_AGENT_REST_PATH, restHandler({ requestHandler, userBuilder: UserBuilder.noAuthentication }));

  return {
    url,
    endpoint,
    card,
    sdkLog: () => sdkConsole.lines(),
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()));
        // Streams the SDK keeps open (e.g. after AUTH_REQUIRED) would hold close() forever.
        server.closeAllConnections();
      }).finally(() => sdkConsole.stop()),
  };
}

/** The configs of `store` a sender may deliver to: those whose webhook is on this machine's loopback. */
function loopbackOnly(store: PushNotificationStore): PushNotificationStore {
  return {
    save: (taskId, context, config) => store.save(taskId, context, config),
    delete: (taskId, context, configId) => store.delete(taskId, context, configId),
    load: async (taskId, context) => (await store.load(taskId, context)).filter((config) => isLoopbackUrl(config.url)),
  };
}

function isLoopbackUrl(url: string): boolean {
  try {
    const { hostname } = new URL(url);
    return hostname === 'localhost' || hostname === '[::1]' || /^127\.\d+\.\d+\.\d+$/.test(hostname);
  } catch {
    return false;
  }
}

function sdkEchoCard(
  supportedInterfaces: AgentCard['supportedInterfaces'],
  streaming: boolean,
  push: boolean,
  advertiseDirectives: boolean,
): AgentCard {
  return {
    name: 'sdk-echo',
    description: 'Echoes every message back as an artifact; an @a2a-js/sdk agent that follows the a2a-hub test directives.',
    supportedInterfaces,
    provider: undefined,
    version: '1.0.0',
    capabilities: {
      streaming,
      // With this flag the DefaultRequestHandler creates its in-memory push store and sender itself.
      pushNotifications: push,
      extendedAgentCard: false,
      extensions: advertiseDirectives
        ? [
            {
              uri: TEST_DIRECTIVES_URI,
              description: 'Follows the a2a-hub test directives (docs/test-directives.md).',
              required: false,
              params: undefined,
            },
          ]
        : [],
    },
    securitySchemes: {},
    securityRequirements: [],
    defaultInputModes: ['text/plain', 'application/json'],
    defaultOutputModes: ['text/plain'],
    skills: [
      {
        id: 'chat',
        name: 'Chat',
        description: 'Replies `echo: <your text>`; directives such as ::input-required or ::slow 5 pick the lifecycle.',
        tags: ['chat', 'echo', 'test'],
        examples: ['hello', '::input-required', '::slow 5'],
        inputModes: ['text/plain', 'application/json'],
        outputModes: ['text/plain'],
        securityRequirements: [],
      },
    ],
    signatures: [],
  };
}

// --- The test directives (docs/test-directives.md) ---

export type Outcome = 'completed' | 'input-required' | 'auth-required' | 'failed' | 'rejected' | 'message';

export interface Directive {
  outcome: Outcome;
  steps: number;
  stepMs: number;
  chunks: number;
}

/** What the executor does with one message: the convention (directives, TCK prefixes, none) decides. */
export interface Plan {
  readonly outcome: Outcome;
  /** Steps of work before the outcome, stepMs each; with `progress`, each reported as a WORKING update. */
  readonly steps: number;
  readonly stepMs: number;
  readonly progress: boolean;
  /** The reply artifact's text, chunk by chunk; none: no artifact. */
  readonly chunks?: readonly string[];
  /** The text of the reply Message (outcome `message`) or of the final status message. */
  readonly text?: string;
}

export type Planner = (message: Message, resumed: boolean) => Plan;

/** The test directives (docs/test-directives.md): the reply echoes the message in the chunks asked for. */
function directivePlan(message: Message): Plan {
  const directive = parseDirective(message);
  return { ...directive, progress: true, chunks: split(`echo: ${echoOf(message.parts)}`, directive.chunks) };
}

/** A plain echo agent: every message completes at once with the echo artifact, in two chunks. */
function echoPlan(message: Message): Plan {
  return { outcome: 'completed', steps: 0, stepMs: 0, progress: false, chunks: split(`echo: ${echoOf(message.parts)}`, 2) };
}

const OUTCOMES: readonly Outcome[] = ['completed', 'input-required', 'auth-required', 'failed', 'rejected', 'message'];
const TEXT_OUTCOMES: Readonly<Record<string, Outcome>> = {
  complete: 'completed',
  'input-required': 'input-required',
  'auth-required': 'auth-required',
  fail: 'failed',
  reject: 'rejected',
  message: 'message',
};

function parseDirective(message: Message): Directive {
  return directiveOf(textOf(message.parts), message.metadata);
}

/** The directive of a message's text and metadata (shared with the 0.3 agent, ./sdk03-agent.ts). */
export function directiveOf(text: string, metadata: Readonly<Record<string, unknown>> | undefined): Directive {
  // Two chunks unless asked otherwise (the convention's own default, 3, is the echo preset's).
  const directive: Directive = { outcome: 'completed', steps: 0, stepMs: 100, chunks: 2 };
  for (const line of text.split('\n')) {
    const match = /^::([a-z-]+)(?:\s+(\d+))?\s*$/.exec(line.trim());
    if (!match?.[1]) continue;
    const outcome = TEXT_OUTCOMES[match[1]];
    if (outcome !== undefined) directive.outcome = outcome;
    else if (match[1] === 'slow') directive.steps = bounded(Number(match[2] ?? 10), 0, 1000);
    else if (match[1] === 'chunks') directive.chunks = bounded(Number(match[2] ?? 3), 1, 100);
  }
  const meta: unknown = metadata?.[DIRECTIVE_KEY];
  if (typeof meta === 'object' && meta !== null) {
    const { outcome, steps, stepMs, chunks } = meta as Record<string, unknown>;
    if (typeof outcome === 'string' && (OUTCOMES as readonly string[]).includes(outcome)) directive.outcome = outcome as Outcome;
    if (typeof steps === 'number') directive.steps = bounded(steps, 0, 1000);
    if (typeof stepMs === 'number') directive.stepMs = bounded(stepMs, 0, 10_000);
    if (typeof chunks === 'number') directive.chunks = bounded(chunks, 1, 100);
  }
  return directive;
}

function bounded(value: number, min: number, max: number): number {
  return Number.isFinite(value) ? Math.min(Math.max(min, Math.floor(value)), max) : min;
}

function textOf(parts: readonly Part[]): string {
  return parts.map((part) => (part.content?.$case === 'text' ? part.content.value : '')).join('\n');
}

/** What the message said, directive lines removed and non-text parts named. */
function echoOf(parts: readonly Part[]): string {
  return parts
    .map((part) => {
      const content = part.content;
      if (content?.$case === 'text') return content.value.replace(/^\s*::.*$/gm, '').trim();
      const kind = content?.$case === 'raw' ? 'file' : content?.$case === 'url' ? `link ${content.value}` : 'data';
      return `[${kind}${part.filename ? ` ${part.filename}` : ''}${part.mediaType ? ` ${part.mediaType}` : ''}]`;
    })
    .filter((text) => text !== '')
    .join('\n');
}

function split(text: string, count: number): string[] {
  const size = Math.max(1, Math.ceil(text.length / count));
  const chunks: string[] = [];
  for (let start = 0; start < text.length; start += size) chunks.push(text.slice(start, start + size));
  return chunks.length > 0 ? chunks : [''];
}

// --- The executor ---

function textPart(text: string): Part {
  return { content: { $case: 'text', value: text }, metadata: undefined, filename: '', mediaType: 'text/plain' };
}

function agentMessage(text: string, contextId: string, taskId = ''): Message {
  return {
    messageId: crypto.randomUUID(),
    contextId,
    taskId,
    role: Role.ROLE_AGENT,
    parts: [textPart(text)],
    metadata: undefined,
    extensions: [],
    referenceTaskIds: [],
  };
}

const TERMINAL = new Set([
  TaskState.TASK_STATE_COMPLETED,
  TaskState.TASK_STATE_FAILED,
  TaskState.TASK_STATE_CANCELED,
  TaskState.TASK_STATE_REJECTED,
]);

class EchoExecutor implements AgentExecutor {
  constructor(private readonly plan: Planner) {}

  /** Executions in progress, aborted by cancelTask. */
  private readonly running = new Map<string, AbortController>();
  /** contextId of every task not yet in a terminal state, so that cancelTask can publish for it. */
  private readonly open = new Map<string, string>();

  execute = async (requestContext: RequestContext, eventBus: ExecutionEventBus): Promise<void> => {
    const { taskId, contextId, userMessage } = requestContext;
    const existing = requestContext.task;
    const plan = this.plan(userMessage, existing !== undefined);
    // The SDK's way to use an extension: the executor activates it, and the transport then lists
    // it in the A2A-Extensions response header (of a blocking call).
    if (requestContext.context.requestedExtensions?.includes(TEST_DIRECTIVES_URI))
      requestContext.context.addActivatedExtension(TEST_DIRECTIVES_URI);

    if (plan.outcome === 'message' && existing === undefined) {
      eventBus.publish(AgentEvent.message(agentMessage(plan.text ?? `echo: ${echoOf(userMessage.parts)}`, contextId)));
      return;
    }

    const controller = new AbortController();
    this.running.set(taskId, controller);
    this.open.set(taskId, contextId);
    const status = (state: TaskState, text?: string): void => {
      if (controller.signal.aborted) return;
      if (TERMINAL.has(state)) this.open.delete(taskId);
      eventBus.publish(
        AgentEvent.statusUpdate({
          taskId,
          contextId,
          status: {
            state,
            message: text === undefined ? undefined : agentMessage(text, contextId, taskId),
            timestamp: new Date().toISOString(),
          },
          metadata: undefined,
        }),
      );
    };

    try {
      // Every execution opens with a Task event, follow-up turns included (the SDK enforces it).
      const task: Task = existing ?? {
        id: taskId,
        contextId,
        status: { state: TaskState.TASK_STATE_SUBMITTED, message: undefined, timestamp: new Date().toISOString() },
        artifacts: [],
        history: [userMessage],
        metadata: undefined,
      };
      eventBus.publish(AgentEvent.task(task));
      status(TaskState.TASK_STATE_WORKING);

      for (let step = 1; step <= plan.steps; step += 1) {
        await sleep(plan.stepMs, undefined, { signal: controller.signal }).catch(() => undefined);
        if (controller.signal.aborted) return;
        if (plan.progress) status(TaskState.TASK_STATE_WORKING, `step ${step} of ${plan.steps}`);
      }

      // A resumed task completes unless the follow-up carries a directive of its own.
      switch (plan.outcome) {
        case 'input-required':
          return status(TaskState.TASK_STATE_INPUT_REQUIRED, 'sdk-echo needs more input: send another message with this taskId');
        case 'auth-required':
          return status(
            TaskState.TASK_STATE_AUTH_REQUIRED,
            'sdk-echo needs authentication: send another message with this taskId once authorised',
          );
        case 'failed':
          return status(TaskState.TASK_STATE_FAILED, 'sdk-echo failed as the test directive asked');
        case 'rejected':
          return status(TaskState.TASK_STATE_REJECTED, 'sdk-echo rejected the task as the test directive asked');
        default:
          break;
      }

      const chunks = plan.chunks ?? [];
      const artifactId = crypto.randomUUID();
      chunks.forEach((chunk, index) => {
        if (controller.signal.aborted) return;
        const artifact: Artifact = {
          artifactId,
          name: 'echo',
          description: '',
          parts: [textPart(chunk)],
          metadata: undefined,
          extensions: [],
        };
        eventBus.publish(
          AgentEvent.artifactUpdate({
            taskId,
            contextId,
            artifact,
            append: index > 0,
            lastChunk: index === chunks.length - 1,
            metadata: undefined,
          }),
        );
      });
      status(TaskState.TASK_STATE_COMPLETED, plan.text);
    } finally {
      if (this.running.get(taskId) === controller) this.running.delete(taskId);
    }
  };

  /**
   * DefaultRequestHandler.cancelTask waits on the task's bus for a terminal event, so one is
   * published here: for a running execution (which stops at once) and for a task parked in an
   * interrupted state alike.
   */
  cancelTask = (taskId: string, eventBus: ExecutionEventBus): Promise<void> => {
    this.running.get(taskId)?.abort();
    const contextId = this.open.get(taskId);
    if (contextId !== undefined) {
      this.open.delete(taskId);
      eventBus.publish(
        AgentEvent.statusUpdate({
          taskId,
          contextId,
          status: {
            state: TaskState.TASK_STATE_CANCELED,
            message: agentMessage('sdk-echo canceled the task', contextId, taskId),
            timestamp: new Date().toISOString(),
          },
          metadata: undefined,
        }),
      );
    }
    return Promise.resolve();
  };
}
