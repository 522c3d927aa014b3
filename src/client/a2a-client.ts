import { createParser, type EventSourceMessage } from 'eventsource-parser';
import { ERRORS, SPEC_ERROR_BY_CODE, internalError, invalidAgentResponseError } from '../../generated/a2a/1.0/errors.js';
import { METHODS, type MethodName, type MethodTypes } from '../../generated/a2a/1.0/methods.js';
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
import { A2AError } from '../protocol/a2a-error.js';
import { A2A_1_0, type A2ADefs } from '../protocol/a2a-schema.js';
import { checkValue } from '../protocol/validation.js';

/**
 * A2A 1.0 JSON-RPC client. Every result and every stream frame is checked against the exact
 * generated validators; an answer that does not conform throws InvalidAgentResponse.
 */

export type FetchLike = (input: string, init: RequestInit) => Promise<Response>;

export interface ConnectOptions {
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
  readonly fetch?: FetchLike;
}

export interface CallOptions {
  readonly signal?: AbortSignal;
}

export interface SubscribeOptions extends CallOptions {
  /** Resume after this SSE event id (sent as Last-Event-ID). */
  readonly lastEventId?: string;
}

export interface StreamEvent {
  /** The SSE event id, when the server sent one. */
  readonly id?: string;
  readonly frame: StreamResponse;
}

/** The peer could not be reached, or answered HTTP without a JSON-RPC body. */
export class A2ATransportError extends Error {
  /** HTTP status, when the peer answered at all. */
  readonly status: number | undefined;

  constructor(message: string, options: { status?: number; cause?: unknown } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'A2ATransportError';
    this.status = options.status;
  }
}

const WELL_KNOWN = '/.well-known/agent-card.json';
const DEFAULT_TIMEOUT_MS = 30_000;
const DEFAULT_RETRIES = 2;

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
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new A2ATransportError(`not a URL: ${url}`);
  }
  const wellKnown = new URL(WELL_KNOWN, parsed).href;
  const candidates = parsed.pathname === '/' || parsed.pathname === '' ? [wellKnown] : [url, wellKnown];
  const doFetch = options.fetch ?? fetch;
  let lastProblem = '';
  for (const cardUrl of candidates) {
    let response: Response;
    try {
      response = await doFetch(cardUrl, {
        headers: { accept: 'application/json', 'a2a-version': '1.0', ...baseHeaders(options) },
        signal: AbortSignal.timeout(options.timeoutMs ?? DEFAULT_TIMEOUT_MS),
      });
    } catch (error) {
      throw new A2ATransportError(`${cardUrl} is not reachable: ${describe(error)}`, { cause: error });
    }
    const text = await response.text().catch(() => '');
    if (!response.ok) {
      lastProblem = `${cardUrl} answered HTTP ${response.status}`;
      continue;
    }
    try {
      const card = JSON.parse(text) as unknown;
      if (isObject(card)) return { cardUrl, card };
      lastProblem = `${cardUrl} did not return a JSON object`;
    } catch {
      lastProblem = `${cardUrl} did not return JSON`;
    }
  }
  throw new A2ATransportError(`no agent card found: ${lastProblem}`);
}

/** The JSONRPC interface of a card for protocol version 1.x, if any. */
export function pickJsonRpcInterface(card: AgentCard): AgentInterface | undefined {
  return card.supportedInterfaces.find((entry) => entry.protocolBinding === 'JSONRPC' && /^1\.\d+$/.test(entry.protocolVersion));
}

export class A2AClient {
  readonly card: AgentCard;
  readonly cardUrl: string;
  /** The JSON-RPC endpoint taken from the card. */
  readonly endpoint: string;
  private readonly options: ConnectOptions;
  private readonly doFetch: FetchLike;
  private nextId = 1;

  private constructor(card: AgentCard, cardUrl: string, endpoint: string, options: ConnectOptions) {
    this.card = card;
    this.cardUrl = cardUrl;
    this.endpoint = endpoint;
    this.options = options;
    this.doFetch = options.fetch ?? fetch;
  }

