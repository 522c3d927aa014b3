import { SPEC_ERROR_BY_CODE, type ErrorName } from '../../generated/a2a/1.0/errors.js';
import { METHODS, type MethodName, type MethodTypes } from '../../generated/a2a/1.0/methods.js';
import { MEDIA_TYPES } from '../../generated/a2a/1.0/protocol.js';
import { a2aError, type A2AError } from '../protocol/a2a-error.js';
import { registeredErrorOf } from '../protocol/error-info.js';
import { interfaceTenant, withInterfaceTenant } from '../protocol/interface-tenant.js';
import { readJsonRpcAnswer } from '../protocol/jsonrpc.js';
import { isRecord } from '../support/records.js';
import { validateResult } from './answer-validation.js';
import type { BindingCallOptions, BindingStreamOptions, ClientBinding, StreamingMethod } from './binding.js';
import { callSignal, exchange, streamExchange, type HttpBindingContext, type HttpCall } from './http-exchange.js';
import type { HttpTransport } from './http-transport.js';
import { remoteError, UNAUTHENTICATED_STATUS, unauthenticatedWithoutBody } from './remote-error.js';
import type { RequestOptions } from './request-options.js';
import type { StreamEvent } from './task-stream.js';
import { A2ATransportError } from './transport-error.js';

/** The JSON-RPC 2.0 binding (spec §9): every call a POST of one envelope to the card's endpoint. */
export class JsonRpcBinding implements ClientBinding {
  readonly endpoint: string;
  readonly protocolBinding = 'JSONRPC';
  /** The interface's tenant (AgentInterface.tenant), echoed in the `tenant` of every request that names none. */
  readonly tenant: string | undefined;
  private readonly context: HttpBindingContext;
  private nextId = 1;

  constructor(endpoint: string, options: RequestOptions, transport: HttpTransport, tenant?: string) {
    this.endpoint = endpoint;
    this.tenant = interfaceTenant(tenant);
    this.context = { transport, options, binding: 'JSON-RPC', isErrorAnswer: isJsonRpcError };
  }

  async call<M extends MethodName>(
    method: M,
    params: MethodTypes[M]['params'],
    options: BindingCallOptions = {},
  ): Promise<MethodTypes[M]['result']> {
    const { response, text } = await exchange(
      this.context,
      method,
      { ...this.request(method, params, MEDIA_TYPES.json), onHeaders: options.onHeaders },
      callSignal(this.context.options, options),
      true,
    );
    const { result } = parseEnvelope(method, text ?? '', response.status);
    // An Empty result is `{}` in ProtoJSON, but servers (@a2a-js/sdk among them) answer null: the same nothing.
    return validateResult(method, result === null && METHODS[method].resultType === 'Empty' ? {} : result);
  }

  stream<M extends StreamingMethod>(
    method: M,
    params: MethodTypes[M]['params'],
    options: BindingStreamOptions = {},
  ): AsyncGenerator<StreamEvent, void, undefined> {
    return streamExchange(this.context, method, this.request(method, params, MEDIA_TYPES.eventStream), options, {
      single: (text, status) => validateResult<StreamingMethod>(method, parseEnvelope(method, text, status).result),
      event: (message, status) => validateResult<StreamingMethod>(method, parseEnvelope(method, message.data, status).result),
    });
  }

  private request(method: MethodName, params: unknown, accept: string): HttpCall {
    return {
      url: this.endpoint,
      verb: 'POST',
      headers: { 'content-type': MEDIA_TYPES.json, accept },
      body: JSON.stringify({ jsonrpc: '2.0', id: this.nextId++, method, params: withInterfaceTenant(params, this.tenant) }),
    };
  }
}

/** Parses a JSON-RPC response; throws the matching A2AError for an error answer. */
function parseEnvelope(method: string, text: string, status: number): { readonly result: unknown } {
  if (status === UNAUTHENTICATED_STATUS) throw unauthenticated(method, text);
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    if (status < 200 || status >= 300) throw new A2ATransportError(`${method}: HTTP ${status} without a JSON-RPC answer`, { status });
    throw a2aError('InvalidAgentResponseError', `${method}: the answer is not JSON`);
  }
  if (!isRecord(json) || json['jsonrpc'] !== '2.0') {
    if (status < 200 || status >= 300) throw new A2ATransportError(`${method}: HTTP ${status} without a JSON-RPC answer`, { status });
    throw a2aError('InvalidAgentResponseError', `${method}: the answer is not a JSON-RPC 2.0 response`);
  }
  const error = json['error'];
  if (error !== undefined) throw jsonRpcError(method, error);
  if (!('result' in json)) throw a2aError('InvalidAgentResponseError', `${method}: the JSON-RPC response has neither result nor error`);
  return { result: json['result'] };
}

/** HTTP 401 is UnauthenticatedError whatever the body, keeping the agent's message and details when it sent a JSON-RPC error. */
function unauthenticated(method: string, text: string): A2AError {
  const error = readJsonRpcAnswer(text)?.['error'];
  if (isRecord(error) && typeof error['code'] === 'number' && typeof error['message'] === 'string') {
    return jsonRpcError(method, error, 'UnauthenticatedError');
  }
  return unauthenticatedWithoutBody(method);
}

/**
 * The A2AError for a JSON-RPC error object, named by its ErrorInfo when that names a
 * registered error of the same code, else by the code.
 */
function jsonRpcError(method: string, error: unknown, known?: ErrorName): A2AError {
  if (!isRecord(error) || typeof error['code'] !== 'number' || typeof error['message'] !== 'string') {
    return a2aError('InvalidAgentResponseError', `${method}: malformed JSON-RPC error object`);
  }
  const code = error['code'];
  const data = error['data'];
  const name = known ?? registeredErrorOf(data, (definition) => definition.code === code) ?? SPEC_ERROR_BY_CODE.get(code);
  return remoteError(name, error['message'], data, `remote code ${code}`);
}

function isJsonRpcError(text: string): boolean {
  return readJsonRpcAnswer(text)?.['error'] !== undefined;
}
