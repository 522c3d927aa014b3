import { expect } from 'vitest';
import { METHODS, type MethodName, type MethodTypes } from '../../generated/a2a/1.0/methods.js';
import type { RestErrorResponse, StreamResponse } from '../../generated/a2a/1.0/types.js';
import { A2A_1_0 } from '../../src/protocol/a2a-schema.js';
import { writeQuery } from '../../src/protocol/rest-query.js';
import { fillRoute, routeOf, type RestRoute } from '../../src/protocol/rest-routes.js';
import { checkValue } from '../../src/protocol/validation.js';
import { expectStreamResponse, readEventStream, type SseEvent } from './a2a-client.js';
import { expectNamedStatus, type ErrorName } from './errors.js';
import { expectClean } from './raw-http.js';

/**
 * The strict test client of the HTTP+JSON binding, the twin in purpose (not in code) of
 * a2a-client.ts: requests are built from the route table (routeOf, fillRoute, writeQuery), so
 * no test retypes a path, and every answer is checked: results against the method's result
 * schema as `application/a2a+json`, errors as `{"error": google.rpc.Status}` with an ErrorInfo
 * first, stream frames as bare StreamResponse messages.
 */
export interface RestOptions {
  readonly headers?: Record<string, string>;
  /** Send the request under `/{tenant}/`. */
  readonly tenant?: string;
  /** Use this route instead of the method's primary one (e.g. POST :subscribe). */
  readonly route?: RestRoute;
  /** Send this body text instead of the JSON of the params (body routes only). */
  readonly rawBody?: string;
}

export interface RestResponse<R> {
  readonly status: number;
  readonly headers: Headers;
  readonly result?: R;
  readonly error?: RestErrorResponse['error'];
}

/** The URL and fetch init of a call: body routes send the params as JSON, the others as query parameters. */
export function restRequest(
  interfaceUrl: string,
  method: MethodName,
  params: Readonly<Record<string, unknown>>,
  options: RestOptions = {},
): { url: string; init: RequestInit } {
  const route = options.route ?? routeOf(method, options.tenant !== undefined);
  const values = options.tenant === undefined ? params : { ...params, tenant: options.tenant };
  const path = fillRoute(route, values);
  if (path === undefined) throw new Error(`the params of ${method} lack a field of ${route.template}`);
  const rest = Object.fromEntries(Object.entries(params).filter(([name]) => !route.pathFields.includes(name)));
  const headers: Record<string, string> = { 'a2a-version': '1.0', ...options.headers };
  if (route.body) {
    return {
      url: `${interfaceUrl}${path}`,
      init: {
        method: route.verb,
        headers: { 'content-type': 'application/json', ...headers },
        body: options.rawBody ?? JSON.stringify(rest),
      },
    };
  }
  const query = writeQuery(rest, route.pathFields).toString();
  return { url: `${interfaceUrl}${path}${query === '' ? '' : `?${query}`}`, init: { method: route.verb, headers } };
}

/** Calls a method over HTTP+JSON and checks the answer (see above), whatever it is. */
export async function restRpc<M extends MethodName>(
  interfaceUrl: string,
  method: M,
  params: MethodTypes[M]['params'] | Record<string, unknown>,
  options: RestOptions = {},
): Promise<RestResponse<MethodTypes[M]['result']>> {
  const { url, init } = restRequest(interfaceUrl, method, params as Record<string, unknown>, options);
  const response = await fetch(url, init);
  const text = await response.text();
  expectClean({ status: response.status, headers: response.headers, text });
  expect(response.headers.get('content-type'), `${method} answer`).toMatch(/^application\/a2a\+json/);
  const body = JSON.parse(text) as unknown;
  if (response.status !== 200) return { status: response.status, headers: response.headers, error: expectStatusBody(body) };
  const verdict = checkValue(A2A_1_0, METHODS[method].resultType as 'Task', body, { flavour: 'exact' });
  expect(verdict.ok ? [] : verdict.violations, `${method} result`).toEqual([]);
  return { status: response.status, headers: response.headers, result: body as MethodTypes[M]['result'] };
}

/** Calls a method over HTTP+JSON and returns its result, failing the test on an error. */
export async function restCall<M extends MethodName>(
  interfaceUrl: string,
  method: M,
  params: MethodTypes[M]['params'] | Record<string, unknown>,
  options: RestOptions = {},
): Promise<MethodTypes[M]['result']> {
  const response = await restRpc(interfaceUrl, method, params, options);
  expect(response.error, `${method} failed`).toBeUndefined();
  expect(response.status).toBe(200);
  return response.result as MethodTypes[M]['result'];
}

/** Checks that an answer is the error `name` of the registry: HTTP status, status name, reason, domain. */
export function expectRestErrorAnswer(response: RestResponse<unknown>, name: ErrorName): RestErrorResponse['error'] {
  expect(response.result).toBeUndefined();
  expect(response.error, `expected ${name}`).toBeDefined();
  expectNamedStatus(response.error as RestErrorResponse['error'], name);
  expect(response.status).toBe(response.error?.code);
  return response.error as RestErrorResponse['error'];
}

export interface RestStreamResult {
  readonly status: number;
  readonly headers: Headers;
  readonly events: SseEvent[];
  /** `event: error` frames (a stream that ended early), each a validated Status. */
  readonly errors: { readonly id: string | undefined; readonly error: RestErrorResponse['error'] }[];
  readonly comments: number;
}

/** Opens a streaming method over HTTP+JSON and collects every frame until the server ends the stream. */
export async function restStream(
  interfaceUrl: string,
  method: 'SendStreamingMessage' | 'SubscribeToTask',
  params: Record<string, unknown>,
  options: RestOptions & { until?: (event: SseEvent) => boolean; onComment?: () => void; signal?: AbortSignal } = {},
): Promise<RestStreamResult> {
  const { url, init } = restRequest(interfaceUrl, method, params, options);
  const controller = new AbortController();
  options.signal?.addEventListener('abort', () => controller.abort());
  const response = await fetch(url, {
    ...init,
    headers: { accept: 'text/event-stream', ...(init.headers as Record<string, string>) },
    signal: controller.signal,
  });
  if (!response.headers.get('content-type')?.startsWith('text/event-stream')) {
    throw new Error(`expected an event stream, got ${response.status} ${await response.text()}`);
  }
  const events: SseEvent[] = [];
  const errors: RestStreamResult['errors'] = [];
  const comments = await readEventStream(response, controller, {
    onEvent(message) {
      const data = JSON.parse(message.data) as unknown;
      if (message.event === 'error') {
        errors.push({ id: message.id, error: expectStatusBody(data) });
        return false;
      }
      expect(message.event, 'a frame is a default (message) event').toBeUndefined();
      const event = { id: message.id, frame: expectStreamResponse(data as StreamResponse) };
      events.push(event);
      return options.until?.(event) === true;
    },
    ...(options.onComment === undefined ? {} : { onComment: options.onComment }),
  });
  return { status: response.status, headers: response.headers, events, errors, comments };
}

/** Validates `{"error": Status}` (exact flavour) with the ErrorInfo first in `details`; returns the Status. */
function expectStatusBody(body: unknown): RestErrorResponse['error'] {
  const verdict = checkValue(A2A_1_0, 'RestErrorResponse', body, { flavour: 'exact' });
  expect(verdict.ok ? [] : verdict.violations, 'RestErrorResponse').toEqual([]);
  const status = (body as RestErrorResponse).error;
  expect(status.details?.[0]).toMatchObject({ '@type': 'type.googleapis.com/google.rpc.ErrorInfo' });
  return status;
}
