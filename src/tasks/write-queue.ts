import type { StreamResponse } from '../../generated/a2a/1.0/types.js';
import { failedWrite, type FailedWrite, type StoreOp, type WriteOutcome } from '../store/store-ops.js';
import type { BatchWrites } from '../store/task-store.js';
import type { Awaitable } from '../support/awaitable.js';
import type { LogFunction } from '../support/log.js';
import type { TaskChannels } from './task-channels.js';

export interface QueuedWrite {
  readonly taskId: string;
  /** Applied in order, in one transaction with the rest of the batch. */
  readonly ops: readonly StoreOp[];
  /** Published once the batch is committed, with the sequence number of the write's appendEvent. */
  readonly frame?: StreamResponse;
  readonly final: boolean;
  /** The write creates its task: when it fails the task does not exist (and nothing is to be repaired). */
  readonly creates?: boolean;
  /** Told how the write ended, once its batch is committed (before its frame is published). */
  readonly onOutcome?: (outcome: WriteOutcome) => void;
}

/** What the queue tells its owner beyond each write's own onOutcome. */
export interface WriteQueueEvents {
  /**
   * Told the tasks of every committed batch. The push outbox is filled in the batch's
   * transaction, so this is where the dispatcher learns there may be deliveries to make.
   */
  readonly committed?: (taskIds: ReadonlySet<string>) => void;
  /**
   * Told the task of a write whose guard found the task changed under it: with replicas
   * sharing the store, another one settled it (a cancel), and this one's run must stop.
   */
  readonly stale?: (taskId: string) => void;
  /**
   * Told a write that failed for another reason (the storage failed, or the write was bad).
   * Nothing of it was stored, and the task's writes queued after it were dropped, each told
   * the same outcome: a task's stored writes never have a hole in them.
   */
  readonly failed?: (write: QueuedWrite, outcome: FailedWrite) => void;
  /** Told the outcomes of every commit, for the storage's health (storage-health.ts). */
  readonly outcomes?: (outcomes: readonly WriteOutcome[]) => void;
}

/**
 * Group commit for task writes. An executor usually emits several events in one burst
 * (working, artifact chunks, completed), and under load many tasks do so in the same turn of
 * the event loop; writing each event in its own transaction made commits the cost of a task.
 * Writes queued in one turn are committed together, and only then are their frames
 * published, so nothing is visible before it is durable. A reader that must see a task's
 * writes at once awaits `flushFor(taskId)`; one that can wait awaits `committed()`, which
 * keeps the batch whole.
 *
 * A store that commits synchronously (SQLite) is committed and published within `flush`. With
 * one that answers later (PostgreSQL), up to `store.commitConcurrency` batches are in flight at
 * once, each over its own connection: a batch takes the queued writes of tasks no batch in
 * flight holds, and a task's later writes wait for its batch, so each task's writes commit,
 * and its frames are published, in the order they were queued.
 */
export class WriteQueue {
  #queue: Pending[] = [];
  /** Every write not committed yet, in the order queued: what `afterCommit` waits for. */
  #uncommitted: Pending[] = [];
  /** The newest uncommitted write of each task, so that a reader of one task need not wait for everyone's. */
  readonly #newest = new Map<string, Pending>();
  /** Callbacks waiting for every write queued before them, each with the number of the last such write. */
  #afterCommit: { readonly upTo: number; readonly callback: () => void }[] = [];
  #queued = 0;
  /** Tasks in the batches a store that answers later is committing now. */
  readonly #inFlight = new Set<string>();
  #batchesInFlight = 0;
  #scheduled = false;
  #closed = false;

  constructor(
    private readonly store: BatchWrites,
    private readonly channels: TaskChannels,
    private readonly log?: LogFunction,
    private readonly events: WriteQueueEvents = {},
  ) {}

