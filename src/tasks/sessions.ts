import type { SessionState } from '../executors/executor.js';
import { RecencyMap } from '../support/recency-map.js';

/** Which conversation: a contextId is one under one instance and one tenant ('' for none). */
export interface ConversationKey {
  readonly instanceId: string;
  readonly tenant: string;
  readonly contextId: string;
}

/** A live conversation: one per (instance, tenant, contextId), reused across its messages and tasks. */
export class Session implements SessionState {
  /** How many tasks of this context have their executor running now. */
  activeTasks = 0;
  #values: Map<string, unknown> | undefined;
  /** The end of the queue of a fifo session's runs; undefined while none runs or waits. */
  #tail: Promise<void> | undefined;
  #queued = 0;

  constructor(
    readonly instanceId: string,
    readonly tenant: string,
    readonly contextId: string,
    readonly createdAt: string,
    public lastActiveAt: string,
  ) {}

  /** Whether a run holds this fifo session, so that a new one has to wait. */
  get busy(): boolean {
    return this.#queued > 0;
  }

  /**
   * Runs `run` once every run queued before it has ended (fifo sessions): messages of one
   * conversation are processed in order, one at a time. A run that throws does not stop the queue.
   */
  inTurn(run: () => Promise<void>): Promise<void> {
    this.#queued += 1;
    const turn = (this.#tail ?? Promise.resolve()).then(run).finally(() => {
      this.#queued -= 1;
      if (this.#queued === 0) this.#tail = undefined;
    });
    this.#tail = turn.catch(() => undefined);
    return turn;
  }

  /** Made on first use: most conversations never store anything, and a busy hub holds thousands. */
  get values(): Map<string, unknown> {
    return (this.#values ??= new Map());
  }
}

export interface SessionSummary {
  readonly instanceId: string;
  readonly tenant: string;
  readonly contextId: string;
  readonly createdAt: string;
  readonly lastActiveAt: string;
  readonly activeTasks: number;
}

/**
 * Live sessions, released after `idleMs` without activity (never while a task runs) or on
 * request. Releasing a session only drops its in-memory state; tasks and the context binding
 * stay in the store. At most `maxSessions` are kept: a flood of new contexts evicts the least
 * recently active idle ones first, so memory stays bounded whatever the idle timeout.
 */
export class SessionRegistry {
  /** In order of last activity: acquire makes a session the most recent. */
  readonly #sessions = new RecencyMap<string, Session>();
  readonly #timer: NodeJS.Timeout;
  #evicted = 0;

  constructor(
    private readonly idleMs: number,
    private readonly now: () => string,
    private readonly maxSessions = Number.POSITIVE_INFINITY,
  ) {
    this.#timer = setInterval(() => this.releaseIdle(), Math.max(1000, Math.min(idleMs, 60_000)));
    this.#timer.unref();
  }

  acquire(instanceId: string, contextId: string, tenant = ''): Session {
    const key = sessionKey(instanceId, contextId, tenant);
    let session = this.#sessions.get(key);
    const at = this.now();
    if (session === undefined) {
      this.#makeRoom();
      session = new Session(instanceId, tenant, contextId, at, at);
      this.#sessions.set(key, session);
    } else {
      this.#sessions.touch(key);
      session.lastActiveAt = at;
    }
    return session;
  }

  /** Sessions dropped because the cap was reached, since start. */
  get evicted(): number {
    return this.#evicted;
  }

  /** Evicts the least recently active idle session while the cap is reached; running ones stay. */
  #makeRoom(): void {
    if (this.#sessions.size < this.maxSessions) return;
    for (const [key, session] of this.#sessions.oldestFirst()) {
      if (this.#sessions.size < this.maxSessions) return;
      if (session.activeTasks > 0) continue;
      this.#sessions.delete(key);
      this.#evicted += 1;
    }
  }

  get(instanceId: string, contextId: string, tenant = ''): Session | undefined {
    return this.#sessions.get(sessionKey(instanceId, contextId, tenant));
  }

  release(instanceId: string, contextId: string, tenant = ''): boolean {
    return this.#sessions.delete(sessionKey(instanceId, contextId, tenant));
  }

  /** Releases sessions idle for longer than idleMs; returns how many. */
  releaseIdle(): number {
    const cutoff = Date.parse(this.now()) - this.idleMs;
    let released = 0;
    for (const [key, session] of this.#sessions.oldestFirst()) {
      if (session.activeTasks === 0 && Date.parse(session.lastActiveAt) < cutoff) {
        this.#sessions.delete(key);
        released += 1;
      }
    }
    return released;
  }

  list(): SessionSummary[] {
    return Array.from(this.#sessions.oldestFirst(), ([, { instanceId, tenant, contextId, createdAt, lastActiveAt, activeTasks }]) => ({
      instanceId,
      tenant,
      contextId,
      createdAt,
      lastActiveAt,
      activeTasks,
    }));
  }

  close(): void {
    clearInterval(this.#timer);
    this.#sessions.clear();
  }
}

/** JSON, since a tenant or contextId may hold any character: no two conversations share a key. */
function sessionKey(instanceId: string, contextId: string, tenant: string): string {
  return JSON.stringify([instanceId, tenant, contextId]);
}
