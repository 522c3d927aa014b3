import type { MethodName as Method03 } from '../../generated/a2a/0.3/methods.js';
import { PROTOCOL_VERSION as VERSION_03 } from '../../generated/a2a/0.3/protocol.js';
import type { MethodName, MethodTypes } from '../../generated/a2a/1.0/methods.js';
import { MEDIA_TYPES } from '../../generated/a2a/1.0/protocol.js';
import type { StreamResponse } from '../../generated/a2a/1.0/types.js';
import { a2aError } from '../protocol/a2a-error.js';
import { urlBelow } from '../protocol/rest-url.js';
import { errorObject03 } from '../protocol/v03/errors.js';
import { rest03Request, rest03Result } from '../protocol/v03/rest-requests.js';
import { UntranslatableError } from '../protocol/untranslatable.js';
import type { BindingCallOptions, BindingStreamOptions, ClientBinding, StreamingMethod } from './binding.js';
import { callSignal, exchange, streamExchange, type HttpBindingContext, type HttpCall } from './http-exchange.js';
import type { HttpTransport } from './http-transport.js';
import { JSONRPC_0_3 } from './jsonrpc-03.js';
import { UNAUTHENTICATED_STATUS, unauthenticatedWithoutBody } from './remote-error.js';
import type { RequestOptions } from './request-options.js';
import type { EventSourceMessage } from './sse-reader.js';
import type { StreamEvent } from './task-stream.js';
import { A2ATransportError } from './transport-error.js';

/**
 * A2A 0.3 over HTTP+JSON, for an interface whose protocolVersion is 0.3: each 1.0 call becomes
 * its 0.3 call as JSON-RPC would make it (jsonrpc-03.ts), then that call's `/v1` route with a
 * ProtoJSON body of the 0.3 proto (src/protocol/v03/rest-requests.ts); the answer is read back
 * into the 0.3 result and goes the way a JSON-RPC one does, so the caller only ever sees 1.0.
 * Errors are 0.3's `{code, message, data}` objects (the form @a2a-js/sdk 0.3 and the hub send),
 * in the body or in an `event: error` frame.
 */
export class Rest03Binding implements ClientBinding {
  readonly endpoint: string;
  readonly protocolBinding = 'HTTP+JSON';
  readonly protocolVersion = VERSION_03;
  private readonly context: HttpBindingContext;

  constructor(endpoint: string, options: RequestOptions, transport: HttpTransport) {
    this.endpoint = endpoint;
    this.context = { transport, options, binding: 'HTTP+JSON', isErrorAnswer: (text) => errorObject03(parsed(text)) !== undefined };
  }

  async call<M extends MethodName>(
    method: M,
    params: MethodTypes[M]['params'],
    options: BindingCallOptions = {},
  ): Promise<MethodTypes[M]['result']> {
    const { wire, call, taskId } = this.request(method, params, MEDIA_TYPES.json);
    const { response, text } = await exchange(
      this.context,
      method,
      { ...call, onHeaders: options.onHeaders },
      callSignal(this.context.options, options),
      true,
    );
    return JSONRPC_0_3.result(method, answerOf(method, wire, text ?? '', response.status, taskId));
  }

  stream<M extends StreamingMethod>(
    method: M,
    params: MethodTypes[M]['params'],
    options: BindingStreamOptions = {},
  ): AsyncGenerator<StreamEvent, void, undefined> {
    const { wire, call } = this.request(method, params, MEDIA_TYPES.eventStream);
    return streamExchange(this.context, method, call, options, {
      single: (text, status): StreamResponse => JSONRPC_0_3.frame(method, answerOf(method, wire, text, status)),
      event: (message): StreamResponse => JSONRPC_0_3.frame(method, eventOf(method, wire, message)),
    });
  }

  private request(
    method: MethodName,
    params: unknown,
    accept: string,
  ): { readonly wire: Method03; readonly call: HttpCall; readonly taskId: string | undefined } {
    const made = JSONRPC_0_3.request(method, params);
    const wire = made.method as Method03;
    let request;
    try {
      request = rest03Request(wire, made.params);
    } catch (error) {
      if (!(error instanceof UntranslatableError)) throw error;
      throw a2aError('InvalidParamsError', `${method}: ${error.message}, so A2A ${VERSION_03}'s HTTP+JSON binding cannot carry it`, {
        violations: [{ field: error.path, description: error.message.slice(error.path.length + 2) }],
      });
    }
    const url = urlBelow(this.endpoint, request.path, request.query);
    const headers = { ...JSONRPC_0_3.headers, accept };
    const call: HttpCall =
      request.body === undefined
        ? { url, verb: request.route.verb, headers }
        : { url, verb: request.route.verb, headers: { ...headers, 'content-type': MEDIA_TYPES.json }, body: JSON.stringify(request.body) };
    return { wire, call, taskId: request.taskId };
  }
}

/** The 0.3 result of an answer; throws the A2AError of an error answer. */
function answerOf(method: MethodName, wire: Method03, text: string, status: number, taskId?: string): unknown {
  const json = parsed(text);
  if (status === UNAUTHENTICATED_STATUS) {
    const error = errorObject03(json);
    throw error === undefined ? unauthenticatedWithoutBody(method) : JSONRPC_0_3.error(method, error, 'UnauthenticatedError');
  }
  if (status < 200 || status >= 300) {
    const error = errorObject03(json);
    if (error !== undefined) throw JSONRPC_0_3.error(method, error);
    throw new A2ATransportError(`${method}: HTTP ${status} without an A2A error body`, { status });
  }
  if (json === NOT_JSON) throw a2aError('InvalidAgentResponseError', `${method}: the answer is not JSON`);
  return resultOf(method, wire, json, taskId);
}

/** One SSE event: a StreamResponse, or (`event: error`) a 0.3 error object. */
function eventOf(method: MethodName, wire: Method03, message: EventSourceMessage): unknown {
  const json = parsed(message.data);
  if (json === NOT_JSON || json === undefined) throw a2aError('InvalidAgentResponseError', `${method}: an event of the stream is not JSON`);
  if (message.event === 'error') {
    const error = errorObject03(json);
    if (error === undefined) throw a2aError('InvalidAgentResponseError', `${method}: an error event of the stream holds no error object`);
    throw JSONRPC_0_3.error(method, error);
  }
  return resultOf(method, wire, json);
}

/** The 0.3 result of an answer body; `taskId` is the task the request's path named. */
function resultOf(method: MethodName, wire: Method03, json: unknown, taskId?: string): unknown {
  const read = rest03Result(wire, json, taskId);
  if (read.ok) return read.value;
  const summary = read.violations.map((violation) => `${violation.field}: ${violation.description}`).join('; ');
  throw a2aError('InvalidAgentResponseError', `${method}: the ${wire} answer does not conform to A2A ${VERSION_03}: ${summary}`, {
    violations: read.violations,
  });
}

const NOT_JSON = Symbol('not JSON');

/** The body as JSON; undefined when empty, NOT_JSON when it does not parse. */
function parsed(text: string): unknown {
  if (text === '') return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return NOT_JSON;
  }
}