  enqueue(write: QueuedWrite): void {
    if (this.#closed) throw new Error('the task store is closed');
    const pending: Pending = { write, n: (this.#queued += 1), done: false, waiters: undefined };
    this.#queue.push(pending);
    this.#uncommitted.push(pending);
    this.#newest.set(write.taskId, pending);
    this.#schedule();
  }

  /** Commits the queue now if it holds a write of this task; resolves once the task's writes are committed. */
  flushFor(taskId: string): Awaitable<void> {
    const newest = this.#newest.get(taskId);
    if (newest === undefined) return;
    if (!this.#inFlight.has(taskId)) {
      const flushed = this.flush();
      if (newest.done) return;
      if (flushed !== undefined && !this.#inFlight.has(taskId)) return flushed.then(() => this.flushFor(taskId));
    }
    return new Promise((resolve) => (newest.waiters ??= []).push(resolve));
  }

  /** Whether a write of this task waits for a commit. */
  isQueued(taskId: string): boolean {
    return this.#newest.has(taskId);
  }

  /** Resolves once everything queued so far is committed (at once if nothing is queued). */
  committed(): Promise<void> {
    return new Promise((resolve) => this.afterCommit(resolve));
  }

  /** Calls back once everything queued so far is committed (at once if nothing is queued). */
  afterCommit(callback: () => void): void {
    if (this.#uncommitted.length === 0) callback();
    else this.#afterCommit.push({ upTo: this.#queued, callback });
  }

  /**
   * Commits what is queued, as far as batches may start now; resolves once that batch is
   * committed (at once when the store commits synchronously).
   */
  flush(): Awaitable<void> {
    this.#scheduled = false;
    if (this.#queue.length === 0 || this.#closed) return;
    const free = Math.max(1, this.store.commitConcurrency ?? 1) - this.#batchesInFlight;
    if (free <= 0) return;
    // Writes of tasks in flight wait for their batch: each task's writes stay in order.
    const ready: Pending[] = [];
    const held: Pending[] = [];
    for (const pending of this.#queue) (this.#inFlight.has(pending.write.taskId) ? held : ready).push(pending);
    this.#queue = held;
    this.#release();
    if (ready.length === 0) return;
    const batches = free === 1 ? [ready] : spread(ready, free);
    if (batches.length === 1) return this.#commit(ready);
    // Every batch's tasks count as in flight before any commit starts, so that nothing a commit
    // sets off (a subscriber's flushFor) can take one of them into another batch.
    for (const pending of ready) this.#inFlight.add(pending.write.taskId);
    return Promise.all(batches.map(async (batch) => this.#commit(batch))).then(() => undefined);
  }

  #commit(batch: readonly Pending[]): Awaitable<void> {
    const tasks = new Set(batch.map((pending) => pending.write.taskId));
    let outcomes: Awaitable<WriteOutcome[]>;
    try {
      outcomes = this.store.commit(batch.map((pending) => pending.write.ops));
    } catch (error) {
      outcomes = batch.map(() => failedWrite(error));
    }
    if (!(outcomes instanceof Promise)) {
      for (const taskId of tasks) this.#inFlight.delete(taskId);
      return this.#committed(batch, tasks, outcomes);
    }
    this.#batchesInFlight += 1;
    for (const taskId of tasks) this.#inFlight.add(taskId);
    return outcomes
      .catch((error: unknown) => batch.map(() => failedWrite(error)))
      .then((settled) => {
        this.#batchesInFlight -= 1;
        for (const taskId of tasks) this.#inFlight.delete(taskId);
        try {
          this.#committed(batch, tasks, settled);
        } finally {
          // Writes held for these tasks, or for a free connection, may go now.
          this.#schedule();
        }
      });
  }

  /** Commits what is queued and refuses further writes: call before the store closes. */
  async close(): Promise<void> {
    // What the last commits set off (a subscriber's write) is committed too.
    while (this.#uncommitted.length > 0) {
      await this.flush();
      await this.committed();
    }
    this.#closed = true;
  }

  #schedule(): void {
    if (this.#scheduled || this.#queue.length === 0) return;
    this.#scheduled = true;
    // Flushing on the next turn of the event loop, not the next microtask, lets the writes of
    // every request handled in this turn share one commit.
    setImmediate(() => {
      try {
        const flushed = this.flush();
        flushed?.catch((error: unknown) => this.#failed(error));
      } catch (error) {
        this.#failed(error);
      }
    });
  }

  /** A commit's aftermath threw (a subscriber, a callback): logged, never an unhandled rejection that ends the process. */
  #failed(error: unknown): void {
    this.log?.('error', 'a write batch was committed, but what follows it failed', { error: String(error) });
  }

  /** Publishes the frames of the writes that were stored, tells of the others, and calls back. */
  #committed(batch: readonly Pending[], tasks: ReadonlySet<string>, outcomes: readonly WriteOutcome[]): void {
    // Done before any frame is published: a stream that reads its task on the final frame
    // must find the task's writes committed (isQueued false), not wait for a commit that happened.
    for (const pending of batch) this.#settle(pending);
    const settled = batch.map((pending, index) => outcomes[index] ?? failedWrite('no outcome'));
    // A task whose write failed gets none of its later writes stored: in this batch they are
    // told the first failure, and the writes of it still queued are dropped the same way, before
    // anything is told (what a listener queues in answer is a new write, and goes through).
    const broken = new Map<string, FailedWrite>();
    /** Each broken task's first failed write, by its place in the batch. */
    const firstFailure = new Map<string, number>();
    settled.forEach((outcome, index) => {
      const taskId = batch[index]?.write.taskId;
      if (outcome.ok || outcome.stale || taskId === undefined || broken.has(taskId)) return;
      broken.set(taskId, outcome);
      firstFailure.set(taskId, index);
    });
    const dropped = broken.size === 0 ? [] : this.#drop(broken);
    try {
      this.events.outcomes?.(settled);
      batch.forEach(({ write }, index) => {
        const after = index > (firstFailure.get(write.taskId) ?? Infinity);
        const outcome = after ? broken.get(write.taskId) : settled[index];
        this.#outcome(write, outcome ?? failedWrite('no outcome'), after);
      });
      for (const { write, outcome } of dropped) this.#outcome(write, outcome, true);
      this.events.committed?.(tasks);
    } finally {
      this.#release();
    }
  }

  /** Takes the queued writes of these tasks out of the queue, settled: they are not to be stored. */
  #drop(broken: ReadonlyMap<string, FailedWrite>): { write: QueuedWrite; outcome: FailedWrite }[] {
    const dropped: { write: QueuedWrite; outcome: FailedWrite }[] = [];
    this.#queue = this.#queue.filter((pending) => {
      const outcome = broken.get(pending.write.taskId);
      if (outcome === undefined) return true;
      this.#settle(pending);
      dropped.push({ write: pending.write, outcome });
      return false;
    });
    return dropped;
  }

  /** `dropped`: the write was not tried, since an earlier write of its task failed. */
  #outcome(write: QueuedWrite, outcome: WriteOutcome, dropped: boolean): void {
    write.onOutcome?.(outcome);
    if (outcome.ok) {
      if (write.frame !== undefined && outcome.seq !== undefined)
        this.channels.publish(write.taskId, { seq: outcome.seq, frame: write.frame, final: write.final });
      return;
    }
    if (outcome.stale) {
      this.log?.('info', 'a task update was refused: the task changed elsewhere', { taskId: write.taskId, error: outcome.error });
      this.events.stale?.(write.taskId);
      return;
    }
    if (dropped) return;
    // A storage fault is logged once per cause by the storage's health; anything else is a bug worth a line each.
    if (outcome.fault === undefined)
      this.log?.('error', 'could not store a task update', { taskId: write.taskId, error: outcome.error, creates: write.creates === true });
    this.events.failed?.(write, outcome);
  }

  /** Marks a write as done with, waking the readers waiting for it. */
  #settle(pending: Pending): void {
    pending.done = true;
    const { taskId } = pending.write;
    if (this.#newest.get(taskId) === pending) this.#newest.delete(taskId);
    for (const waiter of pending.waiters ?? []) waiter();
  }

  /** Calls back those waiting for writes that are now all committed, oldest first. */
  #release(): void {
    let first = 0;
    while (first < this.#uncommitted.length && this.#uncommitted[first]?.done === true) first += 1;
    if (first > 0) this.#uncommitted = this.#uncommitted.slice(first);
    const committedUpTo = (this.#uncommitted[0]?.n ?? this.#queued + 1) - 1;
    let ready = 0;
    while (ready < this.#afterCommit.length && (this.#afterCommit[ready]?.upTo ?? Infinity) <= committedUpTo) ready += 1;
    if (ready === 0) return;
    const callbacks = this.#afterCommit.slice(0, ready);
    this.#afterCommit = this.#afterCommit.slice(ready);
    for (const { callback } of callbacks) callback();
  }
}

/** A queued write and where it stands. */
interface Pending {
  readonly write: QueuedWrite;
  /** Its place in the order writes were queued, from 1. */
  readonly n: number;
  done: boolean;
  /** Readers of its task waiting for it (flushFor), made on first need. */
  waiters: (() => void)[] | undefined;
}

/**
 * The writes split by task into at most `most` batches of about equal size, each task's writes
 * in one batch and in order: the connections share the round trips.
 */
function spread(writes: readonly Pending[], most: number): Pending[][] {
  const byTask = new Map<string, Pending[]>();
  for (const pending of writes) {
    const own = byTask.get(pending.write.taskId);
    if (own === undefined) byTask.set(pending.write.taskId, [pending]);
    else own.push(pending);
  }
  const count = Math.min(most, byTask.size);
  const batches: Pending[][] = Array.from({ length: count }, () => []);
  let next = 0;
  for (const own of byTask.values()) {
    batches[next % count]?.push(...own);
    next += 1;
  }
  return batches;
}
