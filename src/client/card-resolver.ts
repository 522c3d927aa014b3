import { isThisProtocolVersion as is03, PROTOCOL_VERSION as VERSION_03 } from '../../generated/a2a/0.3/protocol.js';
import { MEDIA_TYPES, PROTOCOL_VERSION } from '../../generated/a2a/1.0/protocol.js';
import type { AgentCard, AgentInterface } from '../../generated/a2a/1.0/types.js';
import { a2aError } from '../protocol/a2a-error.js';
import { A2A_0_3 } from '../protocol/a2a-schema.js';
import {
  belongsTo,
  cardCandidates,
  isCard03,
  looksLikeCard,
  noCardFound,
  notTheAgentAsked,
  type CardMiss,
} from '../protocol/card-location.js';
import { projectToSchema } from '../protocol/project.js';
import { agentCardFrom03 } from '../protocol/v03/agent-cards.js';
import { UntranslatableError } from '../protocol/untranslatable.js';
import { checkValue } from '../protocol/validation.js';
import { errorInfoMetadata, registeredErrorOf } from '../protocol/error-info.js';
import { describeError } from '../support/describe-error.js';
import { conforming } from './answer-validation.js';
import { HttpTransport } from './http-transport.js';
import { UNAUTHENTICATED_STATUS } from './remote-error.js';
import { readRestStatus } from './rest-error.js';
import { DEFAULT_TIMEOUT_MS, requestHeaders, type RequestOptions } from './request-options.js';
import { A2ATransportError } from './transport-error.js';
import { UrlPolicyError } from '../net/destination-policy.js';

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
 * Reads the agent card of `url`: for a base URL the well-known card; for any other URL the URL
 * itself (a card URL), then `<url>/agent-card.json` (an endpoint's card), then the well-known
 * card if one of its interfaces is `url` (src/protocol/card-location.ts). Throws
 * A2ATransportError when no card of that agent can be read, also when the well-known card
 * describes another agent of the same host, UnauthenticatedError when the card needs credentials,
 * and the agent's own A2A error (e.g. AgentUnavailableError) when its card answers HTTP 5xx with one.
 */
export async function fetchAgentCard(url: string, options: RequestOptions = {}): Promise<FetchedCard> {
  return readCard(url, options, new HttpTransport(options));
}

/** The bindings this client speaks, as AgentInterface.protocolBinding names them, in its default order of preference among equals. */
export const CLIENT_BINDINGS = ['JSONRPC', 'HTTP+JSON'] as const;
export type ClientBindingName = (typeof CLIENT_BINDINGS)[number];

export function isClientBinding(name: string): name is ClientBindingName {
  return (CLIENT_BINDINGS as readonly string[]).includes(name);
}

/**
 * The validated card behind `url` and the interface to call (see pickInterface). The card
 * URL, every redirect hop and the interface URL must pass the transport's URL policy.
 */
export async function resolveCard(
  url: string,
  options: RequestOptions,
  transport: HttpTransport,
  choice: InterfaceChoice = {},
): Promise<ResolvedCard> {
  const { cardUrl, card } = await readCard(url, options, transport);
  const known = acceptedCard(card, cardUrl);
  const selected = pickInterface(known, choice);
  if (selected === undefined) throw noUsableInterface(cardUrl, known, choice);
  // A card from anywhere must not aim the client at the metadata service or the local network.
  transport.check(selected.url);
  return { cardUrl, card: known, selected };
}

/**
 * A card as the client holds it, exact 1.0: a 1.0 card (a dual-stack one included) with the
 * members 1.0 removed (stateTransitionHistory) or a vendor added ignored, then dropped; a 0.3
 * card (no `supportedInterfaces`) checked as 0.3 and translated, its interfaces declaring 0.3.
 */
function acceptedCard(card: unknown, cardUrl: string): AgentCard {
  if (!isCard03(card)) return conforming('AgentCard', card, 'card', `the agent card at ${cardUrl}`);
  const verdict = checkValue(A2A_0_3, 'AgentCard', card, { flavour: 'input', fieldPrefix: 'card' });
  if (!verdict.ok) {
    const summary = verdict.violations.map((violation) => `${violation.field}: ${violation.description}`).join('; ');
    throw a2aError('InvalidAgentResponseError', `the A2A ${VERSION_03} agent card at ${cardUrl} does not conform: ${summary}`, {
      violations: verdict.violations,
    });
  }
  try {
    return conforming(
      'AgentCard',
      agentCardFrom03(projectToSchema(A2A_0_3.document, 'AgentCard', verdict.value)),
      'card',
      `the agent card at ${cardUrl}`,
    );
  } catch (error) {
    if (!(error instanceof UntranslatableError)) throw error;
    throw a2aError('InvalidAgentResponseError', `the A2A ${VERSION_03} agent card at ${cardUrl} cannot be read as 1.0: ${error.message}`);
  }
}

const PROTOCOL_MAJOR = PROTOCOL_VERSION.split('.')[0] ?? '';

/** Whether an interface is for a Major.Minor version of our major (1.x: minor versions stay compatible). */
function speaksOurVersion(entry: AgentInterface): boolean {
  return /^\d+\.\d+$/.test(entry.protocolVersion) && entry.protocolVersion.split('.')[0] === PROTOCOL_MAJOR;
}

/** The bindings the client speaks to an interface of A2A 0.3 (jsonrpc-03.ts, rest-03.ts). */
const BINDINGS_03: readonly string[] = ['JSONRPC', 'HTTP+JSON'];

/** Whether the client speaks an interface: a 1.x one of its bindings, or a 0.3 one it has a dialect for. */
function isUsable(entry: AgentInterface): boolean {
  if (!isClientBinding(entry.protocolBinding)) return false;
  return speaksOurVersion(entry) || (is03(entry.protocolVersion) && BINDINGS_03.includes(entry.protocolBinding));
}

/** Which interface of a card the client takes (ConnectOptions). */
export interface InterfaceChoice {
  /** Bindings tried first, in this order; the card's other usable interfaces remain the fallback. */
  readonly preferredBindings?: readonly ClientBindingName[];
  /** Only this binding: a card that does not offer it is refused. */
  readonly binding?: ClientBindingName;
  /**
   * Only interfaces of this protocol version (`1.0` for any 1.x, or `0.3`): a dual-stack agent
   * spoken to in 0.3, say. By default 1.x is preferred and 0.3 is the fallback.
   */
  readonly protocolVersion?: '1.0' | '0.3';
}

/**
 * The interface the client calls: the first 1.x interface in the card's order (spec §8.3.1:
 * the agent lists its preferred one first) whose binding the client speaks, after those of
 * `preferredBindings`; with `binding`, that binding's first 1.x interface. Only when the card
 * has no such 1.x interface, the same choice among its 0.3 interfaces (spoken through
 * jsonrpc-03.ts and rest-03.ts), so a dual-stack agent is always spoken to in 1.0.
 */
export function pickInterface(card: AgentCard, choice: InterfaceChoice = {}): AgentInterface | undefined {
  const usable = card.supportedInterfaces.filter(isUsable);
  const current = choice.protocolVersion === VERSION_03 ? [] : usable.filter(speaksOurVersion);
  const old = choice.protocolVersion === PROTOCOL_VERSION ? [] : usable.filter((entry) => !speaksOurVersion(entry));
  return pickAmong(current, choice) ?? pickAmong(old, choice);
}

function pickAmong(usable: readonly AgentInterface[], choice: InterfaceChoice): AgentInterface | undefined {
  const order = choice.binding === undefined ? [...(choice.preferredBindings ?? []), ...CLIENT_BINDINGS] : [choice.binding];
  const ranked = usable
    .map((entry, position) => ({ entry, rank: order.indexOf(entry.protocolBinding as ClientBindingName), position }))
    .filter((candidate) => candidate.rank >= 0);
  // Bindings not preferred keep the card's order among themselves.
  const preferredCount = choice.binding === undefined ? (choice.preferredBindings?.length ?? 0) : 1;
  ranked.sort((x, y) => tier(x.rank, preferredCount) - tier(y.rank, preferredCount) || x.position - y.position);
  return ranked[0]?.entry;
}

/** Each preferred binding is its own tier; every other binding shares the last one. */
function tier(rank: number, preferredCount: number): number {
  return Math.min(rank, preferredCount);
}

/** The JSONRPC 1.x interface of a card, if any; a 0.3 one is not (pickInterface falls back to it). */
export function pickJsonRpcInterface(card: AgentCard): AgentInterface | undefined {
  return pickAmong(card.supportedInterfaces.filter(isUsable).filter(speaksOurVersion), { binding: 'JSONRPC' });
}

/** The refusal of a card none of whose interfaces `choice` allows, naming what it declares. */
export function noUsableInterface(cardUrl: string, card: AgentCard, choice: InterfaceChoice): Error {
  const declared = card.supportedInterfaces.map((entry) => `${entry.protocolBinding} ${entry.protocolVersion}`).join(', ');
  const bindings = choice.binding === undefined ? CLIENT_BINDINGS.join(' or ') : choice.binding;
  const bindings03 =
    choice.binding === undefined ? BINDINGS_03.join(' or ') : BINDINGS_03.includes(choice.binding) ? choice.binding : undefined;
  const versions =
    choice.protocolVersion === VERSION_03
      ? `${bindings03 ?? bindings} interface for protocol version ${VERSION_03}`
      : choice.protocolVersion === PROTOCOL_VERSION || bindings03 === undefined
        ? `${bindings} interface for protocol version 1.x`
        : choice.binding === undefined
          ? `${bindings} interface for protocol version 1.x, nor a ${bindings03} one for ${VERSION_03}`
          : `${bindings} interface for protocol version 1.x or ${VERSION_03}`;
  return a2aError(
    'InvalidAgentResponseError',
    `the agent card at ${cardUrl} declares no ${versions}; it declares ${declared === '' ? 'no interface' : declared}`,
  );
}

async function readCard(url: string, options: RequestOptions, transport: HttpTransport): Promise<FetchedCard> {
  let asked: URL;
  try {
    asked = new URL(url);
  } catch {
    throw new A2ATransportError(`not a URL: ${url}`);
  }
  const candidates = cardCandidates(asked);
  const misses: CardMiss[] = [];
  // A card behind credentials explains the misses better than "not found" does.
  let locked: string | undefined;
  // So does the agent's own card answering that it cannot serve (an unavailable instance), also better than another agent's card.
  let failed: Error | undefined;
  for (const candidate of candidates) {
    let answer: { url: string; response: Response };
    try {
      answer = await transport.get(candidate.url, {
        headers: { accept: MEDIA_TYPES.json, ...requestHeaders(options) },
        signal: AbortSignal.timeout(options.timeoutMs ?? DEFAULT_TIMEOUT_MS),
      });
    } catch (error) {
      if (error instanceof UrlPolicyError || error instanceof A2ATransportError) throw error;
      throw new A2ATransportError(`${candidate.url} is not reachable: ${describeError(error)}`, { cause: error });
    }
    const { url: cardUrl, response } = answer;
    const text = await response.text().catch(() => '');
    if (!response.ok) {
      if (response.status === UNAUTHENTICATED_STATUS && candidate.source !== 'well-known') locked = cardUrl;
      if (response.status >= 500 && candidate.source !== 'well-known') failed ??= serverError(cardUrl, response.status, text);
      misses.push({ url: cardUrl, problem: `answered HTTP ${response.status}` });
      continue;
    }
    let card: unknown;
    try {
      card = JSON.parse(text) as unknown;
    } catch {
      misses.push({ url: cardUrl, problem: 'did not return JSON' });
      continue;
    }
    if (!looksLikeCard(card)) {
      misses.push({ url: cardUrl, problem: 'did not return an agent card' });
      continue;
    }
    if (belongsTo(asked, candidate, card)) return { cardUrl, card };
    if (locked === undefined && failed === undefined) throw new A2ATransportError(notTheAgentAsked(asked, candidates));
  }
  if (locked !== undefined) {
    throw a2aError('UnauthenticatedError', `the agent card at ${locked} answered HTTP ${UNAUTHENTICATED_STATUS}: it needs credentials`);
  }
  if (failed !== undefined) throw failed;
  throw new A2ATransportError(noCardFound(asked, misses));
}

/**
 * What a 5xx answer of the agent's own card says: its A2A error (by ErrorInfo, e.g.
 * AgentUnavailableError) with the agent's message, else a transport error with the status.
 */
function serverError(cardUrl: string, status: number, text: string): Error {
  const error = readRestStatus(text);
  const prefix = `the agent card at ${cardUrl} answered HTTP ${status}`;
  if (error === undefined) return new A2ATransportError(prefix, { status });
  const name = registeredErrorOf(error.details, (definition) => definition.httpStatus === status);
  const message = `${prefix}: ${error.message}`;
  if (name === undefined) return new A2ATransportError(message, { status });
  return a2aError(name, message, { metadata: errorInfoMetadata(error.details) });
}
