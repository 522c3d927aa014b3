import type { ReadableStreamDefaultReader } from 'node:stream/web';
import { createParser, type EventSourceMessage } from 'eventsource-parser';
import { expect } from 'vitest';
import { METHODS, type MethodName, type MethodTypes } from '../../generated/a2a/1.0/methods.js';
import type { JSONRPCError, StreamResponse } from '../../generated/a2a/1.0/types.js';
import { A2A_1_0 } from '../../src/protocol/a2a-schema.js';
import { checkValue } from '../../src/protocol/validation.js';
import { expectNamedError, type ErrorName } from './errors.js';

/**
 * A deliberately strict test client: every response body and every SSE frame is checked
 * against the exact generated validators, so a test that merely calls a method also proves
 * that what came back is valid A2A 1.0.
 */
export interface RpcOptions {
  readonly headers?: Record<string, string>;
  readonly id?: string | number | null;
  /** Send the body as given instead of building an envelope. */
  readonly rawBody?: string;
}

export interface RpcResponse<R> {
  readonly status: number;
  readonly headers: Headers;
  readonly body: { jsonrpc: '2.0'; id: string | number | null; result?: R; error?: JSONRPCError };
}

let nextId = 1;

export async function rpc<M extends MethodName>(
  url: string,
  method: M,
  params: MethodTypes[M]['params'] | Record<string, unknown> | undefined,
  options: RpcOptions = {},
): Promise<RpcResponse<MethodTypes[M]['result']>> {
  const id = options.id === undefined ? nextId++ : options.id;
  const body = options.rawBody ?? JSON.stringify({ jsonrpc: '2.0', id, method, ...(params === undefined ? {} : { params }) });
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'a2a-version': '1.0', ...options.headers },
    body,
  });
  const text = await response.text();
  const json = JSON.parse(text) as RpcResponse<MethodTypes[M]['result']>['body'];
  expect(response.headers.get('content-type')).toMatch(/^application\/json/);
  if ('error' in json) {
    expect(checkValue(A2A_1_0, 'JSONRPCErrorResponse', json, { flavour: 'exact' })).toMatchObject({ ok: true });
    expect(json.error?.data?.[0]).toMatchObject({ '@type': 'type.googleapis.com/google.rpc.ErrorInfo' });
  } else {
    expect(checkValue(A2A_1_0, 'JSONRPCSuccessResponse', json, { flavour: 'exact' })).toMatchObject({ ok: true });
    if ((METHODS as Record<string, unknown>)[method] !== undefined) {
      const verdict = checkValue(A2A_1_0, METHODS[method].resultType as 'Task', json.result, { flavour: 'exact' });
      expect(verdict.ok ? [] : verdict.violations, `${method} result`).toEqual([]);
    }
  }
  return { status: response.status, headers: response.headers, body: json };
}

/** Calls a method and returns its result, failing the test on a JSON-RPC error. */
export async function call<M extends MethodName>(
  url: string,
  method: M,
  params: MethodTypes[M]['params'],
  options: RpcOptions = {},
): Promise<MethodTypes[M]['result']> {
  const response = await rpc(url, method, params, options);
  expect(response.body.error, `${method} failed`).toBeUndefined();
  return response.body.result as MethodTypes[M]['result'];
}

export interface SseEvent {
  readonly id: string | undefined;
  readonly frame: StreamResponse;
}

export interface StreamResult {
  readonly status: number;
  readonly headers: Headers;
  readonly events: SseEvent[];
  /** Error events (a stream the hub ended early), each checked as a JSON-RPC error response. */
  readonly errors: { readonly id: string | undefined; readonly error: JSONRPCError }[];
  /** Comment lines (heartbeats) seen. */
  readonly comments: number;
}

