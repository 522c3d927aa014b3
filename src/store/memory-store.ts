import { ACTIVE_STATES, isTerminalState } from '../../generated/a2a/1.0/task-states.js';
import type { Artifact, Message, StreamResponse, Task, TaskState, TaskStatus } from '../../generated/a2a/1.0/types.js';
import { applyChunk, withParts, type AssembledArtifact } from './artifact-chunks.js';
import type { ListPosition } from './cursor.js';
import { cloneJson } from './json.js';
import { compareIds, compareListOrder, listTasks, matchesFilter, type ListFilter, type ListRequest } from './listing.js';
import { messageTarget } from './message-target.js';
import {
  deliveryPairKey,
  HEALTHY,
  type PushAttempt,
  type PushConfigRecord,
  type PushDelivery,
  type PushHealth,
  type StoredPushConfig,
  type UnhealthyCounts,
} from './push-store.js';
import { StoredSettings, type ConfigTable, type MetaTable, type StoredConfig } from './stored-settings.js';
import {
  DuplicateKeyError,
  EVENT_LOG_LIMIT,
  UnknownTaskError,
  type ContextBinding,
  type IdempotentResult,
  type LoggedEvent,
  type MessageKey,
  type NewTask,
  type StoredInstance,
  type StoredOutbound,
  type TaskBrowseQuery,
  type TaskInfo,
  type TaskPage,
  type TaskQuery,
  type TaskRead,
  type TaskSnapshot,
  type TaskStore,
  statusChangedError,
  tenantOf,
} from './task-store.js';
import type { RetentionRule } from './retention.js';
import { applyBatch, type StoreOp, type WriteOutcome } from './store-ops.js';
import { toWireTask } from './task-view.js';
import { millisToTimestamp, statusMillis, timestampMillis } from './timestamps.js';

/** One entry of a task's status history: enough to see the task as of a watermark. */
interface StatusEntry {
  /** The store's change watermark when this status was recorded. */
  readonly version: number;
  readonly state: TaskState;
  readonly ts: number;
}

interface StoredTask {
  readonly id: string;
  readonly instanceId: string;
  readonly tenant: string;
  readonly contextId: string;
  readonly skill: string;
  readonly createdAt: string;
  readonly metadata: Record<string, unknown> | undefined;
  status: TaskStatus;
  /** Oldest first; the last entry is the current status. Never empty. */
  readonly statuses: StatusEntry[];
  readonly history: Message[];
  /** A Map keeps first-insertion order, even when an entry is replaced. */
  readonly artifacts: Map<string, AssembledArtifact>;
  events: LoggedEvent[];
  lastSeq: number;
}

/** Everything the store holds, in one value so that a transaction can snapshot it. */
interface State {
  version: number;
  readonly tasks: Map<string, StoredTask>;
  readonly idempotency: Map<string, IdempotentResult>;
  readonly contexts: Map<string, ContextBinding>;
  readonly instances: Map<string, StoredInstance>;
  readonly outbounds: Map<string, StoredOutbound>;
  readonly meta: Map<string, string>;
  /** By task, then by config id in first-creation order (replacing an entry keeps its place). */
  readonly pushConfigs: Map<string, Map<string, PushConfigRecord>>;
  /** By delivery id, which increases: iteration is queue order. */
  readonly outbox: Map<number, PushDelivery>;
  lastDeliveryId: number;
  /** By deliveryPairKey, newest first. */
  readonly attempts: Map<string, PushAttempt[]>;
}

function emptyState(): State {
  return {
    version: 0,
    tasks: new Map(),
    idempotency: new Map(),
    contexts: new Map(),
    instances: new Map(),
    outbounds: new Map(),
    meta: new Map(),
    pushConfigs: new Map(),
    outbox: new Map(),
    lastDeliveryId: 0,
    attempts: new Map(),
  };
}

/** A configuration table over one of the state's maps, handing out and taking in copies. */
function mapTable(map: () => Map<string, StoredConfig>): ConfigTable {
  return {
    all: () => [...map().values()].sort((a, b) => compareIds(a.id, b.id)).map((record) => cloneJson(record)),
    save: (record) => void map().set(record.id, cloneJson({ id: record.id, config: record.config })),
    remove: (id) => void map().delete(id),
  };
}

/** Maps keyed by several strings; JSON keeps ("a:b", "c") and ("a", "b:c") apart. */
function contextKey(instanceId: string, tenant: string, contextId: string): string {
  return JSON.stringify([instanceId, tenant, contextId]);
}

