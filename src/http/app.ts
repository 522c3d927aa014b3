import type Router from '@koa/router';
import Koa from 'koa';
import { HEADERS, PROTOCOL_VERSION, WELL_KNOWN_AGENT_CARD_PATH } from '../../generated/a2a/1.0/protocol.js';
import { a2aError } from '../protocol/a2a-error.js';
import { CARD_PATH_SUFFIX } from '../protocol/card-location.js';
import type { AgentDirectory } from '../server/hosted-agent.js';
import { serveCard } from './card-endpoint.js';
import { healthRouter, type ReadinessCheck } from './health.js';
import { respondMethodNotAllowed, respondNotFound, respondWithError } from './http-errors.js';
import { unavailableError, type A2AEndpointOptions } from './a2a-edge.js';
import { serveJsonRpc, serveUnavailable } from './jsonrpc-endpoint.js';
import { serveRest } from './rest-endpoint.js';
import { serveWorkerFeed, WORKER_FEED_SUFFIX } from './worker-feed.js';
import { trimTrailing } from '../support/trim.js';

export interface HttpAppOptions extends A2AEndpointOptions {
  /** With trustProxy: how many of our proxies append to X-Forwarded-For (config proxyHops). */
  readonly proxyHops?: number;
  readonly directory: AgentDirectory;
  readonly cardMaxAgeSeconds: number;
  /** Extra routes (the control API) mounted before the agent endpoints. */
  readonly routers?: readonly Router[];
  /** The answer where nothing is served; default a JSON 404. */
  readonly notFound?: (ctx: Koa.Context) => void;
  /** What the readiness endpoint asks (src/http/health.ts); without it the hub is always ready. */
  readonly readiness?: ReadinessCheck;
}

/**
 * The hub's HTTP surface. Inbound agents are resolved per request from the directory, so
 * creating, moving, disabling or removing an instance takes effect on the next request
 * without re-registering routes. Anything unmatched gets `notFound`, by default a JSON 404;
 * no stack trace leaves the process.
 */
export function createHttpApp(options: HttpAppOptions): Koa {
  const app = new Koa();
  app.proxy = options.trustProxy;
  // Only the entries our own proxies appended: what a client wrote further left is its word, not theirs.
  app.maxIpsCount = options.proxyHops ?? 1;
  app.silent = true;
  app.on('error', (error: Error & { code?: string; expose?: boolean }) => {
    // A client that disconnects mid-stream is routine, and exposed 4xx errors were answered.
    if (error.code === 'ERR_STREAM_PREMATURE_CLOSE' || error.code === 'ECONNRESET' || error.expose) return;
    options.log('error', 'unhandled HTTP error', { error: error.stack ?? String(error) });
  });

  app.use(async (ctx, next) => {
    try {
      await next();
    } catch (error) {
      options.log('error', 'request failed', { path: ctx.path, error: error instanceof Error ? error.stack : String(error) });
      if (!ctx.headerSent) respondWithError(ctx, a2aError('InternalError', 'the server failed to handle the request; it has been logged'));
    }
  });

  // Agent endpoints are resolved by path from the directory.
  app.use(async (ctx, next) => {
    const path = ctx.path.length > 1 ? trimTrailing(ctx.path, '/') : ctx.path;
    // First: the card every client fetches before anything else is the hub's most frequent
    // request, and a router around it cost a quarter of its time (docs/performance.md).
    if (path === WELL_KNOWN_AGENT_CARD_PATH) return serveWellKnownCard(ctx, options);
    if (path.endsWith(CARD_PATH_SUFFIX)) {
      const endpointPath = path.slice(0, -CARD_PATH_SUFFIX.length);
      const agent = options.directory.byEndpointPath(endpointPath);
      if (agent !== undefined) {
        if (ctx.method !== 'GET' && ctx.method !== 'HEAD') return respondMethodNotAllowed(ctx, ['GET']);
        return serveCard(ctx, agent, { ...options, maxAgeSeconds: options.cardMaxAgeSeconds });
      }
      const unavailable = options.directory.unavailableAt(endpointPath);
      if (unavailable !== undefined) return respondWithError(ctx, unavailableError(unavailable));
    }
    // Below the endpoint path, where no HTTP+JSON route reaches (no route ends in /worker/feed).
    if (path.endsWith(WORKER_FEED_SUFFIX)) {
      const agent = options.directory.byEndpointPath(path.slice(0, -WORKER_FEED_SUFFIX.length));
      const worker = agent?.worker;
      if (agent !== undefined && worker !== undefined) return serveWorkerFeed(ctx, { ...agent, worker }, options);
    }
    const agent = options.directory.byJsonRpcPath(path);
    const unavailable = agent === undefined ? options.directory.unavailableAt(path) : undefined;
    if (agent !== undefined || unavailable !== undefined) {
      if (ctx.method !== 'POST') {
        ctx.set(HEADERS.version, PROTOCOL_VERSION);
        return respondMethodNotAllowed(ctx, ['POST']);
      }
      if (agent !== undefined) return serveJsonRpc(ctx, agent, options);
      if (unavailable !== undefined) return serveUnavailable(ctx, unavailable, options);
    }
    // HTTP+JSON routes sit below an instance's REST base, the JSON-RPC path included by default.
    const rest = options.directory.byRestPath(path);
    if (rest !== undefined) return serveRest(ctx, rest, options);
    await next();
  });

  // After the agent endpoints, whose paths never overlap the routers' (those are reserved),
  // so that A2A requests skip matching every route. Routers answer their own 405s with JSON
  // bodies; koa-router's allowedMethods() would rewrite the status after our JSON 404 body.
  const health = healthRouter(options.readiness ?? (() => Promise.resolve(undefined)));
  for (const router of [health, ...(options.routers ?? [])]) app.use(router.routes());

  const notFound = options.notFound ?? respondNotFound;
  app.use((ctx) => notFound(ctx));
  return app;
}

/** The card of the hub's wellKnownInstance, or a 404 that says where each agent's card is. */
function serveWellKnownCard(ctx: Koa.Context, options: HttpAppOptions): void {
  if (ctx.method !== 'GET' && ctx.method !== 'HEAD') return respondMethodNotAllowed(ctx, ['GET']);
  const agent = options.directory.defaultAgent();
  if (agent === undefined) {
    return respondWithError(
      ctx,
      a2aError(
        'NotFoundError',
        `this hub publishes no agent card at ${WELL_KNOWN_AGENT_CARD_PATH}; each agent's card is at <its endpoint>${CARD_PATH_SUFFIX}`,
      ),
    );
  }
  serveCard(ctx, agent, { ...options, maxAgeSeconds: options.cardMaxAgeSeconds });
}
