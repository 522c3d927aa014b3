import { METHODS, type MethodName } from '../../generated/a2a/1.0/methods.js';
import { MEDIA_TYPES, PROTOCOL_VERSION } from '../../generated/a2a/1.0/protocol.js';
import type { StreamResponse } from '../../generated/a2a/1.0/types.js';
import { writeQuery } from '../../src/protocol/rest-query.js';
import { interfaceTenant, namesTenant, withInterfaceTenant } from '../../src/protocol/interface-tenant.js';
import { fillRoute, matchRestRoute, pathSegmentProblem, routeOf, type RestRoute } from '../../src/protocol/rest-routes.js';
import { urlBelow } from '../../src/protocol/rest-url.js';
import { isRecord } from '../../src/support/records.js';
import { rpcErrorOfStatus } from './answers.js';
import { VERSION_HEADER, type Exchange } from './exchange.js';
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

export interface RestTransportOptions {
  /** The interface URL the card declares; routes sit below it. */
  readonly endpoint: string;
  /** The interface's tenant, used for every call whose params name none. */
  readonly tenant?: string;
  /** Headers sent with every request (authentication). */
  readonly headers?: Readonly<Record<string, string>>;
  readonly timeoutMs: number;
  readonly version?: string;
}

/** What the suite accepts from an HTTP+JSON route: A2A's own media type first, plain JSON too. */
export const REST_ACCEPT = `${MEDIA_TYPES.a2aJson}, ${MEDIA_TYPES.json}`;

/**
 * The HTTP+JSON binding (spec §11): each method on its route from methods.json (rest-routes.ts),
 * path fields in the path, the rest in the body or, for GET routes, the query (§11.5). Answers
 * are read as JSON-RPC shapes them (RpcExchange), so the binding-neutral checks judge both
 * bindings alike; the Status body stays on `restError` for the REST checks.
 */
export class RestTransport implements Transport {
  readonly binding = 'HTTP+JSON' as const;
  /** HTTP+JSON in 1.x; 0.3's /v1 routes are rest03-transport.ts's. */
  readonly protocolVersion = PROTOCOL_VERSION;
  readonly endpoint: string;
  readonly stats: HttpStats = newStats();

  constructor(private readonly options: RestTransportOptions) {
    this.endpoint = options.endpoint;
  }

  call<M extends MethodName>(method: M, params: ParamsOf<M>, options: CallOptions = {}): Promise<RpcExchange> {
    return this.callRaw(method, params, options);
  }

  stream<M extends StreamingMethodName>(method: M, params: ParamsOf<M>, options: StreamOptions = {}): Promise<StreamExchange> {
    return this.streamRaw(method, params, options);
  }

  async callRaw(method: string, params: unknown, options: CallOptions = {}): Promise<RpcExchange> {
    const exchange = await send(
      this.request(method, params, options, REST_ACCEPT),
      options.timeoutMs ?? this.options.timeoutMs,
      this.stats,
    );
    return readAnswer(exchange);
  }

  streamRaw(method: string, params: unknown, options: StreamOptions = {}): Promise<StreamExchange> {
    return readStream(
      this.request(method, params, options, MEDIA_TYPES.eventStream),
      sseOptions(options, this.options.timeoutMs, interpretEvent),
      this.stats,
    );
  }

  raw(body: string | undefined, options: RawOptions = {}): Promise<Exchange> {
    const headers = {
      ...(options.withoutRunHeaders === true ? {} : this.options.headers),
      ...(options.headers ?? { 'content-type': MEDIA_TYPES.json }),
    };
    const url = options.url ?? urlBelow(this.endpoint, this.pathOf('SendMessage', {}));
    const request = { method: options.method ?? 'POST', url, headers, ...(body === undefined ? {} : { body }) };
    return send(request, options.timeoutMs ?? this.options.timeoutMs, this.stats);
  }

  /** The tenant the card's interface names, sent on every call whose params name none. */
  get tenant(): string | undefined {
    return interfaceTenant(this.options.tenant);
  }

  /** `method` with `params` as `call` sends it, but over `verb` (the REST checks: wrong verbs, the other verb of a route). */
  async callVia(
    verb: string,
    method: MethodName,
    params: Readonly<Record<string, unknown>>,
    options: CallOptions = {},
  ): Promise<RpcExchange> {
    const request = this.#via(verb, this.request(method, params, options, REST_ACCEPT));
    return readAnswer(await send(request, options.timeoutMs ?? this.options.timeoutMs, this.stats));
  }

  /** `stream` over `verb`: SubscribeToTask is served on GET by the proto and on POST by the prose. */
  streamVia(
    verb: string,
    method: StreamingMethodName,
    params: Readonly<Record<string, unknown>>,
    options: StreamOptions = {},
  ): Promise<StreamExchange> {
    const request = this.#via(verb, this.request(method, params, options, MEDIA_TYPES.eventStream));
    return readStream(request, sseOptions(options, this.options.timeoutMs, interpretEvent), this.stats);
  }