  /** Resolves the card behind `url` (card URL or base URL), validates it and picks its JSONRPC 1.x interface. */
  static async connect(url: string, options: ConnectOptions = {}): Promise<A2AClient> {
    const { cardUrl, card } = await fetchAgentCard(url, options);
    const verdict = checkValue(A2A_1_0, 'AgentCard', card, { flavour: 'exact', fieldPrefix: 'card' });
    if (!verdict.ok) throw nonConforming(`the agent card at ${cardUrl}`, verdict.violations);
    const jsonrpc = pickJsonRpcInterface(verdict.value);
    if (jsonrpc === undefined) {
      throw invalidAgentResponseError(`the agent card at ${cardUrl} declares no JSONRPC interface for protocol version 1.x`);
    }
    return new A2AClient(verdict.value, cardUrl, jsonrpc.url, options);
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

  async *sendStreamingMessage(params: SendMessageRequest, options: CallOptions = {}): AsyncGenerator<StreamResponse, void, undefined> {
    for await (const event of this.stream('SendStreamingMessage', params, options)) yield event.frame;
  }

  subscribeToTask(params: SubscribeToTaskRequest, options: SubscribeOptions = {}): AsyncGenerator<StreamEvent, void, undefined> {
    const extra: Record<string, string> = options.lastEventId === undefined ? {} : { 'last-event-id': options.lastEventId };
    return this.stream('SubscribeToTask', params, options, extra);
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
   * false leaves a successful event-stream body unread (`text` undefined).
   */
  private async post(
    method: string,
    body: string,
    headers: Record<string, string>,
    signal: AbortSignal,
    readBody: boolean,
  ): Promise<{ response: Response; text: string | undefined }> {
    const retries = Math.max(0, this.options.retries ?? DEFAULT_RETRIES);
    const base = this.options.retryBaseMs ?? 250;
    for (let attempt = 0; ; attempt++) {
      let response: Response;
      try {
        response = await this.doFetch(this.endpoint, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'a2a-version': '1.0', ...baseHeaders(this.options), ...headers },
          body,
          signal,
        });
      } catch (error) {
        if (signal.aborted) throw abortError(method, signal, error);
        if (attempt < retries) {
          await backoff(base, attempt, signal);
          continue;
        }
        throw new A2ATransportError(`${method}: ${this.endpoint} is not reachable: ${describe(error)}`, { cause: error });
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
        throw new A2ATransportError(`${method}: reading the answer failed: ${describe(error)}`, { cause: error });
      }
      if (response.status >= 500 && !isJsonRpcError(text) && attempt < retries) {
        await backoff(base, attempt, signal);
        continue;
      }
      return { response, text };
    }
  }
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
        throw new A2ATransportError(`${method}: the stream broke: ${describe(error)}`, { cause: error });
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
    throw invalidAgentResponseError(`${method}: the answer is not JSON`);
  }
  if (!isObject(json) || json['jsonrpc'] !== '2.0') {
    if (status < 200 || status >= 300) throw new A2ATransportError(`${method}: HTTP ${status} without a JSON-RPC answer`, { status });
    throw invalidAgentResponseError(`${method}: the answer is not a JSON-RPC 2.0 response`);
  }
  const error = json['error'];
  if (error !== undefined) throw remoteError(method, error);
  if (!('result' in json)) throw invalidAgentResponseError(`${method}: the JSON-RPC response has neither result nor error`);
  return { result: json['result'] };
}

function remoteError(method: string, error: unknown): A2AError {
  if (!isObject(error) || typeof error['code'] !== 'number' || typeof error['message'] !== 'string') {
    return invalidAgentResponseError(`${method}: malformed JSON-RPC error object`);
  }
  const code = error['code'];
  const message = error['message'];
  const metadata: Record<string, string> = {};
  const violations: FieldViolation[] = [];
  const data = error['data'];
  if (Array.isArray(data)) {
    for (const detail of data as unknown[]) {
      if (!isObject(detail)) continue;
      const info = detail['metadata'];
      if (isObject(info)) for (const [key, value] of Object.entries(info)) if (typeof value === 'string') metadata[key] = value;
      const fieldViolations = detail['fieldViolations'];
      if (Array.isArray(fieldViolations)) {
        for (const entry of fieldViolations as unknown[]) {
          if (isObject(entry) && typeof entry['field'] === 'string' && typeof entry['description'] === 'string') {
            violations.push({ field: entry['field'], description: entry['description'] });
          }
        }
      }
    }
  }
  const name = SPEC_ERROR_BY_CODE.get(code);
  const options = { metadata, violations };
  if (name === undefined) return internalError(`${message} (remote code ${code})`, options);
  return new A2AError(ERRORS[name], message, options);
}

function validateResult<M extends MethodName>(method: M, result: unknown): MethodTypes[M]['result'] {
  const definition = METHODS[method];
  if (definition.validateResult(result)) return result;
  const verdict = checkValue(A2A_1_0, definition.resultType as keyof A2ADefs, result, { flavour: 'exact', fieldPrefix: 'result' });
  throw nonConforming(`the ${method} answer`, verdict.ok ? [{ field: 'result', description: 'does not match the schema' }] : verdict.violations);
}

function nonConforming(what: string, violations: readonly FieldViolation[]): A2AError {
  const summary = violations.map((violation) => `${violation.field}: ${violation.description}`).join('; ');
  return invalidAgentResponseError(`${what} does not conform to A2A 1.0: ${summary}`, { violations });
}

function isJsonRpcError(text: string): boolean {
  try {
    const json = JSON.parse(text) as unknown;
    return isObject(json) && json['jsonrpc'] === '2.0' && json['error'] !== undefined;
  } catch {
    return false;
  }
}

function baseHeaders(options: ConnectOptions): Record<string, string> {
  return { ...options.headers, ...(options.token === undefined ? {} : { authorization: `Bearer ${options.token}` }) };
}

async function backoff(baseMs: number, attempt: number, signal: AbortSignal): Promise<void> {
  const delay = baseMs * 2 ** attempt * (0.5 + Math.random());
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, delay);
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(abortError('request', signal, signal.reason));
    };
    signal.addEventListener('abort', onAbort, { once: true });
  });
}

function abortError(method: string, signal: AbortSignal, error: unknown): Error {
  const reason: unknown = signal.reason;
  if (reason instanceof DOMException && reason.name === 'TimeoutError') {
    return new A2ATransportError(`${method}: timed out`, { cause: error });
  }
  return reason instanceof Error ? reason : new A2ATransportError(`${method}: aborted`, { cause: error });
}

function describe(error: unknown): string {
  if (error instanceof Error) {
    const cause = error.cause instanceof Error ? ` (${error.cause.message})` : '';
    return `${error.message}${cause}`;
  }
  return String(error);
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
