import { isThisProtocolVersion as is03, PROTOCOL_VERSION as VERSION_03 } from '../../generated/a2a/0.3/protocol.js';
import type { MethodName, MethodTypes } from '../../generated/a2a/1.0/methods.js';
import { PROTOCOL_VERSION } from '../../generated/a2a/1.0/protocol.js';
import type {
  AgentCard,
  CancelTaskRequest,
  DeleteTaskPushNotificationConfigRequest,
  GetTaskPushNotificationConfigRequest,
  GetTaskRequest,
  ListTaskPushNotificationConfigsRequest,
  ListTaskPushNotificationConfigsResponse,
  ListTasksRequest,
  ListTasksResponse,
  SendMessageRequest,
  SendMessageResponse,
  StreamResponse,
  SubscribeToTaskRequest,
  Task,
  TaskPushNotificationConfig,
} from '../../generated/a2a/1.0/types.js';
import type { ClientBinding, StreamingMethod } from './binding.js';
import { resolveCard, type InterfaceChoice, type ResolvedCard } from './card-resolver.js';
import { HttpTransport } from './http-transport.js';
import {
  everyPage,
  signingSecretHook,
  signingSecretOf,
  withConfigId,
  withInlinePushConfig,
  type CreatedPushConfig,
  type PushSendOptions,
} from './push-configs.js';
import { JSONRPC_0_3 } from './jsonrpc-03.js';
import { JsonRpcBinding } from './jsonrpc-binding.js';
import { RestBinding } from './rest-binding.js';
import { Rest03Binding } from './rest-03.js';
import { DEFAULT_RETRY_BASE_MS, type RequestOptions } from './request-options.js';
import { followTaskStream, type StreamEvent, type TaskStreamOptions } from './task-stream.js';

/**
 * A2A 1.0 client. Every result and every stream frame is checked against the exact generated
 * validators; an answer that does not conform throws InvalidAgentResponse. This module keeps
 * what is the client's own (the methods, options and defaults, following a task stream and
 * cancelling after an abort) and is the client's public entry: the names of its sibling modules
 * (docs/client.md, "How the client is built") that callers use are exported from here.
 */

export { assembleArtifacts, textOf } from './artifacts.js';
export type { BindingCallOptions, BindingStreamOptions, ClientBinding, StreamingMethod } from './binding.js';
export {
  CLIENT_BINDINGS,
  fetchAgentCard,
  isClientBinding,
  noUsableInterface,
  pickInterface,
  pickJsonRpcInterface,
  type ClientBindingName,
  type FetchedCard,
  type InterfaceChoice,
} from './card-resolver.js';
export type { FetchLike } from './http-transport.js';
export type { CreatedPushConfig, InlinePushConfig, PushSendOptions } from './push-configs.js';
export type { StreamEvent } from './task-stream.js';
export { WEBHOOK_SECRET_HEADER } from '../protocol/push-headers.js';
export { A2ATransportError } from './transport-error.js';
export { DEFAULT_URL_POLICY, DestinationPolicyError, UrlPolicyError, type UrlPolicy } from '../net/destination-policy.js';
export { A2AError, isA2AError, type ErrorName } from '../protocol/a2a-error.js';
export { runRemoteTurn, type RemoteTurnOptions, type RemoteTurnResult } from './remote-run.js';

export interface ConnectOptions extends RequestOptions, InterfaceChoice {
  /** Re-subscribe (SubscribeToTask + Last-Event-ID) when a stream drops before a final state. Default `{ attempts: 3 }`. */
  readonly resume?: ResumeOption;
  /** Timeout of the CancelTask sent after a local abort. Default 5000. */
  readonly cancelTimeoutMs?: number;
  /** Told when the CancelTask sent after a local abort failed (the abort itself is still rethrown). */
  readonly onCancelError?: (error: unknown, taskId: string) => void;
}

export type ResumeOption = boolean | { readonly attempts: number };

export interface CallOptions {
  readonly signal?: AbortSignal;
}

export interface StreamOptions extends CallOptions {
  /** Overrides the client's `resume` for this stream. */
  readonly resume?: ResumeOption;
  /** Send CancelTask when `signal` aborts the stream after the task id is known. Default true. */
  readonly cancelOnAbort?: boolean;
}

export interface SendOptions extends CallOptions, PushSendOptions {}

export interface SendStreamOptions extends StreamOptions, PushSendOptions {}

export interface SubscribeOptions extends StreamOptions {
  /** Resume after this SSE event id (sent as Last-Event-ID). */
  readonly lastEventId?: string;
}

const DEFAULT_RESUME_ATTEMPTS = 3;
const DEFAULT_CANCEL_TIMEOUT_MS = 5000;

