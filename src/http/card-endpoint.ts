import { createHash } from 'node:crypto';
import type { Context } from 'koa';
import { isThisProtocolVersion as is03, PROTOCOL_VERSION as VERSION_03 } from '../../generated/a2a/0.3/protocol.js';
import { HEADERS, MEDIA_TYPES, VERSION_QUERY_PARAMETER } from '../../generated/a2a/1.0/protocol.js';
import type { AgentCard } from '../../generated/a2a/1.0/types.js';
import { dualStackCard, servesVersion03 } from '../protocol/v03/agent-cards.js';
import type { VersionPolicy } from '../protocol/versions.js';
import type { InboundAgent } from '../server/hosted-agent.js';
import { originOf, type BaseUrlOptions } from './base-url.js';

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
 * 0.3 card and the 1.0 card in one document (dualStackCard), so that a client of either
 * generation that names no version reads the members it knows; `A2A-Version: 1.0` (or any
 * other value: a card is never refused) gets the plain 1.0 card. An instance without a 0.3
 * interface (one serving named tenants only) always gets the 1.0 card.
 */
export function serveCard(ctx: Context, agent: InboundAgent, options: CardEndpointOptions): void {
  const query = ctx.querystring === '' ? undefined : ctx.query[VERSION_QUERY_PARAMETER];
  const origin = originOf(ctx, options);
  const answer = cardAnswer(
    {
      version: ctx.get(HEADERS.version) || (Array.isArray(query) ? query[0] : query) || '',
      ifNoneMatch: ctx.get('if-none-match'),
      baseUrl: origin.baseUrl,
      forwarded: origin.forwarded,
    },
    agent,
    options,
  );
  ctx.status = answer.status;
  ctx.set(answer.headers);
  if (answer.body !== undefined) ctx.body = answer.body;
}

/** A card request, read from whatever carries it: Koa's context, or node's request on the fast path (card-fast-path.ts). */
export interface CardAsk {
  /** The A2A-Version header, else the version query parameter, else ''. */
  readonly version: string;
  /** The If-None-Match header, '' when absent. */
  readonly ifNoneMatch: string;
  readonly baseUrl: string;
  /** Forwarded headers (trustProxy) shaped the base URL: the answer is private to the client that asked. */
  readonly forwarded: boolean;
}

export interface CardAnswer {
  readonly status: 200 | 304;
  readonly headers: Readonly<Record<string, string>>;
  /** The card, for a 200. */
  readonly body?: string;
}

/** What a card request is answered, whichever way it arrived. */
export function cardAnswer(ask: CardAsk, agent: InboundAgent, options: CardEndpointOptions): CardAnswer {
  const card = renderedCard(agent, ask.baseUrl, cardFormOf(ask.version.trim(), options.version));
  // Built once per rendered card: a card request is answered without building anything.
  if (card.answers?.maxAgeSeconds !== options.maxAgeSeconds) card.answers = answersOf(card, options.maxAgeSeconds);
  const { etag } = card;
  const answers = ask.forwarded ? card.answers.forwarded : card.answers.direct;
  if (ask.ifNoneMatch !== '' && ask.ifNoneMatch.split(',').some((tag) => tag.trim() === etag)) return answers.notModified;
  return answers.ok;
}

function answersOf({ body, etag }: RenderedCard, maxAgeSeconds: number): NonNullable<RenderedCard['answers']> {
  const answers = (cacheControl: string, vary: string): CardAnswers => {
    const caching = { ETag: etag, 'Cache-Control': cacheControl, Vary: vary };
    return {
      ok: { status: 200, headers: { ...caching, 'Content-Type': JSON_UTF8, 'Content-Length': String(Buffer.byteLength(body)) }, body },
      notModified: { status: 304, headers: caching },
    };
  };
  return {
    maxAgeSeconds,
    direct: answers(`public, max-age=${maxAgeSeconds}`, VARY),
    // A shared cache would serve this card, which points where the forwarded headers said, to
    // anyone asking the same URL: only the client (its own cache) may keep it.
    forwarded: answers(`private, max-age=${maxAgeSeconds}`, `${VARY}, X-Forwarded-Host, X-Forwarded-Proto`),
  };
}

interface CardAnswers {
  readonly ok: CardAnswer;
  readonly notModified: CardAnswer;
}

const VARY = `Host, ${HEADERS.version}`;
const JSON_UTF8 = `${MEDIA_TYPES.json}; charset=utf-8`;

type CardForm = typeof VERSION_03 | 'current';

function cardFormOf(requested: string, policy: VersionPolicy): CardForm {
  if (requested === '') return policy.absent === VERSION_03 ? VERSION_03 : 'current';
  return is03(requested) ? VERSION_03 : 'current';
}

function cardIn(form: CardForm, card: AgentCard): unknown {
  return form === VERSION_03 && servesVersion03(card) ? dualStackCard(card) : card;
}

interface RenderedCard {
  readonly body: string;
  readonly etag: string;
  /** Its answers for the max-age they were built with: to a direct request, and to one forwarded headers shaped. */
  answers?: { readonly maxAgeSeconds: number; readonly direct: CardAnswers; readonly forwarded: CardAnswers };
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
  const card: RenderedCard = { body, etag: `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"` };
  if (byBase.size >= 2 * BASE_URLS_PER_AGENT) byBase.delete(byBase.keys().next().value as string);
  byBase.set(key, card);
  return card;
}
