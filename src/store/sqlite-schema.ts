import type Database from 'better-sqlite3';

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
