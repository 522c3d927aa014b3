import { isInterruptedState, isTerminalState } from '../../generated/a2a/1.0/task-states.js';
import type { StreamResponse, Task, TaskState } from '../../generated/a2a/1.0/types.js';
import { A2AError } from '../protocol/a2a-error.js';
import { backoff } from './backoff.js';
import { A2ATransportError, abortError } from './transport-error.js';

/**
 * Follows the stream of one task across dropped connections, and cancels the remote task when
 * the caller aborts. Kept apart from the HTTP details: the client hands it functions to open,
 * re-subscribe, read and cancel.
 */

export interface StreamEvent {
  /** The SSE event id, when the server sent one. */
  readonly id?: string;
  readonly frame: StreamResponse;
}

export interface TaskStreamSource {
  /** The first stream (SendStreamingMessage or SubscribeToTask). */
  open(): AsyncIterable<StreamEvent>;
  /** SubscribeToTask for the task, with Last-Event-ID when one was seen. */
  resubscribe(taskId: string, lastEventId: string | undefined): AsyncIterable<StreamEvent>;
  /** GetTask, for a task that became terminal while the stream was down. */
  getTask(taskId: string): Promise<Task>;
  /** Best-effort CancelTask that never throws and never uses the aborted signal. */
  cancel(taskId: string): Promise<unknown>;
}

export interface TaskStreamOptions {
  readonly signal?: AbortSignal;
  /** Re-subscriptions in a row that bring nothing new before giving up; 0 turns resuming off. */
  readonly resumeAttempts: number;
  readonly retryBaseMs: number;
  /** Send CancelTask when `signal` aborts a stream whose task is known and not final. */
  readonly cancelOnAbort: boolean;
  /** An SSE id the caller has already seen (subscribeToTask with lastEventId). */
  readonly lastEventId?: string;
  /**
   * The stream answers a message that continues an interrupted task: its first Task snapshot
   * may still show INPUT_REQUIRED or AUTH_REQUIRED from before the message, which is not the end.
   */
  readonly continuation?: boolean;
}

/** A task stream may end once the task is terminal or waiting for input or authorisation. */
export function isFinalState(state: TaskState): boolean {
  return isTerminalState(state) || isInterruptedState(state);
}

export async function* followTaskStream(
  source: TaskStreamSource,
  options: TaskStreamOptions,
): AsyncGenerator<StreamEvent, void, undefined> {
  const tracker = new StreamTracker(options.lastEventId, options.continuation === true);
  let stream = source.open();
  let resumed = false;
  let attemptsLeft = options.resumeAttempts;
  try {
    for (;;) {
      let progressed = false;
      let failure: Error | undefined;
      try {
        for await (const event of stream) {
          if (!tracker.accept(event)) continue;
          if (event.frame.task === undefined) progressed = true;
          yield event;
          // Some servers (@a2a-js/sdk) keep a subscription to an interrupted task open; the snapshot already says it all.
          if (tracker.resumedAtFinal) return;
        }
      } catch (error) {
        failure = error instanceof Error ? error : new Error(String(error));
      }
      // Everything arrived; a connection lost after the final frame changes nothing.
      if (tracker.settled && (failure === undefined || isResumable(failure))) return;
      if (options.signal?.aborted) throw failure ?? abortError('stream', options.signal, undefined);
      const taskId = tracker.taskId;
      if (failure !== undefined) {
        if (resumed && taskId !== undefined && isTerminalTaskRefusal(failure)) {
          // The task ended while we were away: its final state is only available through GetTask.
          yield { frame: { task: await source.getTask(taskId) } };
          return;
        }
        if (!isResumable(failure)) throw failure;
      }
      if (taskId === undefined || options.resumeAttempts <= 0) {
        if (failure !== undefined) throw failure;
        return;
      }
      if (progressed) attemptsLeft = options.resumeAttempts;
      if (attemptsLeft === 0) {
        throw new A2ATransportError(
          `the stream of task ${taskId} ended before a final state and ${options.resumeAttempts} attempts to resume it brought nothing new`,
          failure === undefined ? {} : { cause: failure },
        );
      }
      await backoff(options.retryBaseMs, options.resumeAttempts - attemptsLeft, options.signal);
      attemptsLeft -= 1;
      stream = source.resubscribe(taskId, tracker.lastEventId);
      tracker.resuming();
      resumed = true;
    }
  } finally {
    // Covers an abort seen as an error and a consumer that stopped reading after aborting.
    const taskId = tracker.taskId;
    if (options.cancelOnAbort && options.signal?.aborted && taskId !== undefined && !tracker.settled) {
      await source.cancel(taskId);
    }
  }
}

