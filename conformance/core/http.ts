import { setTimeout as sleep } from 'node:timers/promises';
import { createParser } from 'eventsource-parser';
import { MEDIA_TYPES } from '../../generated/a2a/1.0/protocol.js';
import { describeError } from '../../src/support/describe-error.js';
import { refused } from './answers.js';
import { headersOf, type Exchange } from './exchange.js';
import type { SseEvent, StreamExchange } from './transport.js';

/*
 * The HTTP both bindings ride on: one request and its answer as an Exchange, and an SSE stream
 * read event by event. The bindings differ only in what an SSE data item carries, which each
 * passes in as `interpret`.
 */

export interface HttpRequest {
  readonly method: string;
  readonly url: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly body?: string;
}

/** Requests sent so far, how many were refused (see `refused`), and how many the agent rate-limited (Transport.stats). */
export interface HttpStats {
  requests: number;
  denied: number;
  /** Answers 429 the suite waited out (Retry-After) and sent again. */
  rateLimited: number;
}

/** A fresh HttpStats. */
export function newStats(): HttpStats {
  return { requests: 0, denied: 0, rateLimited: 0 };
}

/**
 * A 429 is an agent's right, not a failure: the suite waits as long as its Retry-After says
 * (1 s when it says nothing), up to this long, and sends the request again, this many times at
 * most, within the request's own timeout.
 */
const MAX_RETRY_AFTER_MS = 10_000;
const RATE_LIMIT_RETRIES = 5;

/** Retry-After in milliseconds (delta-seconds or an HTTP date), 1 s when absent, undefined when unreadable or longer than the suite waits. */
export function retryAfterMs(header: string | null, now = Date.now()): number | undefined {
  if (header === null || header.trim() === '') return 1000;
  const text = header.trim();
  const ms = /^\d+$/.test(text) ? Number(text) * 1000 : Date.parse(text) - now;
  if (!Number.isFinite(ms)) return undefined;
  return ms > MAX_RETRY_AFTER_MS ? undefined : Math.max(0, ms);
}

/** `fetch`, with each 429 waited out and sent again (see MAX_RETRY_AFTER_MS); the answer that is not 429, or the last. */
async function fetchPaced(request: HttpRequest, signal: AbortSignal, stats: HttpStats): Promise<Response> {
  for (let attempt = 0; ; attempt += 1) {
    const response = await fetch(request.url, {
      method: request.method,
      headers: request.headers,
      ...(request.body === undefined ? {} : { body: request.body }),
      signal,
    });
    if (response.status !== 429 || attempt >= RATE_LIMIT_RETRIES) return response;
    const wait = retryAfterMs(response.headers.get('retry-after'));
    if (wait === undefined) return response;
    await response.arrayBuffer().catch(() => undefined);
    stats.rateLimited += 1;
    await sleep(wait, undefined, { signal });
  }
}

/** The StreamResponse or error a binding reads from one SSE event. */
export type EventReading = Pick<SseEvent, 'frame' | 'error' | 'restError'>;

export async function send(request: HttpRequest, timeoutMs: number, stats: HttpStats): Promise<Exchange> {
  const started = Date.now();
  stats.requests += 1;
  try {
    const response = await fetchPaced(request, AbortSignal.timeout(timeoutMs), stats);
    const bodyText = await response.text();
    count(stats, response.status, bodyText);
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

export interface SseOptions {
  readonly timeoutMs: number;
  readonly until?: (event: SseEvent, events: readonly SseEvent[]) => boolean;
  readonly interpret: (event: { readonly event?: string; readonly json?: unknown }) => EventReading;
  /** The media type a stream answer has; anything else is read as a plain body. */
  readonly eventStreamType: string;
}

/** The SSE options of a stream call: its own timeout and stop condition, else the transport's timeout. */
export function sseOptions(
  call: { readonly timeoutMs?: number; readonly until?: SseOptions['until'] },
  timeoutMs: number,
  interpret: SseOptions['interpret'],
): SseOptions {
  return {
    timeoutMs: call.timeoutMs ?? timeoutMs,
    eventStreamType: MEDIA_TYPES.eventStream,
    ...(call.until ? { until: call.until } : {}),
    interpret,
  };
}

/** Opens a stream and reads it until the server closes it, `until` says stop, or the timeout hits. */
export async function readStream(request: HttpRequest, options: SseOptions, stats: HttpStats): Promise<StreamExchange> {
  const started = Date.now();
  const controller = new AbortController();
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    controller.abort();
  }, options.timeoutMs);
  stats.requests += 1;
  const events: SseEvent[] = [];
  let comments = 0;
  let response: Response;
  try {
    response = await fetchPaced(request, controller.signal, stats);
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
  const responseHeaders = headersOf(response.headers);
  if (!(responseHeaders['content-type'] ?? '').startsWith(options.eventStreamType)) {
    clearTimeout(timer);
    const text = await response.text().catch(() => '');
    count(stats, response.status, text);
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
      const reading = options.interpret({ ...(message.event === undefined ? {} : { event: message.event }), ...parsed });
      const event: SseEvent = {
        ...(message.id === undefined ? {} : { id: message.id }),
        ...(message.event === undefined ? {} : { event: message.event }),
        data: message.data,
        ...parsed,
        ...(reading.frame === undefined ? {} : { frame: reading.frame }),
        ...(reading.error === undefined ? {} : { error: reading.error }),
        ...(reading.restError === undefined ? {} : { restError: reading.restError }),
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

export function parseJson(text: string): { json?: unknown } {
  if (text.trim() === '') return {};
  try {
    return { json: JSON.parse(text) as unknown };
  } catch {
    return {};
  }
}

/** `url` with `query` appended (no `?` twice). */
export function withQuery(url: string, query: string | undefined): string {
  if (!query) return url;
  return `${url}${url.includes('?') ? '&' : '?'}${query}`;
}

function count(stats: HttpStats, status: number, bodyText: string): void {
  if (refused(status, parseJson(bodyText).json)) stats.denied += 1;
}

function describe(error: unknown): string {
  return error instanceof Error && error.name === 'TimeoutError' ? 'timed out' : describeError(error);
}
