import { createHash } from 'node:crypto';
import type { Context } from 'koa';
import { isThisProtocolVersion as is03, PROTOCOL_VERSION as VERSION_03 } from '../../generated/a2a/0.3/protocol.js';
import { HEADERS, MEDIA_TYPES, VERSION_QUERY_PARAMETER } from '../../generated/a2a/1.0/protocol.js';
import type { AgentCard } from '../../generated/a2a/1.0/types.js';
import { dualStackCard, servesVersion03 } from '../protocol/v03/agent-cards.js';
import type { VersionPolicy } from '../protocol/versions.js';
import type { InboundAgent } from '../server/hosted-agent.js';
import { baseUrlOf, type BaseUrlOptions } from './base-url.js';

export interface CardEndpointOptions extends BaseUrlOptions {
  readonly maxAgeSeconds: number;
  readonly version: VersionPolicy;
}

/**
 * Serves an agent card with the caching headers spec §8.6 asks for: an ETag from the
 * content (so it changes exactly when the card does) and Cache-Control max-age. A matching
 * If-None-Match gets 304. The card is public even when the agent requires a token.
 *
 * Its form follows the A2A-Version of the request, as the dual-stack SDKs do it
 * (docs/spec-policy.md 5.1): a 0.3 caller (by header, or by sending none, spec §3.6.2) gets the
 * 0.3 card with the 1.0 `supportedInterfaces` beside its members, so that a client of either
 * generation that names no version reads the members it knows; `A2A-Version: 1.0` (or any
 * other value: a card is never refused) gets the plain 1.0 card. An instance without a 0.3
 * interface (one serving named tenants only) always gets the 1.0 card.
 */
export function serveCard(ctx: Context, agent: InboundAgent, options: CardEndpointOptions): void {
  const form = cardFormOf(ctx, options.version);
  const { body, etag } = renderedCard(agent, baseUrlOf(ctx, options), form);
  ctx.set('ETag', etag);
  ctx.set('Cache-Control', `public, max-age=${options.maxAgeSeconds}`);
  ctx.set('Vary', `Host, ${HEADERS.version}`);
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

type CardForm = typeof VERSION_03 | 'current';

function cardFormOf(ctx: Context, policy: VersionPolicy): CardForm {
  const query = ctx.querystring === '' ? undefined : ctx.query[VERSION_QUERY_PARAMETER];
  const requested = (ctx.get(HEADERS.version) || (Array.isArray(query) ? query[0] : query) || '').trim();
  if (requested === '') return policy.absent === VERSION_03 ? VERSION_03 : 'current';
  return is03(requested) ? VERSION_03 : 'current';
}

function cardIn(form: CardForm, card: AgentCard): unknown {
  return form === VERSION_03 && servesVersion03(card) ? dualStackCard(card) : card;
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

function renderedCard(agent: InboundAgent, baseUrl: string, form: CardForm): RenderedCard {
  let byBase = rendered.get(agent);
  if (byBase === undefined) {
    byBase = new Map();
    rendered.set(agent, byBase);
  }
  // Two forms per base URL, so the bound counts base URLs, not entries.
  const key = `${form} ${baseUrl}`;
  const cached = byBase.get(key);
  if (cached !== undefined) return cached;
  const body = JSON.stringify(cardIn(form, agent.card(baseUrl)));
  const card = { body, etag: `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"` };
  if (byBase.size >= 2 * BASE_URLS_PER_AGENT) byBase.delete(byBase.keys().next().value as string);
  byBase.set(key, card);
  return card;
}
