import type Database from 'better-sqlite3';
import { TERMINAL_STATES_SQL } from './retention.js';

/**
 * The SQLite schema, as a list of migrations: entry N-1 takes a database from schema
 * version N-1 to N, and `PRAGMA user_version` records the version reached. Append new
 * entries; never edit one that has shipped.
 */
export const MIGRATIONS: readonly string[] = [
  `
  CREATE TABLE tasks (
    id             TEXT PRIMARY KEY,
    instance_id    TEXT NOT NULL,
    context_id     TEXT NOT NULL,
    skill          TEXT NOT NULL,
    created_at     TEXT NOT NULL,
    metadata_json  TEXT,
    -- The current status, copied from its task_status row so that listing needs no join.
    state          TEXT NOT NULL,
    status_json    TEXT NOT NULL,
    status_ts      INTEGER NOT NULL,  -- ms since the epoch: the ListTasks order
    status_version INTEGER NOT NULL   -- task_status.version of the current status
  );
  -- One per ListTasks filter, each in list order, so that a page is a short index range.
  CREATE INDEX tasks_by_time ON tasks (instance_id, status_ts DESC, id DESC);
  CREATE INDEX tasks_by_context ON tasks (instance_id, context_id, status_ts DESC, id DESC);
  CREATE INDEX tasks_by_state ON tasks (instance_id, state, status_ts DESC, id DESC);
  -- Finds the few tasks changed since a walk's watermark, which must be read as of it.
  CREATE INDEX tasks_by_version ON tasks (instance_id, status_version);

  CREATE TABLE task_status (
    -- Increases across all tasks: the watermark a ListTasks walk reads as of.
    version     INTEGER PRIMARY KEY,
    task_id     TEXT NOT NULL REFERENCES tasks (id),
    state       TEXT NOT NULL,
    status_json TEXT NOT NULL,
    ts          INTEGER NOT NULL
  );
  CREATE INDEX task_status_by_task ON task_status (task_id, version);

  CREATE TABLE task_messages (
    task_id      TEXT NOT NULL REFERENCES tasks (id),
    seq          INTEGER NOT NULL,
    message_json TEXT NOT NULL,
    PRIMARY KEY (task_id, seq)
  );

  CREATE TABLE task_artifacts (
    task_id     TEXT NOT NULL REFERENCES tasks (id),
    artifact_id TEXT NOT NULL,
    ord         INTEGER NOT NULL,  -- first-creation order within the task
    meta_json   TEXT NOT NULL,     -- the artifact without its parts
    PRIMARY KEY (task_id, artifact_id)
  );

  CREATE TABLE artifact_parts (
    task_id     TEXT NOT NULL,
    artifact_id TEXT NOT NULL,
    seq         INTEGER NOT NULL,
    part_json   TEXT NOT NULL,
    PRIMARY KEY (task_id, artifact_id, seq),
    FOREIGN KEY (task_id, artifact_id) REFERENCES task_artifacts (task_id, artifact_id)
  );

  CREATE TABLE task_events (
    task_id    TEXT NOT NULL REFERENCES tasks (id),
    seq        INTEGER NOT NULL,
    frame_json TEXT NOT NULL,
    PRIMARY KEY (task_id, seq)
  );

  CREATE TABLE idempotency (
    instance_id  TEXT NOT NULL,
    message_id   TEXT NOT NULL,
    task_id      TEXT,  -- set for a message that produced a task,
    message_json TEXT,  -- or the direct reply it got
    PRIMARY KEY (instance_id, message_id)
  );

  CREATE TABLE contexts (
    instance_id    TEXT NOT NULL,
    context_id     TEXT NOT NULL,
    created_at     TEXT NOT NULL,
    last_active_at TEXT NOT NULL,
    PRIMARY KEY (instance_id, context_id)
  );

  CREATE TABLE instances (
    id          TEXT PRIMARY KEY,
    config_json TEXT NOT NULL
  );

  CREATE TABLE meta (
    key   TEXT PRIMARY KEY,
    value TEXT NOT NULL
  );
  `,
  `
  -- Outbound connections to remote agents. config_json may hold a bearer token in clear.
  CREATE TABLE outbounds (
    id          TEXT PRIMARY KEY,
    config_json TEXT NOT NULL
  );
  `,
  `
  -- Task rows get an integer key, and every table that belongs to a task is keyed by it
  -- instead of the task's UUID: a new task's rows then go at the end of each B-tree instead
  -- of anywhere in it, which made an insert touch (and, once the file outgrew the page
  -- cache, read) a page of its own. The UUID stays the task's identity, in a unique index.
  PRAGMA defer_foreign_keys = ON;

  CREATE TABLE tasks_v3 (
    key            INTEGER PRIMARY KEY,
    id             TEXT NOT NULL UNIQUE,
    instance_id    TEXT NOT NULL,
    context_id     TEXT NOT NULL,
    skill          TEXT NOT NULL,
    created_at     TEXT NOT NULL,
    metadata_json  TEXT,
    state          TEXT NOT NULL,
    status_json    TEXT NOT NULL,
    status_ts      INTEGER NOT NULL,
    status_version INTEGER NOT NULL
  );
  INSERT INTO tasks_v3 (id, instance_id, context_id, skill, created_at, metadata_json, state, status_json, status_ts, status_version)
    SELECT id, instance_id, context_id, skill, created_at, metadata_json, state, status_json, status_ts, status_version FROM tasks ORDER BY rowid;

  CREATE TABLE task_status_v3 (
    version     INTEGER PRIMARY KEY,
    task_key    INTEGER NOT NULL REFERENCES tasks_v3 (key),
    state       TEXT NOT NULL,
    status_json TEXT NOT NULL,
    ts          INTEGER NOT NULL
  );
  INSERT INTO task_status_v3 SELECT s.version, t.key, s.state, s.status_json, s.ts FROM task_status s JOIN tasks_v3 t ON t.id = s.task_id;

  CREATE TABLE task_messages_v3 (
    task_key     INTEGER NOT NULL REFERENCES tasks_v3 (key),
    seq          INTEGER NOT NULL,
    message_json TEXT NOT NULL,
    PRIMARY KEY (task_key, seq)
  );
  INSERT INTO task_messages_v3 SELECT t.key, m.seq, m.message_json FROM task_messages m JOIN tasks_v3 t ON t.id = m.task_id;

  CREATE TABLE task_artifacts_v3 (
    task_key    INTEGER NOT NULL REFERENCES tasks_v3 (key),
    artifact_id TEXT NOT NULL,
    ord         INTEGER NOT NULL,
    meta_json   TEXT NOT NULL,
    PRIMARY KEY (task_key, artifact_id)
  );
  INSERT INTO task_artifacts_v3 SELECT t.key, a.artifact_id, a.ord, a.meta_json FROM task_artifacts a JOIN tasks_v3 t ON t.id = a.task_id;

  CREATE TABLE artifact_parts_v3 (
    task_key    INTEGER NOT NULL,
    artifact_id TEXT NOT NULL,
    seq         INTEGER NOT NULL,
    part_json   TEXT NOT NULL,
    PRIMARY KEY (task_key, artifact_id, seq),
    FOREIGN KEY (task_key, artifact_id) REFERENCES task_artifacts_v3 (task_key, artifact_id)
  );
  INSERT INTO artifact_parts_v3 SELECT t.key, p.artifact_id, p.seq, p.part_json FROM artifact_parts p JOIN tasks_v3 t ON t.id = p.task_id;

  CREATE TABLE task_events_v3 (
    task_key   INTEGER NOT NULL REFERENCES tasks_v3 (key),
    seq        INTEGER NOT NULL,
    frame_json TEXT NOT NULL,
    PRIMARY KEY (task_key, seq)
  );
  INSERT INTO task_events_v3 SELECT t.key, e.seq, e.frame_json FROM task_events e JOIN tasks_v3 t ON t.id = e.task_id;

  DROP TABLE artifact_parts;
  DROP TABLE task_artifacts;
  DROP TABLE task_events;
  DROP TABLE task_messages;
  DROP TABLE task_status;
  DROP TABLE tasks;
  ALTER TABLE tasks_v3 RENAME TO tasks;
  ALTER TABLE task_status_v3 RENAME TO task_status;
  ALTER TABLE task_messages_v3 RENAME TO task_messages;
  ALTER TABLE task_artifacts_v3 RENAME TO task_artifacts;
  ALTER TABLE artifact_parts_v3 RENAME TO artifact_parts;
  ALTER TABLE task_events_v3 RENAME TO task_events;

  CREATE INDEX tasks_by_time ON tasks (instance_id, status_ts DESC, id DESC);
  CREATE INDEX tasks_by_context ON tasks (instance_id, context_id, status_ts DESC, id DESC);
  CREATE INDEX tasks_by_state ON tasks (instance_id, state, status_ts DESC, id DESC);
  CREATE INDEX tasks_by_version ON tasks (instance_id, status_version);
  CREATE INDEX task_status_by_task ON task_status (task_key, version);
  `,
  `
  -- The task's last event sequence number lives on its row: artifact frames take a number
  -- but are not logged (a replay sends the assembled artifacts in its snapshot).
  ALTER TABLE tasks ADD COLUMN last_event_seq INTEGER NOT NULL DEFAULT 0;
  UPDATE tasks SET last_event_seq = coalesce((SELECT max(seq) FROM task_events e WHERE e.task_key = tasks.key), 0);
  `,
  `
  -- Fewer B-trees per task. Idempotency keys and context bindings are found by random ids: as
  -- WITHOUT ROWID tables each is one B-tree, not a table plus its primary-key index. An
  -- artifact's row holds the parts written with it, and each later append is one row holding
  -- that append's parts (a JSON array), instead of one row per part.
  PRAGMA defer_foreign_keys = ON;

  CREATE TABLE idempotency_v5 (
    instance_id  TEXT NOT NULL,
    message_id   TEXT NOT NULL,
    task_id      TEXT,
    message_json TEXT,
    PRIMARY KEY (instance_id, message_id)
  ) WITHOUT ROWID;
  INSERT INTO idempotency_v5 SELECT instance_id, message_id, task_id, message_json FROM idempotency;
  DROP TABLE idempotency;
  ALTER TABLE idempotency_v5 RENAME TO idempotency;

  CREATE TABLE contexts_v5 (
    instance_id    TEXT NOT NULL,
    context_id     TEXT NOT NULL,
    created_at     TEXT NOT NULL,
    last_active_at TEXT NOT NULL,
    PRIMARY KEY (instance_id, context_id)
  ) WITHOUT ROWID;
  INSERT INTO contexts_v5 SELECT instance_id, context_id, created_at, last_active_at FROM contexts;
  DROP TABLE contexts;
  ALTER TABLE contexts_v5 RENAME TO contexts;

  CREATE TABLE task_artifacts_v5 (
    task_key    INTEGER NOT NULL REFERENCES tasks (key),
    artifact_id TEXT NOT NULL,
    ord         INTEGER NOT NULL,
    meta_json   TEXT NOT NULL,
    parts_json  TEXT NOT NULL,  -- JSON array: the parts written with the artifact
    PRIMARY KEY (task_key, artifact_id)
  ) WITHOUT ROWID;
  INSERT INTO task_artifacts_v5
    SELECT a.task_key, a.artifact_id, a.ord, a.meta_json,
           '[' || coalesce((SELECT group_concat(p.part_json, ',' ORDER BY p.seq) FROM artifact_parts p
                            WHERE p.task_key = a.task_key AND p.artifact_id = a.artifact_id), '') || ']'
    FROM task_artifacts a;
  DROP TABLE artifact_parts;
  DROP TABLE task_artifacts;
  ALTER TABLE task_artifacts_v5 RENAME TO task_artifacts;

  CREATE TABLE artifact_chunks (
    task_key    INTEGER NOT NULL,
    artifact_id TEXT NOT NULL,
    seq         INTEGER NOT NULL,
    parts_json  TEXT NOT NULL,  -- JSON array: the parts of one append
    PRIMARY KEY (task_key, artifact_id, seq),
    FOREIGN KEY (task_key, artifact_id) REFERENCES task_artifacts (task_key, artifact_id)
  ) WITHOUT ROWID;
  `,
  `
  -- The status history keeps only statuses that were replaced, each filed under the version
  -- that replaced it: a task's current status lives on its row alone, so a task created and
  -- finished in one commit writes no history row, and the few tasks changed since a listing's
  -- watermark are a range of this table's key (tasks_by_version is gone). The newest version
  -- handed out is kept in status_clock, since no index finds it any more.
  PRAGMA defer_foreign_keys = ON;

  CREATE TABLE task_status_v6 (
    superseded_by INTEGER PRIMARY KEY,  -- the version of the status that replaced this one
    task_key      INTEGER NOT NULL REFERENCES tasks (key),
    version       INTEGER NOT NULL,
    state         TEXT NOT NULL,
    status_json   TEXT NOT NULL,
    ts            INTEGER NOT NULL
  );
  INSERT INTO task_status_v6 (superseded_by, task_key, version, state, status_json, ts)
    SELECT next, task_key, version, state, status_json, ts FROM (
      SELECT lead(version) OVER (PARTITION BY task_key ORDER BY version) AS next, task_key, version, state, status_json, ts
      FROM task_status
    ) WHERE next IS NOT NULL;

  CREATE TABLE status_clock (
    id      INTEGER PRIMARY KEY CHECK (id = 1),
    version INTEGER NOT NULL
  );
  INSERT INTO status_clock (id, version)
    SELECT 1, max(coalesce((SELECT max(version) FROM task_status), 0), coalesce((SELECT max(status_version) FROM tasks), 0));

  DROP TABLE task_status;
  ALTER TABLE task_status_v6 RENAME TO task_status;
  DROP INDEX tasks_by_version;
  `,
  `
  -- The list indexes in ascending order. ListTasks reads them backwards just as fast, but a
  -- descending index puts each new task at the left edge of its range, where SQLite splits
  -- pages in half: tasks_by_time and tasks_by_state were half empty and split twice as often.
  DROP INDEX tasks_by_time;
  DROP INDEX tasks_by_context;
  DROP INDEX tasks_by_state;
  CREATE INDEX tasks_by_time ON tasks (instance_id, status_ts, id);
  CREATE INDEX tasks_by_context ON tasks (instance_id, context_id, status_ts, id);
  CREATE INDEX tasks_by_state ON tasks (instance_id, state, status_ts, id);
  `,
  `
  -- An idempotency key is the messageId with the target the message named: a client may reuse
  -- a messageId for another task or context, and that is a new message, not a resend. The
  -- target is the taskId and contextId as sent, as JSON (message-target.ts). A key stored
  -- before this version does not know its target: it gets '', which the lookup takes for any
  -- target, so a resend of a message sent before the upgrade is still answered as before.
  CREATE TABLE idempotency_v8 (
    instance_id  TEXT NOT NULL,
    message_id   TEXT NOT NULL,
    target       TEXT NOT NULL,
    task_id      TEXT,
    message_json TEXT,
    PRIMARY KEY (instance_id, message_id, target)
  ) WITHOUT ROWID;
  INSERT INTO idempotency_v8 SELECT instance_id, message_id, '', task_id, message_json FROM idempotency;
  DROP TABLE idempotency;
  ALTER TABLE idempotency_v8 RENAME TO idempotency;
  `,
  `
  -- Tenants (spec §8.3.2) partition an instance's tasks, idempotency keys and contexts: a
  -- request sees only what was made under the tenant it names. '' is no tenant, which is what
  -- everything stored before this version was made under. The list indexes lead with the
  -- tenant after the instance, since every ListTasks walk is of one tenant.
  ALTER TABLE tasks ADD COLUMN tenant TEXT NOT NULL DEFAULT '';
  DROP INDEX tasks_by_time;
  DROP INDEX tasks_by_context;
  DROP INDEX tasks_by_state;
  CREATE INDEX tasks_by_time ON tasks (instance_id, tenant, status_ts, id);
  CREATE INDEX tasks_by_context ON tasks (instance_id, tenant, context_id, status_ts, id);
  CREATE INDEX tasks_by_state ON tasks (instance_id, tenant, state, status_ts, id);

  CREATE TABLE idempotency_v9 (
    instance_id  TEXT NOT NULL,
    tenant       TEXT NOT NULL,
    message_id   TEXT NOT NULL,
    target       TEXT NOT NULL,
    task_id      TEXT,
    message_json TEXT,
    PRIMARY KEY (instance_id, tenant, message_id, target)
  ) WITHOUT ROWID;
  INSERT INTO idempotency_v9 SELECT instance_id, '', message_id, target, task_id, message_json FROM idempotency;
  DROP TABLE idempotency;
  ALTER TABLE idempotency_v9 RENAME TO idempotency;

  CREATE TABLE contexts_v9 (
    instance_id    TEXT NOT NULL,
    tenant         TEXT NOT NULL,
    context_id     TEXT NOT NULL,
    created_at     TEXT NOT NULL,
    last_active_at TEXT NOT NULL,
    PRIMARY KEY (instance_id, tenant, context_id)
  ) WITHOUT ROWID;
  INSERT INTO contexts_v9 SELECT instance_id, '', context_id, created_at, last_active_at FROM contexts;
  DROP TABLE contexts;
  ALTER TABLE contexts_v9 RENAME TO contexts;
  `,
  `
  -- Push notifications: each task's webhook configs, the outbox of deliveries owed to them
  -- (filled in the transaction that logs the event, so none is lost or reordered by a crash),
  -- and the recent attempts the control API shows. Filed by task id rather than key: a config
  -- may be registered in the transaction that creates its task, before the task row is written.
  CREATE TABLE push_configs (
    task_id         TEXT NOT NULL,
    config_id       TEXT NOT NULL,
    ord             INTEGER NOT NULL,  -- first-creation order within the task; a re-create keeps it
    config_json     TEXT NOT NULL,     -- the config without its secrets
    secrets         TEXT NOT NULL,     -- sealed by the push layer
    created_at      TEXT NOT NULL,
    state           TEXT NOT NULL,     -- active, failing or disabled
    failures        INTEGER NOT NULL,
    last_error      TEXT,
    last_attempt_at TEXT,
    last_success_at TEXT,
    PRIMARY KEY (task_id, config_id)
  ) WITHOUT ROWID;
  CREATE INDEX push_configs_unhealthy ON push_configs (state, created_at) WHERE state <> 'active';

  CREATE TABLE push_outbox (
    id         INTEGER PRIMARY KEY AUTOINCREMENT,  -- never reused: a pair's deliveries go in id order
    task_id    TEXT NOT NULL,
    config_id  TEXT NOT NULL,
    frame_json TEXT NOT NULL,
    attempts   INTEGER NOT NULL,
    due_at     INTEGER NOT NULL,  -- ms since the epoch
    created_at TEXT NOT NULL
  );
  CREATE INDEX push_outbox_by_pair ON push_outbox (task_id, config_id, id);

  CREATE TABLE push_attempts (
    seq         INTEGER PRIMARY KEY AUTOINCREMENT,
    task_id     TEXT NOT NULL,
    config_id   TEXT NOT NULL,
    delivery_id INTEGER NOT NULL,
    at          TEXT NOT NULL,
    attempt     INTEGER NOT NULL,
    outcome     TEXT NOT NULL,
    status      INTEGER,
    latency_ms  REAL NOT NULL,
    error       TEXT
  );
  CREATE INDEX push_attempts_by_pair ON push_attempts (task_id, config_id, seq);
  `,
  // Retention (issue 42): a task is deleted with its status history and the idempotency records
  // that name it, found by index; and the terminal tasks of an instance are walked oldest first.
  `
  CREATE INDEX task_status_by_task ON task_status (task_key);
  CREATE INDEX idempotency_by_task ON idempotency (task_id) WHERE task_id IS NOT NULL;
  CREATE INDEX tasks_settled ON tasks (instance_id, status_ts, id) WHERE state IN (${TERMINAL_STATES_SQL});
  `,
];

/** The schema version this code writes. */
export const SCHEMA_VERSION = MIGRATIONS.length;

export function schemaVersion(db: Database.Database): number {
  const version = db.pragma('user_version', { simple: true });
  if (typeof version !== 'number') throw new Error('PRAGMA user_version returned no number');
  return version;
}

/** Brings the database to SCHEMA_VERSION, all pending steps in one transaction. */
export function migrate(db: Database.Database): void {
  const from = schemaVersion(db);
  if (from > SCHEMA_VERSION) {
    throw new Error(`the database has schema version ${from}, newer than this a2a-hub understands (${SCHEMA_VERSION})`);
  }
  db.transaction(() => {
    for (const [index, sql] of MIGRATIONS.entries()) {
      if (index < from) continue;
      db.exec(sql);
      db.pragma(`user_version = ${index + 1}`);
    }
  })();
}
