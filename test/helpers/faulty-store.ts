import Database from 'better-sqlite3';
import { applyBatch } from '../../src/store/store-ops.js';
import type { TaskStore } from '../../src/store/task-store.js';

/** What a disk that is full makes SQLite throw: better-sqlite3's own error class and code. */
export function diskFullError(): Error {
  return new Database.SqliteError('database or disk is full', 'SQLITE_FULL');
}

/** What a database that has gone away makes the store throw: node-postgres's message for a connection it lost. */
export function databaseGoneError(): Error {
  return new Error('Connection terminated unexpectedly');
}

export interface FaultyStore<S extends TaskStore> {
  /** The store to give the hub: the inner store, whose writes fail while `fail` holds. */
  readonly store: S;
  /** From now on every transaction (every write, the probe write included) throws `error`; reads too, with `reads`. */
  fail(error?: Error, options?: { readonly reads?: boolean }): void;
  /** Writes (and reads) work again. */
  heal(): void;
  /** Transactions refused so far. */
  readonly refused: number;
}

/** The methods that only read: they fail only with `fail(…, { reads: true })`. */
const READS = new Set<PropertyKey>([
  'getTask',
  'snapshotTask',
  'getTaskInfo',
  'listTasks',
  'browseTasks',
  'eventsAfter',
  'lastEventSeq',
  'findIdempotent',
  'getContext',
  'ping',
]);

/**
 * A SQLite (or memory) store whose writes fail on demand the way a full disk fails them: the
 * transaction throws SQLITE_FULL, inside the store's own batch logic (applyBatch), so the hub
 * meets the failure exactly where a real one would reach it. Reads keep working unless asked.
 */
export function faultyStore<S extends TaskStore & { transaction<T>(work: () => T): T }>(inner: S): FaultyStore<S> {
  let failure: { error: Error; reads: boolean } | undefined;
  let refused = 0;
  const refuse = (): never => {
    refused += 1;
    throw failure?.error ?? diskFullError();
  };
  const store: S = new Proxy(inner, {
    get(target, property) {
      if (property === 'transaction') {
        return <T>(work: () => T): T => (failure === undefined ? target.transaction(work) : refuse());
      }
      // The store's own commit, run through this proxy so that its transaction is the one above.
      if (property === 'commit') return (batch: Parameters<S['commit']>[0]) => applyBatch(store as never, batch);
      if (property === 'probeWrite') return () => (failure === undefined ? target.probeWrite() : refuse());
      const value: unknown = Reflect.get(target, property, target);
      if (typeof value !== 'function') return value;
      const method = (value as (...args: unknown[]) => unknown).bind(target);
      if (!READS.has(property)) return method;
      return (...args: unknown[]) => (failure?.reads === true ? refuse() : method(...args));
    },
  });
  return {
    store,
    fail(error = diskFullError(), options = {}) {
      failure = { error, reads: options.reads === true };
    },
    heal() {
      failure = undefined;
    },
    get refused() {
      return refused;
    },
  };
}
