import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { AgentCard, Message, Part, Task, TaskState } from 'a2a-sdk-03';
import {
  DefaultPushNotificationSender,
  DefaultRequestHandler,
  InMemoryPushNotificationStore,
  InMemoryTaskStore,
  type AgentExecutor,
  type ExecutionEventBus,
  type RequestContext,
} from 'a2a-sdk-03/server';
import { A2AExpressApp, restHandler, UserBuilder } from 'a2a-sdk-03/server/express';
import express from 'express';
import { directiveOf, listenOnLoopback } from './sdk-agent.js';

/**
 * A third-party A2A 0.3 agent, built only with the last 0.3 release of the official
 * @a2a-js/sdk (0.3.14, installed as `a2a-sdk-03`) the way its README builds one: an AgentExecutor
 * on an ExecutionEventBus, a DefaultRequestHandler over an InMemoryTaskStore and
 * InMemoryPushNotificationStore, and A2AExpressApp serving the card at the well-known path and
 * JSON-RPC at `/`. a2a-hub's client, outbound connections, relay preset and conformance suite
 * are proven against it.
 *
 * "sdk03-echo" answers `echo: <text>` as an artifact in two chunks and follows the directives of
 * docs/test-directives.md (text lines or metadata: `::input-required`, `::auth-required`,
 * `::slow N`, `::fail`, `::reject`, `::message`), with sdk-echo's status messages; a follow-up
 * to an interrupted task completes it.
 */

export interface Sdk03Agent {
  /** The agent's base URL: its card is at /.well-known/agent-card.json, its JSON-RPC endpoint is the URL itself. */
  readonly url: string;
  /** The JSON-RPC endpoint (served whether the card declares it or not). */
  readonly endpoint: string;
  /** The SDK's HTTP+JSON binding (its `/v1` routes below it), when the card declares it. */
  readonly restEndpoint: string | undefined;
  readonly card: AgentCard;
  /** The ids of the tasks the agent was asked to cancel, in order: what proves a cancel reached it. */
  canceled(): readonly string[];
  /** The errors the SDK logged while the agent was open, kept out of the test output. */
  sdkLog(): string[];
  close(): Promise<void>;
}

export interface Sdk03AgentOptions {
  /** A bearer token the JSON-RPC endpoint requires (the card declares the scheme); none by default. */
  readonly token?: string;
  /**
   * The bindings the card declares, the preferred (the card's `url`) first: JSON-RPC at `/`, and
   * HTTP+JSON (the SDK's `restHandler`) at `/rest`. Default JSON-RPC only.
   */
  readonly bindings?: readonly ('JSONRPC' | 'HTTP+JSON')[];
}

/** Starts sdk03-echo on 127.0.0.1, on a port of the system's choosing. */
export async function startSdk03Agent(options: Sdk03AgentOptions = {}): Promise<Sdk03Agent> {
  const app = express();
  const { server, url, sdkConsole } = await listenOnLoopback(app);
  const endpoint = `${url}/`;
  const bindings = options.bindings ?? ['JSONRPC'];
  const restEndpoint = bindings.includes('HTTP+JSON') ? `${url}/rest` : undefined;
  const interfaces = bindings.map((binding) => ({ url: binding === 'JSONRPC' ? endpoint : `${url}/rest`, transport: binding }));
  const card = sdk03Card(interfaces, options.token !== undefined);
  const pushStore = new InMemoryPushNotificationStore();
  const executor = new Echo03Executor();
  const requestHandler = new DefaultRequestHandler(
    card,
    new InMemoryTaskStore(),
    executor,
    undefined,
    pushStore,
    new DefaultPushNotificationSender(pushStore),
  );
  const token = options.token;
  const middlewares =
    token === undefined
      ? []
      : [
          (request: express.Request, response: express.Response, next: express.NextFunction) => {
            if (request.method !== 'POST' || request.header('authorization') === `Bearer ${token}`) return next();
            response.status(401).set('WWW-Authenticate', 'Bearer').json({ error: 'unauthenticated' });
          },
        ];
  if (restEndpoint !== undefined)
    app.use('/rest', ...middlewares, restHandler({ requestHandler, userBuilder: UserBuilder.noAuthentication }));
  new A2AExpressApp(requestHandler).setupRoutes(app, '', middlewares);
  return {
    url,
    endpoint,
    restEndpoint,
    card,
    canceled: () => [...executor.canceled],
    sdkLog: () => sdkConsole.lines(),
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()));
        server.closeAllConnections();
      }).finally(() => sdkConsole.stop()),
  };
}

