import type pg from 'pg';
import { inTransaction } from './postgres-connection.js';
import { TERMINAL_STATES_SQL } from './retention.js';

/**
 * The PostgreSQL schema, as a list of migrations: entry N-1 takes a database from schema
 * version N-1 to N, recorded in a2a_hub_migrations. Append new entries; never edit one that
 * has shipped.
 *
 * JSON is kept as text, not jsonb: jsonb reorders keys, rewrites numbers and refuses "\u0000"
 * in strings, and the store promises to give back what it was given. Ids that ListTasks orders
 * by are COLLATE "C", so PostgreSQL orders them by code point as SQLite and memory do.
 */
export const MIGRATIONS: readonly { readonly name: string; readonly sql: string }[] = [
  {
    name: 'tasks, events, idempotency, contexts, push, instances, outbounds and meta',
    sql: `
    CREATE SEQUENCE status_clock;

    CREATE TABLE tasks (
      id             TEXT COLLATE "C" PRIMARY KEY,
      instance_id    TEXT NOT NULL,
      tenant         TEXT NOT NULL,
      context_id     TEXT NOT NULL,
      skill          TEXT NOT NULL,
      created_at     TEXT NOT NULL,
      metadata_json  TEXT,
      state          TEXT NOT NULL,
      status_json    TEXT NOT NULL,
      status_ts      BIGINT NOT NULL,      -- ms since the epoch: the ListTasks order
      status_version BIGINT NOT NULL,      -- status_clock value of the current status
      last_event_seq BIGINT NOT NULL DEFAULT 0,
      messages       INTEGER NOT NULL DEFAULT 0,
      artifacts      INTEGER NOT NULL DEFAULT 0,
      version        BIGINT NOT NULL DEFAULT 1,  -- bumped by every write to the task
      -- While the task is SUBMITTED or WORKING: the replica running it, and until when its
      -- lease holds (ms since the epoch). The replica renews it; once it lapses, another settles the task.
      owner          TEXT,
      lease_until    BIGINT
    );
    CREATE INDEX tasks_by_owner ON tasks (owner) WHERE owner IS NOT NULL;
    CREATE INDEX tasks_by_time ON tasks (instance_id, tenant, status_ts, id);
    CREATE INDEX tasks_by_context ON tasks (instance_id, tenant, context_id, status_ts, id);
    CREATE INDEX tasks_by_state ON tasks (instance_id, tenant, state, status_ts, id);
    CREATE INDEX tasks_by_any_state ON tasks (state);

    -- Statuses that were replaced, so that a ListTasks walk can see a task as of its watermark.
    CREATE TABLE task_status (
      superseded_by BIGINT PRIMARY KEY,    -- the version of the status that replaced this one
      task_id       TEXT COLLATE "C" NOT NULL REFERENCES tasks (id),
      version       BIGINT NOT NULL,
      state         TEXT NOT NULL,
      ts            BIGINT NOT NULL
    );

    CREATE TABLE task_messages (
      task_id      TEXT NOT NULL REFERENCES tasks (id),
      seq          INTEGER NOT NULL,
      message_json TEXT NOT NULL,
      PRIMARY KEY (task_id, seq)
    );

    CREATE TABLE task_artifacts (
      task_id     TEXT NOT NULL REFERENCES tasks (id),
      artifact_id TEXT NOT NULL,
      ord         INTEGER NOT NULL,        -- first-creation order within the task
      meta_json   TEXT NOT NULL,           -- the artifact without its parts
      chunks      INTEGER NOT NULL,        -- artifact_chunks rows it has
      PRIMARY KEY (task_id, artifact_id)
    );

    CREATE TABLE artifact_chunks (
      task_id     TEXT NOT NULL,
      artifact_id TEXT NOT NULL,
      seq         INTEGER NOT NULL,
      parts_json  TEXT NOT NULL,           -- JSON array: the parts of one write
      PRIMARY KEY (task_id, artifact_id, seq),
      FOREIGN KEY (task_id, artifact_id) REFERENCES task_artifacts (task_id, artifact_id)
    );

    CREATE TABLE task_events (
      task_id    TEXT NOT NULL REFERENCES tasks (id),
      seq        BIGINT NOT NULL,
      frame_json TEXT NOT NULL,
      PRIMARY KEY (task_id, seq)
    );

    CREATE TABLE idempotency (
      instance_id  TEXT NOT NULL,
      tenant       TEXT NOT NULL,
      message_id   TEXT NOT NULL,
      target       TEXT NOT NULL,
      task_id      TEXT,                   -- set for a message that produced a task,
      message_json TEXT,                   -- or the direct reply it got
      PRIMARY KEY (instance_id, tenant, message_id, target)
    );

    CREATE TABLE contexts (
      instance_id    TEXT NOT NULL,
      tenant         TEXT NOT NULL,
      context_id     TEXT NOT NULL,
      created_at     TEXT NOT NULL,
      last_active_at TEXT NOT NULL,
      PRIMARY KEY (instance_id, tenant, context_id)
    );

    CREATE TABLE push_configs (
      task_id         TEXT NOT NULL REFERENCES tasks (id),
      config_id       TEXT NOT NULL,
      ord             BIGSERIAL,           -- first-creation order; a re-create keeps it
      config_json     TEXT NOT NULL,
      secrets         TEXT NOT NULL,       -- sealed by the push layer
      created_at      TEXT NOT NULL,
      state           TEXT NOT NULL,       -- active, failing or disabled
      failures        INTEGER NOT NULL,
      last_error      TEXT,
      last_attempt_at TEXT,
      last_success_at TEXT,
      PRIMARY KEY (task_id, config_id)
    );
    CREATE INDEX push_configs_unhealthy ON push_configs (state, created_at) WHERE state <> 'active';

    CREATE TABLE push_outbox (
      id         BIGSERIAL PRIMARY KEY,
      task_id    TEXT NOT NULL,
      config_id  TEXT NOT NULL,
      frame_json TEXT NOT NULL,
      attempts   INTEGER NOT NULL DEFAULT 0,
      due_at     BIGINT NOT NULL,           -- ms since the epoch
      created_at TEXT NOT NULL
    );
    CREATE INDEX push_outbox_by_pair ON push_outbox (task_id, config_id, id);

    CREATE TABLE push_attempts (
      seq         BIGSERIAL PRIMARY KEY,
      task_id     TEXT NOT NULL,
      config_id   TEXT NOT NULL,
      delivery_id BIGINT NOT NULL,
      at          TEXT NOT NULL,
      attempt     INTEGER NOT NULL,
      outcome     TEXT NOT NULL,
      status      INTEGER,
      latency_ms  DOUBLE PRECISION NOT NULL,
      error       TEXT
    );
    CREATE INDEX push_attempts_by_pair ON push_attempts (task_id, config_id, seq);

    CREATE TABLE instances (id TEXT PRIMARY KEY, config_json TEXT NOT NULL);
    CREATE TABLE outbounds (id TEXT PRIMARY KEY, config_json TEXT NOT NULL);
    CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
    `,
  },
  {
    name: 'push delivery claims: one replica attempts each delivery',
    sql: `
    ALTER TABLE push_outbox ADD COLUMN claimed_by TEXT, ADD COLUMN claim_until BIGINT;
    `,
  },
  {
    name: 'retention: a task found with all that names it, and terminal tasks walked oldest first',
    sql: `
    CREATE INDEX task_status_by_task ON task_status (task_id);
    CREATE INDEX idempotency_by_task ON idempotency (task_id) WHERE task_id IS NOT NULL;
    CREATE INDEX tasks_settled ON tasks (instance_id, status_ts, id) WHERE state IN (${TERMINAL_STATES_SQL});
    `,
  },
];