/** Opens a streaming method and collects every frame until the server ends the stream. */
export async function stream(
  url: string,
  method: 'SendStreamingMessage' | 'SubscribeToTask',
  params: Record<string, unknown>,
  options: RpcOptions & { until?: (event: SseEvent) => boolean; onComment?: () => void; signal?: AbortSignal } = {},
): Promise<StreamResult> {
  const id = options.id === undefined ? nextId++ : options.id;
  const controller = new AbortController();
  options.signal?.addEventListener('abort', () => controller.abort());
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'text/event-stream', 'a2a-version': '1.0', ...options.headers },
    body: JSON.stringify({ jsonrpc: '2.0', id, method, params }),
    signal: controller.signal,
  });
  if (!response.headers.get('content-type')?.startsWith('text/event-stream')) {
    throw new Error(`expected an event stream, got ${response.status} ${await response.text()}`);
  }
  const events: SseEvent[] = [];
  const errors: StreamResult['errors'] = [];
  const comments = await readEventStream(response, controller, {
    onEvent(message) {
      const envelope = JSON.parse(message.data) as { jsonrpc: string; id: unknown; result: StreamResponse; error?: JSONRPCError };
      if (envelope.error !== undefined) {
        expect(checkValue(A2A_1_0, 'JSONRPCErrorResponse', envelope, { flavour: 'exact' })).toMatchObject({ ok: true });
        expect(envelope.error.data?.[0]).toMatchObject({ '@type': 'type.googleapis.com/google.rpc.ErrorInfo' });
        errors.push({ id: message.id, error: envelope.error });
        return false;
      }
      expect(checkValue(A2A_1_0, 'JSONRPCSuccessResponse', envelope, { flavour: 'exact' })).toMatchObject({ ok: true });
      expect(envelope.id).toBe(id);
      const event = { id: message.id, frame: expectStreamResponse(envelope.result) };
      events.push(event);
      return options.until?.(event) === true;
    },
    ...(options.onComment === undefined ? {} : { onComment: options.onComment }),
  });
  return { status: response.status, headers: response.headers, events, errors, comments };
}

/** Checks one stream frame against the exact StreamResponse schema; returns it. */
export function expectStreamResponse(frame: StreamResponse): StreamResponse {
  const verdict = checkValue(A2A_1_0, 'StreamResponse', frame, { flavour: 'exact' });
  expect(verdict.ok ? [] : verdict.violations, 'stream frame').toEqual([]);
  return frame;
}

/**
 * Reads an SSE response to its end (or until `onEvent` returns true, then aborts it): the
 * reading loop both bindings' stream helpers share. Returns the number of comments (heartbeats).
 */
export async function readEventStream(
  response: Response,
  controller: AbortController,
  handlers: { onEvent(message: EventSourceMessage): boolean; onComment?: () => void },
): Promise<number> {
  let comments = 0;
  let stop = false;
  const parser = createParser({
    onEvent(message: EventSourceMessage) {
      if (handlers.onEvent(message)) stop = true;
    },
    onComment() {
      comments += 1;
      handlers.onComment?.();
    },
  });
  const reader = response.body?.getReader() as ReadableStreamDefaultReader<Uint8Array> | undefined;
  const decoder = new TextDecoder();
  try {
    while (reader && !stop) {
      const { done, value } = await reader.read();
      if (done) break;
      parser.feed(decoder.decode(value, { stream: true }));
    }
  } finally {
    if (stop) controller.abort();
  }
  return comments;
}

let messageCounter = 0;

/** A user message with a fresh messageId. */
export function userMessage(text: string, extra: Record<string, unknown> = {}): MethodTypes['SendMessage']['params']['message'] {
  messageCounter += 1;
  return {
    messageId: `m-${Date.now()}-${messageCounter}-${Math.random().toString(36).slice(2)}`,
    role: 'ROLE_USER',
    parts: [{ text }],
    ...extra,
  };
}

/**
 * Checks that a response of `rpc` is the error `name` of the registry (code, reason and
 * domain from ERRORS) and carries no result, with the HTTP status (200 unless given) and,
 * when given, the id. Returns the error.
 */
export function expectErrorResponse(
  response: RpcResponse<unknown>,
  name: ErrorName,
  expected: { httpStatus?: number; id?: string | number | null } = {},
): JSONRPCError {
  expect(response.status).toBe(expected.httpStatus ?? 200);
  expect(response.body.result).toBeUndefined();
  if (expected.id !== undefined) expect(response.body.id).toBe(expected.id);
  return expectNamedError(response.body.error, name);
}

/** Calls a method expecting the JSON-RPC error `name` of the registry at HTTP 200; returns the error. */
export async function expectRpcError<M extends MethodName>(
  url: string,
  method: M,
  params: MethodTypes[M]['params'] | Record<string, unknown> | undefined,
  name: ErrorName,
): Promise<JSONRPCError> {
  return expectErrorResponse(await rpc(url, method, params), name);
}
