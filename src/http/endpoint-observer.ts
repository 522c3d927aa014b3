import type { Socket } from 'node:net';

/** What an A2A endpoint reports about each request, for metrics and the peer list. */
export interface EndpointObserver {
  /** A request reached an agent's endpoint. */
  request(socket: Socket, agentId: string): RequestObservation;
}

export interface RequestObservation {
  /** The request was answered: its method (or `-` when none was read) and outcome, e.g. `ok`, `-32602`, `http-401`. */
  done(method: string, outcome: string): void;
  /** A stream opened on this request; the returned function is called when it ends. */
  streamOpened(): () => void;
}
