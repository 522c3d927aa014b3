import { ERRORS, type ErrorDefinition } from '../../generated/a2a/1.0/errors.js';
import type { MethodName } from '../../generated/a2a/1.0/methods.js';
import { restCall } from '../../src/client/rest-binding.js';
import { restError, restStatusOf } from '../../src/client/rest-error.js';
import { resolveRestCall } from '../../src/protocol/rest-request.js';
import { matchRestRoute, type RestRoute } from '../../src/protocol/rest-routes.js';

/*
 * The faults of fault-proxy.ts are written once, in JSON-RPC shapes (an envelope with `result`
 * or `error`, SSE frames holding envelopes). This module shows them an HTTP+JSON exchange in
 * those shapes and carries what they changed back into the binding's own: the request message
 * back into the route, path, query and body (through the client's own mapping), a result back
 * into a bare body, an error code back into the registry's google.rpc.Status and HTTP status
 * with a matching ErrorInfo, frames back into bare StreamResponses or `event: error` frames.
 * So one fault is planted on both bindings, and the matrix judges each binding on its own.
 */

export type JsonObject = Record<string, unknown>;
export type ExchangeBinding = 'JSONRPC' | 'HTTP+JSON';

function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The interface paths a card (or an extended card) declares, per binding, as the proxy's requests name them. */
export interface InterfacePaths {
  readonly jsonRpc: Set<string>;
  readonly rest: Set<string>;
}

export function emptyInterfacePaths(): InterfacePaths {
  return { jsonRpc: new Set(), rest: new Set() };
}

/** Learns the interfaces of a JSON answer that is a card, or a JSON-RPC result holding one. */
export function learnInterfaces(json: unknown, paths: InterfacePaths): void {
  const card = isObject(json) && isObject(json['result']) ? json['result'] : json;
  if (!isObject(card) || !Array.isArray(card['supportedInterfaces'])) return;
  for (const entry of card['supportedInterfaces'].filter(isObject)) {
    if (typeof entry['url'] !== 'string') continue;
    let path: string;
    try {
      path = new URL(entry['url'], 'http://interface.invalid').pathname.replace(/\/+$/, '');
    } catch {
      continue;
    }
    if (entry['protocolBinding'] === 'JSONRPC') paths.jsonRpc.add(path);
    if (entry['protocolBinding'] === 'HTTP+JSON') paths.rest.add(path);
  }
}

/** An HTTP+JSON request, read as the A2A call it makes. */
export interface RestExchange {
  /** The interface path the route is below. */
  readonly base: string;
  readonly route: RestRoute;
  readonly method: MethodName;
  /** The request message: the path's fields, the query's and the body's (as sent when the agent would refuse them). */
  readonly params: JsonObject;
  /** The call as a JSON-RPC request body, which is what the faults' onRequest hooks read and change. */
  readonly canonical: string;
}

export type Classified =
  | { readonly binding: 'HTTP+JSON'; readonly rest: RestExchange }
  | { readonly binding: 'JSONRPC' }
  /** The card, or a path no declared interface has (a card fault may hide the interfaces). */
  | { readonly binding: undefined };

/** Which binding a request is on, by the interfaces the cards declared; a POST is JSON-RPC while none is known. */
export function classify(httpMethod: string, path: string, body: string | undefined, paths: InterfacePaths): Classified {
  const [pathname = path, search = ''] = path.split(/\?(.*)/s);
  const trimmed = pathname.replace(/\/+$/, '');
  if (paths.jsonRpc.has(trimmed) && httpMethod === 'POST') return { binding: 'JSONRPC' };
  const bases = [...paths.rest].sort((left, right) => right.length - left.length);
  for (const base of bases) {
    if (!pathname.startsWith(`${base}/`)) continue;
    const match = matchRestRoute(httpMethod, pathname.slice(base.length));
    if (match.kind !== 'route') continue;
    return { binding: 'HTTP+JSON', rest: readRest(base, match.route, match.pathParams, new URLSearchParams(search), body) };
  }
  if (bases.length === 0 && paths.jsonRpc.size === 0 && httpMethod === 'POST') return { binding: 'JSONRPC' };
  return { binding: undefined };
}

function readRest(
  base: string,
  route: RestRoute,
  pathParams: Readonly<Record<string, string>>,
  query: URLSearchParams,
  body: string | undefined,
): RestExchange {
  let parsed: unknown;
  try {
    parsed = body === undefined || body === '' ? undefined : (JSON.parse(body) as unknown);
  } catch {
    parsed = body;
  }
  const resolved = resolveRestCall(route, pathParams, query.entries(), parsed);
  // The checked request message, with the members it drops as the client sent them: a fault may be about those (SEND-017).
  const params: JsonObject = resolved.ok
    ? withUnread(resolved.params as JsonObject, parsed)
    : { ...Object.fromEntries(query.entries()), ...(isObject(parsed) ? parsed : {}), ...pathParams };
  const canonical = JSON.stringify({ jsonrpc: '2.0', id: null, method: route.method, params });
  return { base, route, method: route.method, params, canonical };
}