/** What the stream has told us so far: the task, its last state, and which SSE ids were delivered. */
class StreamTracker {
  taskId: string | undefined;
  lastEventId: string | undefined;
  private state: TaskState | undefined;
  private directMessage = false;
  private staleSnapshot: boolean;
  /** The status of that stale snapshot while nothing newer has arrived: a resumed snapshot with it is just as stale. */
  private staleStatus: string | undefined;
  private readonly delivered = new Set<string>();
  /** A resubscription is open and its snapshot has not arrived yet. */
  private awaitingSnapshot = false;
  /** The numeric SSE id of the last resumed snapshot: replayed status frames up to it are older than it. */
  private snapshotSeq: number | undefined;
  /** The snapshot of a resumed stream showed a final state: that stream has nothing more to say. */
  resumedAtFinal = false;

  constructor(lastEventId: string | undefined, continuation: boolean) {
    this.lastEventId = lastEventId;
    this.staleSnapshot = continuation;
    if (lastEventId !== undefined) this.delivered.add(lastEventId);
  }

  /** True once the task is final (or the agent answered with a Message): nothing more to resume. */
  get settled(): boolean {
    return (this.state !== undefined && isFinalState(this.state)) || (this.directMessage && this.taskId === undefined);
  }

  /** The next Task frame is the snapshot of a resubscription. */
  resuming(): void {
    this.awaitingSnapshot = true;
  }

  /**
   * Records an event; false for one whose SSE id was already delivered. Task snapshots always
   * pass: a resumed stream starts with one, and it carries what happened while we were away.
   * A snapshot does not mark its id delivered: the status frame it shares the id with may
   * follow in the replay.
   */
  accept(event: StreamEvent): boolean {
    const { task, statusUpdate, artifactUpdate, message } = event.frame;
    if (event.id !== undefined) {
      if (task === undefined && this.delivered.has(event.id)) return false;
      if (task === undefined) this.delivered.add(event.id);
      this.lastEventId = event.id;
    }
    if (task !== undefined) {
      this.taskId = task.id;
      const status = JSON.stringify(task.status);
      const stale = isInterruptedState(task.status.state) && (this.staleSnapshot || status === this.staleStatus);
      if (stale) this.staleStatus = status;
      else this.state = task.status.state;
      this.staleSnapshot = false;
      if (this.awaitingSnapshot) {
        this.awaitingSnapshot = false;
        this.snapshotSeq = sequenceOf(event.id);
        this.resumedAtFinal = !stale && isFinalState(task.status.state);
      }
    } else if (statusUpdate !== undefined) {
      this.taskId = statusUpdate.taskId;
      this.staleStatus = undefined;
      if (!this.replayedBeforeSnapshot(event.id)) this.state = statusUpdate.status.state;
    } else if (artifactUpdate !== undefined) {
      this.taskId = artifactUpdate.taskId;
    } else if (message !== undefined) {
      this.directMessage = true;
    }
    return true;
  }

  private replayedBeforeSnapshot(id: string | undefined): boolean {
    const seq = sequenceOf(id);
    return seq !== undefined && this.snapshotSeq !== undefined && seq <= this.snapshotSeq;
  }
}

/** SSE ids are opaque, but servers that replay (a2a-hub) number them; only numbers can be ordered. */
function sequenceOf(id: string | undefined): number | undefined {
  return id !== undefined && /^\d+$/.test(id) ? Number(id) : undefined;
}

/**
 * Broken connections, 5xx and timeouts are worth another SubscribeToTask, and so is a server
 * that cut off a reader too slow for it (the task goes on); answers that say no are not.
 */
function isResumable(error: unknown): boolean {
  if (error instanceof A2AError) return error.definition.name === 'StreamOverrunError';
  return error instanceof A2ATransportError && (error.status === undefined || error.status >= 500);
}

/** SubscribeToTask refuses a task that is already terminal with UnsupportedOperation. */
function isTerminalTaskRefusal(error: unknown): boolean {
  return error instanceof A2AError && error.definition.name === 'UnsupportedOperationError';
}
