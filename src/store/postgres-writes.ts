import type { Artifact, Message, Part, StreamResponse, TaskStatus } from '../../generated/a2a/1.0/types.js';
import { changesHeader, headerOf, mergeHeader, type ArtifactHeader } from './artifact-chunks.js';
import { fromJson, toJson } from './json.js';
import { messageTarget } from './message-target.js';
import type { PushAttempt, PushHealth, StoredPushConfig } from './push-store.js';
import type { StoreOp } from './store-ops.js';
import {
  DuplicateKeyError,
  StaleWriteError,
  statusChangedError,
  tenantOf,
  UnknownTaskError,
  type IdempotentResult,
  type MessageKey,
  type NewTask,
} from './task-store.js';
import { statusMillis, timestampMillis } from './timestamps.js';
import { ACTIVE_STATES, TERMINAL_STATES } from '../../generated/a2a/1.0/task-states.js';

const ACTIVE: ReadonlySet<string> = new Set(ACTIVE_STATES);

/** The order context rows are locked in, the same in every replica (code units, not a locale). */
function byContext(a: { instanceId: string; tenant: string; contextId: string }, b: typeof a): number {
  const order = (x: string, y: string): number => (x < y ? -1 : x > y ? 1 : 0);
  return order(a.instanceId, b.instanceId) || order(a.tenant, b.tenant) || order(a.contextId, b.contextId);
}

/** Ops that send a statement built from an earlier statement's answer: the ops after them wait. */
const DEPENDENT_OPS: ReadonlySet<StoreOp['op']> = new Set(['putArtifact', 'setPushHealth', 'recordAttempt']);

/** What the writes run their SQL on: a client inside an open transaction. */
export interface Sql {
  query<R extends object = Record<string, unknown>>(
    text: string,
    values?: readonly unknown[],
  ): Promise<{ rows: R[]; rowCount: number | null }>;
}

/** Who holds the running tasks this store writes, and for how long a write's lease holds. */
export interface Lease {
  readonly owner: string;
  readonly ms: number;
}

/** What every write of one store shares. */
export interface WriteSettings {
  readonly eventLogSize: number;
  readonly lease: Lease;
  /** Where a committed frame is announced to the replicas (postgres-signals.ts). */
  readonly channel: string;
}

/**
 * The task writes of the PostgreSQL store, one function per StoreOp, each as few statements as
 * the op allows (appendEvent is one: numbering, logging, pruning, the push outbox and the
 * announcement in one statement). They run inside the caller's transaction; every write to a
 * task bumps its `version` and takes its row lock, so two replicas writing one task serialise on it.
 */
export class PostgresWrites {
  readonly #lease: Lease;

  constructor(
    private readonly sql: Sql,
    private readonly settings: WriteSettings,
  ) {
    this.#lease = settings.lease;
  }

  /** Applies the ops in order; returns the sequence number of the last appendEvent, if any. */
  async apply(ops: readonly StoreOp[]): Promise<number | undefined> {
    const [seq] = await this.applyAll([ops]);
    return seq;
  }

  /**
   * Applies a batch's writes in order, each write's ops in order; for each write, the sequence
   * number of its last appendEvent. The statements are sent without waiting for each other's
   * answers (the connection pipelines them, and the server runs them in the order sent), so a
   * batch costs a few round trips, not one per statement. Only an op whose later statement
   * depends on an earlier one's answer is waited for before the next op is sent. An op that
   * fails fails the batch: the caller rolls the transaction back, so what was sent after it is
   * undone with it.
   */
  async applyAll(batch: readonly (readonly StoreOp[])[]): Promise<(number | undefined)[]> {
    const sent: Promise<number | undefined>[] = [];
    const send = (op: StoreOp): Promise<number | undefined> => {
      const result = this.#one(op);
      // Handled at once: its failure is read below, after the statements sent behind it.
      result.catch(() => undefined);
      sent.push(result);
      return result;
    };
    const seqs: (Promise<number | undefined> | undefined)[] = [];
    // Batches of one replica commit at once, and contexts are shared between tasks: each batch
    // takes its context rows' locks last and in one order, so that two batches never deadlock.
    const contexts: Extract<StoreOp, { op: 'touchContext' }>[] = [];
    let failed = false;
    for (const ops of batch) {
      let seq: Promise<number | undefined> | undefined;
      for (const op of ops) {
        if (op.op === 'touchContext') {
          contexts.push(op);
          continue;
        }
        const result = send(op);
        if (op.op === 'appendEvent') seq = result;
        if (DEPENDENT_OPS.has(op.op))
          failed = await result.then(
            () => false,
            () => true,
          );
        if (failed) break;
      }
      seqs.push(seq);
      if (failed) break;
    }
    if (!failed) for (const op of contexts.sort(byContext)) void send(op);
    // Every answer is awaited, so that none is left unhandled, and the first failure is the one reported.
    const outcomes = await Promise.allSettled(sent);
    const failure = outcomes.find((outcome) => outcome.status === 'rejected');
    if (failure !== undefined) throw failure.reason;
    return Promise.all(seqs.map((seq) => seq ?? Promise.resolve(undefined)));
  }

