import type { Context } from 'koa';
import { PROTOCOL_VERSION as VERSION_03 } from '../../generated/a2a/0.3/protocol.js';
import { HEADERS, PROTOCOL_VERSION } from '../../generated/a2a/1.0/protocol.js';
import { a2aError, type A2AError } from '../protocol/a2a-error.js';
import { invalidParams } from '../protocol/params.js';
import { matchRestRoute, routeOf, type RouteMatch } from '../protocol/rest-routes.js';
import { matchRest03Route, route03Of } from '../protocol/v03/rest-routes.js';
import type { ServedVersion } from '../protocol/versions.js';

/**
 * The route a request matched, or its refusal: a path of no route (`missing` says how), 405
 * with `Allow` for a route of another verb, 400 naming a path variable that does not decode.
 */
export function matchedRoute<M extends string>(
  ctx: Context,
  match: RouteMatch<M>,
  missing: () => A2AError,
): Extract<RouteMatch<M>, { kind: 'route' }> {
  if (match.kind === 'route') return match;
  if (match.kind === 'none') throw missing();
  if (match.kind === 'wrong-verb') {
    ctx.set('Allow', match.allowed.join(', '));
    throw a2aError('MethodNotAllowedError', `${ctx.method} is not allowed on ${ctx.path}; use ${match.allowed.join(' or ')}`);
  }
  throw invalidParams([{ field: match.field, description: 'is not valid percent-encoding (RFC 3986 §2.1) of UTF-8 in the path' }]);
}

/**
 * The 404 of a path that is no route of `version`, saying so when it is a route of the other
 * version, whose header the caller then has to send (or leave out, for 0.3).
 */
export function noRoute(ctx: Context, restPath: string, version: ServedVersion): A2AError {
  const other =
    version === VERSION_03
      ? matchRestRoute(ctx.method, ctx.path.slice(restPath.length))
      : matchRest03Route(ctx.method, ctx.path.slice(restPath.length));
  if (other.kind !== 'none') {
    return a2aError(
      'VersionNotSupportedError',
      version === VERSION_03
        ? `${ctx.method} ${ctx.path} is an A2A ${PROTOCOL_VERSION} route, and this request is ${VERSION_03} (A2A-Version: ${VERSION_03}, or none, which means ${VERSION_03} by spec §3.6.2): send A2A-Version: ${PROTOCOL_VERSION}, or use ${VERSION_03}'s routes below ${restPath}/v1`
        : `${ctx.method} ${ctx.path} is an A2A ${VERSION_03} route, and this request is ${PROTOCOL_VERSION}: send no A2A-Version, or ${VERSION_03}`,
      { metadata: { requested: ctx.get(HEADERS.version), supported: `${PROTOCOL_VERSION} and ${VERSION_03}` } },
    );
  }
  const example = version === VERSION_03 ? route03Of('message/send') : routeOf('SendMessage', false);
  return a2aError(
    'NotFoundError',
    `${ctx.method} ${ctx.path} is no HTTP+JSON route of this agent in A2A ${version}; its routes sit below ${restPath}, e.g. ${example.verb} ${restPath}${example.template}`,
  );
}
