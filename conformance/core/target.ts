import { ERRORS } from '../../generated/a2a/1.0/errors.js';
import { isThisProtocolVersion, MEDIA_TYPES, PROTOCOL_VERSION } from '../../generated/a2a/1.0/protocol.js';
import type { AgentCard } from '../../generated/a2a/1.0/types.js';
import { ERRORS as ERRORS_03 } from '../../generated/a2a/0.3/errors.js';
import { isThisProtocolVersion as is03, PROTOCOL_VERSION as VERSION_03 } from '../../generated/a2a/0.3/protocol.js';
import type { ProtocolVersion, RequirementId } from '../../generated/conformance/requirements.js';
import { belongsTo, cardCandidates, isCard03, isOrigin, looksLikeCard, notTheAgentAsked } from '../../src/protocol/card-location.js';
import { A2A_0_3 } from '../../src/protocol/a2a-schema.js';
import { projectToSchema } from '../../src/protocol/project.js';
import { agentCardFrom03 } from '../../src/protocol/v03/agent-cards.js';
import { checkValue } from '../../src/protocol/validation.js';
import { versionedInterfaceProbe } from '../../src/protocol/v03/interface-probe.js';
import { isRecord } from '../../src/support/records.js';
import { reasonOf } from './answers.js';
import { headersOf, VERSION_HEADER, type Exchange } from './exchange.js';
import type { Binding } from './transport.js';

/** The bindings the suite speaks, in the order it runs them. */
export const SUITE_BINDINGS: readonly Binding[] = ['JSONRPC', 'HTTP+JSON'];

/** A declared interface the suite can test: the first 1.x or 0.3 one of its binding. */
export interface TargetInterface {
  readonly binding: Binding;
  readonly url: string;
  /** The protocol version it is tested in. */
  readonly protocolVersion: ProtocolVersion;
  /** The tenant the card asks clients to send on it, when it names one. */
  readonly tenant?: string;
}

/** The endpoint under test and what the suite knows about it. */
export interface Target {
  readonly url: string;
  readonly card: AgentCard;
  readonly cardUrl?: string;
  /** The exchange that fetched the card, for the discovery checks. */
  readonly cardExchange?: Exchange;
  /** The URL of the first interface tested (the JSON-RPC one when there is one). */
  readonly endpoint: string;
  /** Every interface the suite can test: one per binding of 1.x, JSON-RPC first, then of 0.3. */
  readonly interfaces: readonly TargetInterface[];
  /** No card could be read; a minimal one (no capabilities) is assumed. */
  readonly assumedCard: boolean;
}

/** What the suite found at a URL where it found nothing it can test: the report's FAILs (runUntestable in suite.ts). */
export interface Untestable {
  /** What is wrong, each on the requirement it breaks, with the exchange that shows it. */
  readonly problems: readonly { readonly requirement: RequirementId; readonly message: string; readonly exchange?: Exchange }[];
  /** The agent's card, when one was found but declares no interface the suite can test (an A2A 0.3 card, say). */
  readonly card?: { readonly json: Record<string, unknown>; readonly url: string; readonly exchange: Exchange };
}

export class TargetError extends Error {
  /** The endpoint refused the credentials, or wanted some: the CLI says how to pass them. */
  readonly unauthenticated: boolean;
  /** Set when there is an agent's URL but nothing testable behind it: the suite reports why instead of stopping (exit 1, not 2). */
  readonly untestable: Untestable | undefined;

  constructor(message: string, options: { unauthenticated?: boolean; untestable?: Untestable } = {}) {
    super(message);
    this.name = 'TargetError';
    this.unauthenticated = options.unauthenticated === true;
    this.untestable = options.untestable;
  }
}

interface TargetOptions {
  readonly headers?: Readonly<Record<string, string>>;
  readonly timeoutMs: number;
}

const UNAUTHENTICATED_STATUS = ERRORS.UnauthenticatedError.httpStatus;
/** Service Unavailable, the status of the hub's AgentUnavailableError and of any server that cannot serve now. */
const UNAVAILABLE_STATUS = ERRORS.AgentUnavailableError.httpStatus;

/**
 * Finds the agent of a URL: the card that belongs to it (src/protocol/card-location.ts: the
 * card URL itself, `<endpoint>/agent-card.json`, or the well-known card of a base URL or one
 * that names the URL), else a JSON-RPC endpoint, else an HTTP+JSON base whose GetTask route
 * answers TaskNotFoundError with its ErrorInfo (then a minimal card is assumed). Throws
 * TargetError, which the CLI turns into exit code 2, when nothing answers like an A2A agent,
 * when the only card is another agent's of the same host, when the endpoint refuses the
 * credentials, and when the agent's card or endpoint answers that it is unavailable (HTTP 503,
 * or a 5xx A2A error on its card): testing a different agent, a locked door or a closed one
 * would report on the wrong thing.
 */
