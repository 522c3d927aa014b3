import { createParser } from 'eventsource-parser';
import type { MethodName } from '../../generated/a2a/1.0/methods.js';
import { MEDIA_TYPES, PROTOCOL_VERSION } from '../../generated/a2a/1.0/protocol.js';
import type { StreamResponse } from '../../generated/a2a/1.0/types.js';
import { describeError } from '../../src/support/describe-error.js';
import { headersOf, VERSION_HEADER, type Exchange } from './exchange.js';
import type {
  CallOptions,
  ParamsOf,
  RpcExchange,
  SseEvent,
  StreamExchange,
  StreamingMethodName,
  StreamOptions,
  Transport,
} from './transport.js';

export interface JsonRpcTransportOptions {
  readonly endpoint: string;
  /** Headers sent with every request (authentication). */
  readonly headers?: Readonly<Record<string, string>>;
  readonly timeoutMs: number;
  readonly version?: string;
}

/** The JSON-RPC binding over HTTP, recording every exchange as evidence. */
export class JsonRpcTransport implements Transport {
  readonly binding = 'JSONRPC' as const;
  readonly endpoint: string;
  readonly stats = { requests: 0, denied: 0 };
  #nextId = 1;

  constructor(private readonly options: JsonRpcTransportOptions) {
    this.endpoint = options.endpoint;
  }

  call<M extends MethodName>(method: M, params: ParamsOf<M>, options: CallOptions = {}): Promise<RpcExchange> {
    return this.callRaw(method, params, options);
  }

  stream<M extends StreamingMethodName>(method: M, params: ParamsOf<M>, options: StreamOptions = {}): Promise<StreamExchange> {
    return this.streamRaw(method, params, options);
  }

  async callRaw(method: string, params: unknown, options: CallOptions = {}): Promise<RpcExchange> {
    const { body, id } = this.#envelope(method, params, options);
    const exchange = await this.raw(body, {
      headers: this.#headers(options, MEDIA_TYPES.json),
      timeoutMs: options.timeoutMs,
      url: this.#url(options),
    });
    const json = exchange.json as { result?: unknown; error?: RpcExchange['error'] } | undefined;
    return { ...exchange, id, ...(json && 'result' in json ? { result: json.result } : {}), ...(json?.error ? { error: json.error } : {}) };
  }