/** The schema version this code writes. */
export const SCHEMA_VERSION = MIGRATIONS.length;

/** Any fixed number: the advisory lock replicas starting together take, so one migrates and the others wait. */
const MIGRATION_LOCK = 0x2a2a_4855;

export interface MigrationStatus {
  /** Migrations recorded in the database, oldest first. */
  readonly applied: readonly { readonly version: number; readonly name: string; readonly appliedAt: string }[];
  /** Migrations this a2a-hub has that the database has not, in the order they would run. */
  readonly pending: readonly { readonly version: number; readonly name: string }[];
  /** The database is newer than this a2a-hub: it was migrated by a later version. */
  readonly ahead: boolean;
}

interface Queryable {
  query<R extends object = Record<string, unknown>>(text: string, values?: readonly unknown[]): Promise<{ rows: R[] }>;
}

const LEDGER = `CREATE TABLE IF NOT EXISTS a2a_hub_migrations (
  version    INTEGER PRIMARY KEY,
  name       TEXT NOT NULL,
  applied_at TIMESTAMPTZ NOT NULL DEFAULT now()
)`;

/** What has been applied and what would be. */
export async function migrationStatus(db: Queryable): Promise<MigrationStatus> {
  const exists = await db.query<{ found: string | null }>("SELECT to_regclass('a2a_hub_migrations')::text AS found");
  const rows =
    exists.rows[0]?.found == null
      ? []
      : (
          await db.query<{ version: number; name: string; applied_at: Date }>(
            'SELECT version, name, applied_at FROM a2a_hub_migrations ORDER BY version',
          )
        ).rows;
  const done = new Set(rows.map((row) => row.version));
  return {
    applied: rows.map((row) => ({ version: row.version, name: row.name, appliedAt: row.applied_at.toISOString() })),
    pending: MIGRATIONS.flatMap((migration, index) => (done.has(index + 1) ? [] : [{ version: index + 1, name: migration.name }])),
    ahead: rows.some((row) => row.version > SCHEMA_VERSION),
  };
}

/**
 * Brings the database to SCHEMA_VERSION: every pending migration in one transaction, under an
 * advisory lock, so replicas that start together migrate once. Refuses a database migrated by a
 * newer a2a-hub. Returns the versions it applied.
 */
export async function migrate(pool: pg.Pool): Promise<number[]> {
  return inTransaction(pool, 'BEGIN', async (client) => {
    await client.query('SELECT pg_advisory_xact_lock($1)', [MIGRATION_LOCK]);
    await client.query(LEDGER);
    const status = await migrationStatus(client);
    if (status.ahead) {
      throw new Error(
        `the database has schema version ${Math.max(...status.applied.map((row) => row.version))}, newer than this a2a-hub understands (${SCHEMA_VERSION})`,
      );
    }
    for (const { version } of status.pending) {
      const migration = MIGRATIONS[version - 1];
      if (migration === undefined) continue;
      await client.query(migration.sql);
      await client.query('INSERT INTO a2a_hub_migrations (version, name) VALUES ($1, $2)', [version, migration.name]);
    }
    return status.pending.map((migration) => migration.version);
  });
}
