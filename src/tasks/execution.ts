import { randomUUID } from 'node:crypto';
import { canTransition, isInterruptedState, isTerminalState } from '../../generated/a2a/1.0/task-states.js';
import type { Message, Task, TaskState, TaskStatus } from '../../generated/a2a/1.0/types.js';
import type { ArtifactChunk, Content, ExecutionEvents, ExecutorTools } from '../executors/executor.js';
import { tenantOf, type MessageKey, type NewTask } from '../store/task-store.js';
import type { A2AError } from '../protocol/a2a-error.js';
import type { FailedWrite, StoreOp } from '../store/store-ops.js';
import { toWireTask, type TaskContent } from '../store/task-view.js';
import type { LogFunction } from '../support/log.js';
import { agentMessage, artifactFrame, artifactOf, status, statusFrame } from './frames.js';
import type { LiveTask } from './live-task.js';
import type { ConversationKey } from './sessions.js';
import type { ToolProvider } from './tool-provider.js';
import type { QueuedWrite, WriteQueue } from './write-queue.js';

export type SendOutcome = { readonly kind: 'message'; readonly message: Message } | { readonly kind: 'task'; readonly taskId: string };

/**
 * A push config sent with the message (SendMessageConfiguration.taskPushNotificationConfig),
 * already checked. When the executor answers with a direct Message no task exists and nothing
 * is registered: there is nothing to push.
 */
export interface SendPush {
  /**
   * Refuses (InvalidParams) a continued task that has as many configs as it may: call before
   * anything is written. A new task has none.
   */
  requireRoom(taskId: string): Promise<void>;
  /**
   * The writes that register it on the task, with `snapshot` (the task as it is stored by the
   * same write) as its first delivery.
   */
  opsFor(taskId: string, snapshot: Task): readonly StoreOp[];
  /** Called once those writes are committed. */
  committed(): void;
}

export interface ExecutionHost {
  readonly writes: WriteQueue;
  readonly now: () => string;
  readonly log?: LogFunction;
}

/**
 * A run that may make a new task. The task exists once the executor does more than reply:
 * only then is it stored and the send answered with it.
 */
export interface NewTaskStart {
  readonly task: NewTask;
  /** The idempotency key of the message that starts it (task.message holds the ids the hub filled in). */
  readonly key: MessageKey;
  readonly live: LiveTask;
  /** The send's hook: the task exists, before any of its frames is published. */
  readonly onTask: ((taskId: string, created?: TaskContent) => void) | undefined;
  /** The send's inline push config, registered with the task. */
  readonly push: SendPush | undefined;
  /** Answers the send: with the task once it is stored, or with the executor's direct reply once its record is. */
  readonly answer: (outcome: SendOutcome) => void;
  /**
   * The task (or the direct reply's record) could not be stored: with replicas, another one may
   * have stored the same message first; else the storage failed. The run has stopped; the send
   * is answered with what the store holds for the message, or with why nothing was stored.
   */
  readonly lost: (outcome: FailedWrite) => void;
}

/**
 * One run of an executor on one task (a new task, or an interrupted one resumed): turns its
 * events into stored statuses, artifacts and log frames, and enforces the state machine.
 * A class rather than closures per run, since a busy hub starts thousands of runs a second.
 */
export class Execution {
  readonly controller = new AbortController();
  /** Terminal or interrupted: later events are ignored. */
  #settled = false;
  /** Settled by another replica, or never stored: the store, not `live`, has the task's end. */
  #elsewhere = false;
  #stopped: Promise<void> | undefined;
  #wake: (() => void) | undefined;
  done!: Promise<void>;
  /** The task as stored, for a task this run created (a resumed one is not held). */
  readonly live: LiveTask | undefined;
  /** A new task not stored yet: the executor may still answer with a direct Message. */
  #start: NewTaskStart | undefined;
  /** Why the run's progress could not be stored, once a write of it failed. */
  #failure: A2AError | undefined;

  constructor(
    private readonly host: ExecutionHost,
    readonly instanceId: string,
    /** '' for no tenant. */
    readonly tenant: string,
    readonly taskId: string,
    readonly contextId: string,
    public state: TaskState,
    start?: NewTaskStart,
  ) {
    this.#start = start;
    this.live = start?.live;
  }

  /** Terminal or interrupted (or answered with a direct reply): later events are ignored. */
  get settled(): boolean {
    return this.#settled;
  }

  /**
   * The task as this execution left it, once settled here; undefined while it runs, and when
   * another replica settled it (a cancel): then memory does not hold the end, the store does.
   */
  get settledContent(): TaskContent | undefined {
    return this.#settled && !this.#elsewhere ? this.live?.content() : undefined;
  }

