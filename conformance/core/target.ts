import { MEDIA_TYPES, PROTOCOL_VERSION, WELL_KNOWN_AGENT_CARD_PATH } from '../../generated/a2a/1.0/protocol.js';
import type { AgentCard } from '../../generated/a2a/1.0/types.js';
import { headersOf, VERSION_HEADER, type Exchange } from './exchange.js';

/** The endpoint under test and what the suite knows about it. */
export interface Target {
  readonly url: string;
  readonly card: AgentCard;
  readonly cardUrl?: string;
  /** The exchange that fetched the card, for the discovery checks. */
  readonly cardExchange?: Exchange;
  readonly endpoint: string;
  /** No card could be read; a minimal one (no capabilities) is assumed. */
  readonly assumedCard: boolean;
}

export class TargetError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'TargetError';
  }
}

/**
 * Finds the agent behind a URL: a card URL, a base URL (card at /.well-known), or a
 * JSON-RPC endpoint (then a minimal card is assumed). Throws TargetError when nothing
 * answers like an A2A agent, which the CLI turns into exit code 2.
 */
export async function resolveTarget(
  url: string,
  options: { headers?: Readonly<Record<string, string>>; timeoutMs: number },
): Promise<Target> {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new TargetError(`not a URL: ${url}`);
  }
  const wellKnown = new URL(WELL_KNOWN_AGENT_CARD_PATH, parsed).href;
  const candidates = parsed.pathname === '/' || parsed.pathname === '' ? [wellKnown] : [url, wellKnown];
  for (const cardUrl of candidates) {
    const exchange = await get(cardUrl, options);
    const card = exchange.json as AgentCard | undefined;
    if (exchange.status === 200 && typeof card === 'object' && card !== null && Array.isArray(card.supportedInterfaces)) {
      const jsonrpc = card.supportedInterfaces.find(
        (entry) => entry.protocolBinding === 'JSONRPC' && /^1\.\d+$/.test(entry.protocolVersion),
      );
      if (cardUrl === url || jsonrpc !== undefined) {
        if (jsonrpc === undefined) throw new TargetError(`the card at ${cardUrl} declares no JSONRPC interface for protocol version 1.x`);
        return { url, card, cardUrl, cardExchange: exchange, endpoint: jsonrpc.url, assumedCard: false };
      }
    }
  }
  const probe = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': MEDIA_TYPES.json, [VERSION_HEADER]: PROTOCOL_VERSION, ...options.headers },
    body: JSON.stringify({ jsonrpc: '2.0', id: 'conform-probe', method: 'GetTask', params: { id: 'conform-probe' } }),
    signal: AbortSignal.timeout(options.timeoutMs),
  }).catch((error: unknown) => {
    throw new TargetError(`${url} is not reachable: ${String(error)}`);
  });
  const body = (await probe.json().catch(() => undefined)) as { jsonrpc?: unknown } | undefined;
  if (body?.jsonrpc !== '2.0') throw new TargetError(`${url} serves no agent card and does not answer JSON-RPC (HTTP ${probe.status})`);
  return { url, card: minimalCard(url), endpoint: url, assumedCard: true };
}

function minimalCard(endpoint: string): AgentCard {
  return {
    name: 'unknown agent (no card found)',
    description: 'A minimal card assumed by the conformance suite.',
    supportedInterfaces: [{ url: endpoint, protocolBinding: 'JSONRPC', protocolVersion: PROTOCOL_VERSION }],
    version: '0',
    capabilities: {},
    defaultInputModes: ['text/plain'],
    defaultOutputModes: ['text/plain'],
    skills: [{ id: 'unknown', name: 'unknown', description: 'unknown', tags: ['unknown'] }],
  };
}

async function get(url: string, options: { headers?: Readonly<Record<string, string>>; timeoutMs: number }): Promise<Exchange> {
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
