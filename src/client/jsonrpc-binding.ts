import { SPEC_ERROR_BY_CODE, type ErrorName } from '../../generated/a2a/1.0/errors.js';
import { METHODS, type MethodName, type MethodTypes } from '../../generated/a2a/1.0/methods.js';
import { MEDIA_TYPES, PROTOCOL_VERSION } from '../../generated/a2a/1.0/protocol.js';
import type { StreamResponse } from '../../generated/a2a/1.0/types.js';
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

/**
 * How one protocol version writes a JSON-RPC call and reads its answer, so that the binding
 * speaks 1.0 to its caller whichever version the interface speaks (jsonrpc-03.ts for 0.3).
 */
export interface JsonRpcDialect {
  /** Sent with every request (the version header). */
  readonly headers: Readonly<Record<string, string>>;
  /** The wire method and params of a 1.0 call; throws for a call the version cannot make. */
  request(method: MethodName, params: unknown): { readonly method: string; readonly params: unknown };
  /** The 1.0 result of an answer's `result`; InvalidAgentResponse when it does not conform. */
  result<M extends MethodName>(method: M, result: unknown): MethodTypes[M]['result'];
  /** One stream frame as a 1.0 StreamResponse. */
  frame(method: StreamingMethod, frame: unknown): StreamResponse;
  /** The A2AError of a JSON-RPC error object (code and message already checked). */
  error(method: string, error: JsonRpcErrorObject, known?: ErrorName): A2AError;
}

export interface JsonRpcErrorObject {
  readonly code: number;
  readonly message: string;
  readonly data?: unknown;
}

/** A2A 1.0 over JSON-RPC: the call as it is, the answer checked against spec/a2a/1.0. */
export const JSONRPC_1_0: JsonRpcDialect = {
  headers: {},
  request: (method, params) => ({ method, params }),
  // An Empty result is `{}` in ProtoJSON, but servers (@a2a-js/sdk among them) answer null: the same nothing.
  result: (method, result) => validateResult(method, result === null && METHODS[method].resultType === 'Empty' ? {} : result),
  frame: (method, frame) => validateResult<StreamingMethod>(method, frame),
  error: (method, error, known) => {
    const name =
      known ?? registeredErrorOf(error.data, (definition) => definition.code === error.code) ?? SPEC_ERROR_BY_CODE.get(error.code);
    return remoteError(name, error.message, error.data, `remote code ${error.code}`);
  },
};

/** The JSON-RPC 2.0 binding (spec §9): every call a POST of one envelope to the card's endpoint. */
export class JsonRpcBinding implements ClientBinding {
  readonly endpoint: string;
  readonly protocolBinding = 'JSONRPC';
  readonly protocolVersion: string;
  /** The interface's tenant (AgentInterface.tenant), echoed in the `tenant` of every request that names none. */
  readonly tenant: string | undefined;
  private readonly context: HttpBindingContext;
  private readonly dialect: JsonRpcDialect;
  private nextId = 1;

  /** `dialect` is the interface's protocol version: 1.0 unless told otherwise. */
  constructor(
    endpoint: string,
    options: RequestOptions,
    transport: HttpTransport,
    tenant?: string,
    version: { readonly protocolVersion: string; readonly dialect: JsonRpcDialect } = {
      protocolVersion: PROTOCOL_VERSION,
      dialect: JSONRPC_1_0,
    },
  ) {
    this.endpoint = endpoint;
    this.tenant = interfaceTenant(tenant);
    this.protocolVersion = version.protocolVersion;
    this.dialect = version.dialect;
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
    return this.dialect.result(method, parseEnvelope(method, text ?? '', response.status, this.dialect).result);
  }

  stream<M extends StreamingMethod>(
    method: M,
    params: MethodTypes[M]['params'],
    options: BindingStreamOptions = {},
  ): AsyncGenerator<StreamEvent, void, undefined> {
    return streamExchange(this.context, method, this.request(method, params, MEDIA_TYPES.eventStream), options, {
      single: (text, status) => this.dialect.frame(method, parseEnvelope(method, text, status, this.dialect).result),
      event: (message, status) => this.dialect.frame(method, parseEnvelope(method, message.data, status, this.dialect).result),
    });
  }

  private request(method: MethodName, params: unknown, accept: string): HttpCall {
    const wire = this.dialect.request(method, withInterfaceTenant(params, this.tenant));
    return {
      url: this.endpoint,
      verb: 'POST',
      headers: { 'content-type': MEDIA_TYPES.json, accept, ...this.dialect.headers },
      body: JSON.stringify({ jsonrpc: '2.0', id: this.nextId++, method: wire.method, params: wire.params }),
    };
  }
}

/** Parses a JSON-RPC response; throws the matching A2AError for an error answer. */
function parseEnvelope(method: string, text: string, status: number, dialect: JsonRpcDialect): { readonly result: unknown } {
  if (status === UNAUTHENTICATED_STATUS) throw unauthenticated(method, text, dialect);
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
  if (error !== undefined) throw jsonRpcError(method, error, dialect);
  if (!('result' in json)) throw a2aError('InvalidAgentResponseError', `${method}: the JSON-RPC response has neither result nor error`);
  return { result: json['result'] };
}

/** HTTP 401 is UnauthenticatedError whatever the body, keeping the agent's message and details when it sent a JSON-RPC error. */
function unauthenticated(method: string, text: string, dialect: JsonRpcDialect): A2AError {
  const error = readJsonRpcAnswer(text)?.['error'];
  if (isRecord(error) && typeof error['code'] === 'number' && typeof error['message'] === 'string') {
    return jsonRpcError(method, error, dialect, 'UnauthenticatedError');
  }
  return unauthenticatedWithoutBody(method);
}

/** The A2AError for a JSON-RPC error object, as the dialect names it; a malformed one is InvalidAgentResponse. */
function jsonRpcError(method: string, error: unknown, dialect: JsonRpcDialect, known?: ErrorName): A2AError {
  if (!isRecord(error) || typeof error['code'] !== 'number' || typeof error['message'] !== 'string') {
    return a2aError('InvalidAgentResponseError', `${method}: malformed JSON-RPC error object`);
  }
  return dialect.error(method, { code: error['code'], message: error['message'], data: error['data'] }, known);
}

function isJsonRpcError(text: string): boolean {
  return readJsonRpcAnswer(text)?.['error'] !== undefined;
}