  /**
   * Resolves once the run is settled (by its executor or from outside: a cancel, the timeout) or
   * stopped: what a run waits for besides its executor, so that an executor that never returns
   * cannot hold it. One promise per run, made on first ask; no listener on the signal, which costs
   * more than the rest of a short run.
   */
  whenStopped(): Promise<void> {
    if (this.#settled || this.controller.signal.aborted) return Promise.resolve();
    return (this.#stopped ??= new Promise((resolve) => (this.#wake = resolve)));
  }

  /** Aborts the executor's signal with `reason`: the run ends at once, whatever the executor does. */
  stop(reason: Error): void {
    this.controller.abort(reason);
    this.#wakeUp();
  }

  /** Why the run's progress could not be stored, once a write of it failed (storeFailed). */
  get failure(): A2AError | undefined {
    return this.#failure;
  }

  /**
   * A write of the run failed, and the task's writes queued after it were dropped: the store
   * holds the task as it was before that write. The run stops and writes nothing more; what
   * waits on it is told `error` (TaskRuntime repairs the stored task).
   */
  storeFailed(error: A2AError): void {
    this.#failure ??= error;
    this.#elsewhere = true;
    if (!this.#settled) this.#settle();
    this.stop(error);
  }

  /**
   * Another replica settled the task (a CancelTask it answered): its status is stored, so the
   * run stops here and writes nothing more.
   */
  settledElsewhere(reason: Error): void {
    if (this.#settled) return;
    this.#elsewhere = true;
    this.#settle();
    this.stop(reason);
  }

  #settle(): void {
    this.#settled = true;
    this.#wakeUp();
  }

  #wakeUp(): void {
    const wake = this.#wake;
    this.#wake = undefined;
    wake?.();
  }

  /**
   * Stores the new task on the executor's first event other than a direct reply. The send is
   * answered with it once the write is committed, never before: an answer never names a task
   * the store does not hold.
   */
  ensureStored(): void {
    const start = this.#start;
    if (start === undefined) return;
    this.#start = undefined;
    const created = start.live.content();
    const push = start.push;
    const write = createTaskWrite(start.task, start.key, push?.opsFor(this.taskId, toWireTask(created)));
    this.host.writes.enqueue({
      ...write,
      onOutcome: (outcome) => {
        if (!outcome.ok) {
          this.settledElsewhere(new Error('the task was not stored'));
          start.lost(outcome);
          return;
        }
        push?.committed();
        start.onTask?.(this.taskId, created);
        start.answer({ kind: 'task', taskId: this.taskId });
      },
    });
  }

  /** Whether the task is not stored yet (nothing the executor did has needed it). */
  get unstored(): boolean {
    return this.#start !== undefined;
  }

  /** Moves the task to `state`, if the state machine allows it. */
  apply(state: TaskState, content?: Content): void {
    if (this.settled) return;
    this.ensureStored();
    // "Working" when the task already works says nothing new (a resumed task starts WORKING).
    if (state === 'TASK_STATE_WORKING' && this.state === 'TASK_STATE_WORKING' && content === undefined) return;
    if (!canTransition(this.state, state)) {
      this.host.log?.('warn', 'ignored a status the state machine does not allow', { taskId: this.taskId, from: this.state, to: state });
      return;
    }
    const message = content === undefined ? undefined : agentMessage(content, this.taskId, this.contextId);
    this.state = state;
    const final = isTerminalState(state) || isInterruptedState(state);
    if (final) this.#settle();
    const taskStatus = status(state, this.host.now(), message);
    this.live?.setStatus(taskStatus, final);
    this.host.writes.enqueue(statusWrite(this.taskId, this.contextId, taskStatus, final));
  }

  artifact(chunk: ArtifactChunk): string {
    const artifactId = chunk.artifactId ?? randomUUID();
    if (this.settled) return artifactId;
    this.ensureStored();
    if (this.state === 'TASK_STATE_SUBMITTED') this.apply('TASK_STATE_WORKING');
    const artifact = artifactOf(chunk, artifactId);
    const append = chunk.append === true;
    this.live?.putArtifact(artifact, append);
    const frame = artifactFrame(this.taskId, this.contextId, artifact, append, chunk.lastChunk === true);
    this.host.writes.enqueue({
      taskId: this.taskId,
      frame,
      final: false,
      ops: [
        { op: 'putArtifact', taskId: this.taskId, artifact, append },
        { op: 'appendEvent', taskId: this.taskId, frame },
      ],
    });
    return artifactId;
  }

  reply(content: Content): void {
    if (this.settled) return;
    const start = this.#start;
    if (start === undefined) {
      // A task already exists, so a direct reply can only end it.
      this.apply('TASK_STATE_COMPLETED', content);
      return;
    }
    this.#start = undefined;
    this.#settle();
    const reply = agentMessage(content, undefined, this.contextId);
    const { instanceId, message } = start.task;
    // Keyed by the message, as no task exists; the runtime answers resends until it is committed,
    // and the reply itself once it is: a resend after the answer finds the record.
    this.host.writes.enqueue({
      taskId: `reply:${message.messageId}`,
      final: false,
      ops: [
        { op: 'recordIdempotent', instanceId, key: start.key, result: { kind: 'message', message: reply } },
        { op: 'touchContext', instanceId, tenant: tenantOf(start.task), contextId: this.contextId, at: this.host.now() },
      ],
      onOutcome: (outcome) => (outcome.ok ? start.answer({ kind: 'message', message: reply }) : start.lost(outcome)),
    });
  }
}

/** What an executor holds of its run: the events, and nothing of the run's internals. */
export class RunEvents implements ExecutionEvents {
  readonly #run: Execution;

  constructor(run: Execution) {
    this.#run = run;
  }

  accept(): void {
    if (!this.#run.settled) this.#run.ensureStored();
  }

  working(message?: Content): void {
    this.#run.apply('TASK_STATE_WORKING', message);
  }

  artifact(chunk: ArtifactChunk): string {
    return this.#run.artifact(chunk);
  }

  complete(message?: Content): void {
    this.#run.apply('TASK_STATE_COMPLETED', message);
  }

  fail(message: Content): void {
    this.#run.apply('TASK_STATE_FAILED', message);
  }

  reject(message: Content): void {
    this.#run.apply('TASK_STATE_REJECTED', message);
  }

  inputRequired(message: Content): void {
    this.#run.apply('TASK_STATE_INPUT_REQUIRED', message);
  }

  authRequired(message: Content): void {
    this.#run.apply('TASK_STATE_AUTH_REQUIRED', message);
  }

  cancel(message?: Content): void {
    this.#run.apply('TASK_STATE_CANCELED', message);
  }

  reply(message: Content): void {
    this.#run.reply(message);
  }
}

/** The tool registry as one run sees it: calls on behalf of its conversation, aborted with it. */
export class RunTools implements ExecutorTools {
  constructor(
    private readonly tools: ToolProvider | undefined,
    private readonly conversation: ConversationKey,
    private readonly controller: AbortController,
  ) {}

  list(): ReturnType<ExecutorTools['list']> {
    return this.tools?.list() ?? [];
  }

  call(name: string, args: Parameters<ExecutorTools['call']>[1]): ReturnType<ExecutorTools['call']> {
    if (this.tools === undefined) return Promise.reject(new Error(`no tool is named ${name}: this hub has no tool registry`));
    return this.tools.call(name, args, { callerId: callerIdOf(this.conversation), signal: this.controller.signal });
  }
}

/**
 * The caller a tool call is made for: one per conversation, so a remote sees one conversation
 * per local one. Under a tenant the tenant is part of it, since the same contextId under two
 * tenants is two conversations; without one it stays `instance/context`, as before tenants.
 */
export function callerIdOf({ instanceId, tenant, contextId }: ConversationKey): string {
  return tenant === '' ? `${instanceId}/${contextId}` : JSON.stringify([instanceId, tenant, contextId]);
}

/**
 * The writes that store a new task: the task, the idempotency record of the message `key` and
 * its context, and `extra` ops that belong with the task from its first commit (an inline push
 * config, whose first delivery is the task as created).
 */
export function createTaskWrite(task: NewTask, key: MessageKey, extra: readonly StoreOp[] = []): QueuedWrite {
  const { id, instanceId, contextId, createdAt } = task;
  return {
    taskId: id,
    final: false,
    creates: true,
    ops: [
      { op: 'createTask', task },
      ...extra,
      { op: 'recordIdempotent', instanceId, key, result: { kind: 'task', taskId: id } },
      { op: 'touchContext', instanceId, tenant: tenantOf(task), contextId, at: createdAt },
    ],
  };
}

/** A status and its log frame; the frame is published once they are committed. */
export function statusWrite(taskId: string, contextId: string, taskStatus: TaskStatus, final: boolean): QueuedWrite {
  const frame = statusFrame(taskId, contextId, taskStatus);
  return {
    taskId,
    frame,
    final,
    ops:
      // Interrupted and terminal status messages are turns of the conversation.
      final && taskStatus.message !== undefined
        ? [
            { op: 'setStatus', taskId, status: taskStatus },
            { op: 'appendMessage', taskId, message: taskStatus.message },
            { op: 'appendEvent', taskId, frame },
          ]
        : [
            { op: 'setStatus', taskId, status: taskStatus },
            { op: 'appendEvent', taskId, frame },
          ],
  };
}
