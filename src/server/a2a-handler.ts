import { DEFAULTS } from '../../generated/a2a/1.0/defaults.js';
import { METHODS, type MethodName, type MethodTypes } from '../../generated/a2a/1.0/methods.js';
import { isTerminalState } from '../../generated/a2a/1.0/task-states.js';
import type { ListTasksResponse, SendMessageRequest, SendMessageResponse } from '../../generated/a2a/1.0/types.js';
import type { FieldViolationReason } from '../../generated/hub/field-violations.js';
import { a2aError } from '../protocol/a2a-error.js';
import { signingSecretHeaders } from '../protocol/push-headers.js';
import { admitsText, mediaRangeCovers, mediaTypeOfPart } from '../protocol/media-types.js';
import type { InlineRegistration, PushConfigService, PushScope } from '../push/push-configs.js';
import { InvalidCursorError, tenantOf, type EventLog, type TaskReads } from '../store/task-store.js';
import { toWireTask } from '../store/task-view.js';
import type { LogFunction } from '../support/log.js';
import type { TaskChannels } from '../tasks/task-channels.js';
import { asStorageError } from '../tasks/storage-errors.js';
import type { SendPush, TaskRuntime } from '../tasks/task-runtime.js';
import { FrameQueue } from './frame-queue.js';
import { requireStorable } from './storable-strings.js';
import { TaskFollower, type FollowDeps, type FollowTarget } from './task-follower.js';
import { GatewayHandler } from './gateway-handler.js';
import type { HostedAgent } from './hosted-agent.js';

/** What the transport knows about the call, beyond the params. */
export interface CallContext {
  readonly agent: HostedAgent;
  /** Scheme, host and port the client used, for absolute URLs in cards. */
  readonly baseUrl: string;
  /** Last-Event-ID of a reconnecting stream client. */
  readonly lastEventId?: number;
  readonly signal?: AbortSignal;
}

export interface HandlerOptions {
  /** End every stream of a task with the full Task after its terminal status update (spec §11.7, seed 001 §2.4.1). */
  readonly finalTask: boolean;
  /** The push-config methods and inline configs; without it every agent answers them as one without push. */
  readonly push?: PushConfigService;
  /** Replicas share the store: streams read frames other replicas log (FollowDeps.shared). */
  readonly shared?: boolean;
  readonly log?: LogFunction;
}

/** Response headers a result asks every binding to send, by name as sent. */
export type ResponseHeaders = Readonly<Record<string, string>>;

export type CallResult = (
  { readonly kind: 'result'; readonly result: unknown } | { readonly kind: 'stream'; readonly frames: FrameQueue }
) & { readonly headers?: ResponseHeaders };

/** The call as the methods see it: the tenant the request names ('' for none) scopes every task it touches. */
interface ScopedCall extends CallContext {
  readonly tenant: string;
}

type MethodHandler<M extends MethodName> = (params: MethodTypes[M]['params'], context: ScopedCall) => CallResult | Promise<CallResult>;
type MethodHandlers = { readonly [M in MethodName]: MethodHandler<M> };

/**
 * The 11 A2A methods over already-validated params, with no knowledge of JSON-RPC, HTTP or
 * SSE: results are values, streams are FrameQueues, failures are thrown A2AErrors. A second
 * binding (HTTP+JSON) reuses it unchanged.
 */
export class A2AHandler {
  /** Streams following a task live, so that shutdown can end those no task will end. */
  readonly #following = new Set<FrameQueue>();
  readonly #followDeps: FollowDeps;
  /** Seed 004's gateway methods, beside A2A's own (gateway-handler.ts). */
  readonly gateway: GatewayHandler;

  constructor(
    private readonly runtime: TaskRuntime,
    private readonly channels: TaskChannels,
    private readonly store: TaskReads & EventLog,
    private readonly options: HandlerOptions = { finalTask: true },
  ) {
    this.gateway = new GatewayHandler(runtime, store);
    this.#followDeps = { runtime, channels, events: store, shared: options.shared === true, ...(options.log ? { log: options.log } : {}) };
  }

