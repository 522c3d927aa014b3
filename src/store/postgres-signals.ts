import { createHash, randomUUID } from 'node:crypto';
import pg from 'pg';
import type { ReplicaSignal, ReplicaSignals } from './task-store.js';

/** The longest wait between two attempts to listen again after the connection dropped. */
const MAX_RETRY_MS = 5000;
const FIRST_RETRY_MS = 100;

/**
 * The channel a store's signals travel on. NOTIFY channels belong to the database, not the
 * schema, so the schema is in the name: two hubs on two schemas of one database do not hear each
 * other. A channel name is an identifier (at most 63 bytes), hence the hash for long schemas.
 */
export function channelOf(schema: string): string {
  const name = `a2a_hub:${schema}`;
  return Buffer.byteLength(name) <= 63 ? name : `a2a_hub:${createHash('sha256').update(schema).digest('hex').slice(0, 40)}`;
}

/** A signal as NOTIFY carries it: one letter for the kind, then its fields, space-separated (task ids hold no space). */
export function encodeSignal(signal: Exclude<ReplicaSignal, { kind: 'resync' }>): string {
  switch (signal.kind) {
    case 'frame':
      return `f ${signal.seq} ${signal.taskId}`;
    case 'settled':
      return `s ${signal.taskId}`;
    case 'config':
      return `c ${signal.from}`;
  }
}

export function decodeSignal(payload: string): ReplicaSignal | undefined {
  const [kind, first, second] = payload.split(' ', 3);
  if (kind === 'f' && first !== undefined && second !== undefined) {
    const seq = Number(first);
    return Number.isSafeInteger(seq) ? { kind: 'frame', taskId: second, seq } : undefined;
  }
  if (kind === 's' && first !== undefined) return { kind: 'settled', taskId: first };
  if (kind === 'c' && first !== undefined) return { kind: 'config', from: first };
  return undefined;
}

/**
 * LISTEN/NOTIFY on a connection of its own (a pooled one would be handed to other queries).
 * When that connection drops, it is opened again with backoff, and the listener is told
 * `resync`: what was sent meanwhile was not heard.
 */
export class PostgresSignals implements ReplicaSignals {
  #client: pg.Client | undefined;
  #listener: ((signal: ReplicaSignal) => void) | undefined;
  #listening = false;
  #closed = false;
  #retryMs = FIRST_RETRY_MS;
  #retry: NodeJS.Timeout | undefined;
  readonly id = randomUUID();

  constructor(
    private readonly url: string,
    private readonly channel: string,
    private readonly pool: pg.Pool,
  ) {}

  get listening(): boolean {
    return this.#listening;
  }

  async listen(listener: (signal: ReplicaSignal) => void): Promise<void> {
    if (this.#listener !== undefined) throw new Error('already listening');
    this.#listener = listener;
    await this.#connect();
  }

  async send(signal: Exclude<ReplicaSignal, { kind: 'frame' | 'resync' }>): Promise<void> {
    await this.pool.query('SELECT pg_notify($1, $2)', [this.channel, encodeSignal(signal)]);
  }

  async close(): Promise<void> {
    this.#closed = true;
    clearTimeout(this.#retry);
    this.#retry = undefined;
    this.#listening = false;
    const client = this.#client;
    this.#client = undefined;
    await client?.end().catch(() => undefined);
  }

  async #connect(): Promise<void> {
    const client = new pg.Client({ connectionString: this.url, keepAlive: true, connectionTimeoutMillis: 5000 });
    // Both may fire for one loss; the first one schedules the reconnect.
    client.on('error', () => this.#lost(client));
    client.on('end', () => this.#lost(client));
    client.on('notification', (message) => {
      const signal = message.channel === this.channel && message.payload !== undefined ? decodeSignal(message.payload) : undefined;
      if (signal !== undefined) this.#listener?.(signal);
    });
    this.#client = client;
    await client.connect();
    await client.query(`LISTEN ${client.escapeIdentifier(this.channel)}`);
    if (this.#closed || this.#client !== client) {
      await client.end().catch(() => undefined);
      return;
    }
    this.#listening = true;
    this.#retryMs = FIRST_RETRY_MS;
  }

  #lost(client: pg.Client): void {
    if (this.#client !== client) return;
    this.#client = undefined;
    this.#listening = false;
    client.end().catch(() => undefined);
    if (!this.#closed) this.#scheduleReconnect();
  }

  #scheduleReconnect(): void {
    if (this.#retry !== undefined) return;
    this.#retry = setTimeout(() => {
      this.#retry = undefined;
      this.#connect().then(
        () => {
          if (this.#listening) this.#listener?.({ kind: 'resync' });
        },
        () => {
          const client = this.#client;
          this.#client = undefined;
          client?.end().catch(() => undefined);
          this.#retryMs = Math.min(MAX_RETRY_MS, this.#retryMs * 2);
          if (!this.#closed) this.#scheduleReconnect();
        },
      );
    }, this.#retryMs);
    this.#retry.unref();
  }
}
