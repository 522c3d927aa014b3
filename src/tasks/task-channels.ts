import { isInterruptedState, isTerminalState } from '../../generated/a2a/1.0/task-states.js';
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
 * Told that frames of the task were logged by another replica: frame `seq`, or (undefined)
 * maybe some, after signals may have been missed. The frames are read from the log.
 */
export type LoggedListener = (seq: number | undefined) => void;
/**
 * Told that the task's progress could not be stored (the task store failed a write): no more
 * frames will come from this run, and what the listener waits for will not happen.
 */
export type FailedListener = (error: Error) => void;

interface Subscriber {
  readonly frame: FrameListener;
  readonly logged: LoggedListener | undefined;
  readonly failed: FailedListener | undefined;
}

/**
 * In-process fan-out of each task's frames. Publishing is synchronous and in log order, so
 * every subscriber sees the same frames in the same order, and a subscriber that takes a
 * snapshot and subscribes in one synchronous step misses nothing. Slow consumers are the
 * transport's business: a listener must not block.
 *
 * With replicas sharing a store, frames another replica logged are only announced here (by
 * sequence number); a subscriber that cares reads them from the log.
 */
export class TaskChannels {
  readonly #subscribers = new Map<string, Set<Subscriber>>();

  subscribe(taskId: string, listener: FrameListener, logged?: LoggedListener, failed?: FailedListener): () => void {
    let subscribers = this.#subscribers.get(taskId);
    if (subscribers === undefined) {
      subscribers = new Set();
      this.#subscribers.set(taskId, subscribers);
    }
    const subscriber: Subscriber = { frame: listener, logged, failed };
    subscribers.add(subscriber);
    return () => {
      subscribers.delete(subscriber);
      if (subscribers.size === 0 && this.#subscribers.get(taskId) === subscribers) this.#subscribers.delete(taskId);
    };
  }

  publish(taskId: string, frame: TaskFrame): void {
    const subscribers = this.#subscribers.get(taskId);
    if (subscribers === undefined) return;
    // A copy: a listener may unsubscribe, or subscribe another, while it runs.
    for (const subscriber of [...subscribers]) subscriber.frame(frame);
  }

  /** Frame `seq` of the task was logged by another replica. */
  announce(taskId: string, seq: number): void {
    const subscribers = this.#subscribers.get(taskId);
    if (subscribers === undefined) return;
    for (const subscriber of [...subscribers]) subscriber.logged?.(seq);
  }

  /** The task's run could not store its progress: `error` says why, to everyone waiting on it. */
  fail(taskId: string, error: Error): void {
    const subscribers = this.#subscribers.get(taskId);
    if (subscribers === undefined) return;
    for (const subscriber of [...subscribers]) subscriber.failed?.(error);
  }

  /** Frames of any task may have been logged unannounced: every subscriber that reads the log looks. */
  announceAll(): void {
    for (const subscribers of [...this.#subscribers.values()]) for (const subscriber of [...subscribers]) subscriber.logged?.(undefined);
  }

  /** Resolves with the first final frame published for the task after this call; rejects when the task's run fails to store it. */
  nextFinal(taskId: string): Promise<TaskFrame> {
    return new Promise((resolve, reject) => {
      const unsubscribe = this.subscribe(
        taskId,
        (frame) => {
          if (!frame.final) return;
          unsubscribe();
          resolve(frame);
        },
        undefined,
        (error) => {
          unsubscribe();
          reject(error);
        },
      );
    });
  }

  subscriberCount(taskId?: string): number {
    if (taskId !== undefined) return this.#subscribers.get(taskId)?.size ?? 0;
    let count = 0;
    for (const subscribers of this.#subscribers.values()) count += subscribers.size;
    return count;
  }
}

/** Whether a frame ends streams: its status is terminal or interrupted (what the runtime marks `final`). */
export function endsStreams(frame: StreamResponse): boolean {
  const state = frame.statusUpdate?.status.state;
  return state !== undefined && (isTerminalState(state) || isInterruptedState(state));
}