  /**
   * Ends every stream still following a task. Call at shutdown once the tasks are settled and
   * their last frames published: what is left are subscriptions to interrupted tasks, which
   * would otherwise wait for a follow-up message that can no longer come.
   */
  endStreams(): void {
    for (const frames of [...this.#following]) frames.end();
  }

  /**
   * One entry per method of the registry: a method added to spec/a2a/1.0/methods.json does not
   * compile until it has a handler here.
   */
  readonly #methods: MethodHandlers = {
    SendMessage: (params, context) => this.#sendMessage(params, context),
    SendStreamingMessage: (params, context) => this.#sendStreamingMessage(params, context),
    GetTask: async ({ id, historyLength }, context) => ({
      kind: 'result',
      result: await this.runtime.getTask(context.agent.id, id, { tenant: context.tenant, ...historyView(historyLength) }),
    }),
    ListTasks: async (params, context) => ({ kind: 'result', result: await this.#listTasks(params, context) }),
    CancelTask: async ({ id }, context) => ({
      kind: 'result',
      result: await this.runtime.cancel(context.agent.id, id, { tenant: context.tenant }),
    }),
    SubscribeToTask: async ({ id }, context) => ({ kind: 'stream', frames: await this.#subscribe(id, context) }),
    GetExtendedAgentCard: (_params, context) => ({ kind: 'result', result: context.agent.card(context.baseUrl) }),
    // The capability check has let these through only for an agent that declares push.
    CreateTaskPushNotificationConfig: async (params, context) => {
      const registered = await this.#push().create(scopeOf(context), params);
      return { kind: 'result', result: registered.config, headers: secretHeader(registered.signingSecret) };
    },
    GetTaskPushNotificationConfig: async ({ taskId, id }, context) => ({
      kind: 'result',
      result: await this.#push().get(scopeOf(context), taskId, id),
    }),
    ListTaskPushNotificationConfigs: async (params, context) => ({
      kind: 'result',
      result: await this.#push().list(scopeOf(context), params),
    }),
    DeleteTaskPushNotificationConfig: async ({ taskId, id }, context) => {
      await this.#push().delete(scopeOf(context), taskId, id);
      return { kind: 'result', result: {} };
    },
  };

  #push(): PushConfigService {
    return this.options.push ?? pushNotSupported();
  }

  async call<M extends MethodName>(method: M, params: MethodTypes[M]['params'], context: CallContext): Promise<CallResult> {
    requireStorable(params);
    const tenant = tenantOf(params);
    requireServedTenant(context.agent, tenant);
    this.#requireCapability(method, context.agent);
    // TypeScript cannot correlate the method with its entry's parameter type; the table is typed per method.
    const handle = this.#methods[method] as MethodHandler<M>;
    try {
      return await handle(params, { ...context, tenant });
    } catch (error) {
      // A store that cannot be read or written now is the storage's failure, not the request's: said so, and retryable.
      throw asStorageError(error, `${method} could not be served`);
    }
  }

  #requireCapability(method: MethodName, agent: HostedAgent): void {
    const capability = METHODS[method].capability;
    if (capability === null || agent.capabilities[capability]) return;
    if (capability === 'pushNotifications') {
      throw a2aError(
        'PushNotificationNotSupportedError',
        'push notifications are not supported: the agent card declares capabilities.pushNotifications false',
      );
    }
    throw a2aError('UnsupportedOperationError', `${method} needs capabilities.${capability}, which this agent does not declare`);
  }

  /**
   * The inline push config of a send, checked before any task exists (a bad one fails the send
   * and creates nothing); the runtime registers it in the write that creates or continues the task.
   */
  async #inlinePush(params: SendMessageRequest, context: ScopedCall): Promise<InlineRegistration | undefined> {
    const config = params.configuration?.taskPushNotificationConfig;
    if (config === undefined) return undefined;
    const prefix = 'configuration.taskPushNotificationConfig';
    const prepared = this.#push().prepareInline(config, prefix, {
      tenant: context.tenant,
      ...(params.message.taskId === undefined ? {} : { taskId: params.message.taskId }),
    });
    await this.#push().screenDestination(config, prefix);
    return prepared;
  }