  async #one(op: StoreOp): Promise<number | undefined> {
    switch (op.op) {
      case 'createTask':
        return this.createTask(op.task);
      case 'setStatus':
        return this.setStatus(op.taskId, op.status);
      case 'appendMessage':
        return this.appendMessage(op.taskId, op.message);
      case 'putArtifact':
        return this.putArtifact(op.taskId, op.artifact, op.append);
      case 'appendEvent':
        return this.appendEvent(op.taskId, op.frame);
      case 'recordIdempotent':
        return this.recordIdempotent(op.instanceId, op.key, op.result);
      case 'touchContext':
        return this.touchContext(op.instanceId, op.contextId, op.at, op.tenant);
      case 'putPushConfig':
        return this.putPushConfig(op.config);
      case 'enqueueDelivery':
        return this.enqueueDelivery(op.taskId, op.configId, op.frame);
      case 'setPushHealth':
        return this.setPushHealth(op.taskId, op.configId, op.health);
      case 'rescheduleConfig':
        return this.rescheduleConfig(op.taskId, op.configId, op.dueAt);
      case 'completeDelivery':
        return this.completeDelivery(op.deliveryId);
      case 'retryDelivery':
        return this.retryDelivery(op.deliveryId, op.dueAt);
      case 'recordAttempt':
        return this.recordAttempt(op.attempt, op.keep);
      case 'expectPushConfig':
        return this.expectPushConfig(op.taskId, op.configId, op.secrets);
      case 'expectStatus':
        return this.expectStatus(op.taskId, op.version);
    }
  }

  async createTask(task: NewTask): Promise<undefined> {
    const statusTs = statusMillis(task.status, timestampMillis(task.createdAt));
    const { rowCount } = await this.sql.query(
      `WITH t AS (
         INSERT INTO tasks (id, instance_id, tenant, context_id, skill, created_at, metadata_json, state, status_json, status_ts, status_version, messages, owner, lease_until)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, nextval('status_clock'), 1, $12, $13)
         ON CONFLICT (id) DO NOTHING RETURNING id
       )
       INSERT INTO task_messages (task_id, seq, message_json) SELECT id, 0, $11 FROM t`,
      [
        task.id,
        task.instanceId,
        tenantOf(task),
        task.contextId,
        task.skill,
        task.createdAt,
        task.metadata === undefined ? null : toJson(task.metadata),
        task.status.state,
        toJson(task.status),
        statusTs,
        toJson(task.message),
        ...this.#leaseOf(task.status.state),
      ],
    );
    if (rowCount === 0) throw new DuplicateKeyError(`task ${task.id} already exists`);
    return undefined;
  }

  /**
   * A terminal task takes no other status: one another replica settled (its lease lapsed, or a
   * cancel) is not overwritten by the replica that still ran it, whose write fails as stale.
   */
  async setStatus(taskId: string, status: TaskStatus): Promise<undefined> {
    // Checked before anything is written: a bad timestamp changes nothing.
    const ts = status.timestamp === undefined ? null : timestampMillis(status.timestamp);
    const { rows } = await this.sql.query<{ state: string; settled: boolean }>(
      `WITH old AS (SELECT id, status_version, state, status_ts, state = ANY($7) AS settled FROM tasks WHERE id = $1 FOR UPDATE),
       v AS (SELECT nextval('status_clock') AS n FROM old WHERE NOT old.settled),
       kept AS (
         INSERT INTO task_status (superseded_by, task_id, version, state, ts)
         SELECT v.n, old.id, old.status_version, old.state, old.status_ts FROM old, v
       ),
       changed AS (
         UPDATE tasks t SET state = $2, status_json = $3, status_ts = coalesce($4, t.status_ts), status_version = v.n,
           version = t.version + 1, owner = $5, lease_until = $6
         FROM v WHERE t.id = $1
       )
       SELECT state, settled FROM old`,
      [taskId, status.state, toJson(status), ts, ...this.#leaseOf(status.state), [...TERMINAL_STATES]],
    );
    const old = rows[0];
    if (old === undefined) throw new UnknownTaskError(taskId);
    if (old.settled) throw new StaleWriteError(`task ${taskId} is already ${old.state}: it was settled elsewhere`);
    return undefined;
  }

  /** The owner and lease a task in `state` gets from this write: this replica's while it runs, none once it waits or ends. */
  #leaseOf(state: string): [string | null, number | null] {
    return ACTIVE.has(state) ? [this.#lease.owner, Date.now() + this.#lease.ms] : [null, null];
  }

  async appendMessage(taskId: string, message: Message): Promise<undefined> {
    const { rowCount } = await this.sql.query(
      `WITH t AS (UPDATE tasks SET messages = messages + 1, version = version + 1 WHERE id = $1 RETURNING messages - 1 AS seq)
       INSERT INTO task_messages (task_id, seq, message_json) SELECT $1, seq, $2 FROM t`,
      [taskId, toJson(message)],
    );
    if (rowCount === 0) throw new UnknownTaskError(taskId);
    return undefined;
  }

  async putArtifact(taskId: string, artifact: Artifact, append: boolean): Promise<undefined> {
    // The task's row lock orders the artifact writes of replicas writing one task; a task another
    // replica settled (a cancel) takes no more output from the one still running it.
    const task = await this.sql.query<{ artifacts: number; state: string; settled: boolean }>(
      'UPDATE tasks SET version = version + 1 WHERE id = $1 RETURNING artifacts, state, state = ANY($2) AS settled',
      [taskId, [...TERMINAL_STATES]],
    );
    const held = task.rows[0];
    if (held === undefined) throw new UnknownTaskError(taskId);
    if (held.settled) throw new StaleWriteError(`task ${taskId} is already ${held.state}: it was settled elsewhere`);
    const artifacts = held.artifacts;
    const { artifactId } = artifact;
    const stored = await this.sql.query<{ meta_json: string; chunks: number }>(
      'SELECT meta_json, chunks FROM task_artifacts WHERE task_id = $1 AND artifact_id = $2',
      [taskId, artifactId],
    );
    const row = stored.rows[0];
    const parts = toJson(artifact.parts satisfies Part[]);
    if (row === undefined) {
      await this.sql.query(
        `WITH a AS (INSERT INTO task_artifacts (task_id, artifact_id, ord, meta_json, chunks) VALUES ($1, $2, $3, $4, 1)),
         c AS (INSERT INTO artifact_chunks (task_id, artifact_id, seq, parts_json) VALUES ($1, $2, 0, $5))
         UPDATE tasks SET artifacts = artifacts + 1 WHERE id = $1`,
        [taskId, artifactId, artifacts, toJson(headerOf(artifact)), parts],
      );
      return undefined;
    }
    if (append) {
      const header = changesHeader(artifact) ? toJson(mergeHeader(fromJson<ArtifactHeader>(row.meta_json), artifact)) : row.meta_json;
      await this.sql.query(
        `WITH a AS (UPDATE task_artifacts SET meta_json = $3, chunks = chunks + 1 WHERE task_id = $1 AND artifact_id = $2)
         INSERT INTO artifact_chunks (task_id, artifact_id, seq, parts_json) VALUES ($1, $2, $4, $5)`,
        [taskId, artifactId, header, row.chunks, parts],
      );
      return undefined;
    }
    // A replacement keeps the artifact's place and drops its chunks.
    await this.sql.query('DELETE FROM artifact_chunks WHERE task_id = $1 AND artifact_id = $2', [taskId, artifactId]);
    await this.sql.query(
      `WITH a AS (UPDATE task_artifacts SET meta_json = $3, chunks = 1 WHERE task_id = $1 AND artifact_id = $2)
       INSERT INTO artifact_chunks (task_id, artifact_id, seq, parts_json) VALUES ($1, $2, 0, $4)`,
      [taskId, artifactId, toJson(headerOf(artifact)), parts],
    );
    return undefined;
  }

  /**
   * One statement: the task's next number, the frame logged (every frame, artifact chunks
   * included: a replica following the task reads them here), the log cut to its newest
   * `eventLogSize`, a delivery queued for every config of the task that is not disabled, and
   * the frame announced to every replica. NOTIFY is delivered when the transaction commits, so
   * a replica that hears it can read the frame.
   */
  async appendEvent(taskId: string, frame: StreamResponse): Promise<number> {
    const json = toJson(frame);
    const { rows } = await this.sql.query<{ seq: number }>(
      `WITH s AS (UPDATE tasks SET last_event_seq = last_event_seq + 1, version = version + 1 WHERE id = $1 RETURNING last_event_seq AS seq),
       e AS (INSERT INTO task_events (task_id, seq, frame_json) SELECT $1, seq, $2 FROM s),
       d AS (DELETE FROM task_events WHERE task_id = $1 AND seq <= (SELECT seq FROM s) - $3),
       o AS (
         INSERT INTO push_outbox (task_id, config_id, frame_json, attempts, due_at, created_at)
         SELECT $1, config_id, $2, 0, 0, $4 FROM push_configs
         WHERE task_id = $1 AND state <> 'disabled' AND EXISTS (SELECT 1 FROM s) ORDER BY ord
       )
       SELECT seq, pg_notify($5, 'f ' || seq || ' ' || $1) FROM s`,
      [taskId, json, this.settings.eventLogSize, new Date().toISOString(), this.settings.channel],
    );
    const seq = rows[0]?.seq;
    if (seq === undefined) throw new UnknownTaskError(taskId);
    return seq;
  }

  async recordIdempotent(instanceId: string, key: MessageKey, result: IdempotentResult): Promise<undefined> {
    const target = messageTarget(key);
    const { rowCount } = await this.sql.query(
      `INSERT INTO idempotency (instance_id, tenant, message_id, target, task_id, message_json) VALUES ($1, $2, $3, $4, $5, $6)
       ON CONFLICT DO NOTHING`,
      [
        instanceId,
        tenantOf(key),
        key.messageId,
        target,
        result.kind === 'task' ? result.taskId : null,
        result.kind === 'message' ? toJson(result.message) : null,
      ],
    );
    if (rowCount === 0) throw new DuplicateKeyError(`message ${key.messageId} of instance ${instanceId} is already recorded for ${target}`);
    return undefined;
  }

  async touchContext(instanceId: string, contextId: string, at: string, tenant = ''): Promise<undefined> {
    await this.sql.query(
      `INSERT INTO contexts (instance_id, tenant, context_id, created_at, last_active_at) VALUES ($1, $2, $3, $4, $4)
       ON CONFLICT (instance_id, tenant, context_id) DO UPDATE SET last_active_at = excluded.last_active_at`,
      [instanceId, tenant, contextId, at],
    );
    return undefined;
  }

  async putPushConfig(config: StoredPushConfig): Promise<undefined> {
    const { rowCount } = await this.sql.query(
      `INSERT INTO push_configs (task_id, config_id, config_json, secrets, created_at, state, failures)
       SELECT id, $2, $3, $4, $5, 'active', 0 FROM tasks WHERE id = $1
       ON CONFLICT (task_id, config_id) DO UPDATE SET
         config_json = excluded.config_json, secrets = excluded.secrets, created_at = excluded.created_at,
         state = 'active', failures = 0, last_error = NULL, last_attempt_at = NULL, last_success_at = NULL`,
      [config.taskId, config.id, toJson(config.config), config.secrets, config.createdAt],
    );
    if (rowCount === 0) throw new UnknownTaskError(config.taskId);
    return undefined;
  }

  async enqueueDelivery(taskId: string, configId: string, frame: StreamResponse): Promise<undefined> {
    await this.sql.query(
      `INSERT INTO push_outbox (task_id, config_id, frame_json, attempts, due_at, created_at)
       SELECT task_id, config_id, $3, 0, 0, $4 FROM push_configs WHERE task_id = $1 AND config_id = $2 AND state <> 'disabled'`,
      [taskId, configId, toJson(frame), new Date().toISOString()],
    );
    return undefined;
  }

  async setPushHealth(taskId: string, configId: string, health: PushHealth): Promise<undefined> {
    const { rowCount } = await this.sql.query(
      `UPDATE push_configs SET state = $3, failures = $4, last_error = $5, last_attempt_at = $6, last_success_at = $7
       WHERE task_id = $1 AND config_id = $2`,
      [
        taskId,
        configId,
        health.state,
        health.consecutiveFailures,
        health.lastError ?? null,
        health.lastAttemptAt ?? null,
        health.lastSuccessAt ?? null,
      ],
    );
    if (rowCount !== 0 && health.state === 'disabled')
      await this.sql.query('DELETE FROM push_outbox WHERE task_id = $1 AND config_id = $2', [taskId, configId]);
    return undefined;
  }

  async rescheduleConfig(taskId: string, configId: string, dueAt: number): Promise<undefined> {
    await this.sql.query('UPDATE push_outbox SET due_at = $3 WHERE task_id = $1 AND config_id = $2', [taskId, configId, dueAt]);
    return undefined;
  }

  async completeDelivery(deliveryId: number): Promise<undefined> {
    await this.sql.query('DELETE FROM push_outbox WHERE id = $1', [deliveryId]);
    return undefined;
  }

  async retryDelivery(deliveryId: number, dueAt: number): Promise<undefined> {
    // Unclaimed again: whichever replica looks when it is due makes the next attempt.
    await this.sql.query(
      'UPDATE push_outbox SET attempts = attempts + 1, due_at = $2, claimed_by = NULL, claim_until = NULL WHERE id = $1',
      [deliveryId, dueAt],
    );
    return undefined;
  }

  async recordAttempt(attempt: PushAttempt, keep: number): Promise<undefined> {
    const { taskId, configId } = attempt;
    const { rowCount } = await this.sql.query(
      `INSERT INTO push_attempts (task_id, config_id, delivery_id, at, attempt, outcome, status, latency_ms, error)
       SELECT task_id, config_id, $3, $4, $5, $6, $7, $8, $9 FROM push_configs WHERE task_id = $1 AND config_id = $2`,
      [
        taskId,
        configId,
        attempt.deliveryId,
        attempt.at,
        attempt.attempt,
        attempt.outcome,
        attempt.status ?? null,
        attempt.latencyMs,
        attempt.error ?? null,
      ],
    );
    if (rowCount === 0) return undefined;
    await this.sql.query(
      `DELETE FROM push_attempts WHERE task_id = $1 AND config_id = $2 AND seq <= coalesce(
         (SELECT seq FROM push_attempts WHERE task_id = $1 AND config_id = $2 ORDER BY seq DESC LIMIT 1 OFFSET $3), 0)`,
      [taskId, configId, keep],
    );
    return undefined;
  }

  async expectPushConfig(taskId: string, configId: string, secrets: string): Promise<undefined> {
    const { rows } = await this.sql.query<{ secrets: string }>(
      'SELECT secrets FROM push_configs WHERE task_id = $1 AND config_id = $2 FOR UPDATE',
      [taskId, configId],
    );
    if (rows[0]?.secrets !== secrets) throw new StaleWriteError(`push config ${configId} of task ${taskId} changed since it was read`);
    return undefined;
  }

  /** Takes the task's row lock, so the status it checks stays the current one until the transaction ends. */
  async expectStatus(taskId: string, version: number): Promise<undefined> {
    const { rows } = await this.sql.query<{ status_version: number }>('SELECT status_version FROM tasks WHERE id = $1 FOR UPDATE', [
      taskId,
    ]);
    const row = rows[0];
    if (row === undefined) throw new UnknownTaskError(taskId);
    if (row.status_version !== version) throw statusChangedError(taskId);
    return undefined;
  }
}
