import { createParser, type EventSourceMessage } from 'eventsource-parser';
import { SPEC_ERROR_BY_CODE } from '../../generated/a2a/1.0/errors.js';
import { METHODS, type MethodName, type MethodTypes } from '../../generated/a2a/1.0/methods.js';
import { HEADERS, MEDIA_TYPES, PROTOCOL_VERSION, WELL_KNOWN_AGENT_CARD_PATH } from '../../generated/a2a/1.0/protocol.js';
import type {
  AgentCard,
  AgentInterface,
  Artifact,
  CancelTaskRequest,
  FieldViolation,
  GetTaskRequest,
  ListTasksRequest,
  ListTasksResponse,
  SendMessageRequest,
  SendMessageResponse,
  StreamResponse,
  SubscribeToTaskRequest,
  Task,
} from '../../generated/a2a/1.0/types.js';
import { a2aError, type A2AError } from '../protocol/a2a-error.js';
import { A2A_1_0, type A2ADefs } from '../protocol/a2a-schema.js';
import { projectToSchema } from '../protocol/project.js';
import { checkValue } from '../protocol/validation.js';
import { describeError } from '../support/describe-error.js';
import { setOwn } from '../support/own-property.js';
import { isRecord } from '../support/records.js';
import { backoff } from './backoff.js';
import { HttpTransport, type TransportOptions } from './http-transport.js';
import { followTaskStream, type StreamEvent, type TaskStreamOptions } from './task-stream.js';
import { A2ATransportError, abortError } from './transport-error.js';
import { UrlPolicyError, findUrlPolicyError } from './url-policy.js';

export { A2ATransportError } from './transport-error.js';
export { DEFAULT_URL_POLICY, UrlPolicyError, type UrlPolicy } from './url-policy.js';
export type { FetchLike } from './http-transport.js';
export type { StreamEvent } from './task-stream.js';

/**
 * A2A 1.0 JSON-RPC client. Every result and every stream frame is checked against the exact
 * generated validators; an answer that does not conform throws InvalidAgentResponse.
 */

export interface ConnectOptions extends TransportOptions {
  /** Sent as `Authorization: Bearer <token>` on every request (card fetch included). */
  readonly token?: string;
  /** Extra headers sent on every request. */
  readonly headers?: Readonly<Record<string, string>>;
  /** Per-call timeout in ms (for streams: until the response headers arrive). Default 30000. */
  readonly timeoutMs?: number;
  /** Retries after a transport error or HTTP 5xx (never after 4xx or JSON-RPC errors). Default 2. */
  readonly retries?: number;
  /** Base of the jittered exponential backoff in ms. Default 250. */
  readonly retryBaseMs?: number;
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

export interface SubscribeOptions extends StreamOptions {
  /** Resume after this SSE event id (sent as Last-Event-ID). */
  readonly lastEventId?: string;
}

const DEFAULT_TIMEOUT_MS = 30_000;
const DEFAULT_RETRIES = 2;
const DEFAULT_RETRY_BASE_MS = 250;
const DEFAULT_RESUME_ATTEMPTS = 3;
const DEFAULT_CANCEL_TIMEOUT_MS = 5000;

/** A card as read from the wire, before validation. */
export interface FetchedCard {
  readonly cardUrl: string;
  readonly card: unknown;
}

/**
 * Reads the agent card behind `url`: a base URL (card at /.well-known/agent-card.json) or a
 * card URL (tried first, then the well-known path of its origin). Throws A2ATransportError
 * when no card can be read.
 */
export async function fetchAgentCard(url: string, options: ConnectOptions = {}): Promise<FetchedCard> {
  return readCard(url, options, new HttpTransport(options));
}

async function readCard(url: string, options: ConnectOptions, transport: HttpTransport): Promise<FetchedCard> {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new A2ATransportError(`not a URL: ${url}`);
  }
  const wellKnown = new URL(WELL_KNOWN_AGENT_CARD_PATH, parsed).href;
  const candidates = parsed.pathname === '/' || parsed.pathname === '' ? [wellKnown] : [url, wellKnown];
  let lastProblem = '';
  for (const candidate of candidates) {
    let answer: { url: string; response: Response };
    try {
      answer = await transport.get(candidate, {
        headers: { accept: MEDIA_TYPES.json, [HEADERS.version]: PROTOCOL_VERSION, ...baseHeaders(options) },
        signal: AbortSignal.timeout(options.timeoutMs ?? DEFAULT_TIMEOUT_MS),
      });
    } catch (error) {
      if (error instanceof UrlPolicyError || error instanceof A2ATransportError) throw error;
      throw new A2ATransportError(`${candidate} is not reachable: ${describeError(error)}`, { cause: error });
    }
    const { url: cardUrl, response } = answer;
    const text = await response.text().catch(() => '');
    if (!response.ok) {
      lastProblem = `${cardUrl} answered HTTP ${response.status}`;
      continue;
    }
    try {
      const card = JSON.parse(text) as unknown;
      if (isRecord(card)) return { cardUrl, card };
      lastProblem = `${cardUrl} did not return a JSON object`;
    } catch {
      lastProblem = `${cardUrl} did not return JSON`;
    }
  }
  throw new A2ATransportError(`no agent card found: ${lastProblem}`);
}

