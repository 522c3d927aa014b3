import { isActiveState, isTerminalState } from '../../generated/a2a/1.0/task-states.js';
import type { Message, SendMessageRequest, Task, TaskState } from '../../generated/a2a/1.0/types.js';
import { promptText, type AgentExecutor, type ExecutionRequest } from '../executors/executor.js';
import { a2aError, type A2AError } from '../protocol/a2a-error.js';
import { messageTarget } from '../store/message-target.js';
import type { FailedWrite, WriteOutcome } from '../store/store-ops.js';
import {
  tenantOf,
  type BatchWrites,
  type EventLog,
  type IdempotencyIndex,
  type MessageKey,
  type TaskInfo,
  type TaskRead,
  type TaskReads,
  type TaskSnapshot,
  type TaskWrites,
} from '../store/task-store.js';
import { toWireTask, type TaskContent } from '../store/task-view.js';
import type { LogFunction } from '../support/log.js';
import {
  createTaskWrite,
  Execution,
  RunEvents,
  RunTools,
  statusWrite,
  type ExecutionHost,
  type NewTaskStart,
  type SendOutcome,
  type SendPush,
} from './execution.js';
import { agentMessage, status, statusFrame } from './frames.js';
import { timeOrderedId } from './ids.js';
import { LiveTask } from './live-task.js';
import type { Session, SessionRegistry } from './sessions.js';
import type { TaskChannels } from './task-channels.js';
import type { ToolProvider } from './tool-provider.js';
import { writeFailedError } from './storage-errors.js';
import { WriteQueue, type QueuedWrite } from './write-queue.js';

/** What the runtime needs to know about the instance a message was sent to. */
export interface RuntimeInstance {
  readonly id: string;
  readonly executor: AgentExecutor;
  /** Ids of the skills the card advertises. */
  readonly skills: readonly string[];
  readonly defaultSkill: string;
  /**
   * fifo: the session's tasks run one at a time in arrival order, a later one waiting as
   * SUBMITTED (seed 002 §8); concurrent (the default): side by side.
   */
  readonly sessionOrder?: 'fifo' | 'concurrent';
  /** How long one run of the executor may take before the task is stopped and FAILED; 0 or absent: no limit. */
  readonly executionTimeoutMs?: number;
}

export type { SendOutcome, SendPush } from './execution.js';

export interface SendHooks {
  /**
   * Called synchronously as soon as the task exists and before any of its frames is
   * published, so a stream can take its snapshot and subscribe without missing a frame.
   * For a task this send created, `created` is that task as it is being stored (no frame
   * logged yet): the snapshot needs no read, so the creation keeps its place in the shared commit.
   */
  readonly onTask?: (taskId: string, created?: TaskContent) => void;
  readonly acceptedOutputModes?: readonly string[];
  /** The message came on a stream (ExecutionRequest.streaming). */
  readonly streaming?: boolean;
  /** An inline push config, registered in the write that creates or continues the task. */
  readonly push?: SendPush;
}

export interface RuntimeDeps {
  /** Reads tasks and idempotency keys; writes go through the write queue, which batches them. */
  readonly store: TaskReads & Pick<IdempotencyIndex, 'findIdempotent'> & BatchWrites;
  readonly channels: TaskChannels;
  readonly sessions: SessionRegistry;
  readonly now: () => string;
  readonly log?: LogFunction;
  /** The tools executors may call; none without it. */
  readonly tools?: ToolProvider;
  /** Told the tasks of every committed write batch (the push dispatcher listens: src/push/push-dispatcher.ts). */
  readonly onCommitted?: (taskIds: ReadonlySet<string>) => void;
  /**
   * Told of a task this runtime settled without running it (a CancelTask of a task another
   * replica may be running), once that is committed: the hub tells the other replicas.
   */
  readonly onSettled?: (taskId: string) => void;
  /** Replicas share the store: a task may be running on another one. */
  readonly shared?: boolean;
  /** Told the outcomes of every commit (the storage's health: src/store/storage-health.ts). */
  readonly onOutcomes?: (outcomes: readonly WriteOutcome[]) => void;
}

const NO_MODES: readonly string[] = [];
const NO_TASKS: readonly Task[] = [];

/** How often a blocking send waiting on a task another replica runs reads it, should a signal be missed. */
const REMOTE_POLL_MS = 1000;

/** Resending the same message would only return the failed task: it is a duplicate of itself. */
const RETRY_ADVICE = 'to retry, send the message again with a new messageId';

