import { isMethodName, METHOD_BY_LEGACY_NAME, METHODS, type MethodName } from '../../generated/a2a/1.0/methods.js';
import type { JSONRPCErrorResponse, JSONRPCSuccessResponse } from '../../generated/a2a/1.0/types.js';
import { isRecord } from '../support/records.js';
import { a2aError, type A2AError } from './a2a-error.js';
import { A2A_1_0 } from './a2a-schema.js';
import { checkParams } from './params.js';
import { checkValue } from './validation.js';
import { violationPhrases } from './violations.js';

export type JsonRpcId = string | number | null;

/** The envelope member that holds the request message: field violations of JSON-RPC calls are named below it. */
export const PARAMS_MEMBER = 'params';

/** A JSON-RPC call whose envelope, method and params have been checked. */
export interface JsonRpcCall {
  readonly method: MethodName;
  readonly params: unknown;
  /** Absent for a notification, which gets no response. */
  readonly id?: string | number;
  readonly notification: boolean;
}

/** A JSON-RPC 2.0 request object whose envelope is valid; method and params not yet checked. */
export interface Envelope {
  readonly id: JsonRpcId;
  readonly notification: boolean;
  readonly method: string;
  readonly params: unknown;
}

export type Parsed<T> = { readonly ok: true; readonly value: T } | { readonly ok: false; readonly error: A2AError };

/**
 * Checks a parsed JSON body as one JSON-RPC 2.0 request object (-32600 otherwise; batches
 * are not supported). Params that are not an object are -32602: A2A takes named params.
 */
export function parseEnvelope(body: unknown): Parsed<Envelope> & { readonly id: JsonRpcId } {
  if (Array.isArray(body)) {
    return {
      ok: false,
      id: null,
      error: a2aError('InvalidRequestError', 'batch requests are not supported: send one JSON-RPC request object per HTTP request'),
    };
  }
  const rawId = typeof body === 'object' && body !== null ? (body as Record<string, unknown>)['id'] : undefined;
  const id: JsonRpcId = typeof rawId === 'string' || (typeof rawId === 'number' && Number.isInteger(rawId)) ? rawId : null;
  const envelope = checkValue(A2A_1_0, 'JSONRPCRequest', body);
  if (!envelope.ok) {
    const paramsOnly = envelope.violations.every((violation) => violation.field === PARAMS_MEMBER);
    const error = paramsOnly
      ? a2aError('InvalidParamsError', 'params must be an object (A2A takes named params)', { violations: envelope.violations })
      : a2aError('InvalidRequestError', `not a valid JSON-RPC 2.0 request: ${summary(envelope.violations)}`, {
          violations: envelope.violations,
        });
    return { ok: false, id: envelope.violations.some((violation) => violation.field === 'id') ? null : id, error };
  }
  const request = envelope.value;
  return { ok: true, id, value: { id, notification: !('id' in request), method: request.method, params: request.params } };
}

/**
 * Resolves the method (-32601, with the 1.0 name of a 0.3 method) and checks its params (-32602),
 * after renaming proto field names (`context_id`) to their JSON names.
 */
export function resolveCall(envelope: Envelope): Parsed<JsonRpcCall> {
  const { method } = envelope;
  if (!isMethodName(method)) {
    const modern = METHOD_BY_LEGACY_NAME.get(method);
    const hint = modern === undefined ? '' : ` (${method} is the A2A 0.3 name; A2A 1.0 calls it ${modern})`;
    return {
      ok: false,
      error: a2aError('MethodNotFoundError', `method ${JSON.stringify(method)} does not exist${hint}`, { metadata: { method } }),
    };
  }
  const definition = METHODS[method];
  if (envelope.params === undefined && !definition.paramsOptional) {
    return {
      ok: false,
      error: a2aError('InvalidParamsError', `${method} needs params (a ${definition.paramsType})`, {
        violations: [{ field: PARAMS_MEMBER, description: 'is required' }],
      }),
    };
  }
  const params = checkParams(method, envelope.params ?? {}, PARAMS_MEMBER);
  if (!params.ok) return params;
  const known = params.value;
  const id = envelope.id ?? undefined;
  return {
    ok: true,
    value: { method, params: known, ...(envelope.notification || id === undefined ? {} : { id }), notification: envelope.notification },
  };
}

export function successResponse(id: string | number | null, result: unknown): JSONRPCSuccessResponse {
  return { jsonrpc: '2.0', id: id as string | number, result };
}

export function errorResponse(id: JsonRpcId, error: A2AError): JSONRPCErrorResponse {
  return { jsonrpc: '2.0', id, error: error.toJsonRpcError() };
}

function summary(violations: readonly { field: string; description: string }[]): string {
  const shown = violationPhrases(violations.slice(0, 3), 'request');
  return violations.length > 3 ? `${shown.join('; ')}; and ${violations.length - 3} more` : shown.join('; ');
}

/** A JSON-RPC 2.0 response object read from an answer's text, or undefined when the text is not one. */
export function readJsonRpcAnswer(text: string): Record<string, unknown> | undefined {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return undefined;
  }
  return isRecord(json) && json['jsonrpc'] === '2.0' ? json : undefined;
}
