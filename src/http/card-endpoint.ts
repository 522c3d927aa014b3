import { createHash } from 'node:crypto';
import type { Context } from 'koa';
import type { InboundAgent } from '../inbound/inbound-agent.js';
import { baseUrlOf, type BaseUrlOptions } from './base-url.js';

/**
 * Serves an agent card with the caching headers spec §8.6 asks for: an ETag from the
 * content (so it changes exactly when the card does) and Cache-Control max-age. A matching
 * If-None-Match gets 304. The card is public even when the agent requires a token.
 */
export function serveCard(ctx: Context, agent: InboundAgent, options: BaseUrlOptions & { maxAgeSeconds: number }): void {
  const body = JSON.stringify(agent.card(baseUrlOf(ctx, options)));
  const etag = `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"`;
  ctx.set('ETag', etag);
  ctx.set('Cache-Control', `public, max-age=${options.maxAgeSeconds}`);
  ctx.set('Vary', 'Host');
  if (ctx.get('if-none-match').split(',').some((tag) => tag.trim() === etag)) {
    ctx.status = 304;
    return;
  }
  ctx.status = 200;
  ctx.type = 'application/json';
  ctx.body = body;
}
