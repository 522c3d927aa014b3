import type { Capability } from '../../generated/a2a/1.0/methods.js';
import type { AgentCard } from '../../generated/a2a/1.0/types.js';
import { CARD_PATH_SUFFIX } from '../protocol/card-location.js';
import type { RuntimeInstance } from '../tasks/task-runtime.js';

/** An agent as the request handler sees it: what it runs, and what its card promises. */
export interface HostedAgent extends RuntimeInstance {
  /** The agent card as served to a caller who reached the hub at `baseUrl`. */
  card(baseUrl: string): AgentCard;
  readonly capabilities: Readonly<Record<Capability, boolean>>;
  /** URIs of the extensions the agent implements (its card's capabilities.extensions). */
  readonly extensions: readonly string[];
  /** Media types (or ranges such as image/*) the agent accepts in message parts: its defaultInputModes. */
  readonly inputModes: readonly string[];
}

/** A hosted agent as the HTTP layer routes to it. */
export interface InboundAgent extends HostedAgent {
  readonly name: string;
  /** URL path of the JSON-RPC endpoint; the card is at `cardPathOf(endpointPath)`. */
  readonly endpointPath: string;
  /** SHA-256 of the bearer token when the instance requires one. */
  readonly tokenDigest?: string;
}

/** An enabled instance that is stored but cannot run here, e.g. because its preset is not registered. */
export interface UnavailableAgent {
  readonly id: string;
  /** Why, for the operator (log, snapshot, control API): it names this hub's presets, so its endpoint does not send it. */
  readonly reason: string;
  /** SHA-256 of the bearer token when the instance requires one: a caller learns it is unavailable only after that check. */
  readonly tokenDigest?: string;
}

/** Finds the enabled agent for a request path; the live routing table of inbound instances. */
export interface AgentDirectory {
  byEndpointPath(path: string): InboundAgent | undefined;
  /** The instance at a path no agent serves that would serve it if it could run. */
  unavailableAt(path: string): UnavailableAgent | undefined;
  /** The agent whose card is served at /.well-known/agent-card.json, if any (the hub's wellKnownInstance). */
  defaultAgent(): InboundAgent | undefined;
}

export function cardPathOf(endpointPath: string): string {
  return `${endpointPath}${CARD_PATH_SUFFIX}`;
}