  /** A request moved to another verb: a GET carries no body; a POST without one sends none either. */
  #via(verb: string, request: HttpRequest): HttpRequest {
    if (verb === 'GET' || verb === 'DELETE') {
      const { body: _body, ...rest } = request;
      return { ...rest, method: verb };
    }
    return { ...request, method: verb };
  }

  /** The URL of `method`'s route for `params` (the card's tenant when they name none). */
  urlOf(method: MethodName, params: Readonly<Record<string, unknown>>): string {
    return urlBelow(this.endpoint, this.pathOf(method, params));
  }

  /** The route `method` is sent on for `params`. */
  routeFor(method: MethodName, params: Readonly<Record<string, unknown>>): RestRoute {
    return routeOf(method, this.#tenantOf(params) !== undefined);
  }

  /**
   * Builds the request of a call. Garbage stays garbage: a path field that is missing or not a
   * string is sent as its JSON text in the segment (or `-` when absent), so the agent sees the
   * route and must refuse the value; members a query cannot hold are sent as JSON text; an
   * unknown method goes to a path no route matches.
   */
  request(method: string, params: unknown, options: CallOptions, accept: string): HttpRequest {
    const values = isRecord(params) ? params : {};
    const known = Object.hasOwn(METHODS, method) ? (method as MethodName) : undefined;
    const headers: Record<string, string> = {
      ...(options.withoutRunHeaders === true ? {} : this.options.headers),
      accept,
      ...(options.noVersionHeader ? {} : { [VERSION_HEADER]: this.options.version ?? PROTOCOL_VERSION }),
    };
    if (known === undefined) {
      return {
        method: 'POST',
        url: urlBelow(this.endpoint, unknownPath(method), options.query),
        headers: { ...headers, 'content-type': MEDIA_TYPES.json, ...options.headers },
        ...(options.omitParams ? {} : { body: JSON.stringify(params) }),
      };
    }
    const route = this.routeFor(known, values);
    const path = this.pathOf(known, values);
    const rest = Object.fromEntries(Object.entries(values).filter(([name]) => !route.pathFields.includes(name)));
    if (route.body) {
      return {
        method: route.verb,
        url: urlBelow(this.endpoint, path, options.query),
        headers: { ...headers, 'content-type': MEDIA_TYPES.json, ...options.headers },
        ...(options.omitParams ? {} : { body: JSON.stringify(isRecord(params) ? rest : params) }),
      };
    }
    const query = writeQuery(queryable(rest), route.pathFields).toString();
    return {
      method: route.verb,
      url: urlBelow(this.endpoint, path, [query, options.query].filter(Boolean).join('&')),
      headers: { ...headers, ...options.headers },
    };
  }

  /** A path field (or the tenant) that is a string no path segment can carry: `.` or `..`. */
  unsendable(method: string, params: unknown): string | undefined {
    if (!Object.hasOwn(METHODS, method) || !isRecord(params)) return undefined;
    const tenant = this.#tenantOf(params);
    for (const field of routeOf(method as MethodName, tenant !== undefined).pathFields) {
      const value = field === 'tenant' ? tenant : params[field];
      if (typeof value !== 'string' || value === '') continue;
      const problem = pathSegmentProblem(value);
      if (problem !== undefined) return `HTTP+JSON carries ${field} in the URL path, and it ${problem}`;
    }
    return undefined;
  }

  /**
   * The path of `method`'s route for `params`; throws for a value `unsendable` names, which no
   * URL can carry: a check must not send it, and the runner reports the check's error rather
   * than an agent's failure.
   */
  pathOf(method: MethodName, params: Readonly<Record<string, unknown>>): string {
    const tenant = this.#tenantOf(params);
    const route = routeOf(method, tenant !== undefined);
    const values: Record<string, string> = {};
    for (const field of route.pathFields) {
      const value = field === 'tenant' ? tenant : params[field];
      values[field] = typeof value === 'string' && value !== '' ? value : value === undefined || value === '' ? '-' : JSON.stringify(value);
    }
    const path = fillRoute(route, values);
    if (path === undefined)
      throw new Error(`${method} cannot be sent: ${this.unsendable(method, params) ?? 'its path fields fit no route'}`);
    return path;
  }

  /** The tenant segment: the request's own or the interface's; one that is not a string is sent as its JSON text. */
  #tenantOf(params: Readonly<Record<string, unknown>>): string | undefined {
    const tenant = withInterfaceTenant(params, this.options.tenant)['tenant'];
    if (!namesTenant(tenant)) return undefined;
    return typeof tenant === 'string' ? tenant : JSON.stringify(tenant);
  }
}

/** An SSE data item: a bare StreamResponse, or (`event: error`) a Status read as the error it names. */
function interpretEvent({ event, json }: { readonly event?: string; readonly json?: unknown }): EventReading {
  if (event === 'error' || (isRecord(json) && isRecord(json['error']))) {
    const status = isRecord(json) && isRecord(json['error']) ? json['error'] : json;
    return { error: rpcErrorOfStatus(status), restError: status };
  }
  return isRecord(json) ? { frame: json as StreamResponse } : {};
}

/** An answer read as JSON-RPC shapes it: a 2xx body is the result, an `{"error": Status}` body the error. */
export function readAnswer(exchange: Exchange): RpcExchange {
  const json = exchange.json;
  if (exchange.status >= 200 && exchange.status < 300 && json !== undefined) return { ...exchange, id: undefined, result: json };
  if (isRecord(json) && isRecord(json['error']))
    return { ...exchange, id: undefined, error: rpcErrorOfStatus(json['error']), restError: json['error'] };
  return { ...exchange, id: undefined };
}

/** Query members as text a query can hold: messages and lists of messages as their JSON. */
function queryable(values: Readonly<Record<string, unknown>>): Record<string, unknown> {
  const text = (item: unknown): unknown => (typeof item === 'object' && item !== null ? JSON.stringify(item) : item);
  return Object.fromEntries(
    Object.entries(values).map(([name, value]) => [name, Array.isArray(value) ? (value as unknown[]).map(text) : text(value)]),
  );
}

/** A path for a method the binding does not have (unknown or 0.3 names), one no route matches. */
function unknownPath(method: string): string {
  const path = `/${method.split('/').map(encodeURIComponent).join('/')}`;
  return matchRestRoute('POST', path).kind === 'none' ? path : `${path}-unknown`;
}
