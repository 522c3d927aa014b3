import { invalidParamsError, invalidRequestError, methodNotFoundError } from '../../generated/a2a/1.0/errors.js';
import { isMethodName, METHODS, type MethodName } from '../../generated/a2a/1.0/methods.js';
import type { JSONRPCErrorResponse, JSONRPCSuccessResponse } from '../../generated/a2a/1.0/types.js';
import type { A2AError } from './a2a-error.js';
import { A2A_1_0 } from './a2a-schema.js';
import { checkValue } from './validation.js';

export type JsonRpcId = string | number | null;

/** A JSON-RPC call whose envelope, method and params have been checked. */
export interface JsonRpcCall {
  readonly method: MethodName;
  readonly params: unknown;
  /** Absent for a notification, which gets no response. */
  readonly id?: string | number;
  readonly notification: boolean;
}

export type ParsedCall = { readonly ok: true; readonly call: JsonRpcCall } | { readonly ok: false; readonly id: JsonRpcId; readonly error: A2AError };

/** JSON-RPC methods of A2A 0.3, answered with -32601 and a pointer to their 1.0 names. */
const LEGACY_METHODS: Readonly<Record<string, MethodName>> = {
  'message/send': 'SendMessage',
  'message/stream': 'SendStreamingMessage',
  'tasks/get': 'GetTask',
  'tasks/cancel': 'CancelTask',
  'tasks/resubscribe': 'SubscribeToTask',
  'tasks/pushNotificationConfig/set': 'CreateTaskPushNotificationConfig',
  'tasks/pushNotificationConfig/get': 'GetTaskPushNotificationConfig',
  'tasks/pushNotificationConfig/list': 'ListTaskPushNotificationConfigs',
  'tasks/pushNotificationConfig/delete': 'DeleteTaskPushNotificationConfig',
  'agent/getAuthenticatedExtendedCard': 'GetExtendedAgentCard',
};

/**
 * Checks a parsed JSON body as a JSON-RPC 2.0 request for A2A 1.0: the envelope (-32600),
 * the method (-32601) and the params against the method's request message (-32602, with
 * field violations). Batches are not supported and are answered as invalid requests.
 */
export function parseCall(body: unknown): ParsedCall {
  if (Array.isArray(body)) {
    return { ok: false, id: null, error: invalidRequestError('batch requests are not supported: send one JSON-RPC request object per HTTP request') };
  }
  const idOf = (value: unknown): JsonRpcId => (typeof value === 'string' || (typeof value === 'number' && Number.isFinite(value)) ? value : null);
  const rawId = typeof body === 'object' && body !== null ? (body as Record<string, unknown>)['id'] : undefined;
  const id = idOf(rawId);
  const envelope = checkValue(A2A_1_0, 'JSONRPCRequest', body);
  if (!envelope.ok) {
    const paramsOnly = envelope.violations.every((violation) => violation.field === 'params');
    const error = paramsOnly
      ? invalidParamsError('params must be an object (A2A takes named params)', { violations: envelope.violations })
      : invalidRequestError(`not a valid JSON-RPC 2.0 request: ${summary(envelope.violations)}`, { violations: envelope.violations });
    return { ok: false, id: envelope.violations.some((violation) => violation.field === 'id') ? null : id, error };
  }
  const request = envelope.value;
  const notification = !('id' in request);
  if (!isMethodName(request.method)) {
    const modern = LEGACY_METHODS[request.method];
    const hint = modern === undefined ? '' : ` (${request.method} is the A2A 0.3 name; A2A 1.0 calls it ${modern})`;
    return { ok: false, id, error: methodNotFoundError(`method ${JSON.stringify(request.method)} does not exist${hint}`, { metadata: { method: request.method } }) };
  }
  const definition = METHODS[request.method];
  if (request.params === undefined && !definition.paramsOptional) {
    return { ok: false, id, error: invalidParamsError(`${request.method} needs params (a ${definition.paramsType})`, { violations: [{ field: 'params', description: 'is required' }] }) };
  }
  const params = checkValue(A2A_1_0, definition.paramsType as 'SendMessageRequest', request.params ?? {}, { fieldPrefix: 'params' });
  if (!params.ok) return { ok: false, id, error: invalidParamsError(`invalid params: ${summary(params.violations)}`, { violations: params.violations }) };
  return { ok: true, call: { method: request.method, params: params.value, ...(notification ? {} : { id: request.id }), notification } };
}

export function successResponse(id: string | number | null, result: unknown): JSONRPCSuccessResponse {
  return { jsonrpc: '2.0', id: id as string | number, result };
}

export function errorResponse(id: JsonRpcId, error: A2AError): JSONRPCErrorResponse {
  return { jsonrpc: '2.0', id, error: error.toJsonRpcError() };
}

function summary(violations: readonly { field: string; description: string }[]): string {
  const shown = violations.slice(0, 3).map((violation) => `${violation.field || 'request'} ${violation.description}`);
  return violations.length > 3 ? `${shown.join('; ')}; and ${violations.length - 3} more` : shown.join('; ');
}
