import type { Context } from 'koa';
import { HEADERS, MEDIA_TYPES, PROTOCOL_VERSION } from '../../generated/a2a/1.0/protocol.js';
import { a2aError, type A2AError } from '../protocol/a2a-error.js';
import { invalidParams } from '../protocol/params.js';
import { resolveRestCall } from '../protocol/rest-request.js';
import { matchRestRoute, routeOf } from '../protocol/rest-routes.js';
import type { RestTarget } from '../server/hosted-agent.js';
import {
  admit,
  callContextOf,
  checkResult,
  negotiateServiceParameters,
  outcomeOf,
  sendResultHeaders,
  streamFrames,
  toWireError,
  unavailableError,
  type A2AEndpointOptions,
} from './a2a-edge.js';
import { readA2ABody } from './body.js';

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
  let method = '-';
  try {
    admit(ctx, instance, options);
    if (!('agent' in target)) throw unavailableError(target.unavailable);
    const agent = target.agent;
    const match = matchRestRoute(ctx.method, target.subpath);
    if (match.kind === 'none') {
      const example = routeOf('SendMessage', false);
      throw a2aError(
        'NotFoundError',
        `${ctx.method} ${ctx.path} is no HTTP+JSON route of this agent; its routes sit below ${agent.restPath}, e.g. ${example.verb} ${agent.restPath}${example.template}`,
      );
    }
    if (match.kind === 'wrong-verb') {
      ctx.set('Allow', match.allowed.join(', '));
      throw a2aError('MethodNotAllowedError', `${ctx.method} is not allowed on ${ctx.path}; use ${match.allowed.join(' or ')}`);
    }
    if (match.kind === 'malformed') {
      throw invalidParams([{ field: match.field, description: 'is not valid percent-encoding (RFC 3986 §2.1) of UTF-8 in the path' }]);
    }
    method = match.route.method;
    // GET and DELETE carry no content (RFC 9110 §9.3.1, §9.3.5): a body a client sends anyway is
    // not read, so it can neither change the request nor fail it on its media type.
    const readsBody = match.route.verb !== 'GET' && match.route.verb !== 'DELETE';
    const body = readsBody ? await readA2ABody(ctx, options.bodyLimitBytes, { optional: true }) : undefined;
    // HTTP+JSON serves 1.0 only: 0.3's /v1 routes are not served yet.
    negotiateServiceParameters(ctx, agent, options, { served: [PROTOCOL_VERSION] });
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
    observation?.done(method, 'ok');
  } catch (error) {
    const wireError = toWireError(error, 'HTTP+JSON', options);
    observation?.done(method, outcomeOf(wireError));
    respond(ctx, wireError.definition.httpStatus, wireError.toRestErrorResponse());
  }
}

function respond(ctx: Context, status: number, body: unknown): void {
  ctx.status = status;
  ctx.type = MEDIA_TYPES.a2aJson;
  ctx.body = JSON.stringify(body);
}
