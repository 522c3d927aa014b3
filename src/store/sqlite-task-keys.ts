import { RecencyMap } from '../support/recency-map.js';
import type { Statements } from './sqlite-statements.js';

/** Task keys kept in memory: a few MiB, and every task a running executor writes to. */
const KEY_CACHE_SIZE = 50_000;

/**
 * The integer key each task's rows are filed under, by task id: looked up once and then
 * remembered, and counted up for new tasks so that creating one costs no query.
 */
export class TaskKeys {
  /**
   * Tasks are never deleted, so an entry never goes stale; the map is only bounded, least
   * recently remembered first, because a busy hub creates tasks without end.
   */
  readonly #cache = new RecencyMap<string, number>();
  /** The last key handed out in the open transaction; read from the table once per transaction. */
  #last: number | undefined;

  constructor(private readonly sql: Statements) {}

  /** The key of a stored task, or undefined when there is none. */
  find(taskId: string): number | undefined {
    const cached = this.#cache.get(taskId);
    if (cached !== undefined) return cached;
    const key = this.sql.keyOf.get(taskId);
    if (key !== undefined) this.remember(taskId, key);
    return key;
  }

  remember(taskId: string, key: number): void {
    this.#cache.set(taskId, key);
    this.#cache.trimTo(KEY_CACHE_SIZE);
  }

  /** After a rollback: SQLite hands the keys of the tasks it undid out anew. */
  forget(taskId: string): void {
    this.#cache.delete(taskId);
  }

  /** The key for a task created in the open transaction. */
  next(): number {
    this.#last ??= this.sql.maxKey.get() ?? 0;
    this.#last += 1;
    return this.#last;
  }

  /** Once a transaction has ended, committed or not, the table's largest key is the truth again. */
  endTransaction(): void {
    this.#last = undefined;
  }
}
