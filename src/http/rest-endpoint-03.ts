import type { Context } from 'koa';
import { PROTOCOL_VERSION as VERSION_03 } from '../../generated/a2a/0.3/protocol.js';
import { MEDIA_TYPES, HEADERS } from '../../generated/a2a/1.0/protocol.js';
import type { StreamResponse } from '../../generated/a2a/1.0/types.js';
import type { A2AError } from '../protocol/a2a-error.js';
import { jsonRpcErrorTo03 } from '../protocol/v03/errors.js';
import { matchRest03Route } from '../protocol/v03/rest-routes.js';
import type { InboundAgent } from '../server/hosted-agent.js';
import { resolveRest03Call, rest03AnswerOf, rest03AnswerProblems, rest03FrameOf } from '../server/v03-rest-calls.js';
import { run03Call } from '../server/v03-calls.js';
import { callContextOf, sendResultHeaders, streamFrames, type A2AEndpointOptions } from './a2a-edge.js';
import { readA2ABody } from './body.js';
import { matchedRoute, noRoute } from './rest-match.js';
import type { RequestObservation } from './endpoint-observer.js';

/**
 * A2A 0.3's HTTP+JSON binding of an instance: the routes below `/v1` (src/protocol/v03/rest-routes.ts)
 * with ProtoJSON bodies of the 0.3 proto, read into the 0.3 call that JSON-RPC makes
 * (src/server/v03-rest-calls.ts) and run through the same translation onto the 1.0 handler.
 * Results are the proto's response messages as application/json; a stream is SSE of
 * StreamResponse frames. Failures propagate to serveRest, which renders them as 0.3 errors.
 */
export async function serveRest03(
  ctx: Context,
  agent: InboundAgent,
  subpath: string,
  request: { readonly method: { name: string }; readonly observation: RequestObservation | undefined },
  options: A2AEndpointOptions,
): Promise<void> {
  const match = matchedRoute(ctx, matchRest03Route(ctx.method, subpath), () => noRoute(ctx, agent.restPath, VERSION_03));
  const method = match.route.method;
  request.method.name = method;
  const readsBody = match.route.verb !== 'GET' && match.route.verb !== 'DELETE';
  const body = readsBody
    ? await readA2ABody(ctx, options.bodyLimitBytes, { optional: true, idleMs: options.bodyIdleTimeoutMs ?? 0 })
    : undefined;
  const resolved = resolveRest03Call(match, new URLSearchParams(ctx.querystring), body);
  if (!resolved.ok) throw resolved.error;
  const result = await run03Call(options.handler, resolved.value, callContextOf(ctx, agent, options), '');
  sendResultHeaders(ctx, result);
  if (result.kind === 'result') {
    const answer = rest03AnswerOf(method, result.result);
    if (options.selfCheck) {
      const problems = rest03AnswerProblems(method, answer);
      if (problems.length > 0) options.log('error', 'a response did not validate against the generated schema', { method, problems });
    }
    respond03(ctx, 200, answer);
    request.observation?.done(method, 'ok');
    return;
  }
  streamFrames(
    ctx,
    result.frames,
    result.streamedAs,
    {
      frame: (frame: StreamResponse) => {
        const translated = result.frame(frame);
        return translated === undefined ? undefined : JSON.stringify(rest03FrameOf(translated));
      },
      error: (error: A2AError) => JSON.stringify(jsonRpcErrorTo03(error)),
      errorEvent: 'error',
    },
    request.observation,
    options,
    { [HEADERS.version]: VERSION_03 },
  );
}

/** 0.3 predates application/a2a+json: its HTTP+JSON answers are application/json. */
export function respond03(ctx: Context, status: number, body: unknown): void {
  ctx.status = status;
  ctx.type = MEDIA_TYPES.json;
  ctx.body = JSON.stringify(body);
}
