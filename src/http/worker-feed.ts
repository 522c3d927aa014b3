import type { Context } from 'koa';
import type { InboundAgent, WorkerPort } from '../server/hosted-agent.js';
import { a2aError } from '../protocol/a2a-error.js';
import { admit, toWireError, type A2AEndpointOptions } from './a2a-edge.js';
import { respondWithError } from './http-errors.js';
import { openSse } from './sse.js';

/** Below an instance's endpoint path: where its worker takes tasks (docs/worker.md). */
export const WORKER_FEED_SUFFIX = '/worker/feed';

/**
 * The worker feed of an agent on the worker preset: `GET <endpoint>/worker/feed` with the
 * instance's token opens an SSE stream that sends an `assigned` event (a WorkerAssignment)
 * for each task the hub gives this worker and a `released` event (a WorkerRelease) for each
 * it takes back; heartbeats keep it open. Tasks already waiting are given at once. When the
 * stream closes, the tasks it held go to the next worker.
 */
export function serveWorkerFeed(ctx: Context, agent: InboundAgent & { readonly worker: WorkerPort }, options: A2AEndpointOptions): void {
  try {
    if (ctx.method !== 'GET') {
      ctx.set('Allow', 'GET');
      throw a2aError('MethodNotAllowedError', `${ctx.method} is not allowed on ${ctx.path}; the worker feed is read with GET`);
    }
    admit(ctx, agent, options);
    if (agent.tokenDigest === undefined) {
      throw a2aError(
        'UnauthenticatedError',
        "the worker feed needs the agent's token, but this agent has none: give it one (inbound.setAuth or authTokenEnv)",
      );
    }
  } catch (error) {
    respondWithError(ctx, toWireError(ctx, error, 'worker feed', options));
    return;
  }
  const sse = openSse(ctx, options.sseHeartbeatMs);
  options.streams.track(new Promise<void>((resolve) => ctx.res.once('close', () => resolve())));
  const detach = agent.worker.attach({
    assigned: (assignment) => void sse.send(JSON.stringify(assignment), undefined, 'assigned'),
    released: (release) => void sse.send(JSON.stringify(release), undefined, 'released'),
    close: () => sse.end(),
  });
  sse.onClose(detach);
}
