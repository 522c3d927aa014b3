import type { StreamResponse } from '../../generated/a2a/1.0/types.js';
import { MEDIA_TYPES } from '../../generated/a2a/1.0/protocol.js';
import { describeError } from '../support/describe-error.js';
import { backoff } from './backoff.js';
import type { BindingCallOptions, BindingStreamOptions } from './binding.js';
import type { HttpRequest, HttpTransport } from './http-transport.js';
import { DEFAULT_RETRIES, DEFAULT_RETRY_BASE_MS, DEFAULT_TIMEOUT_MS, requestHeaders, type RequestOptions } from './request-options.js';
import { readEventStream, isEventStream, type EventSourceMessage } from './sse-reader.js';
import type { StreamEvent } from './task-stream.js';
import { A2ATransportError, abortError } from './transport-error.js';
import { findUrlPolicyError } from '../net/destination-policy.js';

/**
 * What every HTTP binding of the client does alike, so that they fail alike (binding.ts): one
 * request with retries and backoff, the bounded wait for an answer, and the SSE stream of a
 * streaming call. A binding says how its requests look and what its answers mean.
 */

export interface HttpBindingContext {
  readonly transport: HttpTransport;
  readonly options: RequestOptions;
  /** The binding's name in messages ("JSON-RPC", "HTTP+JSON"). */
  readonly binding: string;
  /** Whether an answer body is the binding's error answer: a 5xx carrying one is final, any other 5xx is retried. */
  readonly isErrorAnswer: (text: string) => boolean;
}

export interface HttpCall {
  readonly url: string;
  readonly verb: HttpRequest['method'];
  /** Besides the shared ones (version, credentials, the caller's headers). */
  readonly headers: Readonly<Record<string, string>>;
  readonly body?: string;
  /** Told the headers of the answer that is returned (not of a retried or redirected one). */
  readonly onHeaders?: ((headers: Headers) => void) | undefined;
}

export interface HttpAnswer {
  readonly response: Response;
  /** The body; undefined for a successful event stream, left for the caller to read. */
  readonly text: string | undefined;
}

/** The signal of a unary call: the caller's, bounded by the client's timeout. */
export function callSignal(options: RequestOptions, call: BindingCallOptions): AbortSignal {
  const timeout = AbortSignal.timeout(options.timeoutMs ?? DEFAULT_TIMEOUT_MS);
  return call.signal === undefined ? timeout : AbortSignal.any([timeout, call.signal]);
}

/**
 * Sends `call`, retrying transport errors and HTTP 5xx without an error answer. `readBody`
 * false leaves a successful event-stream body unread. URL policy refusals and redirects are
 * final: an interface URL is the one in the card.
 */
export async function exchange(
  context: HttpBindingContext,
  method: string,
  call: HttpCall,
  signal: AbortSignal,
  readBody: boolean,
): Promise<HttpAnswer> {
  const retries = Math.max(0, context.options.retries ?? DEFAULT_RETRIES);
  const base = context.options.retryBaseMs ?? DEFAULT_RETRY_BASE_MS;
  for (let attempt = 0; ; attempt++) {
    let response: Response;
    try {
      response = await context.transport.send(call.url, {
        method: call.verb,
        headers: { ...requestHeaders(context.options), ...call.headers },
        ...(call.body === undefined ? {} : { body: call.body }),
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
      throw new A2ATransportError(`${method}: ${call.url} is not reachable: ${describeError(error)}`, { cause: error });
    }
    if (response.status >= 300 && response.status < 400) {
      await response.body?.cancel().catch(() => undefined);
      const location = response.headers.get('location') ?? '(no location)';
      throw new A2ATransportError(
        `${method}: ${call.url} answered HTTP ${response.status} to ${location}; ${context.binding} calls do not follow redirects`,
        { status: response.status },
      );
    }
    if (!readBody && response.ok && isEventStream(response)) {
      call.onHeaders?.(response.headers);
      return { response, text: undefined };
    }
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
    if (response.status >= 500 && !context.isErrorAnswer(text) && attempt < retries) {
      await backoff(base, attempt, signal);
      continue;
    }
    call.onHeaders?.(response.headers);
    return { response, text };
  }
}

/** How a binding reads the answer of a streaming call. */
export interface StreamReading {
  /** The frame of an answer that is not an event stream (an error answer throws). */
  readonly single: (text: string, status: number) => StreamResponse;
  /** The frame of one SSE event (an error event throws). */
  readonly event: (message: EventSourceMessage, status: number) => StreamResponse;
}

/**
 * The frames of a streaming call, with their SSE ids. Only the wait for the response headers
 * is bounded: a stream may rightly stay quiet for long. The connection closes when the
 * consumer stops pulling or the caller aborts.
 */
export async function* streamExchange(
  context: HttpBindingContext,
  method: string,
  call: HttpCall,
  options: BindingStreamOptions,
  reading: StreamReading,
): AsyncGenerator<StreamEvent, void, undefined> {
  const headers = {
    ...call.headers,
    accept: MEDIA_TYPES.eventStream,
    ...(options.lastEventId === undefined ? {} : { 'last-event-id': options.lastEventId }),
  };
  const controller = new AbortController();
  const onAbort = (): void => controller.abort(options.signal?.reason);
  if (options.signal?.aborted) controller.abort(options.signal.reason);
  options.signal?.addEventListener('abort', onAbort, { once: true });
  const timer = setTimeout(
    () => controller.abort(new DOMException('the agent did not answer in time', 'TimeoutError')),
    context.options.timeoutMs ?? DEFAULT_TIMEOUT_MS,
  );
  try {
    const { response, text } = await exchange(
      context,
      method,
      { ...call, headers, onHeaders: options.onHeaders },
      controller.signal,
      false,
    );
    clearTimeout(timer);
    if (text !== undefined || !isEventStream(response)) {
      // A JSON answer to a streaming method carries at most one frame.
      yield { frame: reading.single(text ?? (await response.text()), response.status) };
      return;
    }
    for await (const message of readEventStream(method, response, controller.signal)) {
      const frame = reading.event(message, response.status);
      yield message.id === undefined ? { frame } : { id: message.id, frame };
    }
  } finally {
    clearTimeout(timer);
    options.signal?.removeEventListener('abort', onAbort);
    controller.abort();
  }
}
