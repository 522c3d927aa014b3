import type Database from 'better-sqlite3';
import { ACTIVE_STATES } from '../../generated/a2a/1.0/task-states.js';
import type { TaskState } from '../../generated/a2a/1.0/types.js';
import { fromJson, toJson } from './json.js';
import type { ConfigTable, MetaTable, StoredConfig } from './stored-settings.js';
import type { ContextBinding } from './task-store.js';

export interface TaskRow {
  /** Integer key the task's other rows are filed under (schema 3). */
  readonly key: number;
  readonly id: string;
  readonly instance_id: string;
  /** '' for no tenant (schema 9). */
  readonly tenant: string;
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

export interface ArtifactRow {
  readonly artifact_id: string;
  readonly meta_json: string;
  /** The parts written with the artifact, a JSON array. */
  readonly parts_json: string;
  /** One later append's parts (a JSON array), or null when the artifact has none. */
  readonly chunk_json: string | null;
}

type Statement<P extends unknown[] | object, R = unknown> = Database.Statement<P, R>;

/**
 * Every fixed statement, prepared once when the store opens. Spelled out rather than inferred:
 * the inferred type names @types/better-sqlite3's inner namespace, which a declaration file
 * (npm run build) cannot refer to.
 */
export interface Statements {
  task: Statement<[string], TaskRow>;
  insertTask: Statement<[number, string, string, string, string, string, string, string | null, TaskState, string, number, number, number]>;
  maxKey: Statement<[], number>;
  clock: Statement<[], number>;
  setClock: Statement<[number]>;
  supersede: Statement<[number, number]>;
  keyOf: Statement<[string], number>;
  statusTs: Statement<[number], number>;
  statusVersion: Statement<[number], number>;
  updateStatus: Statement<[TaskState, string, number, number, number]>;
  unfinished: Statement<TaskState[], TaskRow>;
  insertMessageAt: Statement<[number, number, string]>;
  insertMessage: Statement<[{ task: number; json: string }]>;
  messages: Statement<[number], string>;
  lastMessages: Statement<[number, number], string>;
  artifactHeader: Statement<[number, string], string>;
  insertArtifactAt: Statement<[number, string, number, string, string]>;
  insertArtifact: Statement<[{ task: number; artifact: string; meta: string; parts: string }]>;
  updateArtifactHeader: Statement<[string, number, string]>;
  replaceArtifact: Statement<[string, string, number, string]>;
  deleteChunks: Statement<[number, string]>;
  appendChunk: Statement<[{ task: number; artifact: string; json: string }]>;
  artifacts: Statement<[number], ArtifactRow>;
  insertEvent: Statement<[number, number, string]>;
  lastEventSeq: Statement<[number], number>;
  setLastEventSeq: Statement<[number, number]>;
  pruneEvents: Statement<[number, number]>;
  eventsAfter: Statement<[number, number], { seq: number; frame_json: string }>;
  idempotent: Statement<[string, string, string, string], { task_id: string | null; message_json: string | null }>;
  idempotentCount: Statement<[], number>;
  idempotentKeys: Statement<[], { instance_id: string; message_id: string }>;
  insertIdempotent: Statement<[string, string, string, string, string | null, string | null]>;
  touchContext: Statement<[{ instance: string; tenant: string; context: string; at: string }]>;
  context: Statement<[string, string, string], ContextBinding>;
}

export function prepareStatements(db: Database.Database): Statements {
  return {
    task: db.prepare<[string], TaskRow>('SELECT * FROM tasks WHERE id = ?'),
    insertTask: db.prepare<
      [number, string, string, string, string, string, string, string | null, TaskState, string, number, number, number]
    >(
      `INSERT INTO tasks (key, id, instance_id, tenant, context_id, skill, created_at, metadata_json, state, status_json, status_ts, status_version, last_event_seq)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
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
    statusVersion: db.prepare<[number], number>('SELECT status_version FROM tasks WHERE key = ?').pluck(),
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

    artifactHeader: db
      .prepare<[number, string], string>('SELECT meta_json FROM task_artifacts WHERE task_key = ? AND artifact_id = ?')
      .pluck(),
    insertArtifactAt: db.prepare<[number, string, number, string, string]>(
      'INSERT INTO task_artifacts (task_key, artifact_id, ord, meta_json, parts_json) VALUES (?, ?, ?, ?, ?)',
    ),
    insertArtifact: db.prepare<[{ task: number; artifact: string; meta: string; parts: string }]>(
      `INSERT INTO task_artifacts (task_key, artifact_id, ord, meta_json, parts_json)
       SELECT @task, @artifact, coalesce(max(ord), 0) + 1, @meta, @parts FROM task_artifacts WHERE task_key = @task`,
    ),
    updateArtifactHeader: db.prepare<[string, number, string]>(
      'UPDATE task_artifacts SET meta_json = ? WHERE task_key = ? AND artifact_id = ?',
    ),
    replaceArtifact: db.prepare<[string, string, number, string]>(
      'UPDATE task_artifacts SET meta_json = ?, parts_json = ? WHERE task_key = ? AND artifact_id = ?',
    ),
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

    // A key stored before schema 8 has the target '' (unknown), and answers for any target.
    idempotent: db.prepare<[string, string, string, string], { task_id: string | null; message_json: string | null }>(
      `SELECT task_id, message_json FROM idempotency WHERE instance_id = ? AND tenant = ? AND message_id = ? AND target IN (?, '')
       ORDER BY target DESC LIMIT 1`,
    ),
    idempotentCount: db.prepare<[], number>('SELECT count(*) FROM idempotency').pluck(),
    idempotentKeys: db.prepare<[], { instance_id: string; message_id: string }>('SELECT instance_id, message_id FROM idempotency'),
    insertIdempotent: db.prepare<[string, string, string, string, string | null, string | null]>(
      'INSERT INTO idempotency (instance_id, tenant, message_id, target, task_id, message_json) VALUES (?, ?, ?, ?, ?, ?)',
    ),

    touchContext: db.prepare<[{ instance: string; tenant: string; context: string; at: string }]>(
      `INSERT INTO contexts (instance_id, tenant, context_id, created_at, last_active_at) VALUES (@instance, @tenant, @context, @at, @at)
       ON CONFLICT (instance_id, tenant, context_id) DO UPDATE SET last_active_at = excluded.last_active_at`,
    ),
    context: db.prepare<[string, string, string], ContextBinding>(
      `SELECT instance_id AS instanceId, tenant, context_id AS contextId, created_at AS createdAt, last_active_at AS lastActiveAt
       FROM contexts WHERE instance_id = ? AND tenant = ? AND context_id = ?`,
    ),
  };
}

/** The two configuration tables have one layout: an id and the configuration as JSON. */
export function prepareConfigTable(db: Database.Database, table: 'instances' | 'outbounds'): ConfigTable {
  const all = db.prepare<[], { id: string; config_json: string }>(`SELECT id, config_json FROM ${table} ORDER BY id`);
  const save = db.prepare<[string, string]>(
    `INSERT INTO ${table} (id, config_json) VALUES (?, ?) ON CONFLICT (id) DO UPDATE SET config_json = excluded.config_json`,
  );
  const remove = db.prepare<[string]>(`DELETE FROM ${table} WHERE id = ?`);
  return {
    all: (): StoredConfig[] => all.all().map((row) => ({ id: row.id, config: fromJson<Record<string, unknown>>(row.config_json) })),
    save: (record) => void save.run(record.id, toJson(record.config)),
    remove: (id) => void remove.run(id),
  };
}

export function prepareMetaTable(db: Database.Database): MetaTable {
  const get = db.prepare<[string], string>('SELECT value FROM meta WHERE key = ?').pluck();
  const set = db.prepare<[string, string]>(
    'INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value',
  );
  const remove = db.prepare<[string]>('DELETE FROM meta WHERE key = ?');
  return {
    get: (key) => get.get(key),
    set: (key, value) => set.run(key, value),
    delete: (key) => remove.run(key),
  };
}

/** Whether SQLite refused a write for this constraint, which the schema is relied on to detect. */
export function isConstraintError(error: unknown, code: 'SQLITE_CONSTRAINT_PRIMARYKEY' | 'SQLITE_CONSTRAINT_UNIQUE'): boolean {
  return (error as { code?: unknown }).code === code;
}

type Bindings = Readonly<Record<string, string | number>>;

/** Statements whose text is built per call (ListTasks', one per combination of filters), prepared on first use. */
export class StatementCache {
  readonly #statements = new Map<string, Database.Statement<[Bindings], unknown>>();

  constructor(private readonly db: Database.Database) {}

  get<R>(sql: string): Database.Statement<[Bindings], R> {
    let statement = this.#statements.get(sql);
    if (statement === undefined) {
      statement = this.db.prepare<[Bindings]>(sql);
      this.#statements.set(sql, statement);
    }
    return statement as Database.Statement<[Bindings], R>;
  }
}