  async streamRaw(method: string, params: unknown, options: StreamOptions = {}): Promise<StreamExchange> {
    const { body } = this.#envelope(method, params, options);
    const headers = this.#headers(options, MEDIA_TYPES.eventStream);
    const url = this.#url(options);
    const started = Date.now();
    const controller = new AbortController();
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      controller.abort();
    }, options.timeoutMs ?? this.options.timeoutMs);
    const request = { method: 'POST', url, headers, body };
    this.stats.requests += 1;
    const events: SseEvent[] = [];
    let comments = 0;
    let response: Response;
    try {
      response = await fetch(url, { method: 'POST', headers, body, signal: controller.signal });
    } catch (error) {
      clearTimeout(timer);
      return {
        request,
        status: 0,
        headers: {},
        bodyText: '',
        events,
        comments,
        ending: timedOut ? 'timeout' : 'transport-error',
        transportError: String(error),
        durationMs: Date.now() - started,
      };
    }
    if (response.status === 401 || response.status === 404) this.stats.denied += 1;
    const responseHeaders = headersOf(response.headers);
    if (!(responseHeaders['content-type'] ?? '').startsWith(MEDIA_TYPES.eventStream)) {
      clearTimeout(timer);
      const text = await response.text().catch(() => '');
      return {
        request,
        status: response.status,
        headers: responseHeaders,
        bodyText: text,
        ...parseJson(text),
        events,
        comments,
        ending: 'not-a-stream',
        durationMs: Date.now() - started,
      };
    }
    let stopped = false;
    const parser = createParser({
      onEvent: (message) => {
        const parsed = parseJson(message.data);
        const envelope = parsed.json as { result?: StreamResponse; error?: SseEvent['error'] } | undefined;
        const event: SseEvent = {
          ...(message.id === undefined ? {} : { id: message.id }),
          ...(message.event === undefined ? {} : { event: message.event }),
          data: message.data,
          ...parsed,
          ...(envelope?.result === undefined ? {} : { frame: envelope.result }),
          ...(envelope?.error === undefined ? {} : { error: envelope.error }),
          receivedAtMs: Date.now() - started,
        };
        events.push(event);
        if (options.until?.(event, events)) stopped = true;
      },
      onComment: () => {
        comments += 1;
      },
    });
    let text = '';
    let ending: StreamExchange['ending'] = 'closed';
    /** Why the stream broke, when it broke before the end. */
    let broke: string | undefined;
    try {
      const reader = response.body?.getReader();
      const decoder = new TextDecoder();
      while (reader !== undefined && !stopped) {
        const chunk = (await reader.read()) as { done: boolean; value?: Uint8Array };
        if (chunk.done) break;
        const piece = decoder.decode(chunk.value, { stream: true });
        text += piece;
        parser.feed(piece);
      }
      if (stopped) {
        ending = 'stopped';
        controller.abort();
      }
    } catch (error) {
      ending = timedOut ? 'timeout' : 'transport-error';
      if (!timedOut) broke = String(error);
    } finally {
      clearTimeout(timer);
    }
    return {
      request,
      status: response.status,
      headers: responseHeaders,
      bodyText: text,
      events,
      comments,
      ending,
      ...(broke === undefined ? {} : { transportError: broke }),
      durationMs: Date.now() - started,
    };
  }

  async raw(
    body: string | undefined,
    options: { method?: string; headers?: Readonly<Record<string, string>>; url?: string; timeoutMs?: number } = {},
  ): Promise<Exchange> {
    const method = options.method ?? 'POST';
    const url = options.url ?? this.endpoint;
    const headers = { ...this.options.headers, ...(options.headers ?? { 'content-type': MEDIA_TYPES.json }) };
    const request = { method, url, headers, ...(body === undefined ? {} : { body }) };
    const started = Date.now();
    this.stats.requests += 1;
    try {
      const response = await fetch(url, {
        method,
        headers,
        ...(body === undefined ? {} : { body }),
        signal: AbortSignal.timeout(options.timeoutMs ?? this.options.timeoutMs),
      });
      const bodyText = await response.text();
      if (response.status === 401 || response.status === 404) this.stats.denied += 1;
      return {
        request,
        status: response.status,
        headers: headersOf(response.headers),
        bodyText,
        ...parseJson(bodyText),
        durationMs: Date.now() - started,
      };
    } catch (error) {
      return { request, status: 0, headers: {}, bodyText: '', transportError: describe(error), durationMs: Date.now() - started };
    }
  }

  #envelope(method: string, params: unknown, options: CallOptions): { body: string; id: string | number | null | undefined } {
    const id = options.notification ? undefined : options.id === undefined ? `conform-${this.#nextId++}` : options.id;
    const envelope = { jsonrpc: '2.0', ...(id === undefined ? {} : { id }), method, ...(options.omitParams ? {} : { params }) };
    return { body: JSON.stringify(envelope), id };
  }

  #headers(options: CallOptions, accept: string): Record<string, string> {
    return {
      'content-type': MEDIA_TYPES.json,
      accept,
      ...(options.noVersionHeader ? {} : { [VERSION_HEADER]: this.options.version ?? PROTOCOL_VERSION }),
      ...options.headers,
    };
  }

  #url(options: CallOptions): string {
    if (!options.query) return this.endpoint;
    return `${this.endpoint}${this.endpoint.includes('?') ? '&' : '?'}${options.query}`;
  }
}

function parseJson(text: string): { json?: unknown } {
  if (text.trim() === '') return {};
  try {
    return { json: JSON.parse(text) as unknown };
  } catch {
    return {};
  }
}

function describe(error: unknown): string {
  return error instanceof Error && error.name === 'TimeoutError' ? 'timed out' : describeError(error);
}