export async function resolveTarget(url: string, options: TargetOptions): Promise<Target> {
  let asked: URL;
  try {
    asked = new URL(url);
  } catch {
    throw new TargetError(`not a URL: ${url}`);
  }
  const candidates = cardCandidates(asked);
  let foreignCard = false;
  const read: { readonly url: string; readonly exchange: Exchange }[] = [];
  let untestableCard: Untestable['card'];
  /** The untestable card is the one the URL names (not the origin's well-known card of a longer URL): stop there. */
  let untestableIsOwn = false;
  for (const candidate of candidates) {
    const exchange = await get(candidate.url, options);
    read.push({ url: candidate.url, exchange });
    if (candidate.source !== 'well-known' && refusesService(exchange.status, exchange.json)) {
      throw unavailable(url, candidate.url, exchange.status, errorMessageOf(exchange.json));
    }
    const card = exchange.json;
    if (exchange.status !== 200 || !looksLikeCard(card)) continue;
    if (!Array.isArray(card['supportedInterfaces'])) {
      // An A2A 0.3 card (a main url, no supportedInterfaces) is tested in 0.3 when it is the agent's.
      const legacy = isCard03(card) && belongsTo(asked, candidate, card) ? interfaces03Of(card) : [];
      const [first] = legacy;
      if (first !== undefined) {
        for (const entry of legacy) await requireAccess(url, entry, options);
        return {
          url,
          card: readIn10(card, first),
          cardUrl: candidate.url,
          cardExchange: exchange,
          endpoint: first.url,
          interfaces: legacy,
          assumedCard: false,
        };
      }
      // Any other card without supportedInterfaces is the agent's if it is the one asked for.
      if (candidate.source !== 'well-known' || isOrigin(asked)) untestableCard ??= { json: card, url: candidate.url, exchange };
      continue;
    }
    if (!belongsTo(asked, candidate, card)) {
      foreignCard = true;
      continue;
    }
    // Judged as read: the discovery checks report what is wrong with the card, so nothing here may assume its shape.
    const interfaces = testableInterfaces(card['supportedInterfaces'] as unknown[]);
    if (interfaces.length > 0) {
      for (const entry of interfaces) await requireAccess(url, entry, options);
      const known = card as unknown as AgentCard;
      return {
        url,
        card: known,
        cardUrl: candidate.url,
        cardExchange: exchange,
        endpoint: (interfaces[0] as TargetInterface).url,
        interfaces,
        assumedCard: false,
      };
    }
    // A base URL's card without a 1.x interface may be a 0.3 card beside a 1.0 endpoint: probe the URL.
    untestableCard ??= { json: card, url: candidate.url, exchange };
    if (candidate.source !== 'well-known') {
      untestableIsOwn = true;
      break;
    }
  }
  if (untestableCard !== undefined && untestableIsOwn) throw noInterface(untestableCard);
  const probe = await probeJsonRpc({ binding: 'JSONRPC', url, protocolVersion: PROTOCOL_VERSION }, options).catch((error: unknown) => {
    throw noAgent(url, read, error instanceof Error ? error.message : String(error));
  });
  if (probe.status === UNAUTHENTICATED_STATUS) throw refused(url, probe, options);
  if (probe.status === UNAVAILABLE_STATUS) throw unavailable(url, url, probe.status, probe.message);
  if (probe.jsonRpc)
    return assumed(url, 'JSONRPC', probe.methodMissing === true && (await answers03(url, options)) ? VERSION_03 : PROTOCOL_VERSION);
  // No card and no JSON-RPC: a bare HTTP+JSON interface URL answers its GetTask route with a Status body.
  const rest = await probeRest({ binding: 'HTTP+JSON', url, protocolVersion: PROTOCOL_VERSION }, options).catch((error: unknown) => {
    throw noAgent(url, read, error instanceof Error ? error.message : String(error));
  });
  if (rest.status === UNAUTHENTICATED_STATUS) throw refused(url, rest, options);
  if (rest.status === UNAVAILABLE_STATUS) throw unavailable(url, url, rest.status, rest.message);
  if (rest.answered) return assumed(url, 'HTTP+JSON');
  if (foreignCard) throw new TargetError(notTheAgentAsked(asked, candidates));
  if (untestableCard !== undefined) throw noInterface(untestableCard);
  throw noAgent(url, read, `${url} answers neither JSON-RPC nor HTTP+JSON (HTTP ${probe.status})`);
}