const PROTOCOL_MAJOR = PROTOCOL_VERSION.split('.')[0] ?? '';

/** The JSONRPC interface of a card for a Major.Minor version of our major (1.x: minor versions stay compatible), if any. */
export function pickJsonRpcInterface(card: AgentCard): AgentInterface | undefined {
  return card.supportedInterfaces.find((entry) => entry.protocolBinding === 'JSONRPC' && /^\d+\.\d+$/.test(entry.protocolVersion) && entry.protocolVersion.split('.')[0] === PROTOCOL_MAJOR);
}

export class A2AClient {
  readonly card: AgentCard;
  readonly cardUrl: string;
  /** The JSON-RPC endpoint taken from the card. */
  readonly endpoint: string;
  private readonly options: ConnectOptions;
  private readonly transport: HttpTransport;
  private nextId = 1;

  private constructor(card: AgentCard, cardUrl: string, endpoint: string, options: ConnectOptions, transport: HttpTransport) {
    this.card = card;
    this.cardUrl = cardUrl;
    this.endpoint = endpoint;
    this.options = options;
    this.transport = transport;
  }

  /**
   * Resolves the card behind `url` (card URL or base URL), validates it and picks its JSONRPC
   * 1.x interface. The card URL, every redirect hop and the interface URL must pass `urlPolicy`.
   */
  static async connect(url: string, options: ConnectOptions = {}): Promise<A2AClient> {
    const transport = new HttpTransport(options);
    const { cardUrl, card } = await readCard(url, options, transport);
    const verdict = checkValue(A2A_1_0, 'AgentCard', card, { flavour: 'input', fieldPrefix: 'card' });
    if (!verdict.ok) throw nonConforming(`the agent card at ${cardUrl}`, verdict.violations);
    // Members 1.0 removed (stateTransitionHistory) or a vendor added are ignored, then dropped.
    const known = projectToSchema(A2A_1_0.document, 'AgentCard', verdict.value);
    const jsonrpc = pickJsonRpcInterface(known);
    if (jsonrpc === undefined) {
      throw a2aError('InvalidAgentResponseError', `the agent card at ${cardUrl} declares no JSONRPC interface for protocol version 1.x`);
    }
    // A card from anywhere must not aim the client at the metadata service or the local network.
    transport.check(jsonrpc.url);
    return new A2AClient(known, cardUrl, jsonrpc.url, options, transport);
  }