  /** Checks shared by both send methods, before any task is created. */
  #checkSend(params: SendMessageRequest, agent: HostedAgent): void {
    const configuration = params.configuration;
    if (configuration?.taskPushNotificationConfig !== undefined && !(agent.capabilities.pushNotifications && this.options.push)) {
      throw a2aError(
        'PushNotificationNotSupportedError',
        'configuration.taskPushNotificationConfig was given, but this agent does not support push notifications',
      );
    }
    const refused = params.message.parts
      .map(mediaTypeOfPart)
      .find((type) => !agent.inputModes.some((mode) => mediaRangeCovers(mode, type)));
    if (refused !== undefined) {
      throw a2aError(
        'ContentTypeNotSupportedError',
        `this agent does not accept ${refused} parts; it accepts ${agent.inputModes.join(', ')}`,
        {
          metadata: { mediaType: refused, inputModes: agent.inputModes.join(',') },
        },
      );
    }
    const accepted = configuration?.acceptedOutputModes ?? [];
    if (accepted.length > 0 && !accepted.some(admitsText)) {
      throw a2aError(
        'ContentTypeNotSupportedError',
        `this agent replies with text only; acceptedOutputModes ${accepted.join(', ')} excludes every text mode`,
        {
          metadata: { acceptedOutputModes: accepted.join(',') },
        },
      );
    }
  }

  async #sendMessage(params: SendMessageRequest, context: ScopedCall): Promise<CallResult> {
    this.#checkSend(params, context.agent);
    const push = await this.#inlinePush(params, context);
    const response = await this.#sendAnswer(params, context, push);
    return withHeaders({ kind: 'result', result: response }, registeredSecret(push));
  }

  async #sendAnswer(params: SendMessageRequest, context: ScopedCall, push: SendPush | undefined): Promise<SendMessageResponse> {
    const outcome = await this.runtime.send(context.agent, params, {
      acceptedOutputModes: params.configuration?.acceptedOutputModes ?? [],
      ...(push === undefined ? {} : { push }),
    });
    if (outcome.kind === 'message') return { message: outcome.message };
    const view = historyView(params.configuration?.historyLength);
    if (params.configuration?.returnImmediately !== true) {
      const settled = await this.runtime.settled(outcome.taskId);
      if (settled !== undefined) return { task: toWireTask(settled, view) };
    }
    return { task: await this.runtime.getTask(context.agent.id, outcome.taskId, { tenant: context.tenant, ...view }) };
  }

  async #sendStreamingMessage(params: SendMessageRequest, context: ScopedCall): Promise<CallResult> {
    this.#checkSend(params, context.agent);
    const push = await this.#inlinePush(params, context);
    const frames = new FrameQueue();
    let following: Promise<void> | undefined;
    const outcome = await this.runtime.send(context.agent, params, {
      acceptedOutputModes: params.configuration?.acceptedOutputModes ?? [],
      streaming: true,
      ...(push === undefined ? {} : { push }),
      onTask: (taskId, created) => {
        const view = historyView(params.configuration?.historyLength);
        const follower = this.#follow(frames, { instanceId: context.agent.id, tenant: context.tenant, taskId, view, kind: 'turn' });
        // A task created by this very request has logged no frame yet, and is what `created` says.
        if (created !== undefined) follower.start({ task: toWireTask(created, view), seq: 0 });
        else following = follower.startFromStore();
      },
    });
    await following;
    if (outcome.kind === 'message') {
      frames.push({ message: outcome.message }, 0);
      frames.end();
    }
    return withHeaders({ kind: 'stream', frames }, registeredSecret(push));
  }

  async #subscribe(taskId: string, context: ScopedCall): Promise<FrameQueue> {
    const frames = new FrameQueue();
    // With Last-Event-ID the client resumes a stream that dropped, so it ends where that turn ended.
    const kind = context.lastEventId === undefined ? 'subscription' : 'turn';
    const follower = this.#follow(frames, {
      instanceId: context.agent.id,
      tenant: context.tenant,
      taskId,
      view: {},
      kind,
      ...(context.lastEventId === undefined ? {} : { lastEventId: context.lastEventId }),
    });
    await follower.startFromStore((task) => {
      if (!isTerminalState(task.status.state)) return;
      throw a2aError(
        'UnsupportedOperationError',
        `task ${taskId} is already ${task.status.state}; SubscribeToTask serves tasks that are not terminal (use GetTask)`,
        { metadata: { taskId, state: task.status.state } },
      );
    });
    return frames;
  }

  /** A follower of the task for this stream, which shutdown can end (endStreams). */
  #follow(frames: FrameQueue, target: Omit<FollowTarget, 'finalTask'>): TaskFollower {
    const follower = new TaskFollower(this.#followDeps, { ...target, finalTask: this.options.finalTask }, frames);
    this.#following.add(frames);
    frames.onDetach(() => this.#following.delete(frames));
    return follower;
  }

  async #listTasks(params: MethodTypes['ListTasks']['params'], context: ScopedCall): Promise<ListTasksResponse> {
    const pageSize = params.pageSize ?? DEFAULTS.ListTasksRequest.pageSize;
    try {
      const page = await this.store.listTasks(context.agent.id, {
        tenant: context.tenant,
        pageSize,
        ...(params.contextId ? { contextId: params.contextId } : {}),
        ...(params.status === undefined ? {} : { state: params.status }),
        ...(params.statusTimestampAfter === undefined ? {} : { statusTimestampAfter: params.statusTimestampAfter }),
        ...(params.pageToken ? { cursor: params.pageToken } : {}),
        ...historyView(params.historyLength),
        includeArtifacts: params.includeArtifacts === true,
      });
      return { tasks: page.tasks, nextPageToken: page.nextCursor, pageSize, totalSize: page.totalSize };
    } catch (error) {
      if (!(error instanceof InvalidCursorError)) throw error;
      throw a2aError('InvalidParamsError', error.message, {
        violations: [{ field: 'pageToken', description: 'is not a page token from this server for this query; start again without it' }],
      });
    }
  }
}

