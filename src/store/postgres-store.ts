import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { ACTIVE_STATES } from '../../generated/a2a/1.0/task-states.js';
import type { Artifact, Message, Part, StreamResponse, Task, TaskState, TaskStatus } from '../../generated/a2a/1.0/types.js';
import { withParts, type ArtifactHeader } from './artifact-chunks.js';
import { fromJson, toJson } from './json.js';
import { listTasksLater } from './listing.js';
import { messageTarget } from './message-target.js';
import { migrate } from './postgres-schema.js';
import { pagePositions, taskCount } from './postgres-listing.js';
import { channelOf, PostgresSignals } from './postgres-signals.js';
import { inTransaction } from './postgres-connection.js';
import { TERMINAL_STATES_SQL, type RetentionRule } from './retention.js';
import { preparedSql } from './postgres-prepared.js';
import { PostgresWrites, type Lease, type Sql, type WriteSettings } from './postgres-writes.js';
import { attemptOf, deliveryOf, PUSH_HEADS, recordOf, type AttemptRow, type ConfigRow, type DeliveryRow } from './push-rows.js';
import {
  deliveryPairKey,
  type PushAttempt,
  type PushConfigRecord,
  type PushDelivery,
  type PushHealth,
  type StoredPushConfig,
  type UnhealthyCounts,
} from './push-store.js';
import { failedWrite, type StoreOp, type WriteOutcome } from './store-ops.js';
import { storageFaultOf } from './storage-fault.js';
import {
  EVENT_LOG_LIMIT,
  tenantOf,
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
} from './task-store.js';
import { historyLimit, toWireTask, wantsArtifacts } from './task-view.js';
import { infoOf, type TaskInfoRow } from './task-info-row.js';

export interface PostgresStoreOptions {
  /** postgres://user:password@host:port/database, as libpq and node-postgres read it. */
  readonly url: string;
  /** Connections this replica keeps open at most (default 10). */
  readonly poolSize?: number;
  readonly eventLogSize?: number;
  /** How long a running task's lease holds unrenewed (default 30 s): how soon a dead replica's tasks are settled by another. */
  readonly leaseMs?: number;
}

const LEASE_MS = 30_000;

/** How long a connection to the database may take, and one statement, before the call fails. */
const CONNECT_TIMEOUT_MS = 5_000;
const QUERY_TIMEOUT_MS = 30_000;

/**
 * BIGINT columns hold sequence numbers, versions and milliseconds, all safe integers: read as
 * numbers (node-postgres reads them as strings by default), for this store's pool only.
 */
function storeTypes(): pg.TypeOverrides {
  const types = new pg.TypeOverrides();
  types.setTypeParser(pg.types.builtins.INT8, (value: string) => Number(value));
  return types;
}

/**
 * The task store on PostgreSQL (docs/deployment.md), for several hub replicas sharing one
 * database. Every method answers with a promise. A batch of writes is one transaction; two
 * replicas writing one task serialise on its row (see PostgresWrites). Reads of one task are
 * one statement, so they see one snapshot.
 */
export class PostgresTaskStore implements TaskStore {
  readonly #pool: pg.Pool;
  readonly #settings: WriteSettings;
  #closing: Promise<void> | undefined;

  /** This process's name on the tasks it runs, and how long their leases hold. */
  readonly #lease: Lease;
  readonly #heartbeat: NodeJS.Timeout;
  /** LISTEN/NOTIFY between the replicas on this schema; every frame's commit is announced on its channel. */
  readonly signals: PostgresSignals;
  /**
   * Write batches committing at once, each on its own connection: a batch's statements go one
   * round trip at a time, so one connection would cap the tasks stored per second. Two
   * connections stay for reads.
   */
  readonly commitConcurrency: number;

  private constructor(pool: pg.Pool, url: string, channel: string, eventLogSize: number, leaseMs: number) {
    this.#pool = pool;
    this.commitConcurrency = Math.max(1, pool.options.max - 2);
    this.#lease = { owner: randomUUID(), ms: leaseMs };
    this.#settings = { eventLogSize, lease: this.#lease, channel };
    this.signals = new PostgresSignals(url, channel, pool);
    // Renewed three times per lease, so one slow renewal does not let it lapse.
    this.#heartbeat = setInterval(() => void this.#renewLeases().catch(() => undefined), Math.max(1, Math.floor(leaseMs / 3)));
    this.#heartbeat.unref();
  }

