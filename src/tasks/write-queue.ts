import type { StreamResponse } from '../../generated/a2a/1.0/types.js';
import type { TaskStore } from '../store/task-store.js';
import type { TaskChannels } from './task-channels.js';

interface QueuedWrite {
  readonly taskId: string;
  /** Writes to the store; returns the event-log sequence number of the frame it logged, if any. */
  readonly work: () => number | undefined;
  readonly frame?: StreamResponse;
  readonly final: boolean;
}

/**
 * Group commit for task writes. An executor usually emits several events in one burst
 * (working, artifact chunks, completed), and under load many tasks do so in the same turn of
 * the event loop; writing each event in its own transaction made commits the cost of a task.
 * Writes queued in one turn are committed together, and only then are their frames
 * published, so nothing is visible before it is durable. Readers that need to see queued
 * writes at once call `flush()` first.
 */
export class WriteQueue {
  #queue: QueuedWrite[] = [];
  #scheduled = false;
  #closed = false;

  constructor(
    private readonly store: TaskStore,
    private readonly channels: TaskChannels,
    private readonly log?: (level: 'warn' | 'error', message: string, details?: Record<string, unknown>) => void,
  ) {}

  enqueue(write: QueuedWrite): void {
    if (this.#closed) throw new Error('the task store is closed');
    this.#queue.push(write);
    if (this.#scheduled) return;
    this.#scheduled = true;
    // Flushing on the next turn of the event loop, not the next microtask, lets the writes of
    // every request handled in this turn share one commit.
    setImmediate(() => this.flush());
  }

  flush(): void {
    this.#scheduled = false;
    if (this.#queue.length === 0 || this.#closed) return;
    const writes = this.#queue;
    this.#queue = [];
    let seqs: (number | undefined)[];
    try {
      seqs = this.store.transaction(() => writes.map((write) => write.work()));
    } catch (error) {
      this.log?.('error', 'could not store task updates', { tasks: [...new Set(writes.map((write) => write.taskId))], error: String(error) });
      throw error;
    }
    writes.forEach((write, index) => {
      const seq = seqs[index];
      if (write.frame !== undefined && seq !== undefined) this.channels.publish(write.taskId, { seq, frame: write.frame, final: write.final });
    });
  }

  /** Commits what is queued and refuses further writes: call before the store closes. */
  close(): void {
    this.flush();
    this.#closed = true;
  }
}
