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

interface Subscriber {
  readonly frame: FrameListener;
  readonly logged: LoggedListener | undefined;
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

  subscribe(taskId: string, listener: FrameListener, logged?: LoggedListener): () => void {
    let subscribers = this.#subscribers.get(taskId);
    if (subscribers === undefined) {
      subscribers = new Set();
      this.#subscribers.set(taskId, subscribers);
    }
    const subscriber: Subscriber = { frame: listener, logged };
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

  /** Frames of any task may have been logged unannounced: every subscriber that reads the log looks. */
  announceAll(): void {
    for (const subscribers of [...this.#subscribers.values()]) for (const subscriber of [...subscribers]) subscriber.logged?.(undefined);
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
