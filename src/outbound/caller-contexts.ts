import { RecencyMap } from '../support/recency-map.js';

/**
 * The remote contextId each caller uses with each connection, so that one caller's calls form
 * one conversation on the remote and another caller's do not join it. In memory only: after a
 * restart a caller starts a new conversation. The oldest entries go first past `limit`.
 */
export class CallerContexts {
  readonly #contexts = new RecencyMap<string, { readonly connectionId: string; readonly contextId: string }>();
  readonly #limit: number;

  constructor(limit = 10_000) {
    this.#limit = limit;
  }

  get(callerId: string, connectionId: string): string | undefined {
    return this.#contexts.get(key(callerId, connectionId))?.contextId;
  }

  remember(callerId: string, connectionId: string, contextId: string): void {
    this.#contexts.set(key(callerId, connectionId), { connectionId, contextId });
    this.#contexts.trimTo(this.#limit);
  }

  /** Forgets every context of connections not in `keep`. */
  retain(keep: ReadonlySet<string>): void {
    for (const [entry, { connectionId }] of this.#contexts.oldestFirst()) if (!keep.has(connectionId)) this.#contexts.delete(entry);
  }
}

function key(callerId: string, connectionId: string): string {
  return JSON.stringify([callerId, connectionId]);
}