  /**
   * How often the hub settles the tasks of replicas whose leases lapsed (TaskRuntime.recover):
   * the lease's length, so a dead replica's tasks are FAILED within about two leases.
   */
  get recoverEveryMs(): number {
    return this.#lease.ms;
  }

  async #renewLeases(): Promise<void> {
    await this.#pool.query('UPDATE tasks SET lease_until = $2 WHERE owner = $1 AND state = ANY($3)', [
      this.#lease.owner,
      Date.now() + this.#lease.ms,
      [...ACTIVE_STATES],
    ]);
  }

  /** Connects, brings the schema up to date (migrations.ts), and returns the store. */
  static async open(options: PostgresStoreOptions): Promise<PostgresTaskStore> {
    const pool = new pg.Pool({
      connectionString: options.url,
      max: options.poolSize ?? 10,
      // Statements are sent without waiting for the answers of those before them (postgres-writes.ts).
      pipeline: true,
      types: storeTypes(),
      // A database that stops answering fails requests and readiness in bounded time, never hangs them.
      connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
      query_timeout: QUERY_TIMEOUT_MS,
    });
    // An idle connection the server drops must not take the process down.
    pool.on('error', () => undefined);
    let schema: string;
    try {
      await migrate(pool);
      schema = (await pool.query<{ schema: string }>('SELECT current_schema() AS schema')).rows[0]?.schema ?? 'public';
    } catch (error) {
      await pool.end();
      throw error;
    }
    return new PostgresTaskStore(
      pool,
      options.url,
      channelOf(schema),
      options.eventLogSize ?? EVENT_LOG_LIMIT,
      options.leaseMs ?? LEASE_MS,
    );
  }

  async commit(batch: readonly (readonly StoreOp[])[]): Promise<WriteOutcome[]> {
    try {
      const seqs = await this.#transaction((writes) => writes.applyAll(batch));
      return seqs.map((seq) => (seq === undefined ? { ok: true } : { ok: true, seq }));
    } catch (error) {
      // The storage failed, not a write: each write alone would only fail again, one at a time.
      if (batch.length === 1 || storageFaultOf(error) !== undefined) return batch.map(() => failedWrite(error));
    }
    // One bad write must not take the others with it.
    return sequential(batch, async (ops) => {
      try {
        const seq = await this.#transaction((writes) => writes.apply(ops));
        return seq === undefined ? { ok: true } : { ok: true, seq };
      } catch (error) {
        return failedWrite(error);
      }
    });
  }

  createTask(task: NewTask): Promise<void> {
    return this.#write([{ op: 'createTask', task }]);
  }

  setStatus(taskId: string, status: TaskStatus): Promise<void> {
    return this.#write([{ op: 'setStatus', taskId, status }]);
  }

  appendMessage(taskId: string, message: Message): Promise<void> {
    return this.#write([{ op: 'appendMessage', taskId, message }]);
  }

  putArtifact(taskId: string, artifact: Artifact, append: boolean): Promise<void> {
    return this.#write([{ op: 'putArtifact', taskId, artifact, append }]);
  }

  async appendEvent(taskId: string, frame: StreamResponse): Promise<number> {
    return this.#transaction((writes) => writes.appendEvent(taskId, frame));
  }

  recordIdempotent(instanceId: string, key: MessageKey, result: IdempotentResult): Promise<void> {
    return this.#write([{ op: 'recordIdempotent', instanceId, key, result }]);
  }

  touchContext(instanceId: string, contextId: string, at: string, tenant = ''): Promise<void> {
    return this.#write([{ op: 'touchContext', instanceId, tenant, contextId, at }]);
  }

  putPushConfig(config: StoredPushConfig): Promise<void> {
    return this.#write([{ op: 'putPushConfig', config }]);
  }

  enqueueDelivery(taskId: string, configId: string, frame: StreamResponse): Promise<void> {
    return this.#write([{ op: 'enqueueDelivery', taskId, configId, frame }]);
  }

  setPushHealth(taskId: string, configId: string, health: PushHealth): Promise<void> {
    return this.#write([{ op: 'setPushHealth', taskId, configId, health }]);
  }

  rescheduleConfig(taskId: string, configId: string, dueAt: number): Promise<void> {
    return this.#write([{ op: 'rescheduleConfig', taskId, configId, dueAt }]);
  }

  completeDelivery(deliveryId: number): Promise<void> {
    return this.#write([{ op: 'completeDelivery', deliveryId }]);
  }

  retryDelivery(deliveryId: number, dueAt: number): Promise<void> {
    return this.#write([{ op: 'retryDelivery', deliveryId, dueAt }]);
  }

  recordAttempt(attempt: PushAttempt, keep: number): Promise<void> {
    return this.#write([{ op: 'recordAttempt', attempt, keep }]);
  }

  async getTask(instanceId: string, taskId: string, read: TaskRead = {}): Promise<Task | undefined> {
    return (await this.snapshotTask(instanceId, taskId, read))?.task;
  }

  /**
   * One statement, so one snapshot of the database: the row, the history the view wants, the
   * artifacts with their chunks, the last frame's number, and with `replayAfter` the logged
   * frames after it up to that number.
   */
  async snapshotTask(instanceId: string, taskId: string, read: TaskRead = {}, replayAfter?: number): Promise<TaskSnapshot | undefined> {
    const limit = historyLimit(read);
    const { rows } = await this.#pool.query<{
      context_id: string;
      status_json: string;
      metadata_json: string | null;
      last_event_seq: number;
      messages: string[] | null;
      artifacts: [string, string[]][] | null;
      replay: [number, string][] | null;
    }>(
      `SELECT t.context_id, t.status_json, t.metadata_json, t.last_event_seq,
         (SELECT array_agg(m.message_json ORDER BY m.seq) FROM (
            SELECT message_json, seq FROM task_messages WHERE task_id = t.id ORDER BY seq DESC LIMIT $4) m) AS messages,
         CASE WHEN $5 THEN (SELECT json_agg(json_build_array(a.meta_json,
              (SELECT array_agg(c.parts_json ORDER BY c.seq) FROM artifact_chunks c WHERE c.task_id = a.task_id AND c.artifact_id = a.artifact_id))
            ORDER BY a.ord) FROM task_artifacts a WHERE a.task_id = t.id) END AS artifacts,
         CASE WHEN $6::bigint IS NOT NULL THEN (SELECT json_agg(json_build_array(e.seq, e.frame_json) ORDER BY e.seq)
              FROM task_events e WHERE e.task_id = t.id AND e.seq > $6 AND e.seq <= t.last_event_seq) END AS replay
       FROM tasks t WHERE t.id = $1 AND t.instance_id = $2 AND t.tenant = $3`,
      [taskId, instanceId, tenantOf(read), limit ?? null, wantsArtifacts(read), replayAfter ?? null],
    );
    const row = rows[0];
    if (row === undefined) return undefined;
    const artifacts = (row.artifacts ?? []).map(([header, chunks]): Artifact =>
      withParts(
        fromJson<ArtifactHeader>(header),
        chunks.flatMap((chunk) => fromJson<Part[]>(chunk)),
      ),
    );
    const task = toWireTask(
      {
        id: taskId,
        contextId: row.context_id,
        status: fromJson<TaskStatus>(row.status_json),
        metadata: row.metadata_json === null ? undefined : fromJson<Record<string, unknown>>(row.metadata_json),
        history: (row.messages ?? []).map((json) => fromJson<Message>(json)),
        artifacts,
      },
      read,
    );
    if (replayAfter === undefined) return { task, seq: row.last_event_seq };
    const replay = (row.replay ?? []).map(([seq, json]) => ({ seq: Number(seq), frame: fromJson<StreamResponse>(json) }));
    return { task, seq: row.last_event_seq, replay };
  }

  async getTaskInfo(taskId: string): Promise<TaskInfo | undefined> {
    const { rows } = await this.#pool.query<TaskInfoRow>(`SELECT ${INFO_COLUMNS} FROM tasks WHERE id = $1`, [taskId]);
    return rows[0] === undefined ? undefined : infoOf(rows[0]);
  }

  async listTasks(instanceId: string, query: TaskQuery): Promise<TaskPage> {
    return listTasksLater(instanceId, query, {
      // The watermark and the count of a first page in one snapshot.
      start: (filter) =>
        this.#readOnly(async (sql) => {
          const clock = await sql.query<{ n: number }>('SELECT last_value AS n FROM status_clock');
          return { asOf: clock.rows[0]?.n ?? 0, total: await taskCount(sql, filter) };
        }),
      positions: (request, asOf) => pagePositions(this.#pool, request, asOf),
      load: (taskId) => this.getTask(instanceId, taskId, query),
    });
  }

  async browseTasks(query: TaskBrowseQuery): Promise<{ rows: TaskInfo[]; total: number }> {
    const terms: string[] = [];
    const values: unknown[] = [];
    for (const [column, value] of [
      ['instance_id', query.instanceId],
      ['tenant', query.tenant],
      ['context_id', query.contextId],
      ['state', query.state],
    ] as const) {
      if (value === undefined) continue;
      values.push(value);
      terms.push(`${column} = $${values.length}`);
    }
    const where = terms.length === 0 ? '' : `WHERE ${terms.join(' AND ')}`;
    const total = await this.#pool.query<{ n: number }>(`SELECT count(*)::int AS n FROM tasks ${where}`, values);
    const rows = await this.#pool.query<TaskInfoRow>(
      `SELECT ${INFO_COLUMNS} FROM tasks ${where} ORDER BY status_ts DESC, id DESC LIMIT $${values.length + 1} OFFSET $${values.length + 2}`,
      [...values, query.limit, query.offset],
    );
    return { rows: rows.rows.map(infoOf), total: total.rows[0]?.n ?? 0 };
  }

  async countByState(): Promise<Partial<Record<TaskState, number>>> {
    const { rows } = await this.#pool.query<{ state: TaskState; n: number }>('SELECT state, count(*)::int AS n FROM tasks GROUP BY state');
    return Object.fromEntries(rows.map(({ state, n }) => [state, n]));
  }

  async settleUnfinished(status: (task: TaskInfo) => TaskStatus): Promise<string[]> {
    return this.#transaction(async (writes, sql) => {
      const { rows } = await sql.query<TaskInfoRow>(
        // Only tasks no live replica holds: another replica's running tasks keep their leases renewed.
        `SELECT ${INFO_COLUMNS} FROM tasks WHERE state = ANY($1) AND (lease_until IS NULL OR lease_until < $2)
         ORDER BY created_at, id FOR UPDATE SKIP LOCKED`,
        [[...ACTIVE_STATES], Date.now()],
      );
      for (const row of rows) await writes.setStatus(row.id, status(infoOf(row)));
      return rows.map((row) => row.id);
    });
  }

  async eventsAfter(taskId: string, afterSeq: number): Promise<LoggedEvent[]> {
    const { rows } = await this.#pool.query<{ seq: number; frame_json: string }>(
      'SELECT seq, frame_json FROM task_events WHERE task_id = $1 AND seq > $2 ORDER BY seq',
      [taskId, afterSeq],
    );
    return rows.map((row) => ({ seq: row.seq, frame: fromJson<StreamResponse>(row.frame_json) }));
  }

  async lastEventSeq(taskId: string): Promise<number> {
    const { rows } = await this.#pool.query<{ seq: number }>('SELECT last_event_seq AS seq FROM tasks WHERE id = $1', [taskId]);
    return rows[0]?.seq ?? 0;
  }

  async findIdempotent(instanceId: string, key: MessageKey): Promise<IdempotentResult | undefined> {
    const { rows } = await this.#pool.query<{ task_id: string | null; message_json: string | null }>(
      'SELECT task_id, message_json FROM idempotency WHERE instance_id = $1 AND tenant = $2 AND message_id = $3 AND target = $4',
      [instanceId, tenantOf(key), key.messageId, messageTarget(key)],
    );
    const row = rows[0];
    if (row === undefined) return undefined;
    if (row.task_id !== null) return { kind: 'task', taskId: row.task_id };
    if (row.message_json !== null) return { kind: 'message', message: fromJson<Message>(row.message_json) };
    throw new Error(`idempotency record ${key.messageId} of instance ${instanceId} holds neither a task nor a message`);
  }

  async getContext(instanceId: string, contextId: string, tenant = ''): Promise<ContextBinding | undefined> {
    const { rows } = await this.#pool.query<ContextBinding>(
      `SELECT instance_id AS "instanceId", tenant, context_id AS "contextId", created_at AS "createdAt", last_active_at AS "lastActiveAt"
       FROM contexts WHERE instance_id = $1 AND tenant = $2 AND context_id = $3`,
      [instanceId, tenant, contextId],
    );
    return rows[0];
  }

  async getPushConfig(taskId: string, configId: string): Promise<PushConfigRecord | undefined> {
    const { rows } = await this.#pool.query<ConfigRow>('SELECT * FROM push_configs WHERE task_id = $1 AND config_id = $2', [
      taskId,
      configId,
    ]);
    return rows[0] === undefined ? undefined : recordOf(rows[0]);
  }

  async listPushConfigs(taskId: string): Promise<PushConfigRecord[]> {
    const { rows } = await this.#pool.query<ConfigRow>('SELECT * FROM push_configs WHERE task_id = $1 ORDER BY ord', [taskId]);
    return rows.map(recordOf);
  }

  async countPushConfigs(taskId: string): Promise<number> {
    const { rows } = await this.#pool.query<{ n: number }>('SELECT count(*)::int AS n FROM push_configs WHERE task_id = $1', [taskId]);
    return rows[0]?.n ?? 0;
  }

  /** Another replica may register a config at any time: every task may have one. */
  mayHavePushConfigs(): boolean {
    return true;
  }

  async deletePushConfig(taskId: string, configId: string): Promise<boolean> {
    return this.#transaction(async (_writes, sql) => {
      const { rowCount } = await sql.query('DELETE FROM push_configs WHERE task_id = $1 AND config_id = $2', [taskId, configId]);
      if (rowCount === 0) return false;
      await sql.query('DELETE FROM push_outbox WHERE task_id = $1 AND config_id = $2', [taskId, configId]);
      await sql.query('DELETE FROM push_attempts WHERE task_id = $1 AND config_id = $2', [taskId, configId]);
      return true;
    });
  }

  async unhealthyPushConfigs(limit?: number): Promise<PushConfigRecord[]> {
    const { rows } = await this.#pool.query<ConfigRow>(
      "SELECT * FROM push_configs WHERE state <> 'active' ORDER BY created_at, task_id, config_id LIMIT $1",
      [limit ?? null],
    );
    return rows.map(recordOf);
  }

  async unhealthyPushConfigCounts(): Promise<UnhealthyCounts> {
    const { rows } = await this.#pool.query<{ state: 'failing' | 'disabled'; n: number }>(
      "SELECT state, count(*)::int AS n FROM push_configs WHERE state <> 'active' GROUP BY state",
    );
    const counts = { failing: 0, disabled: 0 };
    for (const { state, n } of rows) counts[state] = n;
    return counts;
  }

  /**
   * Due heads no other replica holds, each claimed for this one for a lease's length before it
   * is returned: of replicas looking at once, one gets each delivery, so each webhook gets its
   * frames one at a time and in order. (Within this replica the dispatcher's busy pairs keep an
   * attempt from starting twice, so its own claims do not hide a head from it.) A claim ends
   * with the attempt (the delivery is deleted, or rescheduled unclaimed); a replica that dies
   * mid-attempt leaves a claim that lapses, and a survivor attempts the delivery again (at least
   * once, as after a restart).
   */
  async dueDeliveries(nowMs: number, limit: number, busy?: ReadonlySet<string>): Promise<PushDelivery[]> {
    const owner = this.#lease.owner;
    const { rows } = await this.#pool.query<DeliveryRow>(
      `${PUSH_HEADS} WHERE o.due_at <= $1 AND (o.claim_until IS NULL OR o.claim_until < $1 OR o.claimed_by = $2) ORDER BY o.id`,
      [nowMs, owner],
    );
    const wanted = rows.filter((row) => busy?.has(deliveryPairKey(row.task_id, row.config_id)) !== true).slice(0, limit);
    if (wanted.length === 0) return [];
    // The row lock makes a second claimer re-read the row, which the first one's claim now excludes.
    const claimed = await this.#pool.query<{ id: number }>(
      `UPDATE push_outbox SET claimed_by = $1, claim_until = $2
       WHERE id = ANY($3) AND (claim_until IS NULL OR claim_until < $4 OR claimed_by = $1) RETURNING id`,
      [owner, nowMs + this.#lease.ms, wanted.map((row) => row.id), nowMs],
    );
    const mine = new Set(claimed.rows.map((row) => row.id));
    return wanted.filter((row) => mine.has(row.id)).map(deliveryOf);
  }

  /** A head another replica holds is due, for this one, when its claim lapses. */
  async nextDueAt(): Promise<number | undefined> {
    const { rows } = await this.#pool.query<{ due: number | null }>(
      `SELECT min(CASE WHEN claimed_by IS NULL OR claimed_by = $1 THEN due_at ELSE greatest(due_at, claim_until) END) AS due
       FROM (${PUSH_HEADS}) h`,
      [this.#lease.owner],
    );
    return rows[0]?.due ?? undefined;
  }

  async pendingDeliveries(taskId?: string, configId?: string): Promise<number> {
    const { rows } = await this.#pool.query<{ n: number }>(
      'SELECT count(*)::int AS n FROM push_outbox WHERE ($1::text IS NULL OR task_id = $1) AND ($2::text IS NULL OR config_id = $2)',
      [taskId ?? null, taskId === undefined ? null : (configId ?? null)],
    );
    return rows[0]?.n ?? 0;
  }

  async listAttempts(taskId: string, configId: string, limit: number): Promise<PushAttempt[]> {
    const { rows } = await this.#pool.query<AttemptRow>(
      'SELECT * FROM push_attempts WHERE task_id = $1 AND config_id = $2 ORDER BY seq DESC LIMIT $3',
      [taskId, configId, limit],
    );
    return rows.map(attemptOf);
  }

  async loadInstances(): Promise<StoredInstance[]> {
    return this.#configs('instances');
  }

  async saveInstance(instance: StoredInstance): Promise<void> {
    await this.#saveConfig('instances', instance);
  }

  async deleteInstance(id: string): Promise<void> {
    await this.#pool.query('DELETE FROM instances WHERE id = $1', [id]);
  }

  async loadOutbounds(): Promise<StoredOutbound[]> {
    return this.#configs('outbounds');
  }

  async saveOutbound(outbound: StoredOutbound): Promise<void> {
    await this.#saveConfig('outbounds', outbound);
  }

  async deleteOutbound(id: string): Promise<void> {
    await this.#pool.query('DELETE FROM outbounds WHERE id = $1', [id]);
  }

  async getMeta(key: string): Promise<string | undefined> {
    const { rows } = await this.#pool.query<{ value: string }>('SELECT value FROM meta WHERE key = $1', [key]);
    return rows[0]?.value;
  }

  async setMeta(key: string, value: string): Promise<void> {
    await this.#pool.query('INSERT INTO meta (key, value) VALUES ($1, $2) ON CONFLICT (key) DO UPDATE SET value = excluded.value', [
      key,
      value,
    ]);
  }

  async deleteMeta(key: string): Promise<void> {
    await this.#pool.query('DELETE FROM meta WHERE key = $1', [key]);
  }

  async ping(): Promise<void> {
    await this.#pool.query('SELECT 1');
  }

  /**
   * One batch in one transaction, under a transaction-scoped advisory lock that replicas only
   * try: of two sweeping at once, one deletes and the other is told the store is held (undefined).
   */
  async pruneTasks(instanceId: string, rule: RetentionRule, nowMs: number, limit: number): Promise<readonly string[] | undefined> {
    return inTransaction(this.#pool, 'BEGIN', async (sql) => {
      const { rows: held } = await sql.query<{ locked: boolean }>('SELECT pg_try_advisory_xact_lock($1) AS locked', [RETENTION_LOCK]);
      if (held[0]?.locked !== true) return undefined;
      const settled = `instance_id = $1 AND state IN (${TERMINAL_STATES_SQL})`;
      const nothingPending = 'NOT EXISTS (SELECT 1 FROM push_outbox o WHERE o.task_id = t.id)';
      const victims = new Set<string>();
      if (rule.maxAgeMs !== undefined) {
        const { rows } = await sql.query<{ id: string }>(
          `SELECT id FROM tasks t WHERE ${settled} AND status_ts < $2 AND ${nothingPending} ORDER BY status_ts, id LIMIT $3`,
          [instanceId, nowMs - rule.maxAgeMs, limit],
        );
        for (const row of rows) victims.add(row.id);
      }
      if (rule.maxTasks !== undefined && victims.size < limit) {
        const { rows: counted } = await sql.query<{ n: number }>(`SELECT count(*)::int AS n FROM tasks WHERE ${settled}`, [instanceId]);
        const excess = (counted[0]?.n ?? 0) - rule.maxTasks;
        if (excess > 0) {
          const { rows } = await sql.query<{ id: string }>(
            `SELECT id FROM (SELECT id FROM tasks WHERE ${settled} ORDER BY status_ts, id LIMIT $2) t WHERE ${nothingPending} LIMIT $3`,
            [instanceId, excess, limit - victims.size],
          );
          for (const row of rows) victims.add(row.id);
        }
      }
      const ids = [...victims].slice(0, limit);
      if (ids.length === 0) return ids;
      // Children before their parents: the foreign keys are enforced.
      for (const table of [
        'push_attempts',
        'push_configs',
        'idempotency',
        'task_messages',
        'task_events',
        'artifact_chunks',
        'task_artifacts',
        'task_status',
      ])
        await sql.query(`DELETE FROM ${table} WHERE task_id = ANY($1)`, [ids]);
      await sql.query('DELETE FROM tasks WHERE id = ANY($1)', [ids]);
      return ids;
    });
  }

  async probeWrite(): Promise<void> {
    // A committed write (a WAL record), of a key nothing reads.
    await this.#pool.query(
      "INSERT INTO meta (key, value) VALUES ('a2a-hub:write-probe', now()::text) ON CONFLICT (key) DO UPDATE SET value = excluded.value",
    );
  }

  /** Ends the pool once; closing again is not an error. */
  close(): Promise<void> {
    clearInterval(this.#heartbeat);
    this.#closing ??= this.signals.close().then(() => this.#pool.end());
    return this.#closing;
  }

  async #configs(table: 'instances' | 'outbounds'): Promise<{ id: string; config: Record<string, unknown> }[]> {
    const { rows } = await this.#pool.query<{ id: string; config_json: string }>(`SELECT id, config_json FROM ${table} ORDER BY id`);
    return rows.map((row) => ({ id: row.id, config: fromJson<Record<string, unknown>>(row.config_json) }));
  }

  async #saveConfig(
    table: 'instances' | 'outbounds',
    row: { readonly id: string; readonly config: Record<string, unknown> },
  ): Promise<void> {
    await this.#pool.query(
      `INSERT INTO ${table} (id, config_json) VALUES ($1, $2) ON CONFLICT (id) DO UPDATE SET config_json = excluded.config_json`,
      [row.id, toJson(row.config)],
    );
  }

  async #write(ops: readonly StoreOp[]): Promise<void> {
    await this.#transaction((writes) => writes.apply(ops));
  }

  /** Runs `work` in one transaction on one connection: committed when it resolves, rolled back when it throws. */
  async #transaction<T>(work: (writes: PostgresWrites, sql: Sql) => Promise<T>): Promise<T> {
    // Pipelined: the writes are sent behind BEGIN without waiting for its answer.
    return inTransaction(this.#pool, 'BEGIN', (client) => work(new PostgresWrites(preparedSql(client), this.#settings), client), true);
  }

  /** Reads that must agree with each other, in one REPEATABLE READ snapshot. */
  async #readOnly<T>(work: (sql: Sql) => Promise<T>): Promise<T> {
    return inTransaction(this.#pool, 'BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY', work);
  }
}

/** The advisory lock one retention batch holds at a time across the replicas ('a2ar' in ASCII). */
const RETENTION_LOCK = 0x61326172;

const INFO_COLUMNS = 'id, instance_id, tenant, context_id, skill, created_at, state, status_ts, status_version';

/** Maps in order, one at a time: the writes of a transaction share its one connection. */
async function sequential<T, R>(items: readonly T[], map: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = [];
  for (const item of items) results.push(await map(item));
  return results;
}
