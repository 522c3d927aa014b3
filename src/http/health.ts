import Router from '@koa/router';
import { CONTROL_API } from '../../generated/control/api.js';
import { respondMethodNotAllowed } from './http-errors.js';

/** Why the hub should not get traffic now, or undefined when it should. */
export type ReadinessCheck = () => Promise<string | undefined>;

/**
 * The health endpoints (spec/control/api.json healthPaths), open to any peer and never behind
 * auth, since load balancers and orchestrators probe them from elsewhere. Liveness answers 200
 * while the process serves HTTP; readiness 200 only when the check finds nothing wrong, else 503
 * with the reason, so a load balancer takes a replica out before it stops (a shutdown) or while
 * its store does not answer. Answers are never cached.
 */
export function healthRouter(ready: ReadinessCheck): Router {
  const router = new Router();
  const { live, ready: readyPath } = CONTROL_API.healthPaths;
  router.all(live, (ctx) => {
    if (ctx.method !== 'GET' && ctx.method !== 'HEAD') return respondMethodNotAllowed(ctx, ['GET']);
    ctx.set('Cache-Control', 'no-store');
    ctx.body = { status: 'live' };
  });
  router.all(readyPath, async (ctx) => {
    if (ctx.method !== 'GET' && ctx.method !== 'HEAD') return respondMethodNotAllowed(ctx, ['GET']);
    ctx.set('Cache-Control', 'no-store');
    const problem = await ready();
    ctx.status = problem === undefined ? 200 : 503;
    ctx.body = problem === undefined ? { status: 'ready' } : { status: 'not ready', reason: problem };
  });
  return router;
}
