import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import Database from 'better-sqlite3';
import { ACTIVE_STATES } from '../../generated/a2a/1.0/task-states.js';
import type { Artifact, Message, Part, StreamResponse, Task, TaskState, TaskStatus } from '../../generated/a2a/1.0/types.js';
import { withParts, type ArtifactHeader } from './artifact-chunks.js';
import type { ListPosition } from './cursor.js';
import { fromJson, toJson } from './json.js';
import { listTasks } from './listing.js';
import { databaseError, folderError, StoreOpenError } from './open-errors.js';
import { countQuery, pageQuery } from './sqlite-listing.js';
import { messageTarget } from './message-target.js';
import { MessageKeys } from './sqlite-message-keys.js';
import type { PushAttempt, PushConfigRecord, PushDelivery, PushHealth, StoredPushConfig, UnhealthyCounts } from './push-store.js';
import { SqlitePushTables } from './sqlite-push.js';
import { SqliteRetention } from './sqlite-retention.js';
import type { RetentionRule } from './retention.js';
import { migrate } from './sqlite-schema.js';
import {
  isConstraintError,
  prepareConfigTable,
  prepareMetaTable,
  prepareStatements,
  StatementCache,
  type Statements,
  type TaskRow,
} from './sqlite-statements.js';
import { WriteBuffer } from './sqlite-write-buffer.js';
import { applyBatch, type StoreOp, type WriteOutcome } from './store-ops.js';
import { StoredSettings, type ConfigTable, type MetaTable } from './stored-settings.js';
import {
  DuplicateKeyError,
  UnknownTaskError,
  type ContextBinding,
  type IdempotentResult,
  type LoggedEvent,
  type MessageKey,
  type NewTask,
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
import { historyLimit, toWireTask, wantsArtifacts } from './task-view.js';
import { infoOf } from './task-info-row.js';

/** The meta key of the readiness check's probe write, never left behind. */
const PROBE_KEY = 'a2a-hub:write-probe';

/**
 * The TaskStore on SQLite (better-sqlite3). Every write touches only the rows it concerns: a
 * status is the task's current-status columns plus one history row for the status it
 * replaces, a message or a part is one row, an event is one row (plus pruning), so cost does
 * not grow with the task.
 *
 * The statements are in sqlite-statements.ts; the task writes, and how a transaction holds
 * them until it ends, in sqlite-write-buffer.ts. This class opens the database, runs the
 * transactions and answers the reads.
 */
export class SqliteTaskStore extends StoredSettings implements TaskStore {
  private readonly sql: Statements;
  private readonly listing: StatementCache;
  readonly #writes: WriteBuffer;
  readonly #push: SqlitePushTables;
  readonly #retention: SqliteRetention;
  /** Only with exclusive locking (see MessageKeys). */
  readonly #messageKeys: MessageKeys | undefined;
  protected readonly instanceTable: ConfigTable;
  protected readonly outboundTable: ConfigTable;
  protected readonly metaTable: MetaTable;

  private constructor(
    private readonly db: Database.Database,
    exclusive: boolean,
    eventLogSize: number | undefined,
  ) {
    super();
    this.sql = prepareStatements(db);
    this.listing = new StatementCache(db);
    this.#writes = new WriteBuffer(this.sql, eventLogSize);
    this.#push = new SqlitePushTables(db);
    this.#retention = new SqliteRetention(db);
    this.#messageKeys = exclusive ? new MessageKeys(this.sql) : undefined;
    this.instanceTable = prepareConfigTable(db, 'instances');
    this.outboundTable = prepareConfigTable(db, 'outbounds');
    this.metaTable = prepareMetaTable(db);
  }

  /**
   * Opens (creating it and its directory if needed) and migrates the database; ':memory:'
   * works too. `exclusive` holds the database for this connection until it closes (SQLite's
   * exclusive locking mode): reads and commits then skip the shared-memory locking that lets
   * other processes in, which measured 7 % of a SendMessage; and a second process opening the
   * same file fails at once instead of sharing it.
   */
  static open(path: string, options: { readonly exclusive?: boolean; readonly eventLogSize?: number } = {}): SqliteTaskStore {
    if (path !== ':memory:' && path !== '') {
      try {
        mkdirSync(dirname(path), { recursive: true });
      } catch (error) {
        throw folderError(error, dirname(path), 'the folder');
      }
    }
    let db: Database.Database;
    try {
      db = new Database(path);
    } catch (error) {
      throw databaseError(error, path);
    }
    try {
      if (options.exclusive === true) {
        db.pragma('locking_mode = EXCLUSIVE');
        try {
          // Takes the lock now, not at the first write, and keeps it (exclusive locking mode).
          db.exec('BEGIN EXCLUSIVE; COMMIT');
        } catch (error) {
          if ((error as { code?: unknown }).code !== 'SQLITE_BUSY') throw error;
          throw new StoreOpenError(`the database ${path} is in use by another process (another a2a-hub on the same data dir?)`, {
            cause: error,
          });
        }
      }
      db.pragma('journal_mode = WAL');
      // With WAL, NORMAL loses at most the last commits on power loss, never consistency.
      db.pragma('synchronous = NORMAL');
      // NORMAL syncs only at checkpoints, which run inside the commit that crosses the limit, on
      // the event loop: every request waits for them. At 32 MiB (8000 pages) one stalled the loop
      // for up to 60 ms and made the p99 of blocking sends 34-57 ms; at 4 MiB (SQLite's default
      // 1000 pages) the worst stall is about 20 ms, p99 13-16 ms, and group commit keeps the more
      // frequent syncs from costing throughput (docs/performance.md, issue 21).
      db.pragma('wal_autocheckpoint = 1000');
      db.pragma(`journal_size_limit = ${64 * 1024 * 1024}`);
      // The default 2 MiB page cache holds only the newest tasks' pages; beyond it every
      // B-tree step of an insert is a read from the OS. 64 MiB is a cap, not an allocation.
      db.pragma(`cache_size = ${-64 * 1024}`);
      db.pragma('foreign_keys = ON');
      db.pragma('busy_timeout = 5000');
      migrate(db);
      return new SqliteTaskStore(db, options.exclusive === true, options.eventLogSize);
    } catch (error) {
      db.close();
      throw databaseError(error, path);
    }
  }

  #run: ((work: () => unknown) => unknown) | undefined;
  /** Inside #run: kept here because asking the connection is a native call per store call. */
  #inTransaction = false;

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
    // Nested calls join the outer transaction (the interface's contract). Not creating a
    // savepoint and a fresh better-sqlite3 wrapper per store call matters: it was a tenth
    // of the time of a task.
    if (this.#inTransaction) {
      const result = work();
      if (result instanceof Promise) throw new TypeError('transaction work must be synchronous');
      return result;
    }
    this.#run ??= this.db.transaction((outer: () => unknown) => {
      this.#inTransaction = true;
      try {
        const result = outer();
        if (result instanceof Promise) throw new TypeError('transaction work must be synchronous');
        this.#writes.commit();
        return result;
      } catch (error) {
        this.#writes.rollBack();
        throw error;
      } finally {
        this.#inTransaction = false;
        this.#writes.endTransaction();
      }
    });
    return this.#run(work) as T;
  }

  createTask(task: NewTask): void {
    if (!this.#inTransaction) return this.transaction(() => this.createTask(task));
    this.#writes.createTask(task);
  }

  getTask(instanceId: string, taskId: string, view: TaskRead = {}): Task | undefined {
    this.#writes.flush();
    const row = this.sql.task.get(taskId);
    if (row === undefined || row.instance_id !== instanceId || row.tenant !== tenantOf(view)) return undefined;
    const limit = historyLimit(view);
    const history = limit === undefined ? this.sql.messages.all(row.key) : limit === 0 ? [] : this.sql.lastMessages.all(row.key, limit);
    return toWireTask(
      {
        id: row.id,
        contextId: row.context_id,
        status: fromJson<TaskStatus>(row.status_json),
        metadata: row.metadata_json === null ? undefined : fromJson<Record<string, unknown>>(row.metadata_json),
        history: history.map((json) => fromJson<Message>(json)),
        artifacts: wantsArtifacts(view) ? this.artifacts(row.key) : [],
      },
      view,
    );
  }

  browseTasks(query: TaskBrowseQuery): { rows: TaskInfo[]; total: number } {
    const filters: string[] = [];
    const bindings: (string | number)[] = [];
    for (const [column, value] of [
      ['instance_id', query.instanceId],
      ['tenant', query.tenant],
      ['context_id', query.contextId],
      ['state', query.state],
    ] as const) {
      if (value === undefined) continue;
      filters.push(`${column} = ?`);
      bindings.push(value);
    }
    const where = filters.length === 0 ? '' : `WHERE ${filters.join(' AND ')}`;
    const total =
      this.db
        .prepare<(string | number)[], number>(`SELECT count(*) FROM tasks ${where}`)
        .pluck()
        .get(...bindings) ?? 0;
    const rows = this.db
      .prepare<(string | number)[], TaskRow>(`SELECT * FROM tasks ${where} ORDER BY status_ts DESC, id DESC LIMIT ? OFFSET ?`)
      .all(...bindings, query.limit, query.offset);
    return { rows: rows.map(infoOf), total };
  }

  countByState(): Partial<Record<TaskState, number>> {
    const counts = this.db.prepare<[], { state: TaskState; n: number }>('SELECT state, count(*) AS n FROM tasks GROUP BY state').all();
    return Object.fromEntries(counts.map(({ state, n }) => [state, n]));
  }

  getTaskInfo(taskId: string): TaskInfo | undefined {
    this.#writes.flush();
    const row = this.sql.task.get(taskId);
    return row === undefined ? undefined : infoOf(row);
  }

  setStatus(taskId: string, status: TaskStatus): void {
    if (this.#inTransaction) return this.#writes.setStatus(taskId, status);
    this.transaction(() => this.#writes.writeStatus(taskId, status));
  }

  appendMessage(taskId: string, message: Message): void {
    this.#writes.appendMessage(taskId, message);
  }

  expectStatus(taskId: string, version: number): void {
    if (this.#writes.statusVersion(taskId) !== version) throw statusChangedError(taskId);
  }

  putArtifact(taskId: string, artifact: Artifact, append: boolean): void {
    if (!this.#inTransaction) return this.transaction(() => this.putArtifact(taskId, artifact, append));
    this.#writes.putArtifact(taskId, artifact, append);
  }

  listTasks(instanceId: string, query: TaskQuery): TaskPage {
    this.#writes.flush();
    return listTasks(instanceId, query, {
      watermark: () => this.#writes.watermark(),
      count: (filter) => {
        const count = countQuery(filter);
        return this.listing.get<{ n: number }>(count.sql).get(count.params)?.n ?? 0;
      },
      positions: (request, asOf) => {
        const page = pageQuery(request, asOf);
        return this.listing.get<ListPosition>(page.sql).all(page.params);
      },
      load: (taskId) => this.getTask(instanceId, taskId, query),
    });
  }

  appendEvent(taskId: string, frame: StreamResponse): number {
    if (!this.#inTransaction) return this.transaction(() => this.appendEvent(taskId, frame));
    const seq = this.#writes.appendEvent(taskId, frame);
    this.#push.onEvent(taskId, frame);
    return seq;
  }

  putPushConfig(config: StoredPushConfig): void {
    this.transaction(() => {
      if (this.#writes.findKey(config.taskId) === undefined) throw new UnknownTaskError(config.taskId);
      this.#push.put(config);
    });
  }

  getPushConfig(taskId: string, configId: string): PushConfigRecord | undefined {
    return this.#push.get(taskId, configId);
  }

  listPushConfigs(taskId: string): PushConfigRecord[] {
    return this.#push.list(taskId);
  }

  countPushConfigs(taskId: string): number {
    return this.#push.count(taskId);
  }

  mayHavePushConfigs(taskId: string): boolean {
    return this.#push.mayHaveConfigs(taskId);
  }

  deletePushConfig(taskId: string, configId: string): boolean {
    return this.transaction(() => this.#push.delete(taskId, configId));
  }

  setPushHealth(taskId: string, configId: string, health: PushHealth): void {
    this.transaction(() => this.#push.setHealth(taskId, configId, health));
  }

  unhealthyPushConfigs(limit?: number): PushConfigRecord[] {
    return this.#push.unhealthy(limit);
  }

  unhealthyPushConfigCounts(): UnhealthyCounts {
    return this.#push.unhealthyCounts();
  }

  enqueueDelivery(taskId: string, configId: string, frame: StreamResponse): void {
    this.#push.enqueue(taskId, configId, frame);
  }

  dueDeliveries(nowMs: number, limit: number, busy?: ReadonlySet<string>): PushDelivery[] {
    return this.#push.due(nowMs, limit, busy);
  }

  nextDueAt(): number | undefined {
    return this.#push.nextDueAt();
  }

  completeDelivery(deliveryId: number): void {
    this.#push.complete(deliveryId);
  }

  retryDelivery(deliveryId: number, dueAt: number): void {
    this.#push.retry(deliveryId, dueAt);
  }

  rescheduleConfig(taskId: string, configId: string, dueAt: number): void {
    this.#push.reschedule(taskId, configId, dueAt);
  }

  pendingDeliveries(taskId?: string, configId?: string): number {
    return this.#push.pending(taskId, configId);
  }

  recordAttempt(attempt: PushAttempt, keep: number): void {
    this.#push.recordAttempt(attempt, keep);
  }

  listAttempts(taskId: string, configId: string, limit: number): PushAttempt[] {
    return this.#push.attempts(taskId, configId, limit);
  }

  eventsAfter(taskId: string, afterSeq: number): LoggedEvent[] {
    this.#writes.flush();
    const key = this.#writes.findKey(taskId);
    if (key === undefined) return [];
    return this.sql.eventsAfter.all(key, afterSeq).map((row) => ({ seq: row.seq, frame: fromJson<StreamResponse>(row.frame_json) }));
  }

  lastEventSeq(taskId: string): number {
    return this.#writes.lastEventSeq(taskId);
  }

  findIdempotent(instanceId: string, key: MessageKey): IdempotentResult | undefined {
    if (this.#messageKeys?.mightBeStored(instanceId, key.messageId) === false) return undefined;
    const row = this.sql.idempotent.get(instanceId, tenantOf(key), key.messageId, messageTarget(key));
    if (row === undefined) return undefined;
    if (row.task_id !== null) return { kind: 'task', taskId: row.task_id };
    if (row.message_json !== null) return { kind: 'message', message: fromJson<Message>(row.message_json) };
    throw new Error(`idempotency record ${key.messageId} of instance ${instanceId} holds neither a task nor a message`);
  }

  recordIdempotent(instanceId: string, key: MessageKey, result: IdempotentResult): void {
    const taskId = result.kind === 'task' ? result.taskId : null;
    const message = result.kind === 'message' ? toJson(result.message) : null;
    const target = messageTarget(key);
    try {
      this.sql.insertIdempotent.run(instanceId, tenantOf(key), key.messageId, target, taskId, message);
    } catch (error) {
      throw isConstraintError(error, 'SQLITE_CONSTRAINT_PRIMARYKEY')
        ? new DuplicateKeyError(`message ${key.messageId} of instance ${instanceId} is already recorded for ${target}`)
        : error;
    }
    this.#messageKeys?.add(instanceId, key.messageId);
  }

  touchContext(instanceId: string, contextId: string, at: string, tenant = ''): void {
    this.sql.touchContext.run({ instance: instanceId, tenant, context: contextId, at });
  }

  getContext(instanceId: string, contextId: string, tenant = ''): ContextBinding | undefined {
    return this.sql.context.get(instanceId, tenant, contextId);
  }

  settleUnfinished(status: (task: TaskInfo) => TaskStatus): string[] {
    return this.transaction(() => {
      const unfinished = this.sql.unfinished.all(...ACTIVE_STATES);
      for (const row of unfinished) this.#writes.writeStatus(row.id, status(infoOf(row)), row.key);
      return unfinished.map((row) => row.id);
    });
  }

  ping(): void {
    // A read of the schema's own table: cheap, and it fails once the file or the connection is gone.
    this.db.prepare('SELECT 1 FROM sqlite_master LIMIT 1').get();
  }

  pruneTasks(instanceId: string, rule: RetentionRule, nowMs: number, limit: number): string[] {
    return this.transaction(() => {
      const victims = this.#retention.victims(instanceId, rule, nowMs, limit);
      for (const victim of victims) {
        this.#retention.delete(victim);
        this.#writes.forgetTask(victim.id);
      }
      return victims.map((victim) => victim.id);
    });
  }

  probeWrite(): void {
    // A write that needs new pages, as a task does (an update in place may fit where a task no
    // longer would), rolled back on the way out: nothing of it stays.
    this.transaction(() => {
      this.db.prepare('INSERT INTO meta (key, value) VALUES (?, hex(randomblob(8192)))').run(PROBE_KEY);
      this.db.prepare('DELETE FROM meta WHERE key = ?').run(PROBE_KEY);
    });
  }

  close(): void {
    this.db.close();
  }

  private artifacts(key: number): Artifact[] {
    // Rows come in artifact order, then chunk order; a Map keeps that first order.
    const byId = new Map<string, { header: ArtifactHeader; parts: Part[] }>();
    for (const row of this.sql.artifacts.all(key)) {
      let artifact = byId.get(row.artifact_id);
      if (artifact === undefined) {
        artifact = { header: fromJson<ArtifactHeader>(row.meta_json), parts: fromJson<Part[]>(row.parts_json) };
        byId.set(row.artifact_id, artifact);
      }
      if (row.chunk_json !== null) artifact.parts.push(...fromJson<Part[]>(row.chunk_json));
    }
    return [...byId.values()].map(({ header, parts }) => withParts(header, parts));
  }
}
