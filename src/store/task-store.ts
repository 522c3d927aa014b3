import { DEFAULTS as HUB_DEFAULTS } from '../../generated/hub/defaults.js';
import type { Artifact, Message, StreamResponse, Task, TaskState, TaskStatus } from '../../generated/a2a/1.0/types.js';
import type { PushConfigs, PushOutbox } from './push-store.js';
import type { Awaitable } from '../support/awaitable.js';
import type { StoreOp, WriteOutcome } from './store-ops.js';
import type { TaskRetention } from './retention.js';

/**
 * Durable state of the hub: tasks with their status history, messages and artifacts, the
 * per-task event log that SSE replay reads, context bindings, the messageId idempotency
 * index, push-notification configs and their delivery outbox (push-store.ts), and the
 * configuration of instances and outbound connections. Two implementations
 * share one contract test: SQLite (default, `sqlite-store.ts`) and memory (`memory-store.ts`,
 * for tests).
 *
 * The contract is split by job (below); a module depends on the slices it uses, so what it can
 * touch is visible in its types. `TaskStore` is all of them, for the code that opens a store.
 *
 * Every method returns an `Awaitable`: a store that answers at once (SQLite through
 * better-sqlite3, memory) returns the value itself, so the hot path pays no promise for it; one
 * that must wait for a server (PostgreSQL) returns a promise. Callers always await. Nothing may
 * rely on two calls being atomic together: what must be (the writes of one task update, a
 * check and the write it guards) goes in one `commit` batch, whose guards make a stale write
 * fail instead of overwriting another writer's work.
 *
 * Everything stored as JSON comes back deep-equal to what was given (members set to
 * `undefined` are dropped, as JSON drops them), and every object returned is a copy.
 * Writes that name a task the store does not hold throw UnknownTaskError; reads return
 * undefined, `[]` or 0 instead.
 */
export interface TaskStore
  extends
    BatchWrites,
    TaskReads,
    TaskWrites,
    EventLog,
    IdempotencyIndex,
    ContextBindings,
    PushConfigs,
    PushOutbox,
    InstanceConfigs,
    OutboundConfigs,
    MetaStore,
    TaskRetention {
  /**
   * Throws when the store cannot answer a read now (a closed database, a file it can no longer
   * read): what the readiness endpoint asks before it says the hub should get traffic.
   */
  ping(): Awaitable<void>;
  /**
   * A small write that needs what task writes need (space, a database that commits), leaving
   * nothing behind; throws as a task write would. What the readiness check tries while writes
   * fail, to learn when they work again (storage-health.ts).
   */
  probeWrite(): Awaitable<void>;
  close(): Awaitable<void>;
  /**
   * Set by a store several hub replicas share: how often the hub settles the unfinished tasks
   * no live replica holds (settleUnfinished), since a replica may die at any time, not only
   * before this one starts.
   */
  readonly recoverEveryMs?: number;
  /**
   * Set by a store several hub replicas share: how each replica hears of the others' writes
   * (new frames, tasks settled elsewhere, configuration changes).
   */
  readonly signals?: ReplicaSignals;
}

/**
 * Signals between the replicas sharing a store. A frame's signal is sent by the store itself
 * when the frame's transaction commits, so a replica that hears it can read the frame. Signals
 * are hints: one may be missed (the listening connection dropped), so a replica that depends on
 * them also polls, more often while `listening` is false, and takes a `resync` as "anything may
 * have changed".
 */
export interface ReplicaSignals {
  /** Starts listening; resolves once signals sent from now on reach `listener`. Once only. */
  listen(listener: (signal: ReplicaSignal) => void): Promise<void>;
  /** Sends a signal to every replica, this one included. */
  send(signal: Exclude<ReplicaSignal, { kind: 'frame' | 'resync' }>): Promise<void>;
  /** Whether signals are being heard now. */
  readonly listening: boolean;
  /** This replica's name in the signals it sends. */
  readonly id: string;
  close(): Promise<void>;
}

export type ReplicaSignal =
  /** Frame `seq` of the task is committed to its event log. */
  | { readonly kind: 'frame'; readonly taskId: string; readonly seq: number }
  /** A replica settled the task (CancelTask): a replica still running it stops its executor. */
  | { readonly kind: 'settled'; readonly taskId: string }
  /** Instances or outbound connections changed through the control API of replica `from` (ReplicaSignals.id). */
  | { readonly kind: 'config'; readonly from: string }
  /** The listening connection came back after signals may have been missed. */
  | { readonly kind: 'resync' };

export type { Awaitable };