function idempotencyKey(instanceId: string, key: MessageKey): string {
  return JSON.stringify([instanceId, tenantOf(key), key.messageId, messageTarget(key)]);
}

/**
 * The TaskStore in memory, for tests. Values go in and out as JSON copies, so it hands back
 * exactly what the SQLite store would. A transaction snapshots the whole state and puts it
 * back if `work` throws: O(size), fine for the test-sized data it is meant for. Every other
 * method validates before it mutates, so it never needs a rollback of its own.
 */
export class MemoryTaskStore extends StoredSettings implements TaskStore {
  private state: State = emptyState();
  // Looked up on every call: a rollback or close replaces the state.
  protected readonly instanceTable = mapTable(() => this.state.instances);
  protected readonly outboundTable = mapTable(() => this.state.outbounds);
  protected get metaTable(): MetaTable {
    return this.state.meta;
  }

  #depth = 0;
  readonly #eventLogSize: number;

  constructor(options: { readonly eventLogSize?: number } = {}) {
    super();
    this.#eventLogSize = options.eventLogSize ?? EVENT_LOG_LIMIT;
  }

  commit(batch: readonly (readonly StoreOp[])[]): WriteOutcome[] {
    return applyBatch(this, batch);
  }

  snapshotTask(instanceId: string, taskId: string, read: TaskRead = {}, replayAfter?: number): TaskSnapshot | undefined {
    // Synchronous: no commit can come between the reads.
    const task = this.getTask(instanceId, taskId, read);
    if (task === undefined) return undefined;
    const seq = this.lastEventSeq(taskId);
    if (replayAfter === undefined) return { task, seq };
    return { task, seq, replay: this.eventsAfter(taskId, replayAfter).filter((event) => event.seq <= seq) };
  }

  transaction<T>(work: () => T): T {
    // Nested calls join the outer transaction, as in the SQLite store: only the outermost
    // one snapshots, and a failure anywhere inside restores that snapshot.
    const snapshot = this.#depth === 0 ? structuredClone(this.state) : undefined;
    this.#depth += 1;
    try {
      const result = work();
      if (result instanceof Promise) throw new TypeError('transaction work must be synchronous');
      return result;
    } catch (error) {
      if (snapshot !== undefined) this.state = snapshot;
      throw error;
    } finally {
      this.#depth -= 1;
    }
  }

  createTask(task: NewTask): void {
    if (this.state.tasks.has(task.id)) throw new DuplicateKeyError(`task ${task.id} already exists`);
    const ts = statusMillis(task.status, timestampMillis(task.createdAt));
    const version = ++this.state.version;
    this.state.tasks.set(task.id, {
      id: task.id,
      instanceId: task.instanceId,
      tenant: tenantOf(task),
      contextId: task.contextId,
      skill: task.skill,
      createdAt: task.createdAt,
      metadata: task.metadata === undefined ? undefined : cloneJson(task.metadata),
      status: cloneJson(task.status),
      statuses: [{ version, state: task.status.state, ts }],
      history: [cloneJson(task.message)],
      artifacts: new Map(),
      events: [],
      lastSeq: 0,
    });
  }

  getTask(instanceId: string, taskId: string, view: TaskRead = {}): Task | undefined {
    const task = this.state.tasks.get(taskId);
    if (task === undefined || task.instanceId !== instanceId || task.tenant !== tenantOf(view)) return undefined;
    const artifacts = [...task.artifacts.values()].map(({ header, parts }) => withParts(header, parts));
    return cloneJson(toWireTask({ ...task, artifacts }, view));
  }

