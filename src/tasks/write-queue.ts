import type { StreamResponse } from '../../generated/a2a/1.0/types.js';
import { applyBatch, type StoreOp } from '../store/store-ops.js';
import type { OpTarget } from '../store/store-ops.js';
import type { LogFunction } from '../support/log.js';
import type { TaskChannels } from './task-channels.js';

export interface QueuedWrite {
  readonly taskId: string;
  /** Applied in order, in one transaction with the rest of the batch. */
  readonly ops: readonly StoreOp[];
  /** Published once the batch is committed, with the sequence number of the write's appendEvent. */
  readonly frame?: StreamResponse;
  readonly final: boolean;
}

/**
 * Group commit for task writes. An executor usually emits several events in one burst
 * (working, artifact chunks, completed), and under load many tasks do so in the same turn of
 * the event loop; writing each event in its own transaction made commits the cost of a task.
 * Writes queued in one turn are committed together, and only then are their frames
 * published, so nothing is visible before it is durable. A reader that must see a task's
 * writes at once calls `flushFor(taskId)`; one that can wait awaits `committed()`, which
 * keeps the batch whole.
 */
export class WriteQueue {
  #queue: QueuedWrite[] = [];
  /** Tasks with writes in the queue, so that a reader of one task need not commit everyone's. */
  #queuedTasks = new Set<string>();
  #afterCommit: (() => void)[] = [];
  #scheduled = false;
  #closed = false;

  constructor(
    private readonly store: OpTarget,
    private readonly channels: TaskChannels,
    private readonly log?: LogFunction,
    /**
     * Told the tasks of every committed batch. The push outbox is filled in the batch's
     * transaction, so this is where the dispatcher learns there may be deliveries to make.
     */
    private readonly onCommitted?: (taskIds: ReadonlySet<string>) => void,
  ) {}

  enqueue(write: QueuedWrite): void {
    if (this.#closed) throw new Error('the task store is closed');
    this.#queue.push(write);
    this.#queuedTasks.add(write.taskId);
    if (this.#scheduled) return;
    this.#scheduled = true;
    // Flushing on the next turn of the event loop, not the next microtask, lets the writes of
    // every request handled in this turn share one commit.
    setImmediate(() => this.flush());
  }

  /** Commits the queue now if it holds a write of this task. */
  flushFor(taskId: string): void {
    if (this.#queuedTasks.has(taskId)) this.flush();
  }

  /** Whether a write of this task waits for the next commit. */
  isQueued(taskId: string): boolean {
    return this.#queuedTasks.has(taskId);
  }

  /** Resolves once everything queued so far is committed (at once if nothing is queued). */
  committed(): Promise<void> {
    if (this.#queue.length === 0) return Promise.resolve();
    return new Promise((resolve) => this.#afterCommit.push(resolve));
  }

  /** Calls back once everything queued so far is committed (at once if nothing is queued). */
  afterCommit(callback: () => void): void {
    if (this.#queue.length === 0) callback();
    else this.#afterCommit.push(callback);
  }

  flush(): void {
    this.#scheduled = false;
    if (this.#queue.length === 0 || this.#closed) return;
    const writes = this.#queue;
    const tasks = this.#queuedTasks;
    const callbacks = this.#afterCommit;
    this.#queue = [];
    this.#queuedTasks = new Set();
    this.#afterCommit = [];
    // One bad write must not take the others with it: applyBatch retries each on its own.
    const outcomes = applyBatch(
      this.store,
      writes.map((write) => write.ops),
    );
    writes.forEach((write, index) => {
      const outcome = outcomes[index];
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

  /** Commits what is queued and refuses further writes: call before the store closes. */
  close(): void {
    this.flush();
    this.#closed = true;
  }
}
