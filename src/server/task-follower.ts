import { isInterruptedState, isTerminalState } from '../../generated/a2a/1.0/task-states.js';
import type { Task } from '../../generated/a2a/1.0/types.js';
import type { EventLog, LoggedEvent, TaskRead, TaskSnapshot } from '../store/task-store.js';
import { toWireTask } from '../store/task-view.js';
import type { TaskChannels, TaskFrame } from '../tasks/task-channels.js';
import type { TaskRuntime } from '../tasks/task-runtime.js';
import type { FrameQueue } from './frame-queue.js';

/** Whose task a stream follows, and how: what TaskFollower needs from the call and the handler. */
export interface FollowTarget {
  readonly instanceId: string;
  readonly tenant: string;
  readonly taskId: string;
  /** History the snapshot and the final Task carry. */
  readonly view: { readonly historyLength?: number };
  /**
   * A `turn` (SendStreamingMessage, or a SubscribeToTask with Last-Event-ID resuming one) ends
   * where its turn does, interrupted states included. A `subscription` to an interrupted task
   * waits for it to move on, since its next turn comes through another request, and ends at the
   * next terminal or interrupted state.
   */
  readonly kind: 'turn' | 'subscription';
  /** Last-Event-ID of a reconnecting client: the status frames after it are replayed. */
  readonly lastEventId?: number;
  /** End the stream with the full Task after its terminal status update (spec §11.7). */
  readonly finalTask: boolean;
}

export interface FollowDeps {
  readonly runtime: TaskRuntime;
  readonly channels: TaskChannels;
  readonly events: Pick<EventLog, 'eventsAfter'>;
}

/**
 * A stream following one task: snapshot, optional replay, then live frames. It subscribes to
 * the task's frames as it is made and holds them until it has its snapshot, then passes on only
 * those numbered after the snapshot's frame: nothing published while the snapshot is read is
 * lost or repeated, however long the read takes. A reconnecting client (Last-Event-ID) gets the
 * current Task and the status frames it missed; artifact chunks are not replayed because the
 * snapshot already holds the assembled artifacts.
 *
 * A class, not closures: every stream makes one.
 */
export class TaskFollower {
  /** The snapshot's frame number once started; frames until then are held. */
  #from: number | undefined;
  #held: TaskFrame[] = [];
  #done = false;

  constructor(
    private readonly deps: FollowDeps,
    private readonly target: FollowTarget,
    private readonly frames: FrameQueue,
  ) {
    const unsubscribe = deps.channels.subscribe(target.taskId, (frame) => this.#receive(frame));
    frames.onDetach(unsubscribe);
  }

  get read(): TaskRead {
    return { tenant: this.target.tenant, ...this.target.view };
  }

  /** Starts from a snapshot already in hand: a task this very request created, which has logged no frame yet. */
  start(snapshot: TaskSnapshot, replay: readonly LoggedEvent[] = []): void {
    const { task, seq } = snapshot;
    this.frames.push({ task }, seq);
    if (this.target.lastEventId !== undefined) {
      for (const event of replay) if (event.seq <= seq && event.frame.statusUpdate !== undefined) this.frames.push(event.frame, event.seq);
    }
    this.#from = seq;
    const state = task.status.state;
    const settled = isTerminalState(state) || (isInterruptedState(state) && this.target.kind === 'turn');
    if (settled && !this.deps.runtime.isRunning(this.target.taskId)) {
      this.frames.end();
      return;
    }
    const held = this.#held;
    this.#held = [];
    for (const frame of held) this.#pass(frame);
  }

  /**
   * Reads the snapshot (and the replay after Last-Event-ID) and starts; `check` may refuse the
   * task as read. Ends the stream when it throws (TaskNotFoundError, a refusal, a store error).
   */
  async startFromStore(check?: (task: Task) => void): Promise<void> {
    const { runtime, events } = this.deps;
    const { instanceId, taskId, lastEventId } = this.target;
    try {
      const snapshot = await runtime.snapshotTask(instanceId, taskId, this.read);
      check?.(snapshot.task);
      this.start(snapshot, lastEventId === undefined ? [] : await events.eventsAfter(taskId, lastEventId));
    } catch (error) {
      this.frames.end();
      throw error;
    }
  }

  #receive(frame: TaskFrame): void {
    if (this.#from === undefined) this.#held.push(frame);
    else this.#pass(frame);
  }

  #pass(frame: TaskFrame): void {
    if (this.#done || frame.seq <= (this.#from ?? 0)) return;
    this.frames.push(frame.frame, frame.seq);
    if (!frame.final) return;
    this.#done = true;
    const finalState = frame.frame.statusUpdate?.status.state;
    if (!this.target.finalTask || finalState === undefined || !isTerminalState(finalState)) return this.frames.end();
    // Usually the runtime still holds the settled task: no read, and the stream ends at once.
    const live = this.deps.runtime.settledContent(this.target.taskId);
    if (live !== undefined) {
      this.frames.push({ task: toWireTask(live, this.target.view) }, frame.seq);
      return this.frames.end();
    }
    this.deps.runtime
      .getTask(this.target.instanceId, this.target.taskId, this.read)
      .then(
        (task) => this.frames.push({ task }, frame.seq),
        () => undefined,
      )
      .finally(() => this.frames.end());
  }
}
