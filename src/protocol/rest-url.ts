import { fillRoute, routeOf, type RestRoute } from './rest-routes.js';
import { trimTrailing } from '../support/trim.js';

/**
 * URLs below an interface URL, for the HTTP+JSON binding and the probes of either binding. An
 * interface URL may carry a query (`https://x/a2a?key=1`, an API key): the route goes into its
 * path and the query stays after it, merged with the route's own parameters.
 */

/** `path` (starting with `/`) below `interfaceUrl`, `query` appended to the interface's own; a URL that does not parse is joined as text, for fetch to refuse. */
export function urlBelow(interfaceUrl: string, path: string, query = ''): string {
  let url: URL;
  try {
    url = new URL(interfaceUrl);
  } catch {
    const joined = `${trimTrailing(interfaceUrl, '/')}${path}`;
    return query === '' ? joined : `${joined}${joined.includes('?') ? '&' : '?'}${query}`;
  }
  url.pathname = `${trimTrailing(url.pathname, '/')}${path}`;
  if (query !== '') url.search = url.search === '' ? query : `${url.search.slice(1)}&${query}`;
  url.hash = '';
  return url.href;
}

/** The URL of `route` filled with `values` below `interfaceUrl`; undefined when a path field is missing or empty. */
export function restUrl(interfaceUrl: string, route: RestRoute, values: Readonly<Record<string, unknown>>, query = ''): string | undefined {
  const path = fillRoute(route, values);
  return path === undefined ? undefined : urlBelow(interfaceUrl, path, query);
}

/** The HTTP+JSON GetTask URL of task `id` below `interfaceUrl`, under `tenant` when it names one. */
export function getTaskUrl(interfaceUrl: string, id: string, tenant: string | undefined): string {
  const scoped = tenant !== undefined && tenant !== '';
  return restUrl(interfaceUrl, routeOf('GetTask', scoped), scoped ? { id, tenant } : { id }) ?? urlBelow(interfaceUrl, '/');
}
