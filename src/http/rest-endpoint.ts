import type { Context } from 'koa';
import { isThisProtocolVersion as is03, PROTOCOL_VERSION as VERSION_03 } from '../../generated/a2a/0.3/protocol.js';
import { HEADERS, MEDIA_TYPES, PROTOCOL_VERSION } from '../../generated/a2a/1.0/protocol.js';
import type { A2AError } from '../protocol/a2a-error.js';
import { resolveRestCall } from '../protocol/rest-request.js';
import { matchRestRoute } from '../protocol/rest-routes.js';
import { httpStatusIn03, jsonRpcErrorTo03 } from '../protocol/v03/errors.js';
import { isBelowV1, isRest03Path } from '../protocol/v03/rest-routes.js';
import type { ServedVersion } from '../protocol/versions.js';
import { versionsServedBy, type RestTarget } from '../server/hosted-agent.js';
import {
  admit,
  callContextOf,
  checkResult,
  negotiateServiceParameters,
  outcomeOf,
  queryVersion,
  sendResultHeaders,
  streamFrames,
  toWireError,
  unavailableError,
  type A2AEndpointOptions,
} from './a2a-edge.js';
import { readA2ABody } from './body.js';
import { respond03, serveRest03 } from './rest-endpoint-03.js';
import { matchedRoute, noRoute } from './rest-match.js';

/** How HTTP+JSON writes a stream: bare StreamResponse frames, and a Status body in an `error` event. */
const REST_SSE = {
  frame: (frame: unknown) => JSON.stringify(frame),
  error: (error: A2AError) => JSON.stringify(error.toRestErrorResponse()),
  errorEvent: 'error',
} as const;

/**
 * The HTTP+JSON binding (spec §11) of one inbound instance, for a request below its REST base.
 * The checks run in the JSON-RPC endpoint's order (rate limit, authentication, then what only
 * a served instance answers: route, content type, size, JSON, version, params), so both
 * bindings refuse the same request for the same reason. Results are the bare response message
 * as `application/a2a+json`; every failure is `{"error": google.rpc.Status}` with the HTTP status
 * errors.json gives it, and streams are SSE of bare StreamResponse frames.
 */
export async function serveRest(ctx: Context, target: RestTarget, options: A2AEndpointOptions): Promise<void> {
  ctx.set(HEADERS.version, PROTOCOL_VERSION);
  const instance = 'agent' in target ? target.agent : target.unavailable;
  const observation = options.observer?.request(ctx.socket, instance.id);
  const method = { name: '-' };
  // A failure is rendered as the request looks: a 0.3 client names 0.3, or sends no version and
  // uses 0.3's /v1 paths. A 1.0 client that forgot the header gets its refusal as 1.0 writes it.
  const version: ServedVersion = requested03(ctx, target.subpath) ? VERSION_03 : PROTOCOL_VERSION;
  try {
    admit(ctx, instance, options);
    if (!('agent' in target)) throw unavailableError(target.unavailable);
    const agent = target.agent;
    // The version decides which route table applies: 0.3's routes sit below /v1, where 1.0
    // would read `v1` as a tenant. A request without A2A-Version is 0.3's there, 1.0's on a 1.0 route.
    const negotiated = negotiateServiceParameters(ctx, agent, options, {
      served: versionsServedBy(agent),
      implied: () => versionOfPath(ctx.method, target.subpath),
    });
    if (negotiated === VERSION_03) {
      ctx.set(HEADERS.version, VERSION_03);
      await serveRest03(ctx, agent, target.subpath, { method, observation }, options);
      return;
    }
    const match = matchedRoute(ctx, matchRestRoute(ctx.method, target.subpath), () => noRoute(ctx, agent.restPath, PROTOCOL_VERSION));
    method.name = match.route.method;
    // GET and DELETE carry no content (RFC 9110 §9.3.1, §9.3.5): a body a client sends anyway is
    // not read, so it can neither change the request nor fail it on its media type.
    const readsBody = match.route.verb !== 'GET' && match.route.verb !== 'DELETE';
    const body = readsBody
      ? await readA2ABody(ctx, options.bodyLimitBytes, { optional: true, idleMs: options.bodyIdleTimeoutMs ?? 0 })
      : undefined;
    const resolved = resolveRestCall(match.route, match.pathParams, new URLSearchParams(ctx.querystring), body);
    if (!resolved.ok) throw resolved.error;
    const result = await options.handler.call(resolved.method, resolved.params as never, callContextOf(ctx, agent, options));
    sendResultHeaders(ctx, result);
    if (result.kind === 'stream') {
      streamFrames(ctx, result.frames, resolved.method, REST_SSE, observation, options, { [HEADERS.version]: PROTOCOL_VERSION });
      return;
    }
    checkResult(resolved.method, result.result, options);
    respond(ctx, 200, result.result);
    observation?.done(method.name, 'ok');
  } catch (error) {
    const wireError = toWireError(ctx, error, 'HTTP+JSON', options);
    observation?.done(method.name, outcomeOf(wireError));
    // The header says the form of the body, which negotiation may have set otherwise before it failed.
    if (version === VERSION_03) {
      ctx.set(HEADERS.version, VERSION_03);
      respond03(ctx, httpStatusIn03(wireError), jsonRpcErrorTo03(wireError));
    } else {
      ctx.set(HEADERS.version, PROTOCOL_VERSION);
      respond(ctx, wireError.definition.httpStatus, wireError.toRestErrorResponse());
    }
  }
}

/** A request that names 0.3, or names no version and has a path of 0.3's. */
function requested03(ctx: Context, subpath: string): boolean {
  // Read as negotiateVersion reads it, so that a refusal is written in the version that was served.
  const named = (ctx.get(HEADERS.version) || queryVersion(ctx))?.trim();
  if (named !== undefined && named !== '') return is03(named);
  return versionOfPath(ctx.method, subpath) === VERSION_03;
}

/**
 * The version a request without A2A-Version means by its path: 0.3 on 0.3's routes (all below
 * `/v1`), 1.0 on 1.0's, which 0.3 does not have, so that a header-less request there can only
 * mean 1.0 (docs/spec-policy.md 5.1: as JSON-RPC reads a header-less request in the version its
 * method fits). A path of neither table is 0.3's below `/v1` and 1.0's elsewhere, so its 404
 * reads as its client writes.
 */
function versionOfPath(verb: string, subpath: string): ServedVersion {
  if (isRest03Path(subpath)) return VERSION_03;
  if (matchRestRoute(verb, subpath).kind !== 'none') return PROTOCOL_VERSION;
  return isBelowV1(subpath) ? VERSION_03 : PROTOCOL_VERSION;
}

function respond(ctx: Context, status: number, body: unknown): void {
  ctx.status = status;
  ctx.type = MEDIA_TYPES.a2aJson;
  ctx.body = JSON.stringify(body);
}
