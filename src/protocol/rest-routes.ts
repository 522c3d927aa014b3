import { METHODS, type MethodName } from '../../generated/a2a/1.0/methods.js';
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
export interface RestRoute<M extends string = MethodName> {
  readonly method: M;
  readonly verb: HttpVerb;
  /** The path template as annotated, e.g. `/{tenant}/tasks/{id=*}:cancel`. */
  readonly template: string;
  /** The request body is the whole request message (`body: "*"`); otherwise every field not in the path is a query parameter. */
  readonly body: boolean;
  /** The request field the body is, when it is one field (0.3's `body: "config"`). */
  readonly bodyField: string | undefined;
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

type HttpVerb = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/** The http rule of one method, as methods.json gives it in every version. */
interface HttpRule {
  readonly verb: HttpVerb;
  readonly path: string;
  readonly body?: string;
}

/**
 * A path segment: a literal, or one `*` of a variable. A variable with a pattern
 * (`{name=tasks/*}`, 0.3's resource names) spans several segments: its literals carry `within`,
 * and its value is the segments it spans, joined with `/`.
 */
type Segment = { readonly literal: string; readonly within?: string } | { readonly field: string };

export type RouteMatch<M extends string = MethodName> =
  | {
      readonly kind: 'route';
      readonly route: RestRoute<M>;
      /** Each path variable's value: one decoded segment, or a resource name such as `tasks/abc`. */
      readonly pathParams: Readonly<Record<string, string>>;
      /** The decoded `*` segments of each variable, in path order (`name=tasks/*` → the task id). */
      readonly captures: Readonly<Record<string, readonly string[]>>;
    }
  /** The path is a route, but not for this verb: answer 405 with `Allow`. */
  | { readonly kind: 'wrong-verb'; readonly allowed: readonly string[] }
  /** The path is this route's but for a path variable whose percent-encoding does not decode: a 400 naming the field. */
  | { readonly kind: 'malformed'; readonly route: RestRoute<M>; readonly field: string }
  | { readonly kind: 'none' };

/** Compiles a version's http rules; `renames` maps a params def's proto field names to JSON names. */
export function compileRoutes<M extends string>(
  methods: readonly {
    readonly name: M;
    readonly paramsType: string;
    readonly http: readonly HttpRule[];
    readonly httpAlternates: readonly HttpRule[];
  }[],
  renamesOf: (paramsType: string) => Readonly<Record<string, string>> = () => ({}),
): readonly RestRoute<M>[] {
  return methods.flatMap((definition) => [
    ...definition.http.map((route) => compile(definition.name, renamesOf(definition.paramsType), route, false)),
    ...definition.httpAlternates.map((route) => compile(definition.name, renamesOf(definition.paramsType), route, true)),
  ]);
}

export const REST_ROUTES: readonly RestRoute[] = compileRoutes(Object.values(METHODS), (type) => PROTO_NAMES[type]?.renames ?? {});

/**
 * The route `subpath` (the request path below the interface URL, starting with `/`) names.
 * Routes without a tenant come first in the table, so a path both could mean (`/tasks/tasks`)
 * is read without one. HEAD is GET without a body (RFC 9110 §9.3.2), so it matches GET routes
 * and `Allow` lists it beside GET; a path variable that does not decode counts only when no
 * route binds the path cleanly.
 */
export function matchRestRoute(verb: string, subpath: string): RouteMatch {
  return matchRoute(REST_ROUTES, verb, subpath);
}

/** matchRestRoute over any version's table. */
export function matchRoute<M extends string>(routes: readonly RestRoute<M>[], verb: string, subpath: string): RouteMatch<M> {
  const split = splitPath(subpath);
  if (split === undefined) return { kind: 'none' };
  const wanted = verb === 'HEAD' ? 'GET' : verb;
  const allowed: string[] = [];
  let malformed: RouteMatch<M> | undefined;
  for (const route of routes) {
    const bound = bind(route, split);
    if (bound === undefined) continue;
    if (route.verb === wanted) {
      if (!('malformed' in bound)) return { kind: 'route', route, pathParams: bound.pathParams, captures: bound.captures };
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
 * Why a value cannot be one segment of a path: missing or empty, or `.` or `..`, which URL
 * parsing resolves away (RFC 3986 §5.2.4), percent-encoded (`%2E`) or not, so the request would
 * reach another route. Undefined when it can.
 */
export function pathSegmentProblem(value: unknown): string | undefined {
  if (typeof value !== 'string' || value === '') return 'must be a non-empty string: the HTTP+JSON route carries it in the path';
  if (value === '.' || value === '..') return `cannot be ${JSON.stringify(value)}: a URL path resolves it away`;
  return undefined;
}

/**
 * The path (relative to the interface URL) that carries `values` on `route`, each `*` of a
 * variable percent-encoded as one segment; undefined when a bound field cannot be a segment
 * (pathSegmentProblem), or a resource name does not fit its pattern.
 */
export function fillRoute<M extends string>(route: RestRoute<M>, values: Readonly<Record<string, unknown>>): string | undefined {
  const parts: string[] = [];
  const pieces = new Map<string, string[]>();
  for (const segment of route.segments) {
    const field = 'field' in segment ? segment.field : segment.within;
    if (field === undefined) {
      parts.push((segment as { literal: string }).literal);
      continue;
    }
    let remaining = pieces.get(field);
    if (remaining === undefined) {
      const value = values[field];
      if (typeof value !== 'string' || value === '') return undefined;
      // A one-segment variable takes the value whole (a `/` in it is encoded); a pattern splits a resource name.
      remaining =
        route.segments.filter((other) => ('field' in other ? other.field : other.within) === field).length === 1
          ? [value]
          : value.split('/');
      pieces.set(field, remaining);
    }
    const piece = remaining.shift();
    if (piece === undefined || pathSegmentProblem(piece) !== undefined) return undefined;
    if ('field' in segment) parts.push(encodeURIComponent(piece));
    else if (piece === segment.literal) parts.push(piece);
    else return undefined;
  }
  if ([...pieces.values()].some((left) => left.length > 0)) return undefined;
  return `/${parts.join('/')}${route.customVerb === undefined ? '' : `:${route.customVerb}`}`;
}

/**
 * The path of `route` with each `*` of a variable taken, in order, from that variable's
 * `captures` (a match's `captures`, backwards), each percent-encoded as one segment, so that an
 * id holding `/` stays one segment of a resource name; undefined when one cannot be a segment (pathSegmentProblem).
 */
export function fillCaptures<M extends string>(
  route: RestRoute<M>,
  captures: Readonly<Record<string, readonly string[]>>,
): string | undefined {
  const taken = new Map<string, number>();
  const parts: string[] = [];
  for (const segment of route.segments) {
    if (!('field' in segment)) {
      parts.push(segment.literal);
      continue;
    }
    const index = taken.get(segment.field) ?? 0;
    const piece = captures[segment.field]?.[index];
    if (piece === undefined || pathSegmentProblem(piece) !== undefined) return undefined;
    taken.set(segment.field, index + 1);
    parts.push(encodeURIComponent(piece));
  }
  return `/${parts.join('/')}${route.customVerb === undefined ? '' : `:${route.customVerb}`}`;
}

/** The parts of `field`'s resource-name pattern on `route`: its literals, and undefined for each `*`. */
function patternOf<M extends string>(route: RestRoute<M>, field: string): readonly (string | undefined)[] {
  return route.segments.flatMap((segment) =>
    'field' in segment ? (segment.field === field ? [undefined] : []) : segment.within === field ? [segment.literal] : [],
  );
}

/** A variable's resource-name pattern as the proto writes it: its literals, and `*` for each id. */
export function namePatternOf<M extends string>(route: RestRoute<M>, field: string): string {
  return patternOf(route, field)
    .map((part) => part ?? '*')
    .join('/');
}

/** The resource name `field` holds on `route`, its `*`s taken in order from `pieces` as they are (not encoded). */
export function resourceNameOf<M extends string>(route: RestRoute<M>, field: string, pieces: readonly string[]): string {
  let next = 0;
  return patternOf(route, field)
    .map((part) => part ?? pieces[next++] ?? '')
    .join('/');
}

/**
 * The `*` pieces of a resource name on `field`'s pattern, or undefined when it does not fit.
 * Ids are written into names as they are, so one may hold `/`: a piece ends at the next literal
 * of the pattern (the last takes the rest, and may be empty), unless the caller knows it (`known`, by position).
 */
export function piecesOfName<M extends string>(
  route: RestRoute<M>,
  field: string,
  name: string,
  known: readonly (string | undefined)[] = [],
): string[] | undefined {
  const parts = patternOf(route, field);
  const pieces: string[] = [];
  let at = 0;
  for (let index = 0; index < parts.length; index++) {
    const part = parts[index];
    const last = index === parts.length - 1;
    let end: number;
    if (part !== undefined) {
      end = at + part.length;
      if (!name.startsWith(part, at)) return undefined;
    } else if (last) {
      end = name.length;
    } else {
      // The next literal, with the `/` after it unless it ends the name.
      const following = `/${parts[index + 1] ?? ''}${index + 2 < parts.length ? '/' : ''}`;
      const expected = known[pieces.length];
      const fits = (stop: number) => stop > at && name.startsWith(following, stop);
      end =
        expected !== undefined && name.startsWith(expected, at) && fits(at + expected.length)
          ? at + expected.length
          : name.indexOf(following, at);
      if (!fits(end)) return undefined;
    }
    if (part === undefined) {
      // Only the last id may be empty: a name whose id is still to be given (`…/pushNotificationConfigs/`).
      if (end <= at && !last) return undefined;
      pieces.push(name.slice(at, end));
    }
    if (last) return end === name.length ? pieces : undefined;
    if (name[end] !== '/') return undefined;
    at = end + 1;
  }
  return pieces;
}

function compile<M extends string>(
  method: M,
  renames: Readonly<Record<string, string>>,
  route: HttpRule,
  alternate: boolean,
): RestRoute<M> {
  const colon = route.path.lastIndexOf(':');
  const slash = route.path.lastIndexOf('/');
  const hasVerb = colon > slash && colon > route.path.lastIndexOf('}');
  const path = hasVerb ? route.path.slice(0, colon) : route.path;
  const segments: Segment[] = (path.slice(1).match(/\{[^}]*\}|[^/]+/g) ?? []).flatMap((text): Segment[] => {
    const variable = /^\{([a-z_]+)(?:=([^}]+))?\}$/.exec(text);
    if (variable === null) return [{ literal: text }];
    const protoName = variable[1] as string;
    const field = Object.hasOwn(renames, protoName) ? (renames[protoName] as string) : protoName;
    return (variable[2] ?? '*').split('/').map((piece) => (piece === '*' ? { field } : { literal: piece, within: field }));
  });
  const pathFields = [...new Set(segments.flatMap((segment) => ('field' in segment ? [segment.field] : [])))];
  return {
    method,
    verb: route.verb,
    template: route.path,
    body: route.body === '*',
    bodyField: route.body === undefined || route.body === '*' ? undefined : (renames[route.body] ?? route.body),
    tenant: pathFields.includes('tenant'),
    alternate,
    pathFields,
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

type Binding =
  { readonly pathParams: Record<string, string>; readonly captures: Record<string, string[]> } | { readonly malformed: string };

/** The path fields `path` binds on `route`, or the first field whose segment does not decode; undefined when the path is not the route's. */
function bind<M extends string>(route: RestRoute<M>, path: SplitPath): Binding | undefined {
  if (route.customVerb !== path.customVerb || route.segments.length !== path.segments.length) return undefined;
  const spans: Record<string, string[]> = {};
  const captures: Record<string, string[]> = {};
  let malformed: string | undefined;
  for (let index = 0; index < route.segments.length; index++) {
    const segment = route.segments[index] as Segment;
    const text = path.segments[index] as string;
    if ('literal' in segment) {
      if (segment.literal !== text) return undefined;
      if (segment.within !== undefined) (spans[segment.within] ??= []).push(text);
      continue;
    }
    if (text === '') return undefined;
    try {
      const decoded = decodeURIComponent(text);
      (spans[segment.field] ??= []).push(decoded);
      (captures[segment.field] ??= []).push(decoded);
    } catch {
      malformed ??= segment.field;
    }
  }
  if (malformed !== undefined) return { malformed };
  const pathParams: Record<string, string> = {};
  for (const [field, pieces] of Object.entries(spans)) pathParams[field] = pieces.join('/');
  return { pathParams, captures };
}
