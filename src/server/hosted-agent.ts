import { PROTOCOL_VERSION as VERSION_03 } from '../../generated/a2a/0.3/protocol.js';
import type { Capability } from '../../generated/a2a/1.0/methods.js';
import { PROTOCOL_VERSION } from '../../generated/a2a/1.0/protocol.js';
import type { AgentCard, Artifact, Message } from '../../generated/a2a/1.0/types.js';
import type { WORKER_STATES } from '../../generated/hub/gateway-methods.js';
import type { WorkerAssignment, WorkerRelease } from '../../generated/hub/types.js';
import { CARD_PATH_SUFFIX } from '../protocol/card-location.js';
import type { ServedVersion } from '../protocol/versions.js';
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
  /** The tenants whose requests the agent serves (spec §8.3.2); undefined serves any tenant, and requests without one. */
  readonly tenants?: readonly string[];
  /** Where an external worker takes the agent's tasks and hands in their results (the worker preset); undefined for any other agent. */
  readonly worker?: WorkerPort;
}

/** A state a worker may post (spec/hub/gateway-methods.json workerStates). */
export type WorkerState = (typeof WORKER_STATES)[number];

/**
 * The worker side of an agent whose tasks an external process does (docs/worker.md): the hub
 * holds each task, offers it to one connected feed, and applies what that worker hands in.
 */
export interface WorkerPort {
  /** Connects a feed: it is told of each task given to it and of each taken back. Returns the disconnect. */
  attach(feed: WorkerFeed): () => void;
  /** Completes a task a worker holds with its artifacts; an A2AError when no worker holds it (or, named, that assignment is over). */
  complete(
    taskId: string,
    result: { readonly artifacts: readonly Artifact[]; readonly message?: Message },
    origin?: WorkerReportOrigin,
  ): void;
  /** Posts a status for a task a worker holds; a state that interrupts or ends it gives the task back. */
  update(taskId: string, state: WorkerState, message?: Message, origin?: WorkerReportOrigin): void;
}

/** The assignment a worker's report answers, when it names it (WorkerAssignment.assignmentId). */
export interface WorkerReportOrigin {
  readonly assignmentId?: string | undefined;
}

export interface WorkerFeed {
  assigned(assignment: WorkerAssignment): void;
  released(release: WorkerRelease): void;
  /** Ends the feed: the hub disconnects the worker. */
  close(): void;
}

/** A hosted agent as the HTTP layer routes to it. */
export interface InboundAgent extends HostedAgent {
  readonly name: string;
  /** The instance's base path; its card is at `cardPathOf(endpointPath)`. */
  readonly endpointPath: string;
  /** Where the JSON-RPC binding is POSTed: `endpointPath` unless the instance sets its own. */
  readonly jsonRpcPath: string;
  /** The base the HTTP+JSON routes sit below (`<restPath>/message:send`): `endpointPath` unless the instance sets its own. */
  readonly restPath: string;
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

/** An HTTP+JSON request path split into the instance whose REST base it lies below and the route part. */
export type RestTarget =
  { readonly agent: InboundAgent; readonly subpath: string } | { readonly unavailable: UnavailableAgent; readonly subpath: string };

/** Finds the enabled agent for a request path; the live routing table of inbound instances. */
export interface AgentDirectory {
  /** The agent whose base path this is (its card is below it). */
  byEndpointPath(path: string): InboundAgent | undefined;
  /** The agent whose JSON-RPC endpoint this is. */
  byJsonRpcPath(path: string): InboundAgent | undefined;
  /** The instance whose REST base `path` lies strictly below (the longest such base wins), and the rest of the path. */
  byRestPath(path: string): RestTarget | undefined;
  /** The instance at a base or JSON-RPC path no agent serves that would serve it if it could run. */
  unavailableAt(path: string): UnavailableAgent | undefined;
  /** The agent whose card is served at /.well-known/agent-card.json, if any (the hub's wellKnownInstance). */
  defaultAgent(): InboundAgent | undefined;
}

export function cardPathOf(endpointPath: string): string {
  return `${endpointPath}${CARD_PATH_SUFFIX}`;
}

/**
 * The versions an agent serves on both bindings, chosen per request: 1.0 and 0.3 (JSON-RPC on
 * one endpoint, HTTP+JSON with 0.3's routes below /v1). 0.3 has no tenants, so an agent that
 * serves named tenants only, and refuses a request under none, serves 1.0 alone; its card lists
 * no 0.3 interface.
 */
export function versionsServedBy(agent: { readonly tenants?: readonly string[] }): readonly ServedVersion[] {
  return agent.tenants === undefined ? BOTH_VERSIONS : ONLY_CURRENT;
}

const BOTH_VERSIONS: readonly ServedVersion[] = [PROTOCOL_VERSION, VERSION_03];
const ONLY_CURRENT: readonly ServedVersion[] = [PROTOCOL_VERSION];