/** A card the suite can read but not test through: no JSONRPC or HTTP+JSON interface for protocol version 1.x. */
function noInterface(card: NonNullable<Untestable['card']>): TargetError {
  const declared = Array.isArray(card.json['supportedInterfaces'])
    ? (card.json['supportedInterfaces'] as unknown[])
        .map((entry) => (isRecord(entry) ? `${String(entry['protocolBinding'])} ${String(entry['protocolVersion'])}` : 'a malformed entry'))
        .join(', ')
    : '';
  // digest §14: a top-level protocolVersion, url or preferredTransport is how a 0.3 card shows itself.
  const legacy = typeof card.json['protocolVersion'] === 'string' ? ` (an A2A ${card.json['protocolVersion']} card)` : '';
  const message =
    declared === ''
      ? `the card at ${card.url} declares no supportedInterfaces${legacy}, so there is no A2A 1.x interface to test`
      : `the card at ${card.url} declares no JSONRPC or HTTP+JSON interface for protocol version 1.x; it declares ${declared}`;
  return new TargetError(message, { untestable: { problems: [{ requirement: 'CARD-005', message, exchange: card.exchange }], card } });
}

/** Nothing at the URL answers like an A2A agent: every card location read, and why each is not a card. */
function noAgent(url: string, read: readonly { readonly url: string; readonly exchange: Exchange }[], endpoint: string): TargetError {
  const problems = read.map(({ url: where, exchange }) => ({
    requirement: 'CARD-001' as const,
    message: whyNotACard(where, exchange),
    exchange,
  }));
  const message = `${url} serves no agent card and no A2A endpoint: ${[...problems.map((problem) => problem.message), endpoint].join('; ')}`;
  return new TargetError(message, { untestable: { problems: [...problems, { requirement: 'CARD-001', message: endpoint }] } });
}

function whyNotACard(url: string, exchange: Exchange): string {
  if (exchange.transportError !== undefined) return `GET ${url} failed: ${exchange.transportError}`;
  if (exchange.status !== 200) return `GET ${url} answered HTTP ${exchange.status}`;
  if (exchange.json === undefined)
    return `GET ${url} answered 200 with a body that is not JSON (${exchange.headers['content-type'] ?? 'no Content-Type'}): ${JSON.stringify(exchange.bodyText.slice(0, 80))}`;
  return `GET ${url} answered JSON that is not an agent card (no name or supportedInterfaces)`;
}

/** An endpoint without a card, tested with a minimal one in the version its answers showed. */
function assumed(url: string, binding: Binding, protocolVersion: ProtocolVersion = PROTOCOL_VERSION): Target {
  return {
    url,
    card: minimalCard(url, binding, protocolVersion),
    endpoint: url,
    interfaces: [{ binding, url, protocolVersion }],
    assumedCard: true,
  };
}

/**
 * Digest §14.2's probe, for a JSON-RPC endpoint without a card that does not know the 1.0
 * GetTask: a 0.3 `tasks/get` without A2A-Version (as 0.3 clients send it) answered with
 * TaskNotFoundError's code shows a 0.3 agent.
 */
async function answers03(url: string, options: TargetOptions): Promise<boolean> {
  const body = JSON.stringify({ jsonrpc: '2.0', id: 'conform-probe-0.3', method: 'tasks/get', params: { id: 'conform-probe' } });
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': MEDIA_TYPES.json, accept: MEDIA_TYPES.json, ...options.headers },
    body,
    signal: AbortSignal.timeout(options.timeoutMs),
  }).catch(() => undefined);
  const json: unknown = await response?.json().catch(() => undefined);
  const error = isRecord(json) ? json['error'] : undefined;
  return isRecord(error) && error['code'] === ERRORS_03.TaskNotFoundError.code;
}

/**
 * The interfaces of a 0.3 card, JSON-RPC first: for each binding the suite speaks, its main
 * `url` when `preferredTransport` names the binding (JSONRPC when it names none), else the
 * binding's first entry of `additionalInterfaces`.
 */
function interfaces03Of(card: Record<string, unknown>): TargetInterface[] {
  const preferred = card['preferredTransport'] ?? 'JSONRPC';
  const additional = Array.isArray(card['additionalInterfaces']) ? (card['additionalInterfaces'] as unknown[]) : [];
  return SUITE_BINDINGS.flatMap((binding): TargetInterface[] => {
    if (preferred === binding && typeof card['url'] === 'string') return [{ binding, url: card['url'], protocolVersion: VERSION_03 }];
    const entry = additional.find(
      (candidate): candidate is { url: string } =>
        isRecord(candidate) && candidate['transport'] === binding && typeof candidate['url'] === 'string',
    );
    return entry === undefined ? [] : [{ binding, url: entry.url, protocolVersion: VERSION_03 }];
  });
}

