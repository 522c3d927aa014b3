/**
 * The remote contextId each caller uses with each connection, so that one caller's calls form
 * one conversation on the remote and another caller's do not join it. In memory only: after a
 * restart a caller starts a new conversation. The oldest entries go first past `limit`.
 */
export class CallerContexts {
  readonly #contexts = new Map<string, { readonly connectionId: string; readonly contextId: string }>();
  readonly #limit: number;

  constructor(limit = 10_000) {
    this.#limit = limit;
  }

  get(callerId: string, connectionId: string): string | undefined {
    return this.#contexts.get(key(callerId, connectionId))?.contextId;
  }

  remember(callerId: string, connectionId: string, contextId: string): void {
    const entry = key(callerId, connectionId);
    // Re-inserting moves the entry to the end: the map's order is the eviction order.
    this.#contexts.delete(entry);
    this.#contexts.set(entry, { connectionId, contextId });
    for (const oldest of this.#contexts.keys()) {
      if (this.#contexts.size <= this.#limit) break;
      this.#contexts.delete(oldest);
    }
  }

  /** Forgets every context of connections not in `keep`. */
  retain(keep: ReadonlySet<string>): void {
    for (const [entry, { connectionId }] of this.#contexts) if (!keep.has(connectionId)) this.#contexts.delete(entry);
  }
}

function key(callerId: string, connectionId: string): string {
  return JSON.stringify([callerId, connectionId]);
}
