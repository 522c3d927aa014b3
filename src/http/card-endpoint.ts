import { createHash } from 'node:crypto';
import type { Context } from 'koa';
import { MEDIA_TYPES } from '../../generated/a2a/1.0/protocol.js';
import type { InboundAgent } from '../server/hosted-agent.js';
import { baseUrlOf, type BaseUrlOptions } from './base-url.js';

/**
 * Serves an agent card with the caching headers spec §8.6 asks for: an ETag from the
 * content (so it changes exactly when the card does) and Cache-Control max-age. A matching
 * If-None-Match gets 304. The card is public even when the agent requires a token.
 */
export function serveCard(ctx: Context, agent: InboundAgent, options: BaseUrlOptions & { maxAgeSeconds: number }): void {
  const { body, etag } = renderedCard(agent, baseUrlOf(ctx, options));
  ctx.set('ETag', etag);
  ctx.set('Cache-Control', `public, max-age=${options.maxAgeSeconds}`);
  ctx.set('Vary', 'Host');
  if (
    ctx
      .get('if-none-match')
      .split(',')
      .some((tag) => tag.trim() === etag)
  ) {
    ctx.status = 304;
    return;
  }
  ctx.status = 200;
  ctx.type = MEDIA_TYPES.json;
  ctx.body = body;
}

interface RenderedCard {
  readonly body: string;
  readonly etag: string;
}

/** Base URLs remembered per agent; Host comes from the client, so the cache must not grow with it. */
const BASE_URLS_PER_AGENT = 16;
/**
 * A card depends only on the agent object and the base URL, and the registry makes a new agent
 * object whenever an instance changes: so the serialised card and its hash can be kept with it.
 */
const rendered = new WeakMap<InboundAgent, Map<string, RenderedCard>>();

function renderedCard(agent: InboundAgent, baseUrl: string): RenderedCard {
  let byBase = rendered.get(agent);
  if (byBase === undefined) {
    byBase = new Map();
    rendered.set(agent, byBase);
  }
  const cached = byBase.get(baseUrl);
  if (cached !== undefined) return cached;
  const body = JSON.stringify(agent.card(baseUrl));
  const card = { body, etag: `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"` };
  if (byBase.size >= BASE_URLS_PER_AGENT) byBase.delete(byBase.keys().next().value as string);
  byBase.set(baseUrl, card);
  return card;
}
