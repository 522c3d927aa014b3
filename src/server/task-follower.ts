import { isInterruptedState, isTerminalState } from '../../generated/a2a/1.0/task-states.js';
import type { Task } from '../../generated/a2a/1.0/types.js';
import type { EventLog, TaskRead, TaskSnapshot } from '../store/task-store.js';
import { toWireTask } from '../store/task-view.js';
import type { LogFunction } from '../support/log.js';
import { endsStreams, type TaskChannels, type TaskFrame } from '../tasks/task-channels.js';
import type { TaskRuntime } from '../tasks/task-runtime.js';
import { a2aError, isA2AError, type A2AError } from '../protocol/a2a-error.js';
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
  /**
   * Replicas share the store: frames of a task another replica runs are only announced here
   * (TaskChannels.announce), and are read from the log.
   */
  readonly shared?: boolean;
  readonly log?: LogFunction;
}

/**
 * A stream following one task: snapshot, optional replay, then live frames. It subscribes to
 * the task's frames as it is made and holds them until it has its snapshot, then passes on only
 * those numbered after the snapshot's frame: nothing published while the snapshot is read is
 * lost or repeated, however long the read takes. A reconnecting client (Last-Event-ID) gets the
 * current Task and the status frames it missed; artifact chunks are not replayed because the
 * snapshot already holds the assembled artifacts.
 *
 * On a store replicas share, the frames pass in log order without a gap: a frame published here
 * that is not the next one, or an announcement of a frame logged elsewhere, makes the follower
 * read the log from the last frame it passed. So a task another replica runs, or one that moves
 * between replicas from turn to turn, is followed frame by frame.
 *
 * A class, not closures: every stream makes one.
 */
export class TaskFollower {
  /** Whether it has its snapshot; frames until then are held. */
  #started = false;
  /** The number of the last frame passed on (the snapshot's, to begin with). */
  #last = 0;
  #held: TaskFrame[] = [];
  #done = false;
  /** A read of the log is under way; `#again` asks for another once it ends. */
  #reading = false;
  #again = false;
  /** Frames were announced before the snapshot was in hand: the log is read once it is. */
  #announced = false;
  /** The run failed to store its progress before the snapshot was in hand: the stream ends with it once it is. */
  #failure: A2AError | undefined;

  constructor(
    private readonly deps: FollowDeps,
    private readonly target: FollowTarget,
    private readonly frames: FrameQueue,
  ) {
    const unsubscribe = deps.channels.subscribe(
      target.taskId,
      (frame) => this.#receive(frame),
      deps.shared === true ? (seq) => this.#logged(seq) : undefined,
      (error) => this.#failed(error),
    );
    frames.onDetach(() => {
      this.#done = true;
      unsubscribe();
    });
  }

  get read(): TaskRead {
    return { tenant: this.target.tenant, ...this.target.view };
  }

  /**
   * Starts from a snapshot (and, resuming, the replay read with it), or one already in hand: a
   * task this very request created, which has logged no frame yet.
   *
   * Ids only go up on a stream. A resumed one (Last-Event-ID n) sends its snapshot as id n,
   * then the status frames after n up to the snapshot's, then live frames: a client cut off
   * anywhere resumes from the last id it saw and misses nothing. (An id beyond the task's newest
   * frame resumes from that frame.)
   */
  start(snapshot: TaskSnapshot): void {
    const { task, seq } = snapshot;
    const resumed = this.target.lastEventId;
    this.frames.push({ task }, resumed === undefined ? seq : Math.min(resumed, seq));
    for (const event of snapshot.replay ?? []) {
      if (resumed !== undefined && event.seq > resumed && event.seq <= seq && event.frame.statusUpdate !== undefined)
        this.frames.push(event.frame, event.seq);
    }
    this.#started = true;
    this.#last = seq;
    const state = task.status.state;
    const settled = isTerminalState(state) || (isInterruptedState(state) && this.target.kind === 'turn');
    if (settled && !this.deps.runtime.isRunning(this.target.taskId)) {
      this.#done = true;
      this.frames.end();
      return;
    }
    const held = this.#held;
    this.#held = [];
    for (const frame of held) this.#receive(frame);
    if (this.#failure !== undefined) this.#failed(this.#failure);
    else if (this.#announced) void this.#readLog();
  }

  /** The task's run could not store its progress: the stream ends, saying so, after what was stored. */
  #failed(error: Error): void {
    const failure = isA2AError(error) ? error : a2aError('InternalError', 'the task failed in the hub; it has been logged');
    if (!this.#started) {
      this.#failure = failure;
      return;
    }
    if (this.#done) return;
    this.#done = true;
    this.frames.fail(failure);
  }

  /**
   * Reads the snapshot (and the replay after Last-Event-ID) and starts; `check` may refuse the
   * task as read. Ends the stream when it throws (TaskNotFoundError, a refusal, a store error).
   */
  async startFromStore(check?: (task: Task) => void): Promise<void> {
    const { runtime } = this.deps;
    const { instanceId, taskId, lastEventId } = this.target;
    try {
      // The replay is read with the snapshot, in one moment: a frame logged between two reads
      // would be in one and not the other.
      const snapshot = await runtime.snapshotTask(instanceId, taskId, this.read, lastEventId);
      check?.(snapshot.task);
      this.start(snapshot);
    } catch (error) {
      this.frames.end();
      throw error;
    }
  }

  #receive(frame: TaskFrame): void {
    if (!this.#started) this.#held.push(frame);
    else if (this.deps.shared !== true) this.#pass(frame);
    else if (this.#reading || frame.seq > this.#last + 1) this.#logged(frame.seq);
    else this.#pass(frame);
  }

  /** Frame `seq` (or, undefined, maybe some) was logged where this follower did not see it published. */
  #logged(seq: number | undefined): void {
    if (!this.#started) {
      this.#announced = true;
      return;
    }
    if (this.#done || (seq !== undefined && seq <= this.#last)) return;
    // A poll, not an announcement: a task running here publishes every frame it logs.
    if (seq === undefined && this.deps.runtime.isRunning(this.target.taskId)) return;
    void this.#readLog();
  }

  /** Passes on the logged frames after the last one passed, reading again if more were announced meanwhile. */
  async #readLog(): Promise<void> {
    if (this.#reading) {
      this.#again = true;
      return;
    }
    this.#reading = true;
    try {
      do {
        this.#again = false;
        const events = await this.deps.events.eventsAfter(this.target.taskId, this.#last);
        for (const event of events) this.#pass({ seq: event.seq, frame: event.frame, final: endsStreams(event.frame) });
      } while (this.#again && !this.#done);
    } catch (error) {
      // The next announcement or poll reads again.
      this.deps.log?.('warn', 'could not read the event log of a followed task', { taskId: this.target.taskId, error: String(error) });
    } finally {
      this.#reading = false;
    }
  }

  #pass(frame: TaskFrame): void {
    if (this.#done || frame.seq <= this.#last) return;
    this.#last = frame.seq;
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
