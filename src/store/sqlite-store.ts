import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import Database from 'better-sqlite3';
import { ACTIVE_STATES, isTerminalState } from '../../generated/a2a/1.0/task-states.js';
import type { Artifact, Message, Part, StreamResponse, Task, TaskState, TaskStatus } from '../../generated/a2a/1.0/types.js';
import { RecencyMap } from '../support/recency-map.js';
import { changesHeader, headerOf, mergeHeader, withParts, type ArtifactHeader } from './artifact-chunks.js';
import type { ListPosition } from './cursor.js';
import { fromJson, toJson } from './json.js';
import { KeyFilter } from './key-filter.js';
import { listTasks } from './listing.js';
import { migrate } from './sqlite-schema.js';
import { countQuery, pageQuery, type SqlQuery } from './sqlite-listing.js';
import {
  DuplicateKeyError,
  EVENT_LOG_LIMIT,
  UnknownTaskError,
  type ContextBinding,
  type IdempotentResult,
  type LoggedEvent,
  type NewTask,
  type StoredInstance,
  type StoredOutbound,
  type TaskBrowseQuery,
  type TaskInfo,
  type TaskPage,
  type TaskQuery,
  type TaskStore,
  type TaskView,
} from './task-store.js';
import { historyLimit, toWireTask, wantsArtifacts } from './task-view.js';
import { millisToTimestamp, statusMillis, timestampMillis } from './timestamps.js';

interface TaskRow {
  /** Integer key the task's other rows are filed under (schema 3). */
  readonly key: number;
  readonly id: string;
  readonly instance_id: string;
  readonly context_id: string;
  readonly skill: string;
  readonly created_at: string;
  readonly metadata_json: string | null;
  readonly state: TaskState;
  readonly status_json: string;
  readonly status_ts: number;
  readonly status_version: number;
  readonly last_event_seq: number;
}

interface ArtifactRow {
  readonly artifact_id: string;
  readonly meta_json: string;
  /** The parts written with the artifact, a JSON array. */
  readonly parts_json: string;
  /** One later append's parts (a JSON array), or null when the artifact has none. */
  readonly chunk_json: string | null;
}

/** A task created in the open transaction: its row is written once, when the transaction ends. */
interface PendingTask {
  readonly key: number;
  /** The row but its status, which is written as the last one set in the transaction. */
  readonly row: Omit<TaskRow, 'key' | 'last_event_seq' | 'status_version' | 'state' | 'status_json' | 'status_ts'>;
  readonly status: TaskStatus;
  /** Where that status places the task (checked when the task was created). */
  readonly statusTs: number;
  readonly messages: string[];
  /** Artifacts given to it so far, so that the next one's position needs no query. */
  artifacts: number;
}

/**
 * An artifact written in the open transaction: what it will be once the transaction ends, so
 * that the chunks of one burst become one row.
 */
interface PendingArtifact {
  readonly key: number;
  readonly artifactId: string;
  /** new: no row yet; append: parts go to a chunk row; replace: the row is rewritten. */
  mode: 'new' | 'append' | 'replace';
  /** The position of a new artifact of a task created in this transaction (else counted by SQL). */
  readonly ord?: number;
  header: ArtifactHeader;
  headerChanged: boolean;
  readonly parts: Part[];
}

interface PendingFrame {
  readonly taskId: string;
  readonly key: number;
  readonly seq: number;
  readonly frame: StreamResponse;
}

type Bindings = Readonly<Record<string, string | number>>;

