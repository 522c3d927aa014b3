import { expect } from 'vitest';
import { ERRORS } from '../../generated/a2a/1.0/errors.js';
import type { MethodName } from '../../generated/a2a/1.0/methods.js';
import type { FieldViolation, StreamResponse } from '../../generated/a2a/1.0/types.js';
import { expectErrorResponse, rpc, stream } from './a2a-client.js';
import { errorInfoOf, type ErrorName } from './errors.js';
import { expectRestError, post } from './raw-http.js';
import { expectRestErrorAnswer, restRpc, restStream } from './rest-client.js';

/**
 * One driver per wire binding, so that a case is written once and sent over JSON-RPC and over
 * HTTP+JSON alike (the shared case table, the tenant cases). Each driver sends through the
 * strict client of its binding, which validates every body and frame, and checks an error in
 * that binding's own rendering before handing back what both carry.
 */

export type BindingName = 'JSON-RPC' | 'HTTP+JSON';

export interface BindingRequest {
  /** The interface URL: the JSON-RPC endpoint or the REST base. */
  readonly url: string;
  /** `Unknown` is a method (JSON-RPC) or route (HTTP+JSON) that does not exist. */
  readonly method: MethodName | 'Unknown';
  readonly params: Readonly<Record<string, unknown>>;
  readonly headers?: Record<string, string>;
  /** `params.tenant` on JSON-RPC, the `/{tenant}/` route on HTTP+JSON. */
  readonly tenant?: string | undefined;
}

/** An error as both bindings carry it: the ErrorInfo reason and metadata, the message, the BadRequest violations as sent. */
export interface WireError {
  readonly reason: string;
  readonly message: string;
  readonly metadata: Record<string, string | undefined>;
  readonly violations: readonly FieldViolation[];
}

export interface BindingAnswer {
  readonly result?: unknown;
  readonly error?: WireError;
  /** Checks the answer is the error `name` in this binding's rendering (code or HTTP status, reason, domain); returns it. */
  expectError(name: ErrorName): WireError;
}

export interface BindingDriver {
  readonly name: BindingName;
  call(request: BindingRequest): Promise<BindingAnswer>;
  /** The frames of a stream that must end without an error event. */
  stream(request: BindingRequest): Promise<StreamResponse[]>;
  /** The frames of a stream, and the error event that ended it early, if one did. */
  streamEnding(request: BindingRequest): Promise<{ frames: StreamResponse[]; error?: WireError }>;
  /**
   * Where this binding names a field given from the request message's root: JSON-RPC under
   * `params.`, HTTP+JSON (whose body or path is the request message) at the root.
   */
  readonly wireField: (field: string) => string;
  /** This binding's interface URL among an instance's (a snapshot row's). */
  readonly urlOf: (urls: { readonly jsonRpcUrl: string; readonly restUrl: string }) => string;
  /** The inverse of wireField, failing on a field this binding would not name so. */
  readonly rootField: (field: string) => string;
}

const UNKNOWN_METHOD = 'NoSuchOperation';

function withTenant(params: Readonly<Record<string, unknown>>, tenant: string | undefined): Record<string, unknown> {
  return tenant === undefined ? { ...params } : { ...params, tenant };
}

function wireErrorOf(message: string, details: readonly unknown[] | undefined): WireError {
  const info = errorInfoOf(details);
  const badRequest = (details ?? []).find((detail) => (detail as { '@type'?: string })['@type']?.endsWith('google.rpc.BadRequest')) as
    { fieldViolations: FieldViolation[] } | undefined;
  return { reason: info.reason, message, metadata: info.metadata ?? {}, violations: badRequest?.fieldViolations ?? [] };
}

function answerOf(result: unknown, error: WireError | undefined, check: (name: ErrorName) => void): BindingAnswer {
  return {
    ...(error === undefined ? { result } : { error }),
    expectError(name) {
      expect(error, `expected ${name}, got a result`).toBeDefined();
      check(name);
      return error as WireError;
    },
  };
}

export const JSON_RPC: BindingDriver = {
  name: 'JSON-RPC',
  async call({ url, method, params, headers = {}, tenant }) {
    const response = await rpc(url, (method === 'Unknown' ? UNKNOWN_METHOD : method) as MethodName, withTenant(params, tenant), {
      headers,
    });
    const error = response.body.error;
    return answerOf(response.body.result, error === undefined ? undefined : wireErrorOf(error.message, error.data), (name) => {
      const row = ERRORS[name];
      expectErrorResponse(response, name, { httpStatus: row.category === 'hub' ? row.httpStatus : 200 });
    });
  },
  async stream({ url, method, params, headers = {}, tenant }) {
    const result = await stream(url, method as 'SendStreamingMessage', withTenant(params, tenant), { headers });
    expect(result.errors).toEqual([]);
    return result.events.map((event) => event.frame);
  },
  async streamEnding({ url, method, params, headers = {}, tenant }) {
    const result = await stream(url, method as 'SendStreamingMessage', withTenant(params, tenant), { headers });
    expect(result.errors.length).toBeLessThanOrEqual(1);
    const last = result.errors[0]?.error;
    return {
      frames: result.events.map((event) => event.frame),
      ...(last === undefined ? {} : { error: wireErrorOf(last.message, last.data) }),
    };
  },
  urlOf: (urls) => urls.jsonRpcUrl,
  wireField: (field) => `params.${field}`,
  rootField: (field) => {
    expect(field, 'JSON-RPC names a violated field under params').toMatch(/^params\./);
    return field.slice('params.'.length);
  },
};

/** HTTP+JSON cannot carry the empty tenant: a route without `/{tenant}/` is the request under none, and '' is that. */
function restTenant(tenant: string | undefined): { tenant?: string } {
  return tenant === undefined || tenant === '' ? {} : { tenant };
}

export const HTTP_JSON: BindingDriver = {
  name: 'HTTP+JSON',
  async call({ url, method, params, headers = {}, tenant }) {
    if (method === 'Unknown') {
      const response = await post(`${url}/${UNKNOWN_METHOD}`, '{}', { 'content-type': 'application/json', ...headers });
      const status = (JSON.parse(response.text) as { error: { message: string; details?: unknown[] } }).error;
      return answerOf(undefined, wireErrorOf(status.message, status.details), (name) => void expectRestError(response, name));
    }
    const response = await restRpc(url, method, params, { headers, ...restTenant(tenant) });
    const error = response.error;
    return answerOf(
      response.result,
      error === undefined ? undefined : wireErrorOf(error.message, error.details),
      (name) => void expectRestErrorAnswer(response, name),
    );
  },
  async stream({ url, method, params, headers = {}, tenant }) {
    const result = await restStream(url, method as 'SendStreamingMessage', params, { headers, ...restTenant(tenant) });
    expect(result.errors).toEqual([]);
    return result.events.map((event) => event.frame);
  },
  async streamEnding({ url, method, params, headers = {}, tenant }) {
    const result = await restStream(url, method as 'SendStreamingMessage', params, { headers, ...restTenant(tenant) });
    expect(result.errors.length).toBeLessThanOrEqual(1);
    const last = result.errors[0]?.error;
    return {
      frames: result.events.map((event) => event.frame),
      ...(last === undefined ? {} : { error: wireErrorOf(last.message, last.details) }),
    };
  },
  urlOf: (urls) => urls.restUrl,
  wireField: (field) => field,
  rootField: (field) => {
    expect(field, 'HTTP+JSON names a violated field from the request message, not under params').not.toMatch(/^params\./);
    return field;
  },
};

export const BINDING_DRIVERS: readonly BindingDriver[] = [JSON_RPC, HTTP_JSON];