/** `read` with the members of `sent` it lacks (under neither their JSON nor their proto name), at every depth. */
function withUnread(read: JsonObject, sent: unknown): JsonObject {
  if (!isObject(sent)) return read;
  const merged: JsonObject = { ...read };
  for (const [name, value] of Object.entries(sent)) {
    const jsonName = name.replace(/_([a-z0-9])/g, (_match, letter: string) => letter.toUpperCase());
    const known = merged[jsonName];
    if (known === undefined) merged[name] = value;
    else if (isObject(known)) merged[jsonName] = withUnread(known, value);
  }
  return merged;
}

/** The HTTP request a changed canonical body makes; undefined when it names no call the route table can render. */
export function renderRest(
  exchange: RestExchange,
  canonical: string,
  accept: string,
): { httpMethod: string; path: string; body: string | undefined } | undefined {
  let call: unknown;
  try {
    call = JSON.parse(canonical);
  } catch {
    return undefined;
  }
  if (!isObject(call) || typeof call['method'] !== 'string' || !isObject(call['params'])) return undefined;
  try {
    const rendered = restCall(`http://proxy.invalid${exchange.base}`, undefined, call['method'] as MethodName, call['params'], accept);
    const url = new URL(rendered.url);
    return { httpMethod: rendered.verb, path: `${url.pathname}${url.search}`, body: rendered.body };
  } catch {
    return undefined;
  }
}

/** An HTTP+JSON answer as the JSON-RPC envelope the faults read; undefined when it is neither a result nor a Status. */
export function canonicalAnswer(method: MethodName, status: number, json: unknown): JsonObject | undefined {
  if (status >= 200 && status < 300) return { jsonrpc: '2.0', id: null, result: json };
  const error = restStatusOf(json);
  if (error === undefined) return undefined;
  const named = restError(method, status, error);
  return {
    jsonrpc: '2.0',
    id: null,
    error: { code: named.code, message: error.message, data: Array.isArray(error.details) ? error.details : [] },
  };
}

/**
 * The error a JSON-RPC code means: the spec's codes name one error each; a2a-hub's own share
 * -32000 (the implementation-defined server error), so that code names an error only with
 * the HTTP status a hook chose, and is otherwise a server error of no particular kind.
 */
function definitionOf(code: unknown, httpStatus: number | undefined): ErrorDefinition {
  const all: readonly ErrorDefinition[] = Object.values(ERRORS);
  return (
    all.find((definition) => definition.category !== 'hub' && definition.code === code) ??
    all.find((definition) => httpStatus !== undefined && definition.httpStatus === httpStatus) ??
    ERRORS.InternalError
  );
}

/**
 * The HTTP+JSON answer of a changed envelope. A result becomes the bare body; an error becomes
 * the Status of the error its code names, with the ErrorInfo's reason made to agree (an agent
 * that answers the wrong error on this binding names it in both places). `status` is the HTTP
 * status a hook chose, which wins over the registry's.
 */
export function renderAnswer(
  envelope: unknown,
  previous: JsonObject | undefined,
  status: number | undefined,
): { status: number; json: unknown } | undefined {
  if (!isObject(envelope)) return undefined;
  if ('result' in envelope) return { status: status !== undefined && status < 300 ? status : 200, json: envelope['result'] };
  const error = envelope['error'];
  if (!isObject(error)) return undefined;
  const definition = definitionOf(error['code'], status === undefined || status === 200 ? undefined : status);
  const before = isObject(previous?.['error']) ? previous['error']['code'] : undefined;
  const data = error['data'];
  const details = (Array.isArray(data) ? data : data === undefined ? [] : [data]).map((detail: unknown) =>
    before !== error['code'] && isObject(detail) && typeof detail['reason'] === 'string'
      ? { ...detail, reason: definition.reason }
      : detail,
  );
  const message = typeof error['message'] === 'string' ? error['message'] : undefined;
  const httpStatus = status === undefined || status === 200 ? definition.httpStatus : status;
  return {
    status: httpStatus,
    json: {
      error: { code: httpStatus, status: definition.grpcStatus, ...(message === undefined ? {} : { message }), details },
    },
  };
}

/** A frame of an HTTP+JSON stream as the envelope a JSON-RPC stream would carry. */
export function canonicalFrame(method: MethodName, event: string | undefined, json: unknown): JsonObject | undefined {
  if (event !== 'error') return { jsonrpc: '2.0', id: null, result: json };
  const error = restStatusOf(json);
  return error === undefined ? undefined : canonicalAnswer(method, error.code ?? 500, json);
}

/** The HTTP+JSON frame of a changed envelope: the bare StreamResponse, or an `event: error` frame with the Status. */
export function renderFrame(envelope: unknown): { event: string | undefined; json: unknown } | undefined {
  if (isObject(envelope) && 'result' in envelope) return { event: undefined, json: envelope['result'] };
  const answer = renderAnswer(envelope, undefined, undefined);
  return answer === undefined ? undefined : { event: 'error', json: answer.json };
}