/** How often the runtime tries again to settle, as FAILED, the tasks whose progress it could not store. */
const REPAIR_EVERY_MS = 2000;

/**
 * The task lifecycle, independent of any transport: starts executors, turns their events
 * into stored status, artifacts and log frames, enforces the state machine, and implements
 * the protocol rules of SendMessage (idempotency by messageId, continuation by taskId, skill
 * selection) and CancelTask.
 */
export class TaskRuntime {
  readonly #deps: RuntimeDeps;
  readonly #writes: WriteQueue;
  readonly #host: ExecutionHost;
  readonly #active = new Map<string, Execution>();
  /**
   * Executions settled and committed this turn. On a shared store a send is answered only once
   * the task's creation commits, often in the same batch as its end, so the caller asks
   * settled() just after the execution left #active: kept one more turn, it answers from memory.
   */
  readonly #justSettled = new Map<string, Execution>();
  /**
   * Sends not answered yet, or whose records are not committed yet, by (instance, tenant,
   * messageId, target): an identical send arriving meanwhile waits for the first one's outcome.
   */
  readonly #pending = new Map<string, Promise<SendOutcome>>();
  /** Tasks a message is continuing right now, between reading the task and launching its run. */
  readonly #resuming = new Set<string>();
  /**
   * Tasks whose run could not store its progress (the storage failed a write): the store holds
   * them as they were before, SUBMITTED or WORKING with no run behind them. They are settled as
   * FAILED once writes work again, tried every REPAIR_EVERY_MS; bounded by the runs there were.
   */
  readonly #repairs = new Map<string, string>();
  #repairTimer: NodeJS.Timeout | undefined;
  #closed = false;

