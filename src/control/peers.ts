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
  closeInstance(serverId: string): number {
    const peers = [...this.#bySocket.values()].filter((peer) => peer.serverId === serverId);
    for (const peer of peers) this.close(peer.id);
    return peers.length;
  }

  /** Ends a peer's connection (and so its streams); false when no such peer is connected. */
  close(id: string): boolean {
    const peer = [...this.#bySocket.values()].find((candidate) => candidate.id === id);
    if (peer === undefined) return false;
    peer.socket.destroy();
    this.#bySocket.delete(peer.socket);
    return true;
  }
}