/** Writes as data (store-ops.ts), applied in transactions: how the hub changes tasks. */
export interface BatchWrites {
  /**
   * Applies a batch of writes in one transaction, each write's ops in order. When that fails,
   * each write is applied in a transaction of its own, so one bad write (or one whose guard
   * finds the data changed) does not take the others with it. One outcome per write.
   */
  commit(batch: readonly (readonly StoreOp[])[]): Awaitable<WriteOutcome[]>;
  /**
   * How many commits that answer later may run at once (1 when absent). A store on a server
   * commits each batch over its own connection, so batches of different tasks need not wait
   * for each other's round trips; the write queue never puts one task in two of them.
   */
  readonly commitConcurrency?: number;
}

/** A store whose transactions run synchronous work (SQLite, memory): what `applyBatch` builds on. */
export interface Transactional {
  /**
   * Runs `work` in one transaction, all or nothing. A nested call joins the outer transaction
   * (no savepoint): its writes commit with the outer ones, and a throw anywhere inside that
   * escapes the outer work undoes all of it. `work` must be synchronous (a returned promise
   * is a TypeError).
   */
  transaction<T>(work: () => T): T;
}

/** Reading tasks: one at a time, the protocol's ListTasks pages, and the control API's table. */
export interface TaskReads {
  /**
   * The task as it is on the wire, or undefined when this instance has no such task under the
   * tenant `read.tenant` names (none by default): a task of another tenant reads as unknown.
   */
  getTask(instanceId: string, taskId: string, read?: TaskRead): Awaitable<Task | undefined>;
  /**
   * The task as getTask reads it together with the sequence number of its newest frame, both as
   * of one moment: what a stream starts from, so that it neither misses nor repeats a frame.
   * With `replayAfter`, also the logged frames numbered after it up to that newest one, read
   * in the same moment (a resuming stream's replay: nothing between the two is lost or repeated).
   */
  snapshotTask(instanceId: string, taskId: string, read?: TaskRead, replayAfter?: number): Awaitable<TaskSnapshot | undefined>;
  /** Bookkeeping the protocol does not show: owner, skill, timestamps. */
  getTaskInfo(taskId: string): Awaitable<TaskInfo | undefined>;
  /**
   * A page of the instance's tasks under `query.tenant` (none by default), newest status timestamp first, ties by task id descending.
   * A walk through the pages is a snapshot taken at its first page: it returns every task
   * that matched then exactly once, ordered and filtered by the status each task had then,
   * even if tasks are created or change status in between; `totalSize` is the same on every
   * page. The tasks themselves carry their current data. Throws InvalidCursorError for a
   * cursor this store did not issue or one issued for other filters (or another instance or tenant).
   */
  listTasks(instanceId: string, query: TaskQuery): Awaitable<TaskPage>;
  /**
   * Tasks across instances for the control API's task table: offset-paged (the panel jumps to
   * pages), newest status first. Not the protocol's ListTasks, whose cursor is stable.
   */
  browseTasks(query: TaskBrowseQuery): Awaitable<{ rows: TaskInfo[]; total: number }>;
  /** How many stored tasks are in each state (states without tasks are left out). */
  countByState(): Awaitable<Partial<Record<TaskState, number>>>;
}

/** Changing tasks. */
export interface TaskWrites {
  /**
   * Creates a task with its first status and its first history message. Throws
   * DuplicateKeyError for an id already stored; `createdAt` must be an RFC 3339 timestamp.
   */
  createTask(task: NewTask): Awaitable<void>;
  /**
   * Records a new status (with its message, if any, inside it) in the task's status history
   * and makes it the current one. History is not touched: append a message for that. The
   * status timestamp (RFC 3339) places the task in ListTasks; a status without one keeps the
   * task where it was. A store replicas share refuses a status for a task already terminal
   * (StaleWriteError): one replica's cancel or settlement is not overwritten by another still
   * running the task.
   */
  setStatus(taskId: string, status: TaskStatus): Awaitable<void>;
  /** Adds a message to the task's history. */
  appendMessage(taskId: string, message: Message): Awaitable<void>;
  /**
   * Stores an artifact chunk: with `append`, its parts are added after the parts already
   * stored for the same artifactId (name, description, metadata and extensions are updated
   * when given); without, the artifact is replaced. Never rewrites the whole task.
   */
  putArtifact(taskId: string, artifact: Artifact, append: boolean): Awaitable<void>;
  /**
   * Settles every task left SUBMITTED or WORKING by a crash: each gets the status `status`
   * returns for it (FAILED with an explanatory message), recorded like setStatus, all in one
   * transaction. Returns the ids it settled, oldest task first. A store replicas share settles
   * only the tasks no live replica holds: those whose execution lease lapsed.
   */
  settleUnfinished(status: (task: TaskInfo) => TaskStatus): Awaitable<string[]>;
}