  sendMessage(params: SendMessageRequest, options: CallOptions = {}): Promise<SendMessageResponse> {
    return this.call('SendMessage', params, options);
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
  async *sendStreamingMessage(params: SendMessageRequest, options: StreamOptions = {}): AsyncGenerator<StreamResponse, void, undefined> {
    const continuation = params.message.taskId !== undefined;
    const events = this.followTask(() => this.stream('SendStreamingMessage', params, options), params.tenant, options, { continuation });
    for await (const event of events) yield event.frame;
  }

  /** Like sendStreamingMessage, for an existing task; events carry their SSE id for a later `lastEventId`. */
  subscribeToTask(params: SubscribeToTaskRequest, options: SubscribeOptions = {}): AsyncGenerator<StreamEvent, void, undefined> {
    const lastEventId = options.lastEventId === undefined ? {} : { lastEventId: options.lastEventId };
    return this.followTask(() => this.subscription(params, options.lastEventId, options), params.tenant, options, lastEventId);
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
  async call<M extends MethodName>(method: M, params: MethodTypes[M]['params'], options: CallOptions = {}): Promise<MethodTypes[M]['result']> {
    const id = this.nextId++;
    const body = JSON.stringify({ jsonrpc: '2.0', id, method, params });
    const timeout = AbortSignal.timeout(this.options.timeoutMs ?? DEFAULT_TIMEOUT_MS);
    const signal = options.signal === undefined ? timeout : AbortSignal.any([timeout, options.signal]);
    const { response, text } = await this.post(method, body, { accept: 'application/json' }, signal, true);
    const envelope = parseEnvelope(method, text ?? '', response.status);
    return validateResult(method, envelope.result);
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
        resubscribe: (taskId, lastSeen) => this.subscription({ id: taskId, ...scope }, lastSeen, options),
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

  private subscription(params: SubscribeToTaskRequest, lastEventId: string | undefined, options: CallOptions): AsyncGenerator<StreamEvent, void, undefined> {
    return this.stream('SubscribeToTask', params, options, lastEventId === undefined ? {} : { 'last-event-id': lastEventId });
  }

  private async *stream<M extends 'SendStreamingMessage' | 'SubscribeToTask'>(
    method: M,
    params: MethodTypes[M]['params'],
    options: CallOptions,
    extraHeaders: Record<string, string> = {},
  ): AsyncGenerator<StreamEvent, void, undefined> {
    const id = this.nextId++;
    const body = JSON.stringify({ jsonrpc: '2.0', id, method, params });
    const controller = new AbortController();
    const onAbort = (): void => controller.abort(options.signal?.reason);
    if (options.signal?.aborted) controller.abort(options.signal.reason);
    options.signal?.addEventListener('abort', onAbort, { once: true });
    const timer = setTimeout(
      () => controller.abort(new DOMException('the agent did not answer in time', 'TimeoutError')),
      this.options.timeoutMs ?? DEFAULT_TIMEOUT_MS,
    );
    try {
      const { response, text } = await this.post(method, body, { accept: 'text/event-stream', ...extraHeaders }, controller.signal, false);
      clearTimeout(timer);
      if (text !== undefined || !response.headers.get('content-type')?.startsWith('text/event-stream')) {
        const envelope = parseEnvelope(method, text ?? (await response.text()), response.status);
        // A JSON answer to a streaming method carries at most one frame.
        yield { frame: validateResult(method, envelope.result) };
        return;
      }
      yield* readSse(method, response, controller.signal);
    } finally {
      clearTimeout(timer);
      options.signal?.removeEventListener('abort', onAbort);
      controller.abort();
    }
  }

  /**
   * POSTs with retries on transport errors and HTTP 5xx without a JSON-RPC body. `readBody`
   * false leaves a successful event-stream body unread (`text` undefined). URL policy
   * refusals and redirects are final: a JSON-RPC endpoint is the URL in the card.
   */
  private async post(
    method: string,
    body: string,
    headers: Record<string, string>,
    signal: AbortSignal,
    readBody: boolean,
  ): Promise<{ response: Response; text: string | undefined }> {
    const retries = Math.max(0, this.options.retries ?? DEFAULT_RETRIES);
    const base = this.options.retryBaseMs ?? DEFAULT_RETRY_BASE_MS;
    for (let attempt = 0; ; attempt++) {
      let response: Response;
      try {
        response = await this.transport.send(this.endpoint, {
          method: 'POST',
          headers: { 'content-type': MEDIA_TYPES.json, [HEADERS.version]: PROTOCOL_VERSION, ...baseHeaders(this.options), ...headers },
          body,
          signal,
        });
      } catch (error) {
        if (signal.aborted) throw abortError(method, signal, error);
        const refused = findUrlPolicyError(error);
        if (refused !== undefined) throw refused;
        if (attempt < retries) {
          await backoff(base, attempt, signal);
          continue;
        }
        throw new A2ATransportError(`${method}: ${this.endpoint} is not reachable: ${describeError(error)}`, { cause: error });
      }
      if (response.status >= 300 && response.status < 400) {
        await response.body?.cancel().catch(() => undefined);
        const location = response.headers.get('location') ?? '(no location)';
        throw new A2ATransportError(`${method}: ${this.endpoint} answered HTTP ${response.status} to ${location}; JSON-RPC calls do not follow redirects`, {
          status: response.status,
        });
      }
      const streaming = !readBody && response.ok && (response.headers.get('content-type') ?? '').startsWith('text/event-stream');
      if (streaming) return { response, text: undefined };
      let text: string;
      try {
        text = await response.text();
      } catch (error) {
        if (signal.aborted) throw abortError(method, signal, error);
        if (attempt < retries) {
          await backoff(base, attempt, signal);
          continue;
        }
        throw new A2ATransportError(`${method}: reading the answer failed: ${describeError(error)}`, { cause: error });
      }
      if (response.status >= 500 && !isJsonRpcError(text) && attempt < retries) {
        await backoff(base, attempt, signal);
        continue;
      }
      return { response, text };
    }
  }
}

function resumeAttempts(option: ResumeOption | undefined): number {
  if (option === undefined || option === true) return DEFAULT_RESUME_ATTEMPTS;
  if (option === false) return 0;
  return Math.max(0, Math.floor(option.attempts));
}

/** Applies a stream's artifact frames (and task snapshots) in order and returns the resulting artifacts. */
export function assembleArtifacts(frames: Iterable<StreamResponse | StreamEvent>): Artifact[] {
  const artifacts = new Map<string, Artifact>();
  for (const item of frames) {
    const frame: StreamResponse = 'frame' in item ? item.frame : item;
    if (frame.task !== undefined) {
      for (const artifact of frame.task.artifacts ?? []) artifacts.set(artifact.artifactId, cloneArtifact(artifact));
    } else if (frame.artifactUpdate !== undefined) {
      const { artifact, append } = frame.artifactUpdate;
      const existing = artifacts.get(artifact.artifactId);
      if (append === true && existing !== undefined) {
        existing.parts.push(...artifact.parts);
        if (artifact.metadata !== undefined) existing.metadata = { ...existing.metadata, ...artifact.metadata };
      } else {
        artifacts.set(artifact.artifactId, cloneArtifact(artifact));
      }
    }
  }
  return [...artifacts.values()];
}

/** The text parts of a message or artifact, concatenated. */
export function textOf(holder: { readonly parts: readonly { readonly text?: string }[] } | undefined): string {
  return (holder?.parts ?? []).map((part) => part.text ?? '').join('');
}

function cloneArtifact(artifact: Artifact): Artifact {
  return { ...artifact, parts: [...artifact.parts] };
}

async function* readSse(method: MethodName, response: Response, signal: AbortSignal): AsyncGenerator<StreamEvent, void, undefined> {
  const queue: StreamEvent[] = [];
  let failure: Error | undefined;
  const parser = createParser({
    onEvent(message: EventSourceMessage) {
      if (failure !== undefined) return;
      try {
        const envelope = parseEnvelope(method, message.data, response.status);
        const frame = validateResult(method, envelope.result) as StreamResponse;
        queue.push(message.id === undefined ? { frame } : { id: message.id, frame });
      } catch (error) {
        failure = error instanceof Error ? error : new Error(String(error));
      }
    },
  });
  const body = response.body;
  if (body === null) return;
  const reader = body.getReader() as ReadableStreamDefaultReader<Uint8Array>;
  const decoder = new TextDecoder();
  try {
    for (;;) {
      let chunk: Awaited<ReturnType<typeof reader.read>>;
      try {
        chunk = await reader.read();
      } catch (error) {
        if (signal.aborted) throw abortError(method, signal, error);
        throw new A2ATransportError(`${method}: the stream broke: ${describeError(error)}`, { cause: error });
      }
      if (chunk.done) parser.feed(decoder.decode());
      else parser.feed(decoder.decode(chunk.value, { stream: true }));
      while (queue.length > 0) yield queue.shift() as StreamEvent;
      if (failure !== undefined) throw failure;
      if (chunk.done) return;
    }
  } finally {
    await reader.cancel().catch(() => undefined);
  }
}

interface SuccessEnvelope {
  readonly result: unknown;
}

/** Parses a JSON-RPC response; throws the matching A2AError for an error answer. */
function parseEnvelope(method: string, text: string, status: number): SuccessEnvelope {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    if (status < 200 || status >= 300) throw new A2ATransportError(`${method}: HTTP ${status} without a JSON-RPC answer`, { status });
    throw a2aError('InvalidAgentResponseError', `${method}: the answer is not JSON`);
  }
  if (!isRecord(json) || json['jsonrpc'] !== '2.0') {
    if (status < 200 || status >= 300) throw new A2ATransportError(`${method}: HTTP ${status} without a JSON-RPC answer`, { status });
    throw a2aError('InvalidAgentResponseError', `${method}: the answer is not a JSON-RPC 2.0 response`);
  }
  const error = json['error'];
  if (error !== undefined) throw remoteError(method, error);
  if (!('result' in json)) throw a2aError('InvalidAgentResponseError', `${method}: the JSON-RPC response has neither result nor error`);
  return { result: json['result'] };
}

function remoteError(method: string, error: unknown): A2AError {
  if (!isRecord(error) || typeof error['code'] !== 'number' || typeof error['message'] !== 'string') {
    return a2aError('InvalidAgentResponseError', `${method}: malformed JSON-RPC error object`);
  }
  const code = error['code'];
  const message = error['message'];
  const metadata: Record<string, string> = {};
  const violations: FieldViolation[] = [];
  const data = error['data'];
  if (Array.isArray(data)) {
    for (const detail of data as unknown[]) {
      if (!isRecord(detail)) continue;
      const info = detail['metadata'];
      if (isRecord(info)) for (const [key, value] of Object.entries(info)) if (typeof value === 'string') setOwn(metadata, key, value);
      const fieldViolations = detail['fieldViolations'];
      if (Array.isArray(fieldViolations)) {
        for (const entry of fieldViolations as unknown[]) {
          if (isRecord(entry) && typeof entry['field'] === 'string' && typeof entry['description'] === 'string') {
            violations.push({ field: entry['field'], description: entry['description'] });
          }
        }
      }
    }
  }
  const name = SPEC_ERROR_BY_CODE.get(code);
  const options = { metadata, violations };
  if (name === undefined) return a2aError('InternalError', `${message} (remote code ${code})`, options);
  return a2aError(name, message, options);
}

/**
 * Checks an answer tolerantly (spec §5.7: unknown members are ignored) and drops the members it
 * ignored, so callers only ever hold exact 1.0 shapes; anything else that does not conform,
 * 0.3 shapes included, is InvalidAgentResponse.
 */
function validateResult<M extends MethodName>(method: M, result: unknown): MethodTypes[M]['result'] {
  const definition = METHODS[method];
  if (definition.validateResult(result)) return result;
  const resultType = definition.resultType as keyof A2ADefs;
  const verdict = checkValue(A2A_1_0, resultType, result, { flavour: 'input', fieldPrefix: 'result' });
  if (verdict.ok) return projectToSchema(A2A_1_0.document, resultType, verdict.value) as MethodTypes[M]['result'];
  throw nonConforming(`the ${method} answer`, verdict.violations);
}

function nonConforming(what: string, violations: readonly FieldViolation[]): A2AError {
  const summary = violations.map((violation) => `${violation.field}: ${violation.description}`).join('; ');
  return a2aError('InvalidAgentResponseError', `${what} does not conform to A2A 1.0: ${summary}`, { violations });
}

function isJsonRpcError(text: string): boolean {
  try {
    const json = JSON.parse(text) as unknown;
    return isRecord(json) && json['jsonrpc'] === '2.0' && json['error'] !== undefined;
  } catch {
    return false;
  }
}

function baseHeaders(options: ConnectOptions): Record<string, string> {
  return { ...options.headers, ...(options.token === undefined ? {} : { authorization: `Bearer ${options.token}` }) };
}