export class A2AClient {
  readonly card: AgentCard;
  readonly cardUrl: string;
  /** The interface URL taken from the card. */
  readonly endpoint: string;
  /** The binding the client speaks to it (`JSONRPC`, `HTTP+JSON`). */
  readonly protocolBinding: string;
  /**
   * The protocol version spoken on the wire: `1.0`, or `0.3` for an agent that offers no 1.x
   * interface the client speaks. Whichever it is, every method takes and returns 1.0 shapes.
   */
  readonly protocolVersion: string;
  private readonly binding: ClientBinding;
  private readonly options: ConnectOptions;

  /** A client over a binding of the caller's choosing (a test double, say); `connect` is the usual way in. */
  constructor(card: AgentCard, cardUrl: string, binding: ClientBinding, options: ConnectOptions = {}) {
    this.card = card;
    this.cardUrl = cardUrl;
    this.endpoint = binding.endpoint;
    this.protocolBinding = binding.protocolBinding;
    this.protocolVersion = binding.protocolVersion ?? PROTOCOL_VERSION;
    this.binding = binding;
    this.options = options;
  }

  /**
   * Resolves the card behind `url` (card URL or base URL), validates it and picks the first 1.x
   * interface whose binding the client speaks (`preferredBindings` first; only `binding` when
   * set). The card URL, every redirect hop and the interface URL must pass `urlPolicy`.
   */
  static async connect(url: string, options: ConnectOptions = {}): Promise<A2AClient> {
    // One transport for the card and the calls, so both share the policy and the connections.
    const transport = new HttpTransport(options);
    const resolved = await resolveCard(url, options, transport, options);
    return new A2AClient(resolved.card, resolved.cardUrl, bindingFor(resolved, options, transport), options);
  }

  /** SendMessage; `pushConfig` registers a webhook for the task (see PushSendOptions). */
  async sendMessage(params: SendMessageRequest, options: SendOptions = {}): Promise<SendMessageResponse> {
    const request = withInlinePushConfig('SendMessage', params, options.pushConfig);
    const onHeaders = signingSecretHook(options);
    return await this.binding.call('SendMessage', request, { signal: options.signal, ...(onHeaders === undefined ? {} : { onHeaders }) });
  }

  getTask(params: GetTaskRequest, options: CallOptions = {}): Promise<Task> {
    return this.call('GetTask', params, options);
  }

  listTasks(params: ListTasksRequest = {}, options: CallOptions = {}): Promise<ListTasksResponse> {
    return this.call('ListTasks', params, options);
  }

  cancelTask(params: CancelTaskRequest, options: CallOptions = {}): Promise<Task> {
    return this.call('CancelTask', params, options);
  }

  /**
   * Streams the answer. A dropped stream is resumed with SubscribeToTask (see `resume`), and an
   * abort through `signal` sends CancelTask for the task before the abort is rethrown.
   */
  async *sendStreamingMessage(
    params: SendMessageRequest,
    options: SendStreamOptions = {},
  ): AsyncGenerator<StreamResponse, void, undefined> {
    const continuation = params.message.taskId !== undefined;
    const request = withInlinePushConfig('SendStreamingMessage', params, options.pushConfig);
    // Only this first stream registers the config; a resumed one (SubscribeToTask) carries no secret.
    const onHeaders = signingSecretHook(options);
    const open = (): AsyncIterable<StreamEvent> =>
      this.binding.stream('SendStreamingMessage', request, { signal: options.signal, ...(onHeaders === undefined ? {} : { onHeaders }) });
    const events = this.followTask(open, params.tenant, options, { continuation });
    for await (const event of events) yield event.frame;
  }

  /** Like sendStreamingMessage, for an existing task; events carry their SSE id for a later `lastEventId`. */
  subscribeToTask(params: SubscribeToTaskRequest, options: SubscribeOptions = {}): AsyncGenerator<StreamEvent, void, undefined> {
    const lastEventId = options.lastEventId === undefined ? {} : { lastEventId: options.lastEventId };
    return this.followTask(() => this.stream('SubscribeToTask', params, options, options.lastEventId), params.tenant, options, lastEventId);
  }

  /**
   * CreateTaskPushNotificationConfig: registers a webhook for a task. Resolves to the stored
   * config and, from a2a-hub, the signing secret of its deliveries (returned this once only).
   * Without an `id` the client sends a fresh UUID, so a retry replaces rather than duplicates.
   */
  async createPushConfig(params: TaskPushNotificationConfig, options: CallOptions = {}): Promise<CreatedPushConfig> {
    let signingSecret: string | undefined;
    const config = await this.binding.call('CreateTaskPushNotificationConfig', withConfigId(params), {
      signal: options.signal,
      onHeaders: (headers) => (signingSecret = signingSecretOf(headers)),
    });
    return signingSecret === undefined ? { config } : { config, signingSecret };
  }

