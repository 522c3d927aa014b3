import { METHODS, type MethodName, type MethodTypes } from '../../generated/a2a/1.0/methods.js';
import { MEDIA_TYPES } from '../../generated/a2a/1.0/protocol.js';
import { a2aError, type A2AError } from '../protocol/a2a-error.js';
import { interfaceTenant, withInterfaceTenant } from '../protocol/interface-tenant.js';
import { pathSegmentProblem, routeOf } from '../protocol/rest-routes.js';
import { writeQuery } from '../protocol/rest-query.js';
import { restUrl } from '../protocol/rest-url.js';
import { validateResult } from './answer-validation.js';
import type { BindingCallOptions, BindingStreamOptions, ClientBinding, StreamingMethod } from './binding.js';
import { callSignal, exchange, streamExchange, type HttpBindingContext, type HttpCall } from './http-exchange.js';
import type { HttpTransport } from './http-transport.js';
import { UNAUTHENTICATED_STATUS, unauthenticatedWithoutBody } from './remote-error.js';
import type { RequestOptions } from './request-options.js';
import { readRestStatus, restError, restStatusOf } from './rest-error.js';
import type { EventSourceMessage } from './sse-reader.js';
import type { StreamEvent } from './task-stream.js';
import { A2ATransportError } from './transport-error.js';

/**
 * The HTTP+JSON binding (spec §11): each method at its proto route below the interface URL
 * (src/protocol/rest-routes.ts), the tenant as the `/{tenant}/` prefix, `body: "*"` routes
 * POSTing the request message without the fields the path carries, the others sending them as
 * query parameters (§11.5). Errors are `{"error": google.rpc.Status}`, in an answer or as an
 * `event: error` SSE frame.
 */
export class RestBinding implements ClientBinding {
  readonly endpoint: string;
  readonly protocolBinding = 'HTTP+JSON';
  /** The interface's tenant (AgentInterface.tenant), used when a request names none. */
  readonly tenant: string | undefined;
  private readonly context: HttpBindingContext;

  constructor(endpoint: string, tenant: string | undefined, options: RequestOptions, transport: HttpTransport) {
    this.endpoint = endpoint;
    this.tenant = interfaceTenant(tenant);
    this.context = { transport, options, binding: 'HTTP+JSON', isErrorAnswer: (text) => readRestStatus(text) !== undefined };
  }

  async call<M extends MethodName>(
    method: M,
    params: MethodTypes[M]['params'],
    options: BindingCallOptions = {},
  ): Promise<MethodTypes[M]['result']> {
    const request = {
      ...restCall(this.endpoint, this.tenant, method, params, `${MEDIA_TYPES.a2aJson}, ${MEDIA_TYPES.json}`),
      onHeaders: options.onHeaders,
    };
    const { response, text } = await exchange(this.context, method, request, callSignal(this.context.options, options), true);
    return validateResult(method, parseAnswer(method, text ?? '', response.status));
  }

  stream<M extends StreamingMethod>(
    method: M,
    params: MethodTypes[M]['params'],
    options: BindingStreamOptions = {},
  ): AsyncGenerator<StreamEvent, void, undefined> {
    return streamExchange(this.context, method, restCall(this.endpoint, this.tenant, method, params, MEDIA_TYPES.eventStream), options, {
      single: (text, status) => validateResult<StreamingMethod>(method, parseAnswer(method, text, status)),
      event: (message, status) => validateResult<StreamingMethod>(method, parseEvent(method, message, status)),
    });
  }
}

/**
 * The route, path, query and body of one call below the interface URL `endpoint`; a field the
 * path needs and params lack is refused before anything is sent. Exported for tools that
 * re-render a request (the suite's fault proxy), so no second copy of the mapping exists.
 */
export function restCall(
  endpoint: string,
  interfaceTenantId: string | undefined,
  method: MethodName,
  params: unknown,
  accept: string,
): HttpCall {
  const values = withInterfaceTenant({ ...(params as Record<string, unknown>) }, interfaceTenantId);
  const { tenant, ...given } = values;
  const route = routeOf(method, typeof tenant === 'string' && tenant !== '');
  let query = '';
  if (!route.body) {
    try {
      query = writeQuery(given, route.pathFields).toString();
    } catch (error) {
      throw a2aError('InvalidParamsError', `${method}: ${error instanceof Error ? error.message : String(error)}`);
    }
  }
  const url = restUrl(endpoint, route, values, query);
  if (url === undefined) {
    const violations = route.pathFields.flatMap((field) => {
      const problem = pathSegmentProblem(values[field]);
      return problem === undefined ? [] : [{ field, description: problem }];
    });
    throw a2aError(
      'InvalidParamsError',
      `${method}: ${violations.map((violation) => `${violation.field} ${violation.description}`).join('; ')}`,
      { violations },
    );
  }
  if (route.body) {
    const body = Object.fromEntries(Object.entries(given).filter(([name]) => !route.pathFields.includes(name)));
    return { url, verb: route.verb, headers: { 'content-type': MEDIA_TYPES.a2aJson, accept }, body: JSON.stringify(body) };
  }
  return { url, verb: route.verb, headers: { accept } };
}

/** The JSON of a success answer; throws the matching A2AError for an error answer. */
function parseAnswer(method: MethodName, text: string, status: number): unknown {
  let json: unknown;
  try {
    // An Empty result may come as HTTP 204 or an empty 200.
    json = text === '' && status < 300 && METHODS[method].resultType === 'Empty' ? {} : JSON.parse(text);
  } catch {
    if (status === UNAUTHENTICATED_STATUS) throw unauthenticatedWithoutBody(method);
    if (status < 200 || status >= 300) throw new A2ATransportError(`${method}: HTTP ${status} without an A2A error body`, { status });
    throw a2aError('InvalidAgentResponseError', `${method}: the answer is not JSON`);
  }
  if (status >= 200 && status < 300) return json;
  throw errorOfBody(method, json, status);
}

/** One SSE event: a bare StreamResponse, or an `event: error` frame carrying a Status. */
function parseEvent(method: MethodName, message: EventSourceMessage, status: number): unknown {
  let json: unknown;
  try {
    json = JSON.parse(message.data);
  } catch {
    throw a2aError('InvalidAgentResponseError', `${method}: an event of the stream is not JSON`);
  }
  if (message.event !== 'error') return json;
  const error = restStatusOf(json);
  if (error === undefined)
    throw a2aError('InvalidAgentResponseError', `${method}: an error event of the stream holds no google.rpc.Status`);
  throw restError(method, error.code ?? status, error);
}

function errorOfBody(method: MethodName, json: unknown, status: number): A2AError | A2ATransportError {
  const error = restStatusOf(json);
  if (error !== undefined) return restError(method, status, error);
  if (status === UNAUTHENTICATED_STATUS) return unauthenticatedWithoutBody(method);
  return new A2ATransportError(`${method}: HTTP ${status} without an A2A error body`, { status });
}
