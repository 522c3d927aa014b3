import { WELL_KNOWN_AGENT_CARD_PATH } from '../../generated/a2a/1.0/protocol.js';
import { CONTROL_API } from '../../generated/control/api.js';
import { validateEndpointPath } from '../../generated/control/validators.js';
import { matchRestRoute } from '../protocol/rest-routes.js';
import { matchRest03Route } from '../protocol/v03/rest-routes.js';
import { cardPathOf } from '../server/hosted-agent.js';
import type { InboundConfig } from './stored-inbound.js';

/** Paths the hub itself serves, with everything below them; no instance may take them. */
export const RESERVED_PATHS: readonly string[] = [
  WELL_KNOWN_AGENT_CARD_PATH.slice(0, WELL_KNOWN_AGENT_CARD_PATH.lastIndexOf('/')),
  CONTROL_API.basePath,
  CONTROL_API.panelPath,
  CONTROL_API.healthPaths.live,
  CONTROL_API.healthPaths.ready,
];

export function isReserved(path: string): boolean {
  return RESERVED_PATHS.some((reserved) => path === reserved || isBelow(path, reserved));
}

/** Where an instance's bindings live, its unset paths filled with their default, endpointPath. */
export interface InstancePaths {
  readonly endpointPath: string;
  readonly cardPath: string;
  readonly jsonRpcPath: string;
  readonly restPath: string;
}

type PathsConfig = Pick<InboundConfig, 'endpointPath' | 'jsonRpcPath' | 'restPath'>;

export function pathsOf(config: PathsConfig): InstancePaths {
  return {
    endpointPath: config.endpointPath,
    cardPath: cardPathOf(config.endpointPath),
    jsonRpcPath: config.jsonRpcPath ?? config.endpointPath,
    restPath: config.restPath ?? config.endpointPath,
  };
}

/** Whether two configurations put their bindings at the same places. */
export function samePaths(a: PathsConfig, b: PathsConfig): boolean {
  const left = pathsOf(a);
  const right = pathsOf(b);
  return left.endpointPath === right.endpointPath && left.jsonRpcPath === right.jsonRpcPath && left.restPath === right.restPath;
}

/** `path` lies strictly below `base`. */
export function isBelow(path: string, base: string): boolean {
  return path.startsWith(`${base}/`);
}

const CONFIGURED = ['endpointPath', 'jsonRpcPath', 'restPath'] as const;
type PathMember = (typeof CONFIGURED)[number] | 'cardPath';

/**
 * Why an instance's own paths cannot be served, or undefined: each must be a valid path outside
 * the hub's own, its REST base must not hold the hub's own paths (its routes, matched before
 * them, would hide them), and neither its JSON-RPC path nor its card may be one of its own REST
 * routes, since either would answer for the other.
 */
export function ownPathProblem(config: PathsConfig): string | undefined {
  const paths = pathsOf(config);
  for (const member of CONFIGURED) {
    const path = paths[member];
    if (!validateEndpointPath(path) || isReserved(path)) {
      const given = config[member] === undefined ? ` (the default: endpointPath)` : '';
      return `${member} "${path}"${given} is not usable: give an absolute path like /a2a/reports outside ${RESERVED_PATHS.join(', ')}`;
    }
  }
  const hidden = RESERVED_PATHS.find((reserved) => isBelow(reserved, paths.restPath));
  if (hidden !== undefined) {
    return `restPath ${paths.restPath}${config.restPath === undefined ? ' (the default: endpointPath)' : ''} lies above the hub's own ${hidden}, which its HTTP+JSON routes would hide: give a restPath (or endpointPath) that does not contain it, like ${paths.restPath}/rest`;
  }
  for (const member of ['jsonRpcPath', 'cardPath'] as const) {
    const path = paths[member];
    const route = isBelow(path, paths.restPath) ? routeAt(path.slice(paths.restPath.length)) : undefined;
    if (route !== undefined) {
      return `${member} ${path} is also the path of the HTTP+JSON route of ${route} below the instance's restPath ${paths.restPath}: move one of them`;
    }
  }
  return undefined;
}

/**
 * Why `config`'s paths clash with `other`'s, or undefined. One path belongs to one instance, and
 * nothing of one instance lies below another's REST base, where that instance's routes (the
 * longest base wins) would answer for it or it would shadow their tenants.
 */
export function clashWith(config: PathsConfig, other: PathsConfig & { readonly id: string }): string | undefined {
  const mine = pathsOf(config);
  const theirs = pathsOf(other);
  const members: readonly PathMember[] = ['endpointPath', 'jsonRpcPath', 'restPath', 'cardPath'];
  for (const member of members) {
    const path = mine[member];
    // The same kind of path first: a default jsonRpcPath is also its instance's endpointPath.
    const taken = theirs[member] === path ? member : members.find((theirMember) => theirs[theirMember] === path);
    if (taken !== undefined) {
      return `${member} ${path} is already used by instance "${other.id}"${taken === member ? '' : ` (its ${taken})`}`;
    }
    if (isBelow(path, theirs.restPath)) {
      return `${member} ${path} lies below the restPath ${theirs.restPath} of instance "${other.id}", whose HTTP+JSON routes sit there: choose a path outside it`;
    }
  }
  for (const theirMember of members) {
    if (isBelow(theirs[theirMember], mine.restPath)) {
      return `restPath ${mine.restPath} lies above the ${theirMember} ${theirs[theirMember]} of instance "${other.id}", which its HTTP+JSON routes would shadow: choose a restPath outside it`;
    }
  }
  return undefined;
}

/**
 * The method of the REST route at `subpath` with whatever verb, of either version's table, e.g.
 * `ListTasks (GET /{tenant}/tasks)` or `agent/getAuthenticatedExtendedCard (GET /v1/card)`.
 */
function routeAt(subpath: string): string | undefined {
  for (const matcher of [matchRestRoute, matchRest03Route] as const) {
    const first = matcher('GET', subpath);
    const match = first.kind === 'wrong-verb' ? matcher(first.allowed[0] ?? 'GET', subpath) : first;
    if (match.kind === 'route' || match.kind === 'malformed') return `${match.route.method} (${match.route.verb} ${match.route.template})`;
  }
  return undefined;
}