/** Every fixed statement, prepared once when the store opens. */
function prepareStatements(db: Database.Database) {
  return {
    task: db.prepare<[string], TaskRow>('SELECT * FROM tasks WHERE id = ?'),
    insertTask: db.prepare<[number, string, string, string, string, string, string | null, TaskState, string, number, number, number]>(
      `INSERT INTO tasks (key, id, instance_id, context_id, skill, created_at, metadata_json, state, status_json, status_ts, status_version, last_event_seq)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    ),
    maxKey: db.prepare<[], number>('SELECT coalesce(max(key), 0) FROM tasks').pluck(),
    clock: db.prepare<[], number>('SELECT version FROM status_clock WHERE id = 1').pluck(),
    setClock: db.prepare<[number]>('UPDATE status_clock SET version = ? WHERE id = 1'),
    // The current status goes to the history when a newer one replaces it, filed under the newer one's version.
    supersede: db.prepare<[number, number]>(
      `INSERT INTO task_status (superseded_by, task_key, version, state, status_json, ts)
       SELECT ?, key, status_version, state, status_json, status_ts FROM tasks WHERE key = ?`,
    ),
    keyOf: db.prepare<[string], number>('SELECT key FROM tasks WHERE id = ?').pluck(),
    statusTs: db.prepare<[number], number>('SELECT status_ts FROM tasks WHERE key = ?').pluck(),
    updateStatus: db.prepare<[TaskState, string, number, number, number]>(
      'UPDATE tasks SET state = ?, status_json = ?, status_ts = ?, status_version = ? WHERE key = ?',
    ),
    unfinished: db.prepare<TaskState[], TaskRow>(
      `SELECT * FROM tasks WHERE state IN (${[...ACTIVE_STATES].map(() => '?').join(', ')}) ORDER BY rowid`,
    ),

    insertMessageAt: db.prepare<[number, number, string]>('INSERT INTO task_messages (task_key, seq, message_json) VALUES (?, ?, ?)'),
    insertMessage: db.prepare<[{ task: number; json: string }]>(
      `INSERT INTO task_messages (task_key, seq, message_json)
       SELECT @task, coalesce(max(seq), 0) + 1, @json FROM task_messages WHERE task_key = @task`,
    ),
    messages: db.prepare<[number], string>('SELECT message_json FROM task_messages WHERE task_key = ? ORDER BY seq').pluck(),
    lastMessages: db
      .prepare<[number, number], string>(
        `SELECT message_json FROM (
           SELECT seq, message_json FROM task_messages WHERE task_key = ? ORDER BY seq DESC LIMIT ?
         ) ORDER BY seq`,
      )
      .pluck(),

    artifactHeader: db.prepare<[number, string], string>('SELECT meta_json FROM task_artifacts WHERE task_key = ? AND artifact_id = ?').pluck(),
    insertArtifactAt: db.prepare<[number, string, number, string, string]>(
      'INSERT INTO task_artifacts (task_key, artifact_id, ord, meta_json, parts_json) VALUES (?, ?, ?, ?, ?)',
    ),
    insertArtifact: db.prepare<[{ task: number; artifact: string; meta: string; parts: string }]>(
      `INSERT INTO task_artifacts (task_key, artifact_id, ord, meta_json, parts_json)
       SELECT @task, @artifact, coalesce(max(ord), 0) + 1, @meta, @parts FROM task_artifacts WHERE task_key = @task`,
    ),
    updateArtifactHeader: db.prepare<[string, number, string]>('UPDATE task_artifacts SET meta_json = ? WHERE task_key = ? AND artifact_id = ?'),
    replaceArtifact: db.prepare<[string, string, number, string]>('UPDATE task_artifacts SET meta_json = ?, parts_json = ? WHERE task_key = ? AND artifact_id = ?'),
    deleteChunks: db.prepare<[number, string]>('DELETE FROM artifact_chunks WHERE task_key = ? AND artifact_id = ?'),
    appendChunk: db.prepare<[{ task: number; artifact: string; json: string }]>(
      `INSERT INTO artifact_chunks (task_key, artifact_id, seq, parts_json)
       SELECT @task, @artifact, coalesce(max(seq), 0) + 1, @json FROM artifact_chunks WHERE task_key = @task AND artifact_id = @artifact`,
    ),
    artifacts: db.prepare<[number], ArtifactRow>(
      `SELECT a.artifact_id, a.meta_json, a.parts_json, c.parts_json AS chunk_json FROM task_artifacts a
       LEFT JOIN artifact_chunks c ON c.task_key = a.task_key AND c.artifact_id = a.artifact_id
       WHERE a.task_key = ? ORDER BY a.ord, c.seq`,
    ),

    insertEvent: db.prepare<[number, number, string]>('INSERT INTO task_events (task_key, seq, frame_json) VALUES (?, ?, ?)'),
    lastEventSeq: db.prepare<[number], number>('SELECT last_event_seq FROM tasks WHERE key = ?').pluck(),
    setLastEventSeq: db.prepare<[number, number]>('UPDATE tasks SET last_event_seq = ? WHERE key = ?'),
    pruneEvents: db.prepare<[number, number]>('DELETE FROM task_events WHERE task_key = ? AND seq <= ?'),
    eventsAfter: db.prepare<[number, number], { seq: number; frame_json: string }>(
      'SELECT seq, frame_json FROM task_events WHERE task_key = ? AND seq > ? ORDER BY seq',
    ),

    idempotent: db.prepare<[string, string], { task_id: string | null; message_json: string | null }>(
      'SELECT task_id, message_json FROM idempotency WHERE instance_id = ? AND message_id = ?',
    ),
    idempotentCount: db.prepare<[], number>('SELECT count(*) FROM idempotency').pluck(),
    idempotentKeys: db.prepare<[], { instance_id: string; message_id: string }>('SELECT instance_id, message_id FROM idempotency'),
    insertIdempotent: db.prepare<[string, string, string | null, string | null]>(
      'INSERT INTO idempotency (instance_id, message_id, task_id, message_json) VALUES (?, ?, ?, ?)',
    ),

    touchContext: db.prepare<[{ instance: string; context: string; at: string }]>(
      `INSERT INTO contexts (instance_id, context_id, created_at, last_active_at) VALUES (@instance, @context, @at, @at)
       ON CONFLICT (instance_id, context_id) DO UPDATE SET last_active_at = excluded.last_active_at`,
    ),
    context: db.prepare<[string, string], ContextBinding>(
      `SELECT instance_id AS instanceId, context_id AS contextId, created_at AS createdAt, last_active_at AS lastActiveAt
       FROM contexts WHERE instance_id = ? AND context_id = ?`,
    ),

    instances: db.prepare<[], { id: string; config_json: string }>('SELECT id, config_json FROM instances ORDER BY id'),
    saveInstance: db.prepare<[string, string]>(
      'INSERT INTO instances (id, config_json) VALUES (?, ?) ON CONFLICT (id) DO UPDATE SET config_json = excluded.config_json',
    ),
    deleteInstance: db.prepare<[string]>('DELETE FROM instances WHERE id = ?'),
    outbounds: db.prepare<[], { id: string; config_json: string }>('SELECT id, config_json FROM outbounds ORDER BY id'),
    saveOutbound: db.prepare<[string, string]>(
      'INSERT INTO outbounds (id, config_json) VALUES (?, ?) ON CONFLICT (id) DO UPDATE SET config_json = excluded.config_json',
    ),
    deleteOutbound: db.prepare<[string]>('DELETE FROM outbounds WHERE id = ?'),
    getMeta: db.prepare<[string], string>('SELECT value FROM meta WHERE key = ?').pluck(),
    setMeta: db.prepare<[string, string]>('INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value'),
    deleteMeta: db.prepare<[string]>('DELETE FROM meta WHERE key = ?'),
  };
}

/**
 * The TaskStore on SQLite (better-sqlite3). Every write touches only the rows it concerns: a
 * status is the task's current-status columns plus one history row for the status it
 * replaces, a message or a part is one row, an event is one row (plus pruning), so cost does
 * not grow with the task.
 */
export class SqliteTaskStore implements TaskStore {
  private readonly sql: ReturnType<typeof prepareStatements>;
  /** ListTasks statements, one per combination of filters, prepared on first use. */
  private readonly listing = new Map<string, Database.Statement<[Bindings], unknown>>();

  /**
   * The idempotency keys stored, as a Bloom filter: a new messageId then costs no B-tree
   * search. Only with exclusive locking, where no other connection can add keys unseen.
   */
  #messageKeys: KeyFilter | undefined;

  private constructor(
    private readonly db: Database.Database,
    exclusive: boolean,
  ) {
    this.sql = prepareStatements(db);
    if (exclusive) this.#messageKeys = this.#loadMessageKeys(0);
  }

  /** A filter of every stored idempotency key, with room for at least `atLeast` of them. */
  #loadMessageKeys(atLeast: number): KeyFilter {
    const stored = this.sql.idempotentCount.get() ?? 0;
    const filter = new KeyFilter(Math.max(MESSAGE_KEYS_CAPACITY, 2 * stored, atLeast));
    for (const row of this.sql.idempotentKeys.iterate()) filter.add(idempotencyKey(row.instance_id, row.message_id));
    return filter;
  }

  /**
   * Opens (creating it and its directory if needed) and migrates the database; ':memory:'
   * works too. `exclusive` holds the database for this connection until it closes (SQLite's
   * exclusive locking mode): reads and commits then skip the shared-memory locking that lets
   * other processes in, which measured 7 % of a SendMessage; and a second process opening the
   * same file fails at once instead of sharing it.
   */
  static open(path: string, options: { readonly exclusive?: boolean } = {}): SqliteTaskStore {
    if (path !== ':memory:' && path !== '') mkdirSync(dirname(path), { recursive: true });
    const db = new Database(path);
    try {
      if (options.exclusive === true) {
        db.pragma('locking_mode = EXCLUSIVE');
        try {
          // Takes the lock now, not at the first write, and keeps it (exclusive locking mode).
          db.exec('BEGIN EXCLUSIVE; COMMIT');
        } catch (error) {
          if ((error as { code?: unknown }).code !== 'SQLITE_BUSY') throw error;
          throw new Error(`the database ${path} is in use by another process (another a2a-hub on the same data dir?)`, { cause: error });
        }
      }
      db.pragma('journal_mode = WAL');
      // With WAL, NORMAL loses at most the last commits on power loss, never consistency.
      db.pragma('synchronous = NORMAL');
      // NORMAL syncs only at checkpoints, and a sync is what a commit costs here (measured:
      // createTask 430 µs with the default 1000-page checkpoints, 230 µs with rarer ones).
      // Checkpointing every ~32 MiB of WAL makes syncs rare; the size limit trims the file after.
      db.pragma('wal_autocheckpoint = 8000');
      db.pragma(`journal_size_limit = ${64 * 1024 * 1024}`);
      // The default 2 MiB page cache holds only the newest tasks' pages; beyond it every
      // B-tree step of an insert is a read from the OS. 64 MiB is a cap, not an allocation.
      db.pragma(`cache_size = ${-64 * 1024}`);
      db.pragma('foreign_keys = ON');
      db.pragma('busy_timeout = 5000');
      migrate(db);
      return new SqliteTaskStore(db, options.exclusive === true);
    } catch (error) {
      db.close();
      throw error;
    }
  }

  #run: ((work: () => unknown) => unknown) | undefined;
  /** Inside #run: kept here because asking the connection is a native call per store call. */
  #inTransaction = false;

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
        this.#writePending();
        if (this.#lastVersion !== undefined) this.sql.setClock.run(this.#lastVersion);
        return result;
      } catch (error) {
        // Rolled back: the keys of tasks it created are free again, and SQLite hands them out anew.
        for (const taskId of this.#createdInTransaction) this.#keys.delete(taskId);
        throw error;
      } finally {
        this.#inTransaction = false;
        this.#clearPending();
        this.#createdInTransaction.clear();
        this.#lastVersion = undefined;
        this.#lastKey = undefined;
      }
    });
    return this.#run(work) as T;
  }

  /*
   * Writes inside a transaction are held in memory and written when it ends: no reader can
   * see what a later write of the same transaction replaced. A task created and finished in
   * one group commit is then one row with its final status, its messages and
   * one row per artifact; and the frames of a task that ends in the transaction are not
   * logged at all, since no replay serves a terminal task.
   */
  readonly #pendingTasks = new Map<string, PendingTask>();
  /** The last status set per task in the transaction. */
  readonly #deferredStatuses = new Map<string, TaskStatus>();
  readonly #pendingArtifacts = new Map<string, PendingArtifact>();
  #pendingFrames: PendingFrame[] = [];
  readonly #createdInTransaction = new Set<string>();
  /** Each task's last event sequence number within the transaction, by key. */
  readonly #eventSeqs = new Map<number, number>();

  /** A read inside the transaction must see its writes. */
  #readYourWrites(): void {
    if (this.#pendingTasks.size > 0 || this.#deferredStatuses.size > 0 || this.#pendingArtifacts.size > 0 || this.#pendingFrames.length > 0 || this.#eventSeqs.size > 0) {
      this.#writePending();
      this.#clearPending();
    }
  }

  #clearPending(): void {
    this.#pendingTasks.clear();
    this.#deferredStatuses.clear();
    this.#pendingArtifacts.clear();
    this.#pendingFrames = [];
    this.#eventSeqs.clear();
  }

  /** Writes what the transaction holds, parents before children. */
  #writePending(): void {
    const endedNow = new Set<string>();
    for (const [taskId, status] of this.#deferredStatuses) if (isTerminalState(status.state)) endedNow.add(taskId);
    for (const [taskId, pending] of this.#pendingTasks) {
      this.#insertTask(pending, this.#deferredStatuses.get(taskId));
      this.#deferredStatuses.delete(taskId);
      // A task that ended here will hardly be written again: its key is not worth a cache slot.
      if (!endedNow.has(taskId)) this.#rememberKey(taskId, pending.key);
    }
    for (const [taskId, status] of this.#deferredStatuses) this.record(taskId, status);
    for (const artifact of this.#pendingArtifacts.values()) this.#writeArtifact(artifact);
    for (const { taskId, key, seq, frame } of this.#pendingFrames) {
      if (endedNow.has(taskId)) continue;
      this.sql.insertEvent.run(key, seq, toJson(frame));
      if (seq > EVENT_LOG_LIMIT) this.sql.pruneEvents.run(key, seq - EVENT_LOG_LIMIT);
    }
    for (const [key, seq] of this.#eventSeqs) this.sql.setLastEventSeq.run(seq, key);
  }

  /** Inserts a task created in this transaction, with the last status it was given, and its messages. */
  #insertTask(pending: PendingTask, status: TaskStatus | undefined): void {
    const { key, row } = pending;
    const current = status ?? pending.status;
    const { state } = current;
    const statusJson = toJson(current);
    const statusTs = status === undefined ? pending.statusTs : statusMillis(status, pending.statusTs);
    const version = this.nextVersion();
    const lastEventSeq = this.#eventSeqs.get(key) ?? 0;
    this.#eventSeqs.delete(key);
    try {
      this.sql.insertTask.run(key, row.id, row.instance_id, row.context_id, row.skill, row.created_at, row.metadata_json, state, statusJson, statusTs, version, lastEventSeq);
    } catch (error) {
      throw isConstraintError(error, 'SQLITE_CONSTRAINT_UNIQUE') ? new DuplicateKeyError(`task ${row.id} already exists`) : error;
    }
    for (let index = 0; index < pending.messages.length; index += 1) this.sql.insertMessageAt.run(key, index + 1, pending.messages[index] ?? '');
  }

  #writeArtifact(artifact: PendingArtifact): void {
    const { key, artifactId } = artifact;
    switch (artifact.mode) {
      case 'new':
        if (artifact.ord === undefined) this.sql.insertArtifact.run({ task: key, artifact: artifactId, meta: toJson(artifact.header), parts: toJson(artifact.parts) });
        else this.sql.insertArtifactAt.run(key, artifactId, artifact.ord, toJson(artifact.header), toJson(artifact.parts));
        return;
      case 'replace':
        this.sql.replaceArtifact.run(toJson(artifact.header), toJson(artifact.parts), key, artifactId);
        this.sql.deleteChunks.run(key, artifactId);
        return;
      case 'append':
        if (artifact.headerChanged) this.sql.updateArtifactHeader.run(toJson(artifact.header), key, artifactId);
        if (artifact.parts.length > 0) this.sql.appendChunk.run({ task: key, artifact: artifactId, json: toJson(artifact.parts) });
        return;
    }
  }

  createTask(task: NewTask): void {
    if (!this.#inTransaction) return this.transaction(() => this.createTask(task));
    // A stored task with this id is caught by the unique index when the row is written.
    if (this.#pendingTasks.has(task.id)) throw new DuplicateKeyError(`task ${task.id} already exists`);
    const key = this.#nextKey();
    this.#pendingTasks.set(task.id, {
      key,
      row: {
        id: task.id,
        instance_id: task.instanceId,
        context_id: task.contextId,
        skill: task.skill,
        created_at: task.createdAt,
        metadata_json: task.metadata === undefined ? null : toJson(task.metadata),
      },
      status: task.status,
      statusTs: statusMillis(task.status, timestampMillis(task.createdAt)),
      messages: [toJson(task.message)],
      artifacts: 0,
    });
    this.#createdInTransaction.add(task.id);
  }

  getTask(instanceId: string, taskId: string, view: TaskView = {}): Task | undefined {
    this.#readYourWrites();
    const row = this.sql.task.get(taskId);
    if (row === undefined || row.instance_id !== instanceId) return undefined;
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
    for (const [column, value] of [['instance_id', query.instanceId], ['context_id', query.contextId], ['state', query.state]] as const) {
      if (value === undefined) continue;
      filters.push(`${column} = ?`);
      bindings.push(value);
    }
    const where = filters.length === 0 ? '' : `WHERE ${filters.join(' AND ')}`;
    const total = this.db.prepare<(string | number)[], number>(`SELECT count(*) FROM tasks ${where}`).pluck().get(...bindings) ?? 0;
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
    this.#readYourWrites();
    const row = this.sql.task.get(taskId);
    return row === undefined ? undefined : infoOf(row);
  }

  setStatus(taskId: string, status: TaskStatus): void {
    if (this.#inTransaction) {
      // An unknown task must fail here, at its call, not at the end of someone else's batch.
      if (!this.#deferredStatuses.has(taskId) && !this.#pendingTasks.has(taskId)) this.#keyOf(taskId);
      this.#deferredStatuses.set(taskId, status);
      return;
    }
    this.transaction(() => this.record(taskId, status));
  }

  appendMessage(taskId: string, message: Message): void {
    const pending = this.#pendingTasks.get(taskId);
    if (pending !== undefined) {
      pending.messages.push(toJson(message));
      return;
    }
    this.sql.insertMessage.run({ task: this.#keyOf(taskId), json: toJson(message) });
  }

  putArtifact(taskId: string, artifact: Artifact, append: boolean): void {
    if (!this.#inTransaction) return this.transaction(() => this.putArtifact(taskId, artifact, append));
    const key = this.#keyOf(taskId);
    const { artifactId } = artifact;
    const slot = `${key}\u0000${artifactId}`;
    const pending = this.#pendingArtifacts.get(slot);
    if (pending !== undefined) {
      if (append) {
        if (changesHeader(artifact)) {
          pending.header = mergeHeader(pending.header, artifact);
          pending.headerChanged = true;
        }
        pending.parts.push(...artifact.parts);
      } else {
        pending.header = headerOf(artifact);
        pending.parts.splice(0, pending.parts.length, ...artifact.parts);
        if (pending.mode === 'append') pending.mode = 'replace';
      }
      return;
    }
    // A task created in this transaction has no stored artifacts to look up.
    const pendingTask = this.#pendingTasks.get(taskId);
    const stored = pendingTask === undefined ? this.sql.artifactHeader.get(key, artifactId) : undefined;
    const parts = [...artifact.parts];
    if (stored === undefined) {
      const ord = pendingTask === undefined ? undefined : (pendingTask.artifacts += 1);
      this.#pendingArtifacts.set(slot, { key, artifactId, mode: 'new', ...(ord === undefined ? {} : { ord }), header: headerOf(artifact), headerChanged: false, parts });
    } else if (append) {
      const changed = changesHeader(artifact);
      const header = changed ? mergeHeader(fromJson<ArtifactHeader>(stored), artifact) : fromJson<ArtifactHeader>(stored);
      this.#pendingArtifacts.set(slot, { key, artifactId, mode: 'append', header, headerChanged: changed, parts });
    } else {
      this.#pendingArtifacts.set(slot, { key, artifactId, mode: 'replace', header: headerOf(artifact), headerChanged: true, parts });
    }
  }

  listTasks(instanceId: string, query: TaskQuery): TaskPage {
    this.#readYourWrites();
    return listTasks(instanceId, query, {
      watermark: () => this.watermark(),
      count: (filter) => {
        const count = countQuery(filter);
        return this.listingStatement<{ n: number }>(count).get(count.params)?.n ?? 0;
      },
      positions: (request, asOf) => {
        const page = pageQuery(request, asOf);
        return this.listingStatement<ListPosition>(page).all(page.params);
      },
      load: (taskId) => this.getTask(instanceId, taskId, query),
    });
  }

  appendEvent(taskId: string, frame: StreamResponse): number {
    if (!this.#inTransaction) return this.transaction(() => this.appendEvent(taskId, frame));
    const key = this.#keyOf(taskId);
    const seq = (this.#eventSeqs.get(key) ?? (this.#pendingTasks.has(taskId) ? 0 : (this.sql.lastEventSeq.get(key) ?? 0))) + 1;
    this.#eventSeqs.set(key, seq);
    // A replay never sends chunks (the snapshot holds the assembled artifacts): number them only.
    if (frame.artifactUpdate === undefined) this.#pendingFrames.push({ taskId, key, seq, frame });
    return seq;
  }

  eventsAfter(taskId: string, afterSeq: number): LoggedEvent[] {
    this.#readYourWrites();
    const key = this.#findKey(taskId);
    if (key === undefined) return [];
    return this.sql.eventsAfter.all(key, afterSeq).map((row) => ({ seq: row.seq, frame: fromJson<StreamResponse>(row.frame_json) }));
  }

  lastEventSeq(taskId: string): number {
    const key = this.#findKey(taskId);
    if (key === undefined) return 0;
    return this.#eventSeqs.get(key) ?? (this.#pendingTasks.has(taskId) ? 0 : (this.sql.lastEventSeq.get(key) ?? 0));
  }

  findIdempotent(instanceId: string, messageId: string): IdempotentResult | undefined {
    if (this.#messageKeys?.mightContain(idempotencyKey(instanceId, messageId)) === false) return undefined;
    const row = this.sql.idempotent.get(instanceId, messageId);
    if (row === undefined) return undefined;
    if (row.task_id !== null) return { kind: 'task', taskId: row.task_id };
    if (row.message_json !== null) return { kind: 'message', message: fromJson<Message>(row.message_json) };
    throw new Error(`idempotency record ${messageId} of instance ${instanceId} holds neither a task nor a message`);
  }

  recordIdempotent(instanceId: string, messageId: string, result: IdempotentResult): void {
    const taskId = result.kind === 'task' ? result.taskId : null;
    const message = result.kind === 'message' ? toJson(result.message) : null;
    try {
      this.sql.insertIdempotent.run(instanceId, messageId, taskId, message);
    } catch (error) {
      throw isConstraintError(error, 'SQLITE_CONSTRAINT_PRIMARYKEY') ? new DuplicateKeyError(`message ${messageId} of instance ${instanceId} is already recorded`) : error;
    }
    const filter = this.#messageKeys;
    if (filter === undefined) return;
    // A key of a transaction that rolls back stays in the filter: a false positive, harmless.
    filter.add(idempotencyKey(instanceId, messageId));
    // Past its capacity the filter errs more often: rebuilt twice as large (this key included).
    if (filter.size > filter.capacity) this.#messageKeys = this.#loadMessageKeys(2 * filter.capacity);
  }

  touchContext(instanceId: string, contextId: string, at: string): void {
    this.sql.touchContext.run({ instance: instanceId, context: contextId, at });
  }

  getContext(instanceId: string, contextId: string): ContextBinding | undefined {
    return this.sql.context.get(instanceId, contextId);
  }

  settleUnfinished(status: (task: TaskInfo) => TaskStatus): string[] {
    return this.transaction(() => {
      const unfinished = this.sql.unfinished.all(...ACTIVE_STATES);
      for (const row of unfinished) this.record(row.id, status(infoOf(row)), row.key);
      return unfinished.map((row) => row.id);
    });
  }

  loadInstances(): StoredInstance[] {
    return this.sql.instances.all().map((row) => ({ id: row.id, config: fromJson<Record<string, unknown>>(row.config_json) }));
  }

  saveInstance(instance: StoredInstance): void {
    this.sql.saveInstance.run(instance.id, toJson(instance.config));
  }

  deleteInstance(id: string): void {
    this.sql.deleteInstance.run(id);
  }

  loadOutbounds(): StoredOutbound[] {
    return this.sql.outbounds.all().map((row) => ({ id: row.id, config: fromJson<Record<string, unknown>>(row.config_json) }));
  }

  saveOutbound(outbound: StoredOutbound): void {
    this.sql.saveOutbound.run(outbound.id, toJson(outbound.config));
  }

  deleteOutbound(id: string): void {
    this.sql.deleteOutbound.run(id);
  }

  getMeta(key: string): string | undefined {
    return this.sql.getMeta.get(key);
  }

  setMeta(key: string, value: string): void {
    this.sql.setMeta.run(key, value);
  }

  deleteMeta(key: string): void {
    this.sql.deleteMeta.run(key);
  }

  close(): void {
    this.db.close();
  }

  /** The newest status version handed out (status_clock, or the open transaction's count). */
  private watermark(): number {
    return this.#lastVersion ?? this.sql.clock.get() ?? 0;
  }

  /**
   * The newest status version, read once per transaction, counted up in memory, and written
   * back to status_clock when the transaction ends. Only valid inside a transaction.
   */
  #lastVersion: number | undefined;

  private nextVersion(): number {
    this.#lastVersion ??= this.watermark();
    this.#lastVersion += 1;
    return this.#lastVersion;
  }

  /** The key a task created in this transaction gets: counted up like versions. */
  #lastKey: number | undefined;

  #nextKey(): number {
    this.#lastKey ??= this.sql.maxKey.get() ?? 0;
    this.#lastKey += 1;
    return this.#lastKey;
  }

  /** The one path by which a status is recorded: setStatus and settleUnfinished both take it. */
  private record(taskId: string, status: TaskStatus, knownKey?: number): void {
    const key = knownKey ?? this.#keyOf(taskId);
    const previous = status.timestamp === undefined ? (this.sql.statusTs.get(key) ?? 0) : 0;
    const json = toJson(status);
    const ts = statusMillis(status, previous);
    const version = this.nextVersion();
    this.sql.supersede.run(version, key);
    this.sql.updateStatus.run(status.state, json, ts, version, key);
  }

  /**
   * Task keys by id. Tasks are never deleted, so an entry never goes stale; the map is only
   * bounded, least recently remembered first, because a busy hub creates tasks without end.
   */
  readonly #keys = new RecencyMap<string, number>();

  #rememberKey(taskId: string, key: number): void {
    this.#keys.set(taskId, key);
    this.#keys.trimTo(KEY_CACHE_SIZE);
  }

  #findKey(taskId: string): number | undefined {
    const pending = this.#pendingTasks.get(taskId);
    if (pending !== undefined) return pending.key;
    const cached = this.#keys.get(taskId);
    if (cached !== undefined) return cached;
    const key = this.sql.keyOf.get(taskId);
    if (key !== undefined) this.#rememberKey(taskId, key);
    return key;
  }

  /** The key of a task that must exist: writes to an unknown task throw UnknownTaskError. */
  #keyOf(taskId: string): number {
    const key = this.#findKey(taskId);
    if (key === undefined) throw new UnknownTaskError(taskId);
    return key;
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

  private listingStatement<R>(query: SqlQuery): Database.Statement<[Bindings], R> {
    let statement = this.listing.get(query.sql);
    if (statement === undefined) {
      statement = this.db.prepare<[Bindings]>(query.sql);
      this.listing.set(query.sql, statement);
    }
    return statement as Database.Statement<[Bindings], R>;
  }
}

/** Whether SQLite refused a write for this constraint, which the schema is relied on to detect. */
function isConstraintError(error: unknown, code: 'SQLITE_CONSTRAINT_PRIMARYKEY' | 'SQLITE_CONSTRAINT_UNIQUE'): boolean {
  return (error as { code?: unknown }).code === code;
}

/** The smallest idempotency filter: room for 200,000 keys in 256 KiB. */
const MESSAGE_KEYS_CAPACITY = 200_000;

function idempotencyKey(instanceId: string, messageId: string): string {
  return `${instanceId}\u0000${messageId}`;
}

/** Task keys kept in memory: a few MiB, and every task a running executor writes to. */
const KEY_CACHE_SIZE = 50_000;

function infoOf(row: TaskRow): TaskInfo {
  return {
    id: row.id,
    instanceId: row.instance_id,
    contextId: row.context_id,
    skill: row.skill,
    state: row.state,
    createdAt: row.created_at,
    updatedAt: millisToTimestamp(row.status_ts),
  };
}