  constructor(deps: RuntimeDeps) {
    this.#deps = deps;
    this.#writes = new WriteQueue(deps.store, deps.channels, deps.log, {
      ...(deps.onCommitted ? { committed: deps.onCommitted } : {}),
      ...(deps.onOutcomes ? { outcomes: deps.onOutcomes } : {}),
      stale: (taskId) => this.settledElsewhere(taskId),
      failed: (write, outcome) => this.#writeFailed(write, outcome),
    });
    this.#host = { writes: this.#writes, now: deps.now, ...(deps.log ? { log: deps.log } : {}) };
  }

  get activeCount(): number {
    return this.#active.size;
  }

  /** Whether an executor is working on the task and has not yet settled it. */
  isRunning(taskId: string): boolean {
    return this.#active.get(taskId)?.settled === false;
  }

  async send(instance: RuntimeInstance, request: SendMessageRequest, hooks: SendHooks = {}): Promise<SendOutcome> {
    const message = request.message;
    const tenant = tenantOf(request);
    // The target as sent: a messageId reused for another task or context is a new message.
    const messageKey: MessageKey = { messageId: message.messageId, taskId: message.taskId, contextId: message.contextId, tenant };
    const key = JSON.stringify([instance.id, tenant, message.messageId, messageTarget(messageKey)]);
    const pending = this.#pending.get(key);
    if (pending !== undefined) {
      const outcome = await pending;
      if (outcome.kind === 'task') hooks.onTask?.(outcome.taskId);
      return outcome;
    }
    // Registered before the first await, and kept until the send's records are committed: a
    // resend finds the send here or its record in the store, never neither.
    const sent = this.#sendOnce(instance, request, messageKey, hooks);
    this.#pending.set(key, sent);
    try {
      return await sent;
    } finally {
      this.#writes.afterCommit(() => this.#pending.delete(key));
    }
  }

  async #sendOnce(instance: RuntimeInstance, request: SendMessageRequest, messageKey: MessageKey, hooks: SendHooks): Promise<SendOutcome> {
    const earlier = await this.#deps.store.findIdempotent(instance.id, messageKey);
    if (earlier !== undefined) {
      if (earlier.kind === 'task') hooks.onTask?.(earlier.taskId);
      return earlier;
    }
    const taskId = request.message.taskId;
    if (taskId !== undefined && taskId !== '') return this.#resume(instance, request, messageKey, hooks);
    return this.#start(instance, request, messageKey, hooks);
  }

  /**
   * Resolves once the task is terminal or interrupted (at once if it already is) and that is
   * committed; with the task as stored when this runtime created it and still holds it, so
   * that the answer needs no read (undefined otherwise: read it with getTask).
   */
  async settled(taskId: string): Promise<TaskContent | undefined> {
    const execution = this.#active.get(taskId) ?? this.#justSettled.get(taskId);
    if (execution !== undefined && !execution.settled) {
      // The final frame is published only once its batch is committed; a write of the run that
      // fails rejects this with why.
      await this.#deps.channels.nextFinal(taskId);
    } else if (this.#writes.isQueued(taskId)) {
      // Its final status may be applied but not yet committed: wait for the shared commit
      // rather than force one for this task alone (getTask would).
      await this.#writes.committed();
    } else if (execution === undefined && this.#deps.shared === true) {
      await this.#settledElsewhere(taskId);
    }
    // The end the run reached in memory was not stored: answering with it would name a state the store does not hold.
    if (execution?.failure !== undefined) throw execution.failure;
    return execution?.settledContent;
  }

  /** Resolves once a task another replica may be running is no longer SUBMITTED or WORKING. */
  async #settledElsewhere(taskId: string): Promise<void> {
    for (;;) {
      const info = await this.#deps.store.getTaskInfo(taskId);
      if (info === undefined || !isActiveState(info.state)) return;
      // Woken by its next frame, announced by the replica that logged it, or by a poll when that is missed.
      await new Promise<void>((resolve) => {
        let unsubscribe = (): void => undefined;
        const wake = (): void => {
          clearTimeout(timer);
          unsubscribe();
          resolve();
        };
        const timer = setTimeout(wake, REMOTE_POLL_MS);
        unsubscribe = this.#deps.channels.subscribe(taskId, wake, wake);
      });
    }
  }

  /**
   * The task as stored, from memory, once this runtime's execution of it has settled and its
   * writes are committed; undefined otherwise (read it with getTask).
   */
  settledContent(taskId: string): TaskContent | undefined {
    const execution = this.#active.get(taskId) ?? this.#justSettled.get(taskId);
    if (this.#writes.isQueued(taskId)) return undefined;
    return execution?.settledContent;
  }

  /** The task of this instance under `read.tenant` (none by default); TaskNotFoundError for any other, as for an unknown id. */
  async getTask(instanceId: string, taskId: string, read?: TaskRead): Promise<Task> {
    await this.#writes.flushFor(taskId);
    const task = await this.#deps.store.getTask(instanceId, taskId, read);
    if (task === undefined) throw taskNotFound(taskId);
    return task;
  }

  /**
   * The task with the sequence number of its newest frame, read together (TaskReads.snapshotTask);
   * TaskNotFoundError as getTask.
   */
  async snapshotTask(instanceId: string, taskId: string, read?: TaskRead, replayAfter?: number): Promise<TaskSnapshot> {
    await this.#writes.flushFor(taskId);
    const snapshot = await this.#deps.store.snapshotTask(instanceId, taskId, read, replayAfter);
    if (snapshot === undefined) throw taskNotFound(taskId);
    return snapshot;
  }

  async cancel(instanceId: string, taskId: string, options: { readonly tenant?: string; readonly reason?: string } = {}): Promise<Task> {
    const tenant = tenantOf(options);
    const reason = options.reason ?? 'canceled by the client';
    await this.#writes.flushFor(taskId);
    const info = await this.#infoOf(instanceId, tenant, taskId);
    if (isTerminalState(info.state)) {
      throw a2aError('TaskNotCancelableError', `task ${taskId} is already ${stateWord(info.state)} and cannot be canceled`, {
        metadata: { taskId, state: info.state },
      });
    }
    const execution = this.#active.get(taskId);
    if (execution !== undefined && !execution.settled) {
      execution.apply('TASK_STATE_CANCELED', reason);
      execution.stop(new Error(reason));
      await this.#writes.flushFor(taskId);
      // The cancel was not stored: the task is not canceled, whatever the run thinks.
      if (execution.failure !== undefined) throw execution.failure;
      return this.getTask(instanceId, taskId, { tenant });
    }
    const contextId = info.contextId;
    let canceled: WriteOutcome | undefined;
    this.#writes.enqueue({
      ...statusWrite(taskId, contextId, status('TASK_STATE_CANCELED', this.#deps.now(), agentMessage(reason, taskId, contextId)), true),
      onOutcome: (outcome) => (canceled = outcome),
    });
    await this.#writes.flushFor(taskId);
    // Stale: another replica settled it meanwhile, and the task as read says how.
    if (canceled?.ok === false && !canceled.stale) throw writeFailedError(canceled, `task ${taskId} could not be canceled`, { taskId });
    const task = await this.getTask(instanceId, taskId, { tenant });
    // Another replica may be running it (SUBMITTED or WORKING here): it stops on hearing this.
    if (isActiveState(info.state)) this.#deps.onSettled?.(taskId);
    return task;
  }

  /**
   * Another replica settled the task (a cancel it answered): an executor still running it here
   * stops, and writes nothing more. Its streams here end with the stored final frame, which
   * they read from the log.
   */
  settledElsewhere(taskId: string): void {
    const execution = this.#active.get(taskId);
    if (execution === undefined || execution.settled) return;
    this.#deps.log?.('info', 'another replica settled a task this one was running: its executor stops', { taskId });
    execution.settledElsewhere(new Error('the task was settled by another replica'));
  }

  /** After signals may have been missed: stops the runs here of tasks another replica settled meanwhile. */
  async checkRunning(): Promise<void> {
    for (const [taskId, execution] of [...this.#active]) {
      if (execution.settled || this.#writes.isQueued(taskId)) continue;
      const info = await this.#deps.store.getTaskInfo(taskId);
      if (info !== undefined && isTerminalState(info.state)) this.settledElsewhere(taskId);
    }
  }

  /**
   * Settles the tasks a crash left SUBMITTED or WORKING as FAILED, with a frame in their
   * event log so a replaying client sees it. Call once at start-up, before serving.
   */
  static async recover(
    store: TaskReads & Pick<TaskWrites, 'settleUnfinished'> & Pick<EventLog, 'appendEvent'>,
    now: () => string,
  ): Promise<string[]> {
    const settled = await store.settleUnfinished((task) =>
      status(
        'TASK_STATE_FAILED',
        now(),
        agentMessage(`the hub process running this task stopped before the task ended; ${RETRY_ADVICE}`, task.id, task.contextId),
      ),
    );
    for (const taskId of settled) {
      const info = await store.getTaskInfo(taskId);
      if (info === undefined) continue;
      const task = await store.getTask(info.instanceId, taskId, { tenant: info.tenant, historyLength: 0, includeArtifacts: false });
      if (task !== undefined) await store.appendEvent(taskId, statusFrame(taskId, task.contextId ?? '', task.status));
    }
    return settled;
  }

  /** Resolves once every write queued so far is committed and its frame published. */
  committed(): Promise<void> {
    return this.#writes.committed();
  }

  /** Commits every queued write and accepts no more; the store may close after this. */
  close(): Promise<void> {
    this.#closed = true;
    clearTimeout(this.#repairTimer);
    return this.#writes.close();
  }

  /** How many tasks wait to be settled as FAILED because their progress could not be stored. */
  get unrepairedCount(): number {
    return this.#repairs.size;
  }

  /**
   * A write failed that no caller awaits (those with an onOutcome are answered there): a run's
   * status or artifact. The run stops, whoever waits on it (a blocking send, a stream) is told
   * why, and the task, left in the store as it was, is settled as FAILED once writes work again.
   */
  #writeFailed(write: QueuedWrite, outcome: FailedWrite): void {
    const { taskId } = write;
    if (write.creates === true || this.#repairs.has(taskId)) return;
    const execution = this.#active.get(taskId);
    if (execution === undefined) return;
    const error = writeFailedError(outcome, `the progress of task ${taskId} could not be stored`, { taskId });
    execution.storeFailed(error);
    this.#deps.channels.fail(taskId, error);
    this.#repairs.set(taskId, execution.contextId);
    this.#scheduleRepairs();
  }

  #scheduleRepairs(): void {
    if (this.#repairTimer !== undefined || this.#closed || this.#repairs.size === 0) return;
    this.#repairTimer = setTimeout(() => {
      this.#repairTimer = undefined;
      for (const [taskId, contextId] of [...this.#repairs]) void this.#repair(taskId, contextId);
    }, REPAIR_EVERY_MS);
    this.#repairTimer.unref();
  }

  /**
   * Settles a task whose run could not store its progress as FAILED, if it is still SUBMITTED or
   * WORKING as the run left it (guarded by its status version: a cancel that came meanwhile wins).
   */
  async #repair(taskId: string, contextId: string): Promise<void> {
    try {
      const info = await this.#deps.store.getTaskInfo(taskId);
      if (info === undefined || !isActiveState(info.state) || this.isRunning(taskId)) {
        this.#repairs.delete(taskId);
        return;
      }
      const failed = statusWrite(
        taskId,
        contextId,
        status(
          'TASK_STATE_FAILED',
          this.#deps.now(),
          agentMessage(`the hub could not store this task's progress, so it was stopped; ${RETRY_ADVICE}`, taskId, contextId),
        ),
        true,
      );
      if (this.#closed) return;
      this.#writes.enqueue({
        ...failed,
        ops: [{ op: 'expectStatus', taskId, version: info.statusVersion }, ...failed.ops],
        onOutcome: (outcome) => {
          if (outcome.ok || outcome.stale) this.#repairs.delete(taskId);
          if (outcome.ok) this.#deps.log?.('warn', 'settled as FAILED a task whose progress could not be stored', { taskId });
          else this.#scheduleRepairs();
        },
      });
    } catch {
      // The store still fails reads: the next round tries again.
      this.#scheduleRepairs();
    }
  }

  /** Waits up to graceMs for running tasks, then fails the rest so none is left WORKING. */
  async shutdown(graceMs: number): Promise<void> {
    const running = [...this.#active.values()].map((execution) => execution.done);
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([Promise.allSettled(running), new Promise((resolve) => (timer = setTimeout(resolve, graceMs)))]);
    clearTimeout(timer);
    for (const execution of [...this.#active.values()]) {
      if (!execution.unstored) execution.apply('TASK_STATE_FAILED', `the hub shut down before the task finished; ${RETRY_ADVICE}`);
      execution.stop(new Error('shutdown'));
    }
  }

  /** The task's bookkeeping, when it is of this instance and tenant: any other reads as unknown. */
  async #infoOf(instanceId: string, tenant: string, taskId: string): Promise<TaskInfo> {
    const info = await this.#deps.store.getTaskInfo(taskId);
    if (info === undefined || info.instanceId !== instanceId || info.tenant !== tenant) throw taskNotFound(taskId);
    return info;
  }

  async #start(instance: RuntimeInstance, request: SendMessageRequest, key: MessageKey, hooks: SendHooks): Promise<SendOutcome> {
    const { now } = this.#deps;
    // Most messages reference no task: no read, and no pause before the task is created.
    const referenceTasks = request.message.referenceTaskIds?.length
      ? await this.#referenceTasks(instance.id, tenantOf(request), request.message)
      : NO_TASKS;
    const taskId = timeOrderedId();
    const contextId = request.message.contextId || timeOrderedId();
    const message: Message = { ...request.message, contextId, taskId };
    const skill = requestedSkill(request) ?? instance.defaultSkill;
    const createdAt = now();
    const metadata = request.metadata;
    const submitted = status('TASK_STATE_SUBMITTED', createdAt);
    const tenant = tenantOf(request);
    const task = {
      id: taskId,
      instanceId: instance.id,
      tenant,
      contextId,
      skill,
      status: submitted,
      message,
      ...(metadata === undefined ? {} : { metadata }),
      createdAt,
    };

    if (!instance.skills.includes(skill)) {
      const created: TaskContent = { id: taskId, contextId, status: submitted, metadata, history: [message], artifacts: [] };
      // Answered once stored, as every new task is.
      const stored = new Promise<SendOutcome>((answer, fail) =>
        this.#writes.enqueue({
          ...createTaskWrite(task, key, hooks.push?.opsFor(taskId, toWireTask(created))),
          onOutcome: (outcome) => {
            if (!outcome.ok) return void this.#storedElsewhere(instance.id, key, hooks, outcome).then(answer, fail);
            hooks.push?.committed();
            hooks.onTask?.(taskId, created);
            answer({ kind: 'task', taskId });
          },
        }),
      );
      this.#writes.enqueue(
        statusWrite(
          taskId,
          contextId,
          status(
            'TASK_STATE_REJECTED',
            now(),
            agentMessage(`unknown skill "${skill}"; this agent advertises: ${instance.skills.join(', ')}`, taskId, contextId),
          ),
          true,
        ),
      );
      return stored;
    }

    return new Promise<SendOutcome>((answer, fail) => {
      const start: NewTaskStart = {
        task,
        key,
        live: new LiveTask(taskId, contextId, submitted, message, metadata),
        onTask: hooks.onTask,
        push: hooks.push,
        answer,
        lost: (outcome) => void this.#storedElsewhere(instance.id, key, hooks, outcome).then(answer, fail),
      };
      const execution = new Execution(this.#host, instance.id, tenant, taskId, contextId, 'TASK_STATE_SUBMITTED', start);
      const wire: Task = { id: taskId, contextId, status: submitted, history: [message] };
      this.#launch(instance, execution, {
        skill,
        message,
        task: wire,
        referenceTasks,
        resumed: false,
        acceptedOutputModes: hooks.acceptedOutputModes ?? NO_MODES,
        streaming: hooks.streaming === true,
      });
    });
  }

  async #resume(instance: RuntimeInstance, request: SendMessageRequest, key: MessageKey, hooks: SendHooks): Promise<SendOutcome> {
    const taskId = request.message.taskId ?? '';
    const tenant = tenantOf(request);
    const info = await this.#infoOf(instance.id, tenant, taskId);
    if (request.message.contextId && request.message.contextId !== info.contextId) {
      throw a2aError('InvalidParamsError', `message.contextId does not match the context of task ${taskId}`, {
        violations: [
          { field: 'message.contextId', description: `must be ${info.contextId}, the context of task ${taskId}, or be left out` },
        ],
      });
    }
    this.#refuseUnlessWaiting(info, this.#resuming.has(taskId));
    // Claimed until the run is launched, so that a second message read the task meanwhile is refused.
    this.#resuming.add(taskId);
    try {
      return await this.#continue(instance, request, key, hooks, info);
    } finally {
      this.#resuming.delete(taskId);
    }
  }

  /** A message continues a task only while the task waits for one (INPUT_REQUIRED, AUTH_REQUIRED) and no run of it is starting here (`starting`). */
  #refuseUnlessWaiting(info: TaskInfo, starting: boolean): void {
    const taskId = info.id;
    if (isTerminalState(info.state)) {
      throw a2aError(
        'UnsupportedOperationError',
        `task ${taskId} is ${stateWord(info.state)}; a terminal task accepts no more messages (start a new task in the same context)`,
        {
          metadata: { taskId, state: info.state },
        },
      );
    }
    if (isActiveState(info.state) || this.isRunning(taskId) || starting) {
      throw a2aError(
        'UnsupportedOperationError',
        `task ${taskId} is still running; wait until it asks for input before sending another message`,
        {
          metadata: { taskId, state: info.state },
        },
      );
    }
  }

  /**
   * A continuation whose write was refused: the task changed since it was read (another
   * replica took it first, or canceled it), or the write failed. Nothing of it was stored, so
   * the client may send the message again; it is told the task's state as it is now.
   */
  async #refuseTaken(instanceId: string, tenant: string, taskId: string, outcome: WriteOutcome & { ok: false }): Promise<never> {
    if (outcome.stale) {
      const now = await this.#infoOf(instanceId, tenant, taskId);
      this.#refuseUnlessWaiting(now, false);
      throw a2aError(
        'UnsupportedOperationError',
        `task ${taskId} took another message first; send yours again to answer its new question`,
        {
          metadata: { taskId, state: now.state },
        },
      );
    }
    throw writeFailedError(outcome, `the message continuing task ${taskId} could not be stored`, { taskId });
  }

  async #continue(
    instance: RuntimeInstance,
    request: SendMessageRequest,
    key: MessageKey,
    hooks: SendHooks,
    info: TaskInfo,
  ): Promise<SendOutcome> {
    const { now } = this.#deps;
    const taskId = info.id;
    const tenant = info.tenant;
    const message: Message = { ...request.message, contextId: info.contextId, taskId };
    const skill = requestedSkill(request) ?? info.skill;
    const referenceTasks = await this.#referenceTasks(instance.id, tenant, message);
    await hooks.push?.requireRoom(taskId);
    // Registered before the message is added, so its snapshot is the task the message continues.
    const pushOps = hooks.push === undefined ? [] : hooks.push.opsFor(taskId, await this.getTask(instance.id, taskId, { tenant }));
    // The question is answered: the task works again from here. Left in INPUT_REQUIRED until
    // the executor's first event, a stream's first frame would repeat the question, and a
    // client may close a stream at an interrupted state (spec §11.7) before it has begun.
    const working = statusWrite(taskId, info.contextId, status('TASK_STATE_WORKING', now()), false);
    let taken: WriteOutcome | undefined;
    this.#writes.enqueue({
      ...working,
      ops: [
        // The message answers the status that was read. Written in one transaction with the
        // status it moves the task to, so of two messages that read the same status (sent to two
        // replicas at once), or one that read it before a cancel, only one is applied.
        { op: 'expectStatus', taskId, version: info.statusVersion },
        ...pushOps,
        { op: 'appendMessage', taskId, message },
        { op: 'recordIdempotent', instanceId: instance.id, key, result: { kind: 'task', taskId } },
        { op: 'touchContext', instanceId: instance.id, tenant, contextId: info.contextId, at: now() },
        ...working.ops,
      ],
      onOutcome: (outcome) => (taken = outcome),
    });
    if (hooks.push !== undefined) this.#writes.afterCommit(() => hooks.push?.committed());
    await this.#writes.flushFor(taskId);
    if (taken?.ok === false) await this.#refuseTaken(instance.id, tenant, taskId, taken);
    const task = await this.getTask(instance.id, taskId, { tenant });
    this.#launch(instance, new Execution(this.#host, instance.id, tenant, taskId, info.contextId, 'TASK_STATE_WORKING'), {
      skill,
      message,
      task,
      referenceTasks,
      resumed: true,
      acceptedOutputModes: hooks.acceptedOutputModes ?? NO_MODES,
      streaming: hooks.streaming === true,
    });
    // After launch, so a stream following the task sees it running and stays open; the
    // executor starts on a later tick, so no frame can have been published yet.
    hooks.onTask?.(taskId);
    return { kind: 'task', taskId };
  }

  #launch(
    instance: RuntimeInstance,
    execution: Execution,
    run: Pick<ExecutionRequest, 'skill' | 'message' | 'task' | 'referenceTasks' | 'resumed' | 'acceptedOutputModes' | 'streaming'>,
  ): void {
    const { taskId, contextId, tenant } = execution;
    const session = this.#deps.sessions.acquire(instance.id, contextId, tenant);
    this.#active.set(taskId, execution);
    session.activeTasks += 1;
    const request: ExecutionRequest = {
      instanceId: instance.id,
      tenant,
      taskId,
      contextId,
      skill: run.skill,
      message: run.message,
      text: promptText(run.message),
      task: run.task,
      referenceTasks: run.referenceTasks,
      resumed: run.resumed,
      acceptedOutputModes: run.acceptedOutputModes,
      streaming: run.streaming,
      session,
      contextTasks: (limit = 20) => this.#contextTasks(instance.id, tenant, contextId, taskId, limit),
      tools: new RunTools(this.#deps.tools, { instanceId: instance.id, tenant, contextId }, execution.controller),
    };
    if (instance.sessionOrder !== 'fifo') {
      execution.done = this.#run(instance, request, execution, session);
      return;
    }
    // A task that has to wait is stored and answered now, SUBMITTED, so that a non-blocking
    // send returns and a stream shows it; its executor starts when the one before it settles.
    if (session.busy) execution.ensureStored();
    execution.done = session.inTurn(() => this.#run(instance, request, execution, session));
  }

  /**
   * The task a send started (or its direct reply's record) could not be stored. With replicas
   * that is most often because another one stored the same message (same messageId and target)
   * first: its task is this send's answer, as for a resend. When the storage failed, nothing
   * was stored, and the send fails saying so.
   */
  async #storedElsewhere(instanceId: string, key: MessageKey, hooks: SendHooks, outcome: FailedWrite): Promise<SendOutcome> {
    const what = `the task for message ${key.messageId} could not be stored`;
    if (outcome.fault !== undefined) throw writeFailedError(outcome, what, { messageId: key.messageId });
    const earlier = await this.#deps.store.findIdempotent(instanceId, key);
    if (earlier === undefined) throw writeFailedError(outcome, what, { messageId: key.messageId });
    if (earlier.kind === 'task') hooks.onTask?.(earlier.taskId);
    return earlier;
  }

  /** Up to `limit` tasks of the conversation created before `taskId`, oldest first (task ids are time-ordered). */
  async #contextTasks(instanceId: string, tenant: string, contextId: string, taskId: string, limit: number): Promise<readonly Task[]> {
    const wanted = Math.max(0, Math.min(100, Math.floor(limit)));
    if (wanted === 0) return NO_TASKS;
    // Newest status first: one more than wanted, in case this task is among them.
    const page = await this.#deps.store.listTasks(instanceId, { tenant, contextId, pageSize: Math.min(100, wanted + 1) });
    // Earlier only: ids are time-ordered, and a fifo session's later tasks may already wait, SUBMITTED.
    return page.tasks
      .filter((task) => task.id < taskId)
      .slice(0, wanted)
      .sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  }

  /** The referenced tasks the caller may see: of this instance and tenant; other ids read as unknown, and are left out. */
  async #referenceTasks(instanceId: string, tenant: string, message: Message): Promise<readonly Task[]> {
    const ids = message.referenceTaskIds ?? [];
    if (ids.length === 0) return NO_TASKS;
    const tasks = await Promise.all(
      [...new Set(ids)].map(async (taskId) => {
        await this.#writes.flushFor(taskId);
        return this.#deps.store.getTask(instanceId, taskId, { tenant });
      }),
    );
    return tasks.filter((task) => task !== undefined);
  }

  /**
   * Runs the executor on a later microtask, and settles what it leaves open. The run ends when
   * the executor returns or when the task is settled from outside (a cancel, the execution
   * timeout), whichever is first: an executor that ignores its signal cannot hold the session's
   * queue, and its later events are ignored.
   */
  async #run(instance: RuntimeInstance, request: ExecutionRequest, execution: Execution, session: Session): Promise<void> {
    await Promise.resolve();
    const timeoutMs = instance.executionTimeoutMs ?? 0;
    const timer = timeoutMs > 0 && !execution.settled ? setTimeout(() => this.#timeOut(execution, timeoutMs), timeoutMs) : undefined;
    try {
      let failure: { error: unknown } | undefined;
      // Canceled while it waited for its turn: nothing to run.
      if (!execution.settled) {
        const signal = execution.controller.signal;
        try {
          const returned: unknown = instance.executor.execute(request, new RunEvents(execution), signal);
          // A plain-JavaScript executor may return nothing: it is done.
          if (isThenable(returned)) {
            const running = Promise.resolve(returned);
            // What an executor that was stopped throws later is of no interest to anyone.
            running.catch(() => undefined);
            await Promise.race([running, execution.whenStopped()]);
          }
        } catch (error) {
          failure = { error };
        }
        // Aborted without being settled (a shutdown of a task not stored yet): that is no success.
        if (failure === undefined && !execution.settled && signal.aborted) failure = { error: signal.reason };
      }
      if (execution.settled) return;
      if (failure === undefined) {
        execution.apply('TASK_STATE_COMPLETED');
      } else {
        this.#deps.log?.('warn', 'executor failed', {
          taskId: request.taskId,
          error: failure.error instanceof Error ? failure.error.message : String(failure.error),
        });
        execution.apply('TASK_STATE_FAILED', `the agent failed: ${failureText(failure.error)}`);
      }
    } catch (error) {
      this.#deps.log?.('error', 'could not settle a task', { taskId: request.taskId, error: String(error) });
    } finally {
      clearTimeout(timer);
      session.activeTasks -= 1;
      session.lastActiveAt = this.#deps.now();
      // Held until its last writes are committed, so that settled() answers from memory.
      if (this.#writes.isQueued(request.taskId)) await this.#writes.committed();
      if (this.#active.get(request.taskId) === execution) {
        this.#active.delete(request.taskId);
        this.#justSettled.set(request.taskId, execution);
        setImmediate(() => {
          if (this.#justSettled.get(request.taskId) === execution) this.#justSettled.delete(request.taskId);
        });
      }
    }
  }

  /** The execution timeout: the task ends FAILED, saying why, and the executor is told to stop. */
  #timeOut(execution: Execution, timeoutMs: number): void {
    if (execution.settled) return;
    const reason = `the task ran longer than this agent's execution timeout of ${durationText(timeoutMs)} and was stopped; ${RETRY_ADVICE}`;
    this.#deps.log?.('warn', 'a task ran past its execution timeout', { taskId: execution.taskId, timeoutMs });
    execution.apply('TASK_STATE_FAILED', reason);
    execution.stop(new Error(reason));
  }
}

