import { WELL_KNOWN_AGENT_CARD_PATH } from '../../generated/a2a/1.0/protocol.js';
import { isRecord } from '../support/records.js';
import { trimTrailing } from '../support/trim.js';

/**
 * Which agent card belongs to a URL a person gives (a CLI argument, an outbound connection's
 * agentCardUrl, a conformance target). A host may serve several agents, so the origin's
 * well-known card is only the answer when it describes the URL asked; otherwise the client,
 * the outbound connections and the conformance suite would each quietly talk to another agent.
 */

/** What an instance's card path ends with: `<endpointPath>/agent-card.json` (seed 001 §2.1). */
export const CARD_PATH_SUFFIX = '/agent-card.json';

/** Where a candidate comes from: the URL itself, the card beside the endpoint it names, or the origin's well-known card. */
export type CardSource = 'given' | 'endpoint' | 'well-known';

export interface CardCandidate {
  readonly url: string;
  readonly source: CardSource;
}

/** A candidate that answered, but not with the card of the URL asked. */
export interface CardMiss {
  readonly url: string;
  /** `answered HTTP 404`, `did not return an agent card`, … */
  readonly problem: string;
}

/**
 * The URLs to read in order: for an origin its well-known card; for any other URL the URL
 * itself (a card URL), then `<url>/agent-card.json` (the card of the endpoint it names), then
 * the well-known card, which `belongsTo` accepts only when one of its interfaces is the URL.
 */
export function cardCandidates(asked: URL): readonly CardCandidate[] {
  const wellKnown = wellKnownCardUrl(asked);
  if (isOrigin(asked)) return [{ url: wellKnown, source: 'well-known' }];
  if (asked.href === wellKnown) return [{ url: wellKnown, source: 'given' }];
  const path = withoutTrailingSlash(asked.pathname);
  const beside: CardCandidate[] = path.endsWith(CARD_PATH_SUFFIX)
    ? []
    : [{ url: `${asked.origin}${path}${CARD_PATH_SUFFIX}`, source: 'endpoint' }];
  return [{ url: asked.href, source: 'given' }, ...beside, { url: wellKnown, source: 'well-known' }];
}

export function wellKnownCardUrl(asked: URL): string {
  return new URL(WELL_KNOWN_AGENT_CARD_PATH, asked).href;
}

/**
 * Whether JSON read at a candidate is an agent card at all: a JSON-RPC endpoint may answer a
 * GET with a JSON-RPC error, and a server with a JSON 404 body; neither has a card's name or
 * interfaces (a 0.3 card has the name, and is then refused by validation, not mistaken for absent).
 */
export function looksLikeCard(json: unknown): json is Record<string, unknown> {
  return isRecord(json) && ('supportedInterfaces' in json || 'name' in json);
}

/**
 * Whether a card is an A2A 0.3 one: no `supportedInterfaces`, and 0.3's main `url` instead (digest
 * §14.2). A dual-stack card has both and is read as 1.0.
 */
export function isCard03(card: unknown): card is Record<string, unknown> {
  return isRecord(card) && !('supportedInterfaces' in card) && typeof card['url'] === 'string';
}

/** The interface URLs a card declares: 1.0's `supportedInterfaces`, or 0.3's `url` and `additionalInterfaces`. */
function interfaceUrlsOf(card: Record<string, unknown>): string[] {
  const entries = isCard03(card) ? [{ url: card['url'] }, ...asArray(card['additionalInterfaces'])] : asArray(card['supportedInterfaces']);
  return entries.flatMap((entry: unknown) => (isRecord(entry) && typeof entry['url'] === 'string' ? [entry['url']] : []));
}

function asArray(value: unknown): unknown[] {
  return Array.isArray(value) ? (value as unknown[]) : [];
}

/** Whether a card read from `candidate` is the card of `asked` (see `cardCandidates`). */
export function belongsTo(asked: URL, candidate: CardCandidate, card: Record<string, unknown>): boolean {
  if (candidate.source !== 'well-known' || isOrigin(asked)) return true;
  const target = comparable(asked.href);
  return interfaceUrlsOf(card).some((url) => comparable(url) === target);
}

/** The refusal when the only card found describes another agent of the same origin. */
export function notTheAgentAsked(asked: URL, tried: readonly CardCandidate[]): string {
  const own = tried.filter((candidate) => candidate.source !== 'well-known').map((candidate) => candidate.url);
  return `no agent card at ${own.join(' or ')}; ${wellKnownCardUrl(asked)} has one, so use that URL if you mean the agent it describes`;
}

/** `no agent card found for <url>: a, b and c answered HTTP 404`, the misses grouped by what went wrong. */
export function noCardFound(asked: URL, misses: readonly CardMiss[]): string {
  const byProblem = new Map<string, string[]>();
  for (const miss of misses) byProblem.set(miss.problem, [...(byProblem.get(miss.problem) ?? []), miss.url]);
  const parts = [...byProblem].map(([problem, urls]) => `${listed(urls)} ${problem}`);
  return `no agent card found for ${asked.href}: ${parts.join('; ')}`;
}

function listed(items: readonly string[]): string {
  return items.length < 2 ? items.join('') : `${items.slice(0, -1).join(', ')} and ${items.at(-1) ?? ''}`;
}

/** A URL that names only an origin: its card is the well-known one. */
export function isOrigin(url: URL): boolean {
  return url.pathname === '/' || url.pathname === '';
}

function withoutTrailingSlash(path: string): string {
  return path.length > 1 ? trimTrailing(path, '/') : path;
}

/** URLs as the same endpoint: normalised by the URL parser, without a trailing slash or fragment. */
function comparable(url: string): string | undefined {
  try {
    const parsed = new URL(url);
    return `${parsed.origin}${withoutTrailingSlash(parsed.pathname)}${parsed.search}`;
  } catch {
    return undefined;
  }
}