  getPushConfig(params: GetTaskPushNotificationConfigRequest, options: CallOptions = {}): Promise<TaskPushNotificationConfig> {
    return this.call('GetTaskPushNotificationConfig', params, options);
  }

  /** One page of a task's configs; `nextPageToken` (empty or absent on the last page) asks for the next. */
  listPushConfigs(
    params: ListTaskPushNotificationConfigsRequest,
    options: CallOptions = {},
  ): Promise<ListTaskPushNotificationConfigsResponse> {
    return this.call('ListTaskPushNotificationConfigs', params, options);
  }

  /** Every config of the task, page after page (`pageSize` sets the page size asked for). */
  listAllPushConfigs(
    params: Omit<ListTaskPushNotificationConfigsRequest, 'pageToken'>,
    options: CallOptions = {},
  ): AsyncGenerator<TaskPushNotificationConfig, void, undefined> {
    return everyPage((pageToken) => this.listPushConfigs(pageToken === undefined ? params : { ...params, pageToken }, options));
  }

  /** DeleteTaskPushNotificationConfig; deleting a config already deleted succeeds too (spec §3.1.10). */
  async deletePushConfig(params: DeleteTaskPushNotificationConfigRequest, options: CallOptions = {}): Promise<void> {
    await this.call('DeleteTaskPushNotificationConfig', params, options);
  }

  /**
   * CancelTask on its own short timeout (`cancelTimeoutMs`), for cleaning up after an abort:
   * never throws; a failure goes to `onCancelError` and resolves to undefined.
   */
  async cancelQuietly(taskId: string, tenant?: string): Promise<Task | undefined> {
    try {
      const signal = AbortSignal.timeout(this.options.cancelTimeoutMs ?? DEFAULT_CANCEL_TIMEOUT_MS);
      return await this.cancelTask({ id: taskId, ...(tenant === undefined ? {} : { tenant }) }, { signal });
    } catch (error) {
      this.options.onCancelError?.(error, taskId);
      return undefined;
    }
  }

  /** Calls a unary method and returns its validated result. */
  call<M extends MethodName>(method: M, params: MethodTypes[M]['params'], options: CallOptions = {}): Promise<MethodTypes[M]['result']> {
    return this.binding.call(method, params, { signal: options.signal });
  }

  private followTask(
    open: () => AsyncIterable<StreamEvent>,
    tenant: string | undefined,
    options: StreamOptions,
    start: Pick<TaskStreamOptions, 'lastEventId' | 'continuation'>,
  ): AsyncGenerator<StreamEvent, void, undefined> {
    const scope = tenant === undefined ? {} : { tenant };
    return followTaskStream(
      {
        open,
        resubscribe: (taskId, lastSeen) => this.stream('SubscribeToTask', { id: taskId, ...scope }, options, lastSeen),
        getTask: (taskId) => this.getTask({ id: taskId, ...scope }, options),
        cancel: (taskId) => this.cancelQuietly(taskId, tenant),
      },
      {
        resumeAttempts: resumeAttempts(options.resume ?? this.options.resume),
        retryBaseMs: this.options.retryBaseMs ?? DEFAULT_RETRY_BASE_MS,
        cancelOnAbort: options.cancelOnAbort ?? true,
        ...(options.signal === undefined ? {} : { signal: options.signal }),
        ...start,
      },
    );
  }

  private stream<M extends StreamingMethod>(
    method: M,
    params: MethodTypes[M]['params'],
    options: CallOptions,
    lastEventId: string | undefined,
  ): AsyncIterable<StreamEvent> {
    return this.binding.stream(method, params, { signal: options.signal, lastEventId });
  }
}

function bindingFor({ selected }: ResolvedCard, options: ConnectOptions, transport: HttpTransport): ClientBinding {
  // resolveCard only selects interfaces of CLIENT_BINDINGS, in 1.x or 0.3.
  const old = is03(selected.protocolVersion);
  if (selected.protocolBinding === 'HTTP+JSON')
    return old ? new Rest03Binding(selected.url, options, transport) : new RestBinding(selected.url, selected.tenant, options, transport);
  const version = old ? { protocolVersion: VERSION_03, dialect: JSONRPC_0_3 } : undefined;
  return new JsonRpcBinding(selected.url, options, transport, selected.tenant, version);
}

function resumeAttempts(option: ResumeOption | undefined): number {
  if (option === undefined || option === true) return DEFAULT_RESUME_ATTEMPTS;
  if (option === false) return 0;
  return Math.max(0, Math.floor(option.attempts));
}