/** One message for an unknown task and for a task of another instance or tenant, so that no caller learns which. */
function taskNotFound(taskId: string): A2AError {
  return a2aError('TaskNotFoundError', `task ${taskId} was not found`, { metadata: { taskId } });
}

/** `metadata.skill` of the message, or else of the request. */
function requestedSkill(request: SendMessageRequest): string | undefined {
  for (const metadata of [request.message.metadata, request.metadata]) {
    const skill = metadata?.['skill'];
    if (typeof skill === 'string' && skill !== '') return skill;
  }
  return undefined;
}

function isThenable(value: unknown): value is PromiseLike<unknown> {
  return typeof value === 'object' && value !== null && typeof (value as { then?: unknown }).then === 'function';
}

/** 90000 → "90 s", 600000 → "10 min", 250 → "250 ms". */
function durationText(ms: number): string {
  if (ms < 1000) return `${ms} ms`;
  if (ms < 120_000 || ms % 60_000 !== 0) return `${Math.round(ms / 100) / 10} s`;
  return `${ms / 60_000} min`;
}

function stateWord(state: TaskState): string {
  return state.replace('TASK_STATE_', '').toLowerCase().replace('_', '-');
}

/** What an executor's failure says, short enough for a status message (no stack, no cause chain). */
function failureText(error: unknown): string {
  const text = error instanceof Error ? error.message : typeof error === 'string' ? error : 'unknown error';
  return text.length > 500 ? `${text.slice(0, 500)}…` : text;
}