/**
 * An agent that names its tenants (spec §8.3.2) serves only requests under one of them: the
 * others, and requests under no tenant, are refused before anything else happens, on every
 * binding alike. The refusal lists them: which tenants an agent serves is its own configuration,
 * the kind of thing its card says, not another tenant's data.
 */
function requireServedTenant(agent: HostedAgent, tenant: string): void {
  const tenants = agent.tenants;
  if (tenants === undefined || tenants.includes(tenant)) return;
  const served = tenants.length === 0 ? 'no tenant' : tenants.map((name) => JSON.stringify(name)).join(', ');
  const asked = tenant === '' ? 'a request under no tenant' : `tenant ${JSON.stringify(tenant)}`;
  throw a2aError('InvalidParamsError', `this agent does not serve ${asked}; it serves ${served}`, {
    violations: [
      {
        field: 'tenant',
        description: tenants.length === 0 ? 'names a tenant this agent does not serve' : `must be one of ${served}`,
        reason: 'INVALID_VALUE' satisfies FieldViolationReason,
      },
    ],
  });
}

function historyView(historyLength: number | undefined): { historyLength?: number } {
  return historyLength === undefined ? {} : { historyLength };
}

function scopeOf(context: ScopedCall): PushScope {
  return { instanceId: context.agent.id, tenant: context.tenant };
}

function secretHeader(signingSecret: string): ResponseHeaders {
  return signingSecretHeaders(signingSecret);
}

/** The inline config's secret, once the runtime registered it: not for a direct reply, nor for a resend. */
function registeredSecret(push: InlineRegistration | undefined): ResponseHeaders | undefined {
  return push?.registered === true ? secretHeader(push.signingSecret) : undefined;
}

function withHeaders(result: CallResult, headers: ResponseHeaders | undefined): CallResult {
  return headers === undefined ? result : { ...result, headers };
}

function pushNotSupported(): never {
  throw a2aError('PushNotificationNotSupportedError', 'push notifications are not supported by this agent');
}
