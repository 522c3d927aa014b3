import { METHODS as METHODS_03, type MethodName as Method03 } from '../../generated/a2a/0.3/methods.js';
import { MEDIA_TYPES, PROTOCOL_VERSION as VERSION_03 } from '../../generated/a2a/0.3/protocol.js';
import type { MethodName } from '../../generated/a2a/1.0/methods.js';
import { fillCaptures, pathSegmentProblem, type RestRoute } from '../../src/protocol/rest-routes.js';
import { urlBelow } from '../../src/protocol/rest-url.js';
import { UntranslatableError } from '../../src/protocol/untranslatable.js';
import { errorObject03 } from '../../src/protocol/v03/errors.js';
import { rest03Request, rest03Result } from '../../src/protocol/v03/rest-requests.js';
import { clientRoute03 } from '../../src/protocol/v03/rest-routes.js';
import { isRecord } from '../../src/support/records.js';
import { rpcErrorOfStatus } from './answers.js';
import type { Exchange } from './exchange.js';
import { newStats, readStream, send, sseOptions, type EventReading, type HttpRequest, type HttpStats } from './http.js';
import type {
  CallOptions,
  ParamsOf,
  RawOptions,
  RpcExchange,
  StreamExchange,
  StreamingMethodName,
  StreamOptions,
  Transport,
} from './transport.js';

export interface Rest03TransportOptions {
  /** The interface URL the card declares; 0.3's routes sit below its `/v1`. */
  readonly endpoint: string;
  /** Headers sent with every request (authentication). */
  readonly headers?: Readonly<Record<string, string>>;
  readonly timeoutMs: number;
}

/**
 * A2A 0.3's HTTP+JSON binding as a 0.3 client speaks it: the 0.3 checks' calls (0.3 method
 * names and JSON-RPC params) sent on the method's route below `/v1` with ProtoJSON bodies of
 * the 0.3 proto (src/protocol/v03/rest-requests.ts, the hub's client uses the same), and no
 * A2A-Version, as 0.3 clients send none. Answers are read as JSON-RPC would have carried them:
 * a 2xx body translated to the 0.3 result (left as sent when it is not the route's response
 * message, so the checks report it), an error body's `{code, message, data}` as the error.
 * Stream events stay as sent; conformance/checks/v03/support.ts reads them per binding.
 */
export class Rest03Transport implements Transport {
  readonly binding = 'HTTP+JSON' as const;
  readonly protocolVersion = VERSION_03;
  /** 0.3 has no tenants. */
  readonly tenant = undefined;
  readonly endpoint: string;
  readonly stats: HttpStats = newStats();

  constructor(private readonly options: Rest03TransportOptions) {
    this.endpoint = options.endpoint;
  }

  /** The 0.3 checks send 0.3 method names (callRaw); a 1.0 name is no 0.3 route and goes where an unknown one goes. */
  call<M extends MethodName>(method: M, params: ParamsOf<M>, options: CallOptions = {}): Promise<RpcExchange> {
    return this.callRaw(method, params, options);
  }

  stream<M extends StreamingMethodName>(method: M, params: ParamsOf<M>, options: StreamOptions = {}): Promise<StreamExchange> {
    return this.streamRaw(method, params, options);
  }

  async callRaw(method: string, params: unknown, options: CallOptions = {}): Promise<RpcExchange> {
    const exchange = await send(
      this.request(method, params, options, MEDIA_TYPES.json),
      options.timeoutMs ?? this.options.timeoutMs,
      this.stats,
    );
    const known = Object.hasOwn(METHODS_03, method) ? sendable(method as Method03, params) : undefined;
    return readAnswer03(method, exchange, known?.taskId);
  }

  streamRaw(method: string, params: unknown, options: StreamOptions = {}): Promise<StreamExchange> {
    return readStream(
      this.request(method, params, options, MEDIA_TYPES.eventStream),
      sseOptions(options, this.options.timeoutMs, interpretEvent03),
      this.stats,
    );
  }

  /** An id the route carries in its path that is `.` or `..` (other values it cannot carry are sent as garbage, with `-` for the id). */
  unsendable(method: string, params: unknown): string | undefined {
    if (!Object.hasOwn(METHODS_03, method) || !isRecord(params)) return undefined;
    try {
      rest03Request(method as Method03, params);
      return undefined;
    } catch (error) {
      if (!(error instanceof UntranslatableError)) return undefined;
      const value = params[error.path];
      const problem = typeof value === 'string' && value !== '' ? pathSegmentProblem(value) : undefined;
      return problem === undefined ? undefined : `0.3's HTTP+JSON carries ${error.path} in the URL path, and it ${problem}`;
    }
  }

