import { METHODS as METHODS_03, type MethodName as Method03 } from '../../../generated/a2a/0.3/methods.js';
import { compileRoutes, matchRoute, type RestRoute, type RouteMatch } from '../rest-routes.js';

/**
 * A2A 0.3's HTTP+JSON routes (spec/a2a/0.3/methods.json, from the 0.3 proto's google.api.http
 * annotations), all below `/v1` of an interface URL. Their variables are resource names
 * (`{name=tasks/*}`), whose `*` segments a match hands over as captures.
 */
export const REST_ROUTES_03: readonly RestRoute<Method03>[] = compileRoutes(Object.values(METHODS_03));

export function matchRest03Route(verb: string, subpath: string): RouteMatch<Method03> {
  return matchRoute(REST_ROUTES_03, verb, subpath);
}

/** Whether a path (below an interface URL) is one of 0.3's, for any verb: what a request without A2A-Version shows by its path. */
export function isRest03Path(subpath: string): boolean {
  return matchRest03Route('GET', subpath).kind !== 'none';
}

/** Whether a path sits below 0.3's `/v1`, a route or not: where a 0.3 client's requests go. */
export function isBelowV1(subpath: string): boolean {
  return /^\/v1(\/|$)/.test(subpath);
}

/** The primary route of a 0.3 method. */
export function route03Of(method: Method03): RestRoute<Method03> {
  const route = REST_ROUTES_03.find((candidate) => candidate.method === method && !candidate.alternate);
  if (route === undefined) throw new Error(`spec/a2a/0.3/methods.json gives ${method} no HTTP route`);
  return route;
}

/**
 * The route a client sends a method on: the primary one, except for tasks/pushNotificationConfig/set,
 * whose proto path (`task/*`, singular) no server we know of serves; every one, @a2a-js/sdk 0.3
 * and the hub included, serves `tasks/*` (docs/spec-policy.md 10.5).
 */
export function clientRoute03(method: Method03): RestRoute<Method03> {
  const route =
    method === 'tasks/pushNotificationConfig/set'
      ? REST_ROUTES_03.find((candidate) => candidate.method === method && candidate.alternate)
      : route03Of(method);
  if (route === undefined) throw new Error(`spec/a2a/0.3/methods.json gives ${method} no HTTP route a client can use`);
  return route;
}