/**
 * A 0.3 card as the runner reads every card (name, capabilities): its 1.0 reading when it has
 * one, else the members it has over a minimal card. The 0.3 card checks judge the card itself.
 */
function readIn10(card: Record<string, unknown>, entry: TargetInterface): AgentCard {
  const checked = checkValue(A2A_0_3, 'AgentCard', card);
  if (checked.ok) {
    try {
      return agentCardFrom03(projectToSchema(A2A_0_3.document, 'AgentCard', checked.value));
    } catch {
      // Untranslatable members: fall through to the minimal reading.
    }
  }
  const minimal = minimalCard(entry.url, entry.binding, VERSION_03);
  const capabilities = isRecord(card['capabilities']) ? (card['capabilities'] as AgentCard['capabilities']) : {};
  return { ...minimal, ...(typeof card['name'] === 'string' ? { name: card['name'] } : {}), capabilities };
}

/** The first well-formed 1.x interface of each binding the suite speaks, JSON-RPC first, then the first 0.3 one of each. */
function testableInterfaces(entries: readonly unknown[]): TargetInterface[] {
  const found: TargetInterface[] = [];
  for (const binding of SUITE_BINDINGS) {
    const entry = entries.find(
      (candidate): candidate is { url: string; tenant?: unknown } =>
        isRecord(candidate) &&
        candidate['protocolBinding'] === binding &&
        typeof candidate['protocolVersion'] === 'string' &&
        // "1.0.0" is tested as 1.0 too; the card checks report that it is not Major.Minor (CARD-003).
        (/^1\.\d+$/.test(candidate['protocolVersion']) || isThisProtocolVersion(candidate['protocolVersion'])) &&
        typeof candidate['url'] === 'string',
    );
    if (entry === undefined) continue;
    const tenant = typeof entry.tenant === 'string' && entry.tenant !== '' ? entry.tenant : undefined;
    found.push({ binding, url: entry.url, protocolVersion: PROTOCOL_VERSION, ...(tenant === undefined ? {} : { tenant }) });
  }
  // Then 0.3's, JSON-RPC first.
  for (const binding of SUITE_BINDINGS) {
    const legacy = entries.find(
      (candidate): candidate is { url: string } =>
        isRecord(candidate) &&
        candidate['protocolBinding'] === binding &&
        typeof candidate['protocolVersion'] === 'string' &&
        is03(candidate['protocolVersion']) &&
        typeof candidate['url'] === 'string',
    );
    if (legacy !== undefined) found.push({ binding, url: legacy.url, protocolVersion: VERSION_03 });
  }
  return found;
}

interface Probe {
  readonly status: number;
  readonly jsonRpc: boolean;
  /** JSON-RPC: the endpoint answered that it has no such method (a 0.3 agent asked the 1.0 GetTask). */
  readonly methodMissing?: boolean;
  /** HTTP+JSON: the answer is an A2A error body or a Task, so the route is there. */
  readonly answered?: boolean;
  readonly message?: string;
}

/** GetTask for a task that cannot exist, on the interface's route and under its tenant (src/protocol/interface-probe.ts). */
async function sendProbe(entry: TargetInterface, options: TargetOptions): Promise<Response> {
  const probe = versionedInterfaceProbe(
    { protocolBinding: entry.binding, url: entry.url, tenant: entry.tenant, protocolVersion: entry.protocolVersion },
    'conform-probe',
    { rpcId: 'conform-probe' },
  );
  if (probe === undefined) throw new TargetError(`${entry.url}: the suite cannot probe ${entry.binding}`);
  return fetch(probe.url, {
    method: probe.method,
    headers: { ...probe.headers, ...options.headers },
    ...(probe.body === undefined ? {} : { body: probe.body }),
    signal: AbortSignal.timeout(options.timeoutMs),
  }).catch((error: unknown) => {
    throw new TargetError(`${entry.url} is not reachable: ${String(error)}`);
  });
}

/** On the HTTP+JSON route a Status body (or a Task) shows the interface is there. */
async function probeRest(entry: TargetInterface, options: TargetOptions): Promise<Probe> {
  const response = await sendProbe(entry, options);
  const body: unknown = await response.json().catch(() => undefined);
  const message = errorMessageOf(body);
  const error = isRecord(body) ? body['error'] : undefined;
  // Only TaskNotFoundError with its ErrorInfo reason shows the route: servers answer a path they lack with a JSON 404 NOT_FOUND too.
  const { httpStatus, reason } = ERRORS.TaskNotFoundError;
  const answered =
    (response.status === httpStatus && isRecord(error) && reasonOf(error) === reason) ||
    (response.status === 200 && isRecord(body) && typeof body['id'] === 'string');
  return { status: response.status, jsonRpc: false, answered, ...(message === undefined ? {} : { message }) };
}

