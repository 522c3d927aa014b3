import type { HostedAgent } from '../protocol/a2a-handler.js';

/** A hosted agent as the HTTP layer routes to it. */
export interface InboundAgent extends HostedAgent {
  readonly name: string;
  /** URL path of the JSON-RPC endpoint; the card is at `<endpointPath>/agent-card.json`. */
  readonly endpointPath: string;
  /** SHA-256 of the bearer token when the instance requires one. */
  readonly tokenDigest?: string;
}

/** Finds the enabled agent for a request path; the live routing table of inbound instances. */
export interface AgentDirectory {
  byEndpointPath(path: string): InboundAgent | undefined;
  /** The agent whose card is served at /.well-known/agent-card.json. */
  defaultAgent(): InboundAgent | undefined;
}
