import type { Socket } from 'node:net';
import type { PeerRow } from '../../generated/control/types.js';

export interface Peer {
  readonly id: string;
  readonly socket: Socket;
  readonly address: string;
  serverId: string;
  openStreams: number;
  readonly since: string;
}

/** The connection a control request came on, which may be a peer the request disconnects. */
export interface RequestConnection {
  readonly socket: Socket;
  /** Closes the connection once the response to the current request has gone out. */
  endAfterResponse(): void;
}

/**
 * The remote clients connected to inbound endpoints right now: one per connection, with the
 * instance it last talked to and its open streams. A peer leaves the list when its
 * connection closes; `close` ends the connection, and with it the peer's streams.
 */
export class PeerTracker {
  readonly #bySocket = new Map<Socket, Peer>();
  #next = 1;

  constructor(private readonly now: () => string) {}

  seen(socket: Socket, serverId: string): Peer {
    let peer = this.#bySocket.get(socket);
    if (peer === undefined) {
      const address = `${socket.remoteAddress ?? 'unknown'}:${socket.remotePort ?? 0}`;
      peer = { id: `peer-${this.#next++}`, socket, address, serverId, openStreams: 0, since: this.now() };
      this.#bySocket.set(socket, peer);
      socket.once('close', () => this.#bySocket.delete(socket));
    }
    peer.serverId = serverId;
    return peer;
  }

  list(): PeerRow[] {
    return [...this.#bySocket.values()].map(({ id, address, serverId, openStreams, since }) => ({
      id,
      address,
      serverId,
      openStreams,
      since,
    }));
  }

  /** Ends the connections of every peer last seen on an instance; returns how many. */
  closeInstance(serverId: string, current?: RequestConnection): number {
    const peers = [...this.#bySocket.values()].filter((peer) => peer.serverId === serverId);
    for (const peer of peers) this.close(peer.id, current);
    return peers.length;
  }

  /**
   * Ends a peer's connection (and so its streams); false when no such peer is connected. The
   * connection carrying `current` (a keep-alive client reuses the one it talked to the agent
   * on) is closed only after its answer, or the request would never get one.
   */
  close(id: string, current?: RequestConnection): boolean {
    const peer = [...this.#bySocket.values()].find((candidate) => candidate.id === id);
    if (peer === undefined) return false;
    if (peer.socket === current?.socket) current.endAfterResponse();
    else peer.socket.destroy();
    this.#bySocket.delete(peer.socket);
    return true;
  }
}