/** Any JSON-RPC answer shows the endpoint is there, HTTP 401 that it is locked. */
async function probeJsonRpc(entry: TargetInterface, options: TargetOptions): Promise<Probe> {
  const response = await sendProbe(entry, options);
  const body: unknown = await response.json().catch(() => undefined);
  const message = errorMessageOf(body);
  const error = isRecord(body) ? body['error'] : undefined;
  return {
    status: response.status,
    jsonRpc: isRecord(body) && body['jsonrpc'] === '2.0',
    methodMissing: isRecord(error) && error['code'] === ERRORS.MethodNotFoundError.code,
    ...(message === undefined ? {} : { message }),
  };
}

/**
 * Only a locked or unavailable endpoint stops the run: one that is unreachable or malformed is
 * what the checks report on, but every check against an endpoint that refuses service would
 * only report its refusal.
 */
async function requireAccess(url: string, entry: TargetInterface, options: TargetOptions): Promise<void> {
  const probe = await (entry.binding === 'JSONRPC' ? probeJsonRpc(entry, options) : probeRest(entry, options)).catch(() => undefined);
  if (probe?.status === UNAUTHENTICATED_STATUS) throw refused(entry.url, probe, options);
  if (probe?.status === UNAVAILABLE_STATUS) throw unavailable(url, entry.url, probe.status, probe.message);
}

/** HTTP 503, or a 5xx with an A2A error body (JSON-RPC or HTTP+JSON): the agent says it cannot serve now. */
function refusesService(status: number, json: unknown): boolean {
  return status === UNAVAILABLE_STATUS || (status >= 500 && errorMessageOf(json) !== undefined);
}

/** The message of a JSON-RPC error answer or an HTTP+JSON error body: both keep it at `error.message`. */
function errorMessageOf(json: unknown): string | undefined {
  const error = isRecord(json) ? json['error'] : undefined;
  return isRecord(error) && typeof error['message'] === 'string' ? error['message'] : undefined;
}

function unavailable(url: string, answeredAt: string, status: number, message: string | undefined): TargetError {
  const why = message === undefined ? '' : `: ${message}`;
  return new TargetError(`the agent at ${url} cannot be tested: ${answeredAt} answered HTTP ${status}${why}`);
}

function refused(endpoint: string, probe: Probe, options: TargetOptions): TargetError {
  const sent = Object.keys(options.headers ?? {}).some((name) => name.toLowerCase() === 'authorization');
  const remote = probe.message === undefined ? '' : ` (${probe.message})`;
  return new TargetError(
    `the endpoint ${endpoint} answered HTTP ${probe.status}${remote}: ${sent ? 'the credentials sent were refused' : 'no credentials were sent'}`,
    { unauthenticated: true },
  );
}

function minimalCard(endpoint: string, binding: Binding, protocolVersion: string = PROTOCOL_VERSION): AgentCard {
  return {
    name: 'unknown agent (no card found)',
    description: 'A minimal card assumed by the conformance suite.',
    supportedInterfaces: [{ url: endpoint, protocolBinding: binding, protocolVersion }],
    version: '0',
    capabilities: {},
    defaultInputModes: ['text/plain'],
    defaultOutputModes: ['text/plain'],
    skills: [{ id: 'unknown', name: 'unknown', description: 'unknown', tags: ['unknown'] }],
  };
}

async function get(url: string, options: TargetOptions): Promise<Exchange> {
  const headers = { accept: MEDIA_TYPES.json, [VERSION_HEADER]: PROTOCOL_VERSION, ...options.headers };
  const started = Date.now();
  try {
    const response = await fetch(url, { headers, signal: AbortSignal.timeout(options.timeoutMs) });
    const bodyText = await response.text();
    let json: unknown;
    try {
      json = JSON.parse(bodyText);
    } catch {
      json = undefined;
    }
    return {
      request: { method: 'GET', url, headers },
      status: response.status,
      headers: headersOf(response.headers),
      bodyText,
      ...(json === undefined ? {} : { json }),
      durationMs: Date.now() - started,
    };
  } catch (error) {
    return {
      request: { method: 'GET', url, headers },
      status: 0,
      headers: {},
      bodyText: '',
      transportError: String(error),
      durationMs: Date.now() - started,
    };
  }
}
