import type { StreamResponse } from '../../generated/a2a/1.0/types.js';

/** A stream frame as it leaves the event log: its sequence number in the task's log and whether it ends streams. */
export interface TaskFrame {
  readonly seq: number;
  readonly frame: StreamResponse;
  /** The task reached a terminal or interrupted state: streams close after this frame. */
  readonly final: boolean;
}

export type FrameListener = (frame: TaskFrame) => void;

/**
 * In-process fan-out of each task's frames. Publishing is synchronous and in log order, so
 * every subscriber sees the same frames in the same order, and a subscriber that takes a
 * snapshot and subscribes in one synchronous step misses nothing. Slow consumers are the
 * transport's business: a listener must not block.
 */
export class TaskChannels {
  readonly #listeners = new Map<string, Set<FrameListener>>();

  subscribe(taskId: string, listener: FrameListener): () => void {
    let listeners = this.#listeners.get(taskId);
    if (listeners === undefined) {
      listeners = new Set();
      this.#listeners.set(taskId, listeners);
    }
    listeners.add(listener);
    return () => {
      listeners.delete(listener);
      if (listeners.size === 0 && this.#listeners.get(taskId) === listeners) this.#listeners.delete(taskId);
    };
  }

  publish(taskId: string, frame: TaskFrame): void {
    const listeners = this.#listeners.get(taskId);
    if (listeners === undefined) return;
    // A copy: a listener may unsubscribe, or subscribe another, while it runs.
    for (const listener of [...listeners]) listener(frame);
  }

  /** Resolves with the first final frame published for the task after this call. */
  nextFinal(taskId: string): Promise<TaskFrame> {
    return new Promise((resolve) => {
      const unsubscribe = this.subscribe(taskId, (frame) => {
        if (!frame.final) return;
        unsubscribe();
        resolve(frame);
      });
    });
  }

  subscriberCount(taskId?: string): number {
    if (taskId !== undefined) return this.#listeners.get(taskId)?.size ?? 0;
    let count = 0;
    for (const listeners of this.#listeners.values()) count += listeners.size;
    return count;
  }
}
