import { STATUS_CODES, type Server } from 'node:http';
import type { Socket } from 'node:net';
import { MEDIA_TYPES } from '../../generated/a2a/1.0/protocol.js';
import { DEFAULTS } from '../../generated/hub/defaults.js';
import type { ConnectionSettings } from '../../generated/hub/types.js';
import { a2aError, type A2AError } from '../protocol/a2a-error.js';
import { sourceKey } from '../support/source-address.js';

export type ConnectionLimits = Required<ConnectionSettings>;

/**
 * The connection settings with their defaults. `perSource` left out is no limit behind a trusted
 * proxy, where every connection comes from the proxy's address.
 */
export function resolveConnectionLimits(settings: ConnectionSettings | undefined, trustProxy: boolean): ConnectionLimits {
  const defaults = DEFAULTS.ConnectionSettings;
  return {
    max: settings?.max ?? defaults.max,
    perSource: settings?.perSource ?? (trustProxy ? 0 : defaults.perSource),
    headersTimeoutMs: settings?.headersTimeoutMs ?? defaults.headersTimeoutMs,
    requestTimeoutMs: settings?.requestTimeoutMs ?? defaults.requestTimeoutMs,
    bodyIdleTimeoutMs: settings?.bodyIdleTimeoutMs ?? defaults.bodyIdleTimeoutMs,
  };
}

/** Why a resolved set of limits cannot be applied, or undefined when it can. */
export function connectionLimitsProblem(limits: ConnectionLimits): string | undefined {
  if (limits.requestTimeoutMs !== 0 && limits.headersTimeoutMs > limits.requestTimeoutMs)
    return `connections.requestTimeoutMs (${limits.requestTimeoutMs}) must be 0 or at least connections.headersTimeoutMs (${limits.headersTimeoutMs})`;
  return undefined;
}

/** How long a refused connection may stay open after its answer, should the client not close it. */
const REFUSED_LINGER_MS = 2000;

/**
 * Counts the server's connections, in all and per source address, and refuses one over either
 * limit before any request on it is read: it is answered at once (OverloadedError, or
 * RateLimitedError for a source over its share, with Retry-After) and closed, so it holds
 * nothing and the client knows why. Idle connections and slow requests are Node's to cut
 * (`timeoutOptions`), answered by client-error.ts.
 */
export class ConnectionGate {
  readonly #limits: ConnectionLimits;
  readonly #bySource = new Map<string, number>();
  readonly #refused = new WeakSet<Socket>();
  /** The two refusals, built once: a flood of connections costs a write each, not an error each. */
  readonly #overloaded: string;
  readonly #overShare: string;
  #open = 0;
  #refusedCount = 0;

  constructor(limits: ConnectionLimits) {
    this.#limits = limits;
    this.#overloaded = refusal(overloaded(limits.max));
    this.#overShare = refusal(overShare(limits.perSource));
  }

  /** Gates every connection of `server`, before Node's own listener reads it. */
  attach(server: Server): void {
    server.prependListener('connection', (socket: Socket) => this.#admit(socket));
  }

  /** Whether the connection was refused: requests Node still parses on it get no answer. */
  refused(socket: Socket): boolean {
    return this.#refused.has(socket);
  }

  get open(): number {
    return this.#open;
  }

  /** Connections refused since start. */
  get refusedCount(): number {
    return this.#refusedCount;
  }

  #admit(socket: Socket): void {
    const source = sourceKey(socket.remoteAddress);
    const fromSource = this.#bySource.get(source) ?? 0;
    const { max, perSource } = this.#limits;
    if (max !== 0 && this.#open >= max) return this.#refuse(socket, this.#overloaded);
    if (perSource !== 0 && fromSource >= perSource) return this.#refuse(socket, this.#overShare);
    this.#open += 1;
    this.#bySource.set(source, fromSource + 1);
    socket.once('close', () => {
      this.#open -= 1;
      const left = (this.#bySource.get(source) ?? 1) - 1;
      // An address with no connection left has no entry: the table is as large as the connections.
      if (left <= 0) this.#bySource.delete(source);
      else this.#bySource.set(source, left);
    });
  }

  #refuse(socket: Socket, answer: string): void {
    this.#refusedCount += 1;
    this.#refused.add(socket);
    // Answered before any request is read (RFC 9112 lets a server answer early and close): the
    // client reads why, and nothing of this connection reaches the hub.
    socket.end(answer);
    socket.setTimeout(REFUSED_LINGER_MS, () => socket.destroy());
  }
}

/** The whole HTTP answer that refuses a connection with `error`. */
function refusal(error: A2AError): string {
  const status = error.definition.httpStatus;
  const body = JSON.stringify(error.toRestErrorResponse());
  return `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Type: ${MEDIA_TYPES.a2aJson}\r\nRetry-After: 1\r\nConnection: close\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`;
}

function overloaded(max: number): A2AError {
  return a2aError('OverloadedError', `this hub holds its limit of ${max} connections; retry in a moment`, {
    metadata: { limit: String(max) },
  });
}

function overShare(perSource: number): A2AError {
  return a2aError(
    'RateLimitedError',
    `too many connections from this address (at most ${perSource} at once); reuse a connection or retry later`,
    {
      metadata: { connectionsPerSource: String(perSource) },
    },
  );
}

/**
 * The options of the hub's http server that enforce the timeouts: Node cuts a request whose head
 * or whole does not arrive in time (an idle connection that sends nothing included), checking
 * once a second; its answer is client-error.ts's. 0 turns a limit off.
 */
export function timeoutOptions(limits: ConnectionLimits): {
  headersTimeout: number;
  requestTimeout: number;
  connectionsCheckingInterval: number;
} {
  return { headersTimeout: limits.headersTimeoutMs, requestTimeout: limits.requestTimeoutMs, connectionsCheckingInterval: 1000 };
}
