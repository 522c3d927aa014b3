import type { StreamResponse } from '../../generated/a2a/1.0/types.js';
import type { StoreOp, WriteOutcome } from '../store/store-ops.js';
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
  /** The write creates its task: when it fails the task does not exist, and later writes of it are dropped. */
  readonly creates?: boolean;
  /** Told how the write ended, once its batch is committed (before its frame is published). */
  readonly onOutcome?: (outcome: WriteOutcome) => void;
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
 * one that answers later (PostgreSQL) one batch is in flight at a time, so batches commit, and
 * their frames are published, in the order they were queued; writes queued meanwhile form the
 * next batch.
 */
export class WriteQueue {
  #queue: QueuedWrite[] = [];
  /** Tasks with writes in the queue, so that a reader of one task need not commit everyone's. */
  #queuedTasks = new Set<string>();
  /** Called once the queue's writes are committed. */
  #afterCommit: (() => void)[] = [];
  /** The batch a store that answers later is committing now. */
  #inFlight: InFlightBatch | undefined;
  #scheduled = false;
  #closed = false;
  /** Tasks whose creating write failed (another replica stored the same message first): nothing more is written for them. */
  readonly #unborn = new Set<string>();

  constructor(
    private readonly store: BatchWrites,
    private readonly channels: TaskChannels,
    private readonly log?: LogFunction,
    /**
     * Told the tasks of every committed batch. The push outbox is filled in the batch's
     * transaction, so this is where the dispatcher learns there may be deliveries to make.
     */
    private readonly onCommitted?: (taskIds: ReadonlySet<string>) => void,
    /**
     * Told the task of a write whose guard found the task changed under it: with replicas
     * sharing the store, another one settled it (a cancel), and this one's run must stop.
     */
    private readonly onStale?: (taskId: string) => void,
  ) {}

  enqueue(write: QueuedWrite): void {
    if (this.#closed) throw new Error('the task store is closed');
    if (this.#unborn.has(write.taskId)) return;
    this.#queue.push(write);
    this.#queuedTasks.add(write.taskId);
    if (this.#scheduled) return;
    this.#scheduled = true;
    // Flushing on the next turn of the event loop, not the next microtask, lets the writes of
    // every request handled in this turn share one commit.
    setImmediate(() => void this.flush());
  }

  /** Commits the queue now if it holds a write of this task; resolves once the task's writes are committed. */
  flushFor(taskId: string): Awaitable<void> {
    if (this.#queuedTasks.has(taskId)) return this.flush();
    if (this.#inFlight?.tasks.has(taskId) === true) return this.#inFlight.done;
  }

  /** Whether a write of this task waits for a commit. */
  isQueued(taskId: string): boolean {
    return this.#queuedTasks.has(taskId) || this.#inFlight?.tasks.has(taskId) === true;
  }

  /** Resolves once everything queued so far is committed (at once if nothing is queued). */
  committed(): Promise<void> {
    return new Promise((resolve) => this.afterCommit(resolve));
  }

  /** Calls back once everything queued so far is committed (at once if nothing is queued). */
  afterCommit(callback: () => void): void {
    if (this.#queue.length > 0) this.#afterCommit.push(callback);
    else if (this.#inFlight !== undefined) this.#inFlight.callbacks.push(callback);
    else callback();
  }

  /** Commits what is queued; resolves once it is committed (at once when the store commits synchronously). */
  flush(): Awaitable<void> {
    this.#scheduled = false;
    if (this.#inFlight !== undefined) return this.#inFlight.done.then(() => this.flush());
    if (this.#queue.length === 0 || this.#closed) return;
    const writes = this.#queue;
    const tasks = this.#queuedTasks;
    const callbacks = this.#afterCommit;
    this.#queue = [];
    this.#queuedTasks = new Set();
    this.#afterCommit = [];
    let outcomes: Awaitable<WriteOutcome[]>;
    try {
      outcomes = this.store.commit(writes.map((write) => write.ops));
    } catch (error) {
      outcomes = writes.map(() => failed(error));
    }
    if (!(outcomes instanceof Promise)) return this.#committed(writes, tasks, callbacks, outcomes);
    const inFlight: InFlightBatch = {
      tasks,
      callbacks,
      done: outcomes
        .catch((error: unknown) => writes.map(() => failed(error)))
        .then((settled) => {
          this.#inFlight = undefined;
          this.#committed(writes, tasks, inFlight.callbacks, settled);
        }),
    };
    this.#inFlight = inFlight;
    return inFlight.done;
  }

  /** Commits what is queued and refuses further writes: call before the store closes. */
  async close(): Promise<void> {
    await this.flush();
    this.#closed = true;
  }

  /** Publishes the frames of the writes that were stored, logs the others, and calls back. */
  #committed(
    writes: readonly QueuedWrite[],
    tasks: ReadonlySet<string>,
    callbacks: readonly (() => void)[],
    outcomes: readonly WriteOutcome[],
  ): void {
    writes.forEach((write, index) => {
      const outcome = outcomes[index];
      if (this.#unborn.has(write.taskId)) return;
      write.onOutcome?.(outcome ?? failed('no outcome'));
      if (write.creates === true && outcome?.ok !== true) {
        this.#unborn.add(write.taskId);
        return;
      }
      if (outcome?.ok === false && outcome.stale) {
        this.log?.('info', 'a task update was refused: the task changed elsewhere', { taskId: write.taskId, error: outcome.error });
        this.onStale?.(write.taskId);
        return;
      }
      if (outcome === undefined || !outcome.ok) {
        this.log?.('error', 'could not store a task update', {
          taskId: write.taskId,
          error: outcome?.ok === false ? outcome.error : 'no outcome',
        });
        return;
      }
      if (write.frame !== undefined && outcome.seq !== undefined)
        this.channels.publish(write.taskId, { seq: outcome.seq, frame: write.frame, final: write.final });
    });
    this.onCommitted?.(tasks);
    for (const callback of callbacks) callback();
  }
}

interface InFlightBatch {
  readonly tasks: ReadonlySet<string>;
  /** Called once this batch is committed: those registered while it was in flight with nothing queued. */
  readonly callbacks: (() => void)[];
  readonly done: Promise<void>;
}

function failed(error: unknown): WriteOutcome {
  return { ok: false, error: String(error), stale: false };
}