  raw(body: string | undefined, options: RawOptions = {}): Promise<Exchange> {
    const headers = {
      ...(options.withoutRunHeaders === true ? {} : this.options.headers),
      ...(options.headers ?? { 'content-type': MEDIA_TYPES.json }),
    };
    const url = options.url ?? urlBelow(this.endpoint, placeholderPath(clientRoute03('message/send')));
    const request = { method: options.method ?? 'POST', url, headers, ...(body === undefined ? {} : { body }) };
    return send(request, options.timeoutMs ?? this.options.timeoutMs, this.stats);
  }

  /**
   * The request of a call. Params the route cannot carry (no id for the path, a message that is
   * no 0.3 Message) are sent as they are on the method's route, `-` for each id, so that the
   * agent sees the route and must refuse them; an unknown method goes to `/v1/<its name>`.
   */
  request(method: string, params: unknown, options: CallOptions, accept: string): HttpRequest {
    const headers: Record<string, string> = {
      ...(options.withoutRunHeaders === true ? {} : this.options.headers),
      accept,
      ...options.headers,
    };
    const known = Object.hasOwn(METHODS_03, method) ? (method as Method03) : undefined;
    const sent = known === undefined ? undefined : sendable(known, params);
    if (sent === undefined) {
      const route = known === undefined ? undefined : clientRoute03(known);
      const path = route === undefined ? `/v1/${method.split('/').map(encodeURIComponent).join('/')}` : placeholderPath(route);
      const verb = route?.verb ?? 'POST';
      const hasBody = verb !== 'GET' && verb !== 'DELETE' && options.omitParams !== true;
      return {
        method: verb,
        url: urlBelow(this.endpoint, path, options.query),
        headers: hasBody ? { 'content-type': MEDIA_TYPES.json, ...headers } : headers,
        ...(hasBody ? { body: JSON.stringify(params) } : {}),
      };
    }
    const query = [sent.query, options.query].filter(Boolean).join('&');
    const hasBody = sent.body !== undefined && options.omitParams !== true;
    return {
      method: sent.route.verb,
      url: urlBelow(this.endpoint, sent.path, query),
      headers: hasBody ? { 'content-type': MEDIA_TYPES.json, ...headers } : headers,
      ...(hasBody ? { body: JSON.stringify(sent.body) } : {}),
    };
  }
}

/**
 * The request of a 0.3 call, or undefined when its params cannot be carried on the route: not
 * translatable, or garbage the translation cannot even read (params of the wrong shape, which
 * the checks send on purpose).
 */
function sendable(method: Method03, params: unknown): ReturnType<typeof rest03Request> | undefined {
  try {
    return rest03Request(method, params);
  } catch {
    return undefined;
  }
}

/** The path of `route` with `-` for each id: the route, for params that name none. */
function placeholderPath(route: RestRoute<Method03>): string {
  const captures: Record<string, string[]> = {};
  for (const segment of route.segments) if ('field' in segment) (captures[segment.field] ??= []).push('-');
  return fillCaptures(route, captures) as string;
}

/** An answer read as 0.3's JSON-RPC would have carried it; `taskId` is the task the request's path named. */
export function readAnswer03(method: string, exchange: Exchange, taskId?: string): RpcExchange {
  const json = exchange.json;
  if (exchange.status >= 200 && exchange.status < 300) {
    if (!Object.hasOwn(METHODS_03, method)) return { ...exchange, id: undefined, ...(json === undefined ? {} : { result: json }) };
    const read = rest03Result(method as Method03, json, taskId);
    if (read.ok) return { ...exchange, id: undefined, result: read.value };
    const [first] = read.violations;
    const response = METHODS_03[method as Method03].restMessages?.response ?? 'response';
    const why = first === undefined ? '' : ` (${first.field} ${first.description})`;
    return { ...exchange, id: undefined, result: json, unreadable: `0.3 ${response}${why}` };
  }
  const error = errorObject03(json) ?? (isRecord(json) && isRecord(json['error']) ? rpcErrorOfStatus(json['error']) : undefined);
  return { ...exchange, id: undefined, ...(error === undefined ? {} : { error }) };
}

/** An SSE data item: a 0.3 StreamResponse (left for the checks to read), or (`event: error`) a 0.3 error object. */
function interpretEvent03({ event, json }: { readonly event?: string; readonly json?: unknown }): EventReading {
  if (event !== 'error') return {};
  const error = errorObject03(json) ?? (isRecord(json) && isRecord(json['error']) ? rpcErrorOfStatus(json['error']) : undefined);
  return error === undefined ? {} : { error };
}