  browseTasks(query: TaskBrowseQuery): { rows: TaskInfo[]; total: number } {
    const matching = [...this.state.tasks.values()]
      .filter(
        (task) =>
          (query.instanceId === undefined || task.instanceId === query.instanceId) &&
          (query.tenant === undefined || task.tenant === query.tenant) &&
          (query.contextId === undefined || task.contextId === query.contextId) &&
          (query.state === undefined || task.status.state === query.state),
      )
      .sort((a, b) => current(b).ts - current(a).ts || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0));
    return { rows: matching.slice(query.offset, query.offset + query.limit).map(infoOf), total: matching.length };
  }

  countByState(): Partial<Record<TaskState, number>> {
    const counts: Partial<Record<TaskState, number>> = {};
    for (const task of this.state.tasks.values()) counts[task.status.state] = (counts[task.status.state] ?? 0) + 1;
    return counts;
  }

  getTaskInfo(taskId: string): TaskInfo | undefined {
    const task = this.state.tasks.get(taskId);
    return task === undefined ? undefined : infoOf(task);
  }

  setStatus(taskId: string, status: TaskStatus): void {
    const task = this.require(taskId);
    const ts = statusMillis(status, current(task).ts);
    task.statuses.push({ version: ++this.state.version, state: status.state, ts });
    task.status = cloneJson(status);
  }

  appendMessage(taskId: string, message: Message): void {
    this.require(taskId).history.push(cloneJson(message));
  }

  expectStatus(taskId: string, version: number): void {
    if (current(this.require(taskId)).version !== version) throw statusChangedError(taskId);
  }

  putArtifact(taskId: string, artifact: Artifact, append: boolean): void {
    applyChunk(this.require(taskId).artifacts, cloneJson(artifact), append);
  }

  listTasks(instanceId: string, query: TaskQuery): TaskPage {
    return listTasks(instanceId, query, {
      watermark: () => this.state.version,
      count: (filter) => this.tasksOf(filter).filter((task) => matches(filter, task, current(task))).length,
      positions: (request, asOf) => this.positions(request, asOf),
      load: (taskId) => this.getTask(instanceId, taskId, query),
    });
  }

  appendEvent(taskId: string, frame: StreamResponse): number {
    const task = this.require(taskId);
    const seq = ++task.lastSeq;
    for (const config of this.state.pushConfigs.get(taskId)?.values() ?? []) this.enqueueDelivery(taskId, config.id, frame);
    if (frame.artifactUpdate !== undefined) return seq;
    task.events.push({ seq, frame: cloneJson(frame) });
    if (task.events[0] !== undefined && task.events[0].seq <= seq - this.#eventLogSize)
      task.events = task.events.filter((event) => event.seq > seq - this.#eventLogSize);
    return seq;
  }

  eventsAfter(taskId: string, afterSeq: number): LoggedEvent[] {
    const events = this.state.tasks.get(taskId)?.events ?? [];
    return cloneJson(events.filter((event) => event.seq > afterSeq));
  }

  lastEventSeq(taskId: string): number {
    return this.state.tasks.get(taskId)?.lastSeq ?? 0;
  }

  findIdempotent(instanceId: string, key: MessageKey): IdempotentResult | undefined {
    const result = this.state.idempotency.get(idempotencyKey(instanceId, key));
    return result === undefined ? undefined : cloneJson(result);
  }

  recordIdempotent(instanceId: string, key: MessageKey, result: IdempotentResult): void {
    const stored = idempotencyKey(instanceId, key);
    if (this.state.idempotency.has(stored)) {
      throw new DuplicateKeyError(`message ${key.messageId} of instance ${instanceId} is already recorded for ${messageTarget(key)}`);
    }
    this.state.idempotency.set(stored, cloneJson(result));
  }

  touchContext(instanceId: string, contextId: string, at: string, tenant = ''): void {
    const key = contextKey(instanceId, tenant, contextId);
    const createdAt = this.state.contexts.get(key)?.createdAt ?? at;
    this.state.contexts.set(key, { instanceId, tenant, contextId, createdAt, lastActiveAt: at });
  }

  getContext(instanceId: string, contextId: string, tenant = ''): ContextBinding | undefined {
    const binding = this.state.contexts.get(contextKey(instanceId, tenant, contextId));
    return binding === undefined ? undefined : { ...binding };
  }

  putPushConfig(config: StoredPushConfig): void {
    this.require(config.taskId);
    let configs = this.state.pushConfigs.get(config.taskId);
    if (configs === undefined) {
      configs = new Map();
      this.state.pushConfigs.set(config.taskId, configs);
    }
    configs.set(config.id, { ...cloneJson(config), health: HEALTHY });
  }

  getPushConfig(taskId: string, configId: string): PushConfigRecord | undefined {
    const record = this.state.pushConfigs.get(taskId)?.get(configId);
    return record === undefined ? undefined : cloneJson(record);
  }

  listPushConfigs(taskId: string): PushConfigRecord[] {
    return cloneJson([...(this.state.pushConfigs.get(taskId)?.values() ?? [])]);
  }

  countPushConfigs(taskId: string): number {
    return this.state.pushConfigs.get(taskId)?.size ?? 0;
  }

  mayHavePushConfigs(taskId: string): boolean {
    return this.state.pushConfigs.has(taskId);
  }

  deletePushConfig(taskId: string, configId: string): boolean {
    const configs = this.state.pushConfigs.get(taskId);
    if (configs?.delete(configId) !== true) return false;
    if (configs.size === 0) this.state.pushConfigs.delete(taskId);
    this.dropDeliveries(taskId, configId);
    this.state.attempts.delete(deliveryPairKey(taskId, configId));
    return true;
  }

  setPushHealth(taskId: string, configId: string, health: PushHealth): void {
    const record = this.state.pushConfigs.get(taskId)?.get(configId);
    if (record === undefined) return;
    this.state.pushConfigs.get(taskId)?.set(configId, { ...record, health: cloneJson(health) });
    if (health.state === 'disabled') this.dropDeliveries(taskId, configId);
  }

  unhealthyPushConfigs(limit?: number): PushConfigRecord[] {
    const unhealthy = this.unhealthyRecords().sort((a, b) => (a.createdAt < b.createdAt ? -1 : a.createdAt > b.createdAt ? 1 : 0));
    return cloneJson(unhealthy.slice(0, limit));
  }

  unhealthyPushConfigCounts(): UnhealthyCounts {
    const counts = { failing: 0, disabled: 0 };
    for (const { health } of this.unhealthyRecords()) if (health.state !== 'active') counts[health.state] += 1;
    return counts;
  }

  private unhealthyRecords(): PushConfigRecord[] {
    return [...this.state.pushConfigs.values()].flatMap((configs) =>
      [...configs.values()].filter((record) => record.health.state !== 'active'),
    );
  }

  enqueueDelivery(taskId: string, configId: string, frame: StreamResponse): void {
    const record = this.state.pushConfigs.get(taskId)?.get(configId);
    if (record === undefined || record.health.state === 'disabled') return;
    const id = ++this.state.lastDeliveryId;
    this.state.outbox.set(id, {
      id,
      taskId,
      configId,
      frame: cloneJson(frame),
      attempts: 0,
      dueAt: 0,
      createdAt: new Date().toISOString(),
    });
  }

  dueDeliveries(nowMs: number, limit: number, busy: ReadonlySet<string> = new Set()): PushDelivery[] {
    const due: PushDelivery[] = [];
    for (const delivery of this.heads()) {
      if (due.length >= limit) break;
      if (delivery.dueAt <= nowMs && !busy.has(deliveryPairKey(delivery.taskId, delivery.configId))) due.push(cloneJson(delivery));
    }
    return due;
  }

  nextDueAt(): number | undefined {
    let next: number | undefined;
    for (const delivery of this.heads()) if (next === undefined || delivery.dueAt < next) next = delivery.dueAt;
    return next;
  }

  completeDelivery(deliveryId: number): void {
    this.state.outbox.delete(deliveryId);
  }

  retryDelivery(deliveryId: number, dueAt: number): void {
    const delivery = this.state.outbox.get(deliveryId);
    if (delivery !== undefined) this.state.outbox.set(deliveryId, { ...delivery, attempts: delivery.attempts + 1, dueAt });
  }

  rescheduleConfig(taskId: string, configId: string, dueAt: number): void {
    for (const delivery of this.state.outbox.values())
      if (delivery.taskId === taskId && delivery.configId === configId) this.state.outbox.set(delivery.id, { ...delivery, dueAt });
  }

  pendingDeliveries(taskId?: string, configId?: string): number {
    if (taskId === undefined && configId === undefined) return this.state.outbox.size;
    let count = 0;
    for (const delivery of this.state.outbox.values())
      if ((taskId === undefined || delivery.taskId === taskId) && (configId === undefined || delivery.configId === configId)) count += 1;
    return count;
  }

  recordAttempt(attempt: PushAttempt, keep: number): void {
    const key = deliveryPairKey(attempt.taskId, attempt.configId);
    if (this.state.pushConfigs.get(attempt.taskId)?.has(attempt.configId) !== true) return;
    const attempts = [cloneJson(attempt), ...(this.state.attempts.get(key) ?? [])].slice(0, keep);
    this.state.attempts.set(key, attempts);
  }

  listAttempts(taskId: string, configId: string, limit: number): PushAttempt[] {
    return cloneJson((this.state.attempts.get(deliveryPairKey(taskId, configId)) ?? []).slice(0, limit));
  }

  settleUnfinished(status: (task: TaskInfo) => TaskStatus): string[] {
    return this.transaction(() => {
      const unfinished = [...this.state.tasks.values()].filter((task) => ACTIVE_STATES.has(task.status.state));
      for (const task of unfinished) this.setStatus(task.id, status(infoOf(task)));
      return unfinished.map((task) => task.id);
    });
  }

  ping(): void {
    // Memory answers as long as the process does.
  }

  pruneTasks(instanceId: string, rule: RetentionRule, nowMs: number, limit: number): string[] {
    const pending = new Set([...this.state.outbox.values()].map((delivery) => delivery.taskId));
    const settled = [...this.state.tasks.values()]
      .filter((task) => task.instanceId === instanceId && isTerminalState(task.status.state))
      .sort((a, b) => current(a).ts - current(b).ts || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
    const victims = new Set<string>();
    if (rule.maxAgeMs !== undefined)
      for (const task of settled) if (current(task).ts < nowMs - rule.maxAgeMs && !pending.has(task.id)) victims.add(task.id);
    if (rule.maxTasks !== undefined)
      for (const task of settled.slice(0, Math.max(0, settled.length - rule.maxTasks))) if (!pending.has(task.id)) victims.add(task.id);
    const pruned = settled
      .filter((task) => victims.has(task.id))
      .slice(0, limit)
      .map((task) => task.id);
    for (const taskId of pruned) {
      for (const configId of this.state.pushConfigs.get(taskId)?.keys() ?? [])
        this.state.attempts.delete(deliveryPairKey(taskId, configId));
      this.state.pushConfigs.delete(taskId);
      this.state.tasks.delete(taskId);
      for (const [key, result] of this.state.idempotency)
        if (result.kind === 'task' && result.taskId === taskId) this.state.idempotency.delete(key);
    }
    if (pruned.length > 0) this.state.version += 1;
    return pruned;
  }

  probeWrite(): void {
    // Memory takes writes as long as the process does.
  }

  close(): void {
    this.state = emptyState();
  }

  /** Each pair's oldest pending delivery, in id order. */
  private *heads(): Generator<PushDelivery> {
    const seen = new Set<string>();
    for (const delivery of this.state.outbox.values()) {
      const key = deliveryPairKey(delivery.taskId, delivery.configId);
      if (seen.has(key)) continue;
      seen.add(key);
      yield delivery;
    }
  }

  private dropDeliveries(taskId: string, configId: string): void {
    for (const delivery of [...this.state.outbox.values()])
      if (delivery.taskId === taskId && delivery.configId === configId) this.state.outbox.delete(delivery.id);
  }

  private require(taskId: string): StoredTask {
    const task = this.state.tasks.get(taskId);
    if (task === undefined) throw new UnknownTaskError(taskId);
    return task;
  }

  private tasksOf(filter: ListFilter): StoredTask[] {
    return [...this.state.tasks.values()].filter((task) => task.instanceId === filter.instanceId && task.tenant === filter.tenant);
  }

  private positions(request: ListRequest, asOf: number): ListPosition[] {
    const positions: ListPosition[] = [];
    for (const task of this.tasksOf(request.filter)) {
      const then = statusAsOf(task, asOf);
      if (then === undefined || !matches(request.filter, task, then)) continue;
      const position = { ts: then.ts, id: task.id };
      if (request.resume === undefined || compareListOrder(position, request.resume.after) > 0) positions.push(position);
    }
    return positions.sort(compareListOrder).slice(0, request.fetch);
  }
}

function current(task: StoredTask): StatusEntry {
  const entry = task.statuses.at(-1);
  if (entry === undefined) throw new Error(`task ${task.id} has no status`);
  return entry;
}

/** The status the task had at the watermark; undefined when it did not exist yet. */
function statusAsOf(task: StoredTask, asOf: number): StatusEntry | undefined {
  return task.statuses.findLast((entry) => entry.version <= asOf);
}

function matches(filter: ListFilter, task: StoredTask, status: StatusEntry): boolean {
  return matchesFilter(filter, task.contextId, status.state, status.ts);
}

function infoOf(task: StoredTask): TaskInfo {
  return {
    id: task.id,
    instanceId: task.instanceId,
    tenant: task.tenant,
    contextId: task.contextId,
    skill: task.skill,
    state: task.status.state,
    createdAt: task.createdAt,
    updatedAt: millisToTimestamp(current(task).ts),
    statusVersion: current(task).version,
  };
}