function sdk03Card(interfaces: readonly { url: string; transport: string }[], bearer: boolean): AgentCard {
  const [preferred] = interfaces;
  if (preferred === undefined) throw new Error('sdk03-echo needs at least one binding');
  return {
    protocolVersion: '0.3.0',
    name: 'sdk03-echo',
    description: 'Echoes every message back as an artifact; an @a2a-js/sdk 0.3 agent that follows the a2a-hub text directives.',
    url: preferred.url,
    preferredTransport: preferred.transport,
    additionalInterfaces: [...interfaces],
    version: '0.3.14',
    capabilities: { streaming: true, pushNotifications: true, stateTransitionHistory: false },
    ...(bearer ? { securitySchemes: { bearer: { type: 'http', scheme: 'bearer' } }, security: [{ bearer: [] }] } : {}),
    defaultInputModes: ['text/plain'],
    defaultOutputModes: ['text/plain'],
    skills: [
      {
        id: 'chat',
        name: 'Chat',
        description: 'Replies `echo: <your text>`; ::input-required, ::slow N, ::fail and the other directives pick the lifecycle.',
        tags: ['chat', 'echo', 'test'],
        examples: ['hello', '::input-required'],
      },
    ],
    supportsAuthenticatedExtendedCard: false,
  };
}

function textOf(parts: readonly Part[]): string {
  return parts.map((part) => (part.kind === 'text' ? part.text : '')).join('\n');
}

function agentMessage(text: string, contextId: string, taskId?: string): Message {
  return { kind: 'message', messageId: randomUUID(), role: 'agent', parts: [{ kind: 'text', text }], contextId, taskId };
}

const NAME = 'sdk03-echo';

/** The status message of each interrupted or failed outcome, worded as sdk-echo words it. */
const OUTCOME_TEXT: Partial<Record<string, [TaskState, string]>> = {
  'input-required': ['input-required', `${NAME} needs more input: send another message with this taskId`],
  'auth-required': ['auth-required', `${NAME} needs authentication: send another message with this taskId once authorised`],
  failed: ['failed', `${NAME} failed as the test directive asked`],
  rejected: ['rejected', `${NAME} rejected the task as the test directive asked`],
};

class Echo03Executor implements AgentExecutor {
  readonly canceled: string[] = [];
  /** Executions in progress, aborted by cancelTask. */
  private readonly running = new Map<string, { controller: AbortController; contextId: string }>();

  execute = async (requestContext: RequestContext, eventBus: ExecutionEventBus): Promise<void> => {
    const { taskId, contextId, userMessage, task: existing } = requestContext;
    const text = textOf(userMessage.parts);
    // A follow-up to an interrupted task completes it; directives apply to a first message.
    const directive = existing === undefined ? directiveOf(text, userMessage.metadata) : directiveOf('', undefined);
    const echo = `echo: ${text.replace(/^\s*::.*$/gm, '').trim()}`;
    if (directive.outcome === 'message') {
      eventBus.publish(agentMessage(echo, contextId));
      eventBus.finished();
      return;
    }
    const controller = new AbortController();
    this.running.set(taskId, { controller, contextId });
    const status = (state: TaskState, final: boolean, message?: string): void => {
      eventBus.publish({
        kind: 'status-update',
        taskId,
        contextId,
        status: {
          state,
          timestamp: new Date().toISOString(),
          ...(message === undefined ? {} : { message: agentMessage(message, contextId, taskId) }),
        },
        final,
      });
    };
    try {
      const task: Task = existing ?? {
        kind: 'task',
        id: taskId,
        contextId,
        status: { state: 'submitted', timestamp: new Date().toISOString() },
        history: [userMessage],
      };
      eventBus.publish(task);
      status('working', false);
      for (let step = 0; step < directive.steps; step += 1) {
        await sleep(directive.stepMs, undefined, { signal: controller.signal }).catch(() => undefined);
        if (controller.signal.aborted) return;
      }
      const ending = OUTCOME_TEXT[directive.outcome];
      if (ending !== undefined) return status(ending[0], true, ending[1]);
      const artifactId = randomUUID();
      const half = Math.ceil(echo.length / 2);
      for (const [index, chunk] of [echo.slice(0, half), echo.slice(half)].entries()) {
        eventBus.publish({
          kind: 'artifact-update',
          taskId,
          contextId,
          artifact: { artifactId, name: 'echo', parts: [{ kind: 'text', text: chunk }] },
          append: index > 0,
          lastChunk: index === 1,
        });
      }
      status('completed', true);
    } finally {
      this.running.delete(taskId);
      if (!controller.signal.aborted) eventBus.finished();
    }
  };

  cancelTask = (taskId: string, eventBus: ExecutionEventBus): Promise<void> => {
    this.canceled.push(taskId);
    const running = this.running.get(taskId);
    running?.controller.abort();
    eventBus.publish({
      kind: 'status-update',
      taskId,
      contextId: running?.contextId ?? '',
      status: { state: 'canceled', timestamp: new Date().toISOString() },
      final: true,
    });
    eventBus.finished();
    return Promise.resolve();
  };
}
