import { request as httpRequest } from 'node:http';
import { expect } from 'vitest';
import { ERRORS } from '../../generated/a2a/1.0/errors.js';
import type { JSONRPCErrorResponse, RestErrorResponse } from '../../generated/a2a/1.0/types.js';
import { A2A_1_0 } from '../../src/protocol/a2a-schema.js';
import { checkValue } from '../../src/protocol/validation.js';
import { expectNamedError, expectNamedStatus, type ErrorName } from './errors.js';

/**
 * Raw HTTP for the requests the strict client in a2a-client.ts cannot make: malformed bodies,
 * odd verbs and routes, missing or hand-cased headers, a chosen Host. Every response is
 * checked for what must never leave the hub: an HTML page or a stack trace.
 */
export interface RawResponse {
  readonly status: number;
  readonly headers: Headers;
  readonly text: string;
}

export type RawInit = RequestInit & { duplex?: 'half' };

/** fetch, read the whole body, and check that the response is neither HTML nor a stack trace. */
export async function send(url: string, init: RawInit = {}): Promise<RawResponse> {
  const response = await fetch(url, init);
  const result = { status: response.status, headers: response.headers, text: await response.text() };
  expectClean(result);
  return result;
}

/**
 * `init` with `A2A-Version: 1.0` added unless it names a version itself (header, any case) or
 * `url` does (query parameter): the HTTP+JSON routes of 1.0 refuse a request without one,
 * which spec §3.6.2 reads as 0.3.
 */
export function as10<T extends { headers?: unknown }>(url: string, init: T): T {
  const headers = { ...((init.headers ?? {}) as Record<string, string>) };
  const named = Object.keys(headers).some((name) => name.toLowerCase() === 'a2a-version') || /[?&]A2A-Version=/i.test(url);
  return named ? init : { ...init, headers: { 'a2a-version': '1.0', ...headers } };
}

/** POSTs a body as given, with only the headers given (no A2A-Version unless you pass one). */
export function post(
  url: string,
  body: string,
  headers: Record<string, string> = { 'content-type': 'application/json' },
): Promise<RawResponse> {
  return send(url, { method: 'POST', headers, body });
}

/**
 * A request through node:http, which sends header names with the case given and lets the
 * caller set Host. Without a content-length header a body is sent chunked.
 */
export function nodeRequest(
  url: string,
  options: { method?: string; headers?: Record<string, string>; body?: string } = {},
): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const request = httpRequest(url, { method: options.method ?? 'GET', headers: options.headers ?? {} }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('error', reject);
      response.on('end', () => {
        const headers = new Headers();
        for (const [name, value] of Object.entries(response.headers)) {
          if (value === undefined) continue;
          for (const item of Array.isArray(value) ? value : [value]) headers.append(name, item);
        }
        const result = { status: response.statusCode ?? 0, headers, text: Buffer.concat(chunks).toString('utf8') };
        try {
          expectClean(result);
          resolve(result);
        } catch (error) {
          reject(error instanceof Error ? error : new Error(String(error)));
        }
      });
    });
    request.on('error', reject);
    request.end(options.body);
  });
}

/** No response of the hub is an HTML page or carries a stack trace. */
export function expectClean(response: RawResponse): void {
  expect(response.headers.get('content-type') ?? '').not.toMatch(/html/i);
  expect(response.text).not.toContain('    at ');
}

/** The HTTP status of a request, its response checked as `send` checks every response. */
export async function statusOf(url: string, init: RawInit = {}): Promise<number> {
  return (await send(url, init)).status;
}

/**
 * The HTTP status of a JSON-RPC ListTasks (A2A-Version 1.0) posted to `url`: 200 where an
 * agent answers, 404 where none is, 401 without its token. `headers` are added (authorization).
 */
export function listTasksStatus(url: string, headers: Record<string, string> = {}): Promise<number> {
  return statusOf(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'a2a-version': '1.0', ...headers },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ListTasks', params: {} }),
  });
}

/**
 * Parses a JSON-RPC error response, validates it (exact flavour) and checks that it is the
 * error `name` of the registry (code, reason, domain), with the id (null unless given) and
 * the HTTP status (200 unless given).
 */
export function expectJsonRpcError(
  response: RawResponse,
  name: ErrorName,
  expected: { httpStatus?: number; id?: string | number | null } = {},
): JSONRPCErrorResponse {
  expect(response.status).toBe(expected.httpStatus ?? 200);
  expect(response.headers.get('content-type')).toMatch(/^application\/json/);
  const body = JSON.parse(response.text) as JSONRPCErrorResponse;
  const verdict = checkValue(A2A_1_0, 'JSONRPCErrorResponse', body, { flavour: 'exact' });
  expect(verdict.ok ? [] : verdict.violations, 'JSONRPCErrorResponse').toEqual([]);
  expect(body.id).toBe(expected.id === undefined ? null : expected.id);
  expectNamedError(body.error, name);
  return body;
}

/**
 * Parses an HTTP-level error body (google.rpc.Status), validates it and checks that it is the
 * error `name` of the registry: its HTTP status, status name, reason and domain.
 */
export function expectRestError(response: RawResponse, name: ErrorName): RestErrorResponse {
  expect(response.status).toBe(ERRORS[name].httpStatus);
  expect(response.headers.get('content-type')).toMatch(/^application\/(a2a\+)?json/);
  const body = JSON.parse(response.text) as RestErrorResponse;
  const verdict = checkValue(A2A_1_0, 'RestErrorResponse', body, { flavour: 'exact' });
  expect(verdict.ok ? [] : verdict.violations, 'RestErrorResponse').toEqual([]);
  expectNamedStatus(body.error, name);
  return body;
}