/** Each task's log of stream frames, which SSE replay reads. */
export interface EventLog {
  /**
   * Gives a stream frame the task's next sequence number (1, 2, 3… per task) and returns it.
   * A store one process owns may keep artifact frames out of the log (they only take their
   * number): a replay sends the assembled artifacts in its snapshot, never the chunks. Every
   * other frame is logged, and the log keeps those among the newest `eventLogSize` (default
   * `EVENT_LOG_LIMIT`) sequence numbers. Such a store may also leave out the frames logged in
   * the transaction that made their task terminal: no replay serves a terminal task
   * (SubscribeToTask refuses it), so they would never be read. A store replicas share (one
   * with `signals`) logs every frame, since a replica following a task another one runs reads
   * its frames, chunks and final status included, from the log.
   *
   * Every frame, whether logged or not, is also queued in the same transaction for delivery to
   * each config of the task that is not disabled (PushOutbox).
   */
  appendEvent(taskId: string, frame: StreamResponse): Awaitable<number>;
  /** Frames with a sequence number greater than `afterSeq`, oldest first. */
  eventsAfter(taskId: string, afterSeq: number): Awaitable<LoggedEvent[]>;
  /** The sequence number of the newest frame, 0 when there is none. */
  lastEventSeq(taskId: string): Awaitable<number>;
}

/**
 * What each message produced, so a resent message gets the first answer. A message is known by
 * its messageId together with the target it names (MessageKey): a retry carries the same
 * target, while a client that reuses an id for another task or context sends a new message.
 */
export interface IdempotencyIndex {
  /** The task an earlier message with this key produced, or the direct reply it got. */
  findIdempotent(instanceId: string, key: MessageKey): Awaitable<IdempotentResult | undefined>;
  /** Throws DuplicateKeyError when the key is already recorded: the first result stands. */
  recordIdempotent(instanceId: string, key: MessageKey, result: IdempotentResult): Awaitable<void>;
}

/**
 * A message as the idempotency index tells messages apart: its id and its taskId and
 * contextId exactly as the client sent them (not as the hub filled them in). An absent member
 * is a different key from any value, the empty string included.
 */
export type MessageKey = Pick<Message, 'messageId' | 'taskId' | 'contextId'> & {
  /** The tenant the message was sent under: the same message under another tenant is another message. */
  readonly tenant?: string;
};

/**
 * Which contexts each instance has seen, and when last, per tenant: one contextId under two
 * tenants is two conversations.
 */
export interface ContextBindings {
  /** Marks the context as used by the instance under `tenant` (none by default) at `at`, creating the binding when new. */
  touchContext(instanceId: string, contextId: string, at: string, tenant?: string): Awaitable<void>;
  getContext(instanceId: string, contextId: string, tenant?: string): Awaitable<ContextBinding | undefined>;
}

/** The inbound instances' configuration. */
export interface InstanceConfigs {
  /** Every saved instance, by id. */
  loadInstances(): Awaitable<StoredInstance[]>;
  /** Inserts or replaces the instance with this id. */
  saveInstance(instance: StoredInstance): Awaitable<void>;
  /** Forgets the instance's configuration; its tasks, contexts and idempotency keys stay. */
  deleteInstance(id: string): Awaitable<void>;
}

/** The outbound connections' configuration. */
export interface OutboundConfigs {
  /** Every saved outbound connection, by id. */
  loadOutbounds(): Awaitable<StoredOutbound[]>;
  /** Inserts or replaces the outbound connection with this id. */
  saveOutbound(outbound: StoredOutbound): Awaitable<void>;
  /** Forgets the outbound connection's configuration. */
  deleteOutbound(id: string): Awaitable<void>;
}

/** A small key/value area for the hub's own flags (e.g. that first-start setup ran). */
export interface MetaStore {
  getMeta(key: string): Awaitable<string | undefined>;
  setMeta(key: string, value: string): Awaitable<void>;
  deleteMeta(key: string): Awaitable<void>;
}

/** Frames a task's event log keeps unless the store is opened with another `eventLogSize` (HubConfig.eventLogSize). */
export const EVENT_LOG_LIMIT: number = HUB_DEFAULTS.HubConfig.eventLogSize;

export interface NewTask {
  readonly id: string;
  readonly instanceId: string;
  /** The tenant the task was created under (spec §8.3.2); absent or '' for none. */
  readonly tenant?: string;
  readonly contextId: string;
  readonly skill: string;
  readonly status: TaskStatus;
  readonly message: Message;
  readonly metadata?: Record<string, unknown>;
  readonly createdAt: string;
}

