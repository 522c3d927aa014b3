import { MEDIA_TYPES, PROTOCOL_VERSION, WELL_KNOWN_AGENT_CARD_PATH } from '../../generated/a2a/1.0/protocol.js';
import type { AgentCard, AgentInterface } from '../../generated/a2a/1.0/types.js';
import { a2aError } from '../protocol/a2a-error.js';
import { describeError } from '../support/describe-error.js';
import { isRecord } from '../support/records.js';
import { conforming } from './answer-validation.js';
import { HttpTransport } from './http-transport.js';
import { DEFAULT_TIMEOUT_MS, requestHeaders, type RequestOptions } from './request-options.js';
import { A2ATransportError } from './transport-error.js';
import { UrlPolicyError } from './url-policy.js';

/**
 * From the URL a user gives to the interface the client will call: read the card, accept it
 * the way every answer is accepted (tolerant check, then projection to exact 1.0), pick the
 * interface, and hold its URL to the same URL policy as the card's.
 */

/** A card as read from the wire, before validation. */
export interface FetchedCard {
  readonly cardUrl: string;
  readonly card: unknown;
}

export interface ResolvedCard {
  readonly cardUrl: string;
  /** Exact 1.0: members the schema does not know are dropped. */
  readonly card: AgentCard;
  /** The interface the client will call. */
  readonly selected: AgentInterface;
}

/**
 * Reads the agent card behind `url`: a base URL (card at /.well-known/agent-card.json) or a
 * card URL (tried first, then the well-known path of its origin). Throws A2ATransportError
 * when no card can be read.
 */
export async function fetchAgentCard(url: string, options: RequestOptions = {}): Promise<FetchedCard> {
  return readCard(url, options, new HttpTransport(options));
}

/**
 * The validated card behind `url` and its JSONRPC 1.x interface. The card URL, every redirect
 * hop and the interface URL must pass the transport's URL policy.
 */
export async function resolveCard(url: string, options: RequestOptions, transport: HttpTransport): Promise<ResolvedCard> {
  const { cardUrl, card } = await readCard(url, options, transport);
  // Members 1.0 removed (stateTransitionHistory) or a vendor added are ignored, then dropped.
  const known = conforming('AgentCard', card, 'card', `the agent card at ${cardUrl}`);
  const selected = pickJsonRpcInterface(known);
  if (selected === undefined) {
    throw a2aError('InvalidAgentResponseError', `the agent card at ${cardUrl} declares no JSONRPC interface for protocol version 1.x`);
  }
  // A card from anywhere must not aim the client at the metadata service or the local network.
  transport.check(selected.url);
  return { cardUrl, card: known, selected };
}

const PROTOCOL_MAJOR = PROTOCOL_VERSION.split('.')[0] ?? '';

/** The JSONRPC interface of a card for a Major.Minor version of our major (1.x: minor versions stay compatible), if any. */
export function pickJsonRpcInterface(card: AgentCard): AgentInterface | undefined {
  return card.supportedInterfaces.find(
    (entry) =>
      entry.protocolBinding === 'JSONRPC' &&
      /^\d+\.\d+$/.test(entry.protocolVersion) &&
      entry.protocolVersion.split('.')[0] === PROTOCOL_MAJOR,
  );
}

async function readCard(url: string, options: RequestOptions, transport: HttpTransport): Promise<FetchedCard> {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new A2ATransportError(`not a URL: ${url}`);
  }
  const wellKnown = new URL(WELL_KNOWN_AGENT_CARD_PATH, parsed).href;
  const candidates = parsed.pathname === '/' || parsed.pathname === '' ? [wellKnown] : [url, wellKnown];
  let lastProblem = '';
  for (const candidate of candidates) {
    let answer: { url: string; response: Response };
    try {
      answer = await transport.get(candidate, {
        headers: { accept: MEDIA_TYPES.json, ...requestHeaders(options) },
        signal: AbortSignal.timeout(options.timeoutMs ?? DEFAULT_TIMEOUT_MS),
      });
    } catch (error) {
      if (error instanceof UrlPolicyError || error instanceof A2ATransportError) throw error;
      throw new A2ATransportError(`${candidate} is not reachable: ${describeError(error)}`, { cause: error });
    }
    const { url: cardUrl, response } = answer;
    const text = await response.text().catch(() => '');
    if (!response.ok) {
      lastProblem = `${cardUrl} answered HTTP ${response.status}`;
      continue;
    }
    try {
      const card = JSON.parse(text) as unknown;
      if (isRecord(card)) return { cardUrl, card };
      lastProblem = `${cardUrl} did not return a JSON object`;
    } catch {
      lastProblem = `${cardUrl} did not return JSON`;
    }
  }
  throw new A2ATransportError(`no agent card found: ${lastProblem}`);
}
