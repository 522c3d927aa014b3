import { METHODS, type HttpRoute, type MethodName } from '../../generated/a2a/1.0/methods.js';
import { PROTO_NAMES } from '../../generated/a2a/1.0/proto-names.js';

/**
 * The HTTP+JSON routes of A2A 1.0 (spec §11.3), compiled from the proto's google.api.http
 * annotations in methods.json, so that the hub's router, the client and the suite share one
 * table and none of them retypes a path. Paths are relative to an interface's URL.
 *
 * Matching follows the http-rule grammar: the last segment's `:verb` (`:cancel`) is split off
 * before segments are compared, and each `{field=*}` binds exactly one segment, so a task id
 * holding `/` or `:` must be percent-encoded by the client (encodeURIComponent does).
 */
export interface RestRoute {
  readonly method: MethodName;
  readonly verb: HttpRoute['verb'];
  /** The path template as annotated, e.g. `/{tenant}/tasks/{id=*}:cancel`. */
  readonly template: string;
  /** The request body is the whole request message (`body: "*"`); otherwise every field not in the path is a query parameter. */
  readonly body: boolean;
  /** The `/{tenant}/` variant of the route. */
  readonly tenant: boolean;
  /** Served because the spec prose names another verb than the proto (docs/spec-policy.md). */
  readonly alternate: boolean;
  /** JSON names of the request fields bound by the path, in path order. */
  readonly pathFields: readonly string[];
  readonly segments: readonly Segment[];
  /** The custom verb after the last `:`, e.g. `cancel`, or undefined. */
  readonly customVerb: string | undefined;
}

type Segment = { readonly literal: string } | { readonly field: string };

export type RouteMatch =
  | { readonly kind: 'route'; readonly route: RestRoute; readonly pathParams: Readonly<Record<string, string>> }
  /** The path is a route, but not for this verb: answer 405 with `Allow`. */
  | { readonly kind: 'wrong-verb'; readonly allowed: readonly string[] }
  /** The path is this route's but for a path variable whose percent-encoding does not decode: a 400 naming the field. */
  | { readonly kind: 'malformed'; readonly route: RestRoute; readonly field: string }
  | { readonly kind: 'none' };

export const REST_ROUTES: readonly RestRoute[] = Object.values(METHODS).flatMap((definition) => [
  ...definition.http.map((route) => compile(definition.name, definition.paramsType, route, false)),
  ...definition.httpAlternates.map((route) => compile(definition.name, definition.paramsType, route, true)),
]);

/**
 * The route `subpath` (the request path below the interface URL, starting with `/`) names.
 * Routes without a tenant come first in the table, so a path both could mean (`/tasks/tasks`)
 * is read without one. HEAD is GET without a body (RFC 9110 §9.3.2), so it matches GET routes
 * and `Allow` lists it beside GET; a path variable that does not decode counts only when no
 * route binds the path cleanly.
 */
export function matchRestRoute(verb: string, subpath: string): RouteMatch {
  const split = splitPath(subpath);
  if (split === undefined) return { kind: 'none' };
  const wanted = verb === 'HEAD' ? 'GET' : verb;
  const allowed: string[] = [];
  let malformed: RouteMatch | undefined;
  for (const route of REST_ROUTES) {
    const bound = bind(route, split);
    if (bound === undefined) continue;
    if (route.verb === wanted) {
      if (!('malformed' in bound)) return { kind: 'route', route, pathParams: bound.pathParams };
      malformed ??= { kind: 'malformed', route, field: bound.malformed };
      continue;
    }
    for (const allow of route.verb === 'GET' ? ['GET', 'HEAD'] : [route.verb]) if (!allowed.includes(allow)) allowed.push(allow);
  }
  if (malformed !== undefined) return malformed;
  return allowed.length === 0 ? { kind: 'none' } : { kind: 'wrong-verb', allowed };
}

/** The primary route of a method: its proto route, the `/{tenant}/` variant when `tenant` is given. */
export function routeOf(method: MethodName, tenant: boolean): RestRoute {
  const route = REST_ROUTES.find((candidate) => candidate.method === method && !candidate.alternate && candidate.tenant === tenant);
  if (route === undefined) throw new Error(`methods.json gives ${method} no ${tenant ? 'tenant ' : ''}HTTP route`);
  return route;
}

/**
 * The path (relative to the interface URL) that carries `values` on `route`, each bound field
 * percent-encoded as one segment; undefined when a bound field is missing or empty.
 */
export function fillRoute(route: RestRoute, values: Readonly<Record<string, unknown>>): string | undefined {
  const parts: string[] = [];
  for (const segment of route.segments) {
    if ('literal' in segment) {
      parts.push(segment.literal);
      continue;
    }
    const value = values[segment.field];
    if (typeof value !== 'string' || value === '') return undefined;
    parts.push(encodeURIComponent(value));
  }
  return `/${parts.join('/')}${route.customVerb === undefined ? '' : `:${route.customVerb}`}`;
}

function compile(method: MethodName, paramsType: string, route: HttpRoute, alternate: boolean): RestRoute {
  const renames = PROTO_NAMES[paramsType]?.renames ?? {};
  const colon = route.path.lastIndexOf(':');
  const slash = route.path.lastIndexOf('/');
  const hasVerb = colon > slash && colon > route.path.lastIndexOf('}');
  const path = hasVerb ? route.path.slice(0, colon) : route.path;
  const segments: Segment[] = path
    .slice(1)
    .split('/')
    .map((text) => {
      const variable = /^\{([a-z_]+)(?:=\*)?\}$/.exec(text);
      if (variable === null) return { literal: text };
      const protoName = variable[1] as string;
      return { field: Object.hasOwn(renames, protoName) ? (renames[protoName] as string) : protoName };
    });
  return {
    method,
    verb: route.verb,
    template: route.path,
    body: route.body === '*',
    tenant: segments.some((segment) => 'field' in segment && segment.field === 'tenant'),
    alternate,
    pathFields: segments.flatMap((segment) => ('field' in segment ? [segment.field] : [])),
    segments,
    customVerb: hasVerb ? route.path.slice(colon + 1) : undefined,
  };
}

interface SplitPath {
  readonly segments: readonly string[];
  readonly customVerb: string | undefined;
}

/** Raw (still encoded) segments and the custom verb; undefined for a path no route can match. */
function splitPath(subpath: string): SplitPath | undefined {
  if (!subpath.startsWith('/')) return undefined;
  const segments = subpath.slice(1).split('/');
  const last = segments[segments.length - 1] as string;
  const colon = last.lastIndexOf(':');
  if (colon < 0) return { segments, customVerb: undefined };
  segments[segments.length - 1] = last.slice(0, colon);
  return { segments, customVerb: last.slice(colon + 1) };
}

type Binding = { readonly pathParams: Record<string, string> } | { readonly malformed: string };

/** The path fields `path` binds on `route`, or the first field whose segment does not decode; undefined when the path is not the route's. */
function bind(route: RestRoute, path: SplitPath): Binding | undefined {
  if (route.customVerb !== path.customVerb || route.segments.length !== path.segments.length) return undefined;
  const bound: Record<string, string> = {};
  let malformed: string | undefined;
  for (let index = 0; index < route.segments.length; index++) {
    const segment = route.segments[index] as Segment;
    const text = path.segments[index] as string;
    if ('literal' in segment) {
      if (segment.literal !== text) return undefined;
      continue;
    }
    if (text === '') return undefined;
    try {
      bound[segment.field] = decodeURIComponent(text);
    } catch {
      malformed ??= segment.field;
    }
  }
  return malformed === undefined ? { pathParams: bound } : { malformed };
}