export interface TaskInfo {
  readonly id: string;
  readonly instanceId: string;
  /** '' for a task created under no tenant. */
  readonly tenant: string;
  readonly contextId: string;
  readonly skill: string;
  readonly state: TaskState;
  readonly createdAt: string;
  /**
   * The current status timestamp, normalised to a millisecond UTC ISO string (the
   * creation time while no status carried a timestamp).
   */
  readonly updatedAt: string;
  /**
   * The version of the current status: every status write gives the task a new, larger one. A
   * write computed from this read can require it unchanged (StoreOp `expectStatus`), so that
   * what another replica did to the task meanwhile is never written over.
   */
  readonly statusVersion: number;
}

export interface TaskView {
  /** Unset: the whole history; 0: none (the member is omitted); N: the N most recent. */
  readonly historyLength?: number;
  /** Defaults to true; false omits the `artifacts` member entirely. */
  readonly includeArtifacts?: boolean;
}

/** A task read on behalf of a request: whose it must be, and how much of it to return. */
export interface TaskRead extends TaskView {
  /** The tenant the request names; absent or '' for none. Only that tenant's tasks are found. */
  readonly tenant?: string;
}

export interface TaskQuery extends TaskRead {
  readonly contextId?: string;
  readonly state?: TaskState;
  /**
   * Only tasks whose status timestamp is at or after this instant (RFC 3339). Timestamps
   * compare at millisecond precision; a finer instant rounds up, so no earlier task matches.
   */
  readonly statusTimestampAfter?: string;
  /** 1 to 100, validated by the caller. May differ from page to page of one walk. */
  readonly pageSize: number;
  /** Opaque cursor from a previous page's `nextCursor`; unset or '' for the first page. */
  readonly cursor?: string;
}

export interface TaskBrowseQuery {
  readonly limit: number;
  readonly offset: number;
  readonly instanceId?: string;
  /** '' for the tasks of no tenant; unset for every tenant's. */
  readonly tenant?: string;
  readonly contextId?: string;
  readonly state?: TaskState;
}

export interface TaskPage {
  readonly tasks: Task[];
  /** Matching tasks before paging, as of the walk's first page. */
  readonly totalSize: number;
  /** Cursor for the next page; '' on the last page. */
  readonly nextCursor: string;
}

export interface TaskSnapshot {
  readonly task: Task;
  /** The task's newest frame when it was read: frames numbered after it are news to the reader. */
  readonly seq: number;
  /** With snapshotTask's `replayAfter`: the logged frames after it, up to `seq`, in order. */
  readonly replay?: readonly LoggedEvent[];
}

export interface LoggedEvent {
  readonly seq: number;
  readonly frame: StreamResponse;
}

export type IdempotentResult = { readonly kind: 'task'; readonly taskId: string } | { readonly kind: 'message'; readonly message: Message };

export interface ContextBinding {
  readonly instanceId: string;
  /** '' for no tenant. */
  readonly tenant: string;
  readonly contextId: string;
  readonly createdAt: string;
  readonly lastActiveAt: string;
}

/** An inbound instance as persisted: its configuration, opaque to the store. */
export interface StoredInstance {
  readonly id: string;
  readonly config: Record<string, unknown>;
}

/**
 * An outbound connection as persisted: its configuration, opaque to the store. It may hold a
 * bearer token in clear (one set with outbound.setAuth must be sent, so it cannot be hashed).
 */
export interface StoredOutbound {
  readonly id: string;
  readonly config: Record<string, unknown>;
}

/** The tenant a request or record names, with no tenant and the empty tenant as one: ''. */
export function tenantOf(value: { readonly tenant?: string | undefined }): string {
  return value.tenant ?? '';
}

/** Thrown when a cursor was not made by this store or is malformed. */
export class InvalidCursorError extends Error {
  constructor(message = 'pageToken is not a token this server issued') {
    super(message);
    this.name = 'InvalidCursorError';
  }
}

/** Thrown by a write that names a task the store does not hold. */
export class UnknownTaskError extends Error {
  constructor(readonly taskId: string) {
    super(`no task ${taskId} is stored`);
    this.name = 'UnknownTaskError';
  }
}

/**
 * Thrown by a write whose guard finds that what it was computed from has changed (another
 * writer got there first): the write is refused, never applied over the newer data.
 */
export class StaleWriteError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'StaleWriteError';
  }
}

/** The refusal of an `expectStatus` guard: one message for every store. */
export function statusChangedError(taskId: string): StaleWriteError {
  return new StaleWriteError(`task ${taskId} has a newer status than the one this write was computed from`);
}

/** Thrown when a write would overwrite a record that must be written once (task id, idempotency key). */
export class DuplicateKeyError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'DuplicateKeyError';
  }
}
