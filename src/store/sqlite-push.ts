import type Database from 'better-sqlite3';
import type { StreamResponse } from '../../generated/a2a/1.0/types.js';
import { toJson } from './json.js';
import { attemptOf, deliveryOf, PUSH_HEADS as HEADS, recordOf, type AttemptRow, type ConfigRow, type DeliveryRow } from './push-rows.js';
import {
  deliveryPairKey,
  type PushAttempt,
  type PushConfigRecord,
  type PushDelivery,
  type PushHealth,
  type PushOutcome,
  type PushState,
  type StoredPushConfig,
  type UnhealthyCounts,
} from './push-store.js';

function prepare(db: Database.Database) {
  return {
    config: db.prepare<[string, string], ConfigRow>('SELECT * FROM push_configs WHERE task_id = ? AND config_id = ?'),
    configs: db.prepare<[string], ConfigRow>('SELECT * FROM push_configs WHERE task_id = ? ORDER BY ord'),
    count: db.prepare<[string], number>('SELECT count(*) FROM push_configs WHERE task_id = ?').pluck(),
    deliverable: db
      .prepare<[string], string>("SELECT config_id FROM push_configs WHERE task_id = ? AND state <> 'disabled' ORDER BY ord")
      .pluck(),
    tasksWithConfigs: db.prepare<[], string>("SELECT DISTINCT task_id FROM push_configs WHERE state <> 'disabled'").pluck(),
    insertConfig: db.prepare<[{ task: string; config: string; json: string; secrets: string; created: string }]>(
      `INSERT INTO push_configs (task_id, config_id, ord, config_json, secrets, created_at, state, failures)
       VALUES (@task, @config, (SELECT coalesce(max(ord), 0) + 1 FROM push_configs WHERE task_id = @task), @json, @secrets, @created, 'active', 0)
       ON CONFLICT (task_id, config_id) DO UPDATE SET
         config_json = excluded.config_json, secrets = excluded.secrets, created_at = excluded.created_at,
         state = 'active', failures = 0, last_error = NULL, last_attempt_at = NULL, last_success_at = NULL`,
    ),
    deleteConfig: db.prepare<[string, string]>('DELETE FROM push_configs WHERE task_id = ? AND config_id = ?'),
    setHealth: db.prepare<[PushState, number, string | null, string | null, string | null, string, string]>(
      `UPDATE push_configs SET state = ?, failures = ?, last_error = ?, last_attempt_at = ?, last_success_at = ?
       WHERE task_id = ? AND config_id = ?`,
    ),
    unhealthy: db.prepare<[number], ConfigRow>("SELECT * FROM push_configs WHERE state <> 'active' ORDER BY created_at LIMIT ?"),
    stateCounts: db.prepare<[], { state: PushState; n: number }>(
      "SELECT state, COUNT(*) AS n FROM push_configs WHERE state <> 'active' GROUP BY state",
    ),
    enqueue: db.prepare<[string, string, string, string]>(
      'INSERT INTO push_outbox (task_id, config_id, frame_json, attempts, due_at, created_at) VALUES (?, ?, ?, 0, 0, ?)',
    ),
    heads: db.prepare<[number], DeliveryRow>(`${HEADS} WHERE o.due_at <= ? ORDER BY o.id`),
    nextDue: db.prepare<[], number | null>(`SELECT min(due_at) FROM (${HEADS})`).pluck(),
    complete: db.prepare<[number]>('DELETE FROM push_outbox WHERE id = ?'),
    retry: db.prepare<[number, number]>('UPDATE push_outbox SET attempts = attempts + 1, due_at = ? WHERE id = ?'),
    reschedule: db.prepare<[number, string, string]>('UPDATE push_outbox SET due_at = ? WHERE task_id = ? AND config_id = ?'),
    dropDeliveries: db.prepare<[string, string]>('DELETE FROM push_outbox WHERE task_id = ? AND config_id = ?'),
    pendingAll: db.prepare<[], number>('SELECT count(*) FROM push_outbox').pluck(),
    pendingOfTask: db.prepare<[string], number>('SELECT count(*) FROM push_outbox WHERE task_id = ?').pluck(),
    pendingOfPair: db.prepare<[string, string], number>('SELECT count(*) FROM push_outbox WHERE task_id = ? AND config_id = ?').pluck(),
    insertAttempt: db.prepare<[string, string, number, string, number, PushOutcome, number | null, number, string | null]>(
      `INSERT INTO push_attempts (task_id, config_id, delivery_id, at, attempt, outcome, status, latency_ms, error)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    ),
    pruneAttempts: db.prepare<[string, string, string, string, number]>(
      `DELETE FROM push_attempts WHERE task_id = ? AND config_id = ? AND seq <= coalesce(
         (SELECT seq FROM push_attempts WHERE task_id = ? AND config_id = ? ORDER BY seq DESC LIMIT 1 OFFSET ?), 0)`,
    ),
    attempts: db.prepare<[string, string, number], AttemptRow>(
      'SELECT * FROM push_attempts WHERE task_id = ? AND config_id = ? ORDER BY seq DESC LIMIT ?',
    ),
    dropAttempts: db.prepare<[string, string]>('DELETE FROM push_attempts WHERE task_id = ? AND config_id = ?'),
  };
}

/**
 * The push tables of the SQLite store (schema 10). The store calls these inside its
 * transactions; they check nothing about tasks (the store does).
 */
export class SqlitePushTables {
  readonly #sql: ReturnType<typeof prepare>;
  /**
   * Tasks that have a config deliveries are queued for. Every frame of every task passes
   * through `onEvent`, and almost no task has a config: a set lookup keeps that path free of
   * SQL. It may hold a task whose config a rolled-back transaction added; the query then finds none.
   */
  readonly #pushed: Set<string>;

  constructor(db: Database.Database) {
    this.#sql = prepare(db);
    this.#pushed = new Set(this.#sql.tasksWithConfigs.all());
  }

  put(config: StoredPushConfig): void {
    this.#sql.insertConfig.run({
      task: config.taskId,
      config: config.id,
      json: toJson(config.config),
      secrets: config.secrets,
      created: config.createdAt,
    });
    this.#pushed.add(config.taskId);
  }

  get(taskId: string, configId: string): PushConfigRecord | undefined {
    const row = this.#sql.config.get(taskId, configId);
    return row === undefined ? undefined : recordOf(row);
  }

  list(taskId: string): PushConfigRecord[] {
    return this.#sql.configs.all(taskId).map(recordOf);
  }

  count(taskId: string): number {
    return this.#sql.count.get(taskId) ?? 0;
  }

  mayHaveConfigs(taskId: string): boolean {
    return this.#pushed.has(taskId);
  }

  delete(taskId: string, configId: string): boolean {
    const { changes } = this.#sql.deleteConfig.run(taskId, configId);
    if (changes === 0) return false;
    this.#sql.dropDeliveries.run(taskId, configId);
    this.#sql.dropAttempts.run(taskId, configId);
    this.#recount(taskId);
    return true;
  }

  setHealth(taskId: string, configId: string, health: PushHealth): void {
    const { changes } = this.#sql.setHealth.run(
      health.state,
      health.consecutiveFailures,
      health.lastError ?? null,
      health.lastAttemptAt ?? null,
      health.lastSuccessAt ?? null,
      taskId,
      configId,
    );
    if (changes === 0) return;
    // A config made deliverable again (push.retry of a disabled one) needs its task back in the set.
    if (health.state !== 'disabled') {
      this.#pushed.add(taskId);
      return;
    }
    this.#sql.dropDeliveries.run(taskId, configId);
    this.#recount(taskId);
  }

  /** SQLite reads LIMIT -1 as no limit. */
  unhealthy(limit = -1): PushConfigRecord[] {
    return this.#sql.unhealthy.all(limit).map(recordOf);
  }

  unhealthyCounts(): UnhealthyCounts {
    const counts = { failing: 0, disabled: 0 };
    for (const { state, n } of this.#sql.stateCounts.all()) if (state !== 'active') counts[state] = n;
    return counts;
  }

  /** Queues the frame for every deliverable config of the task: appendEvent's share of the outbox. */
  onEvent(taskId: string, frame: StreamResponse): void {
    if (!this.#pushed.has(taskId)) return;
    const configs = this.#sql.deliverable.all(taskId);
    if (configs.length === 0) return;
    const json = toJson(frame);
    const at = new Date().toISOString();
    for (const configId of configs) this.#sql.enqueue.run(taskId, configId, json, at);
  }

  enqueue(taskId: string, configId: string, frame: StreamResponse): void {
    const row = this.#sql.config.get(taskId, configId);
    if (row === undefined || row.state === 'disabled') return;
    this.#sql.enqueue.run(taskId, configId, toJson(frame), new Date().toISOString());
  }

  due(nowMs: number, limit: number, busy: ReadonlySet<string> | undefined): PushDelivery[] {
    const due: PushDelivery[] = [];
    for (const row of this.#sql.heads.iterate(nowMs)) {
      if (busy?.has(deliveryPairKey(row.task_id, row.config_id)) === true) continue;
      due.push(deliveryOf(row));
      if (due.length >= limit) break;
    }
    return due;
  }

  nextDueAt(): number | undefined {
    return this.#sql.nextDue.get() ?? undefined;
  }

  complete(deliveryId: number): void {
    this.#sql.complete.run(deliveryId);
  }

  retry(deliveryId: number, dueAt: number): void {
    this.#sql.retry.run(dueAt, deliveryId);
  }

  reschedule(taskId: string, configId: string, dueAt: number): void {
    this.#sql.reschedule.run(dueAt, taskId, configId);
  }

  pending(taskId?: string, configId?: string): number {
    if (taskId === undefined) return this.#sql.pendingAll.get() ?? 0;
    if (configId === undefined) return this.#sql.pendingOfTask.get(taskId) ?? 0;
    return this.#sql.pendingOfPair.get(taskId, configId) ?? 0;
  }

  recordAttempt(attempt: PushAttempt, keep: number): void {
    const { taskId, configId } = attempt;
    if (this.#sql.config.get(taskId, configId) === undefined) return;
    this.#sql.insertAttempt.run(
      taskId,
      configId,
      attempt.deliveryId,
      attempt.at,
      attempt.attempt,
      attempt.outcome,
      attempt.status ?? null,
      attempt.latencyMs,
      attempt.error ?? null,
    );
    this.#sql.pruneAttempts.run(taskId, configId, taskId, configId, keep);
  }

  attempts(taskId: string, configId: string, limit: number): PushAttempt[] {
    return this.#sql.attempts.all(taskId, configId, limit).map(attemptOf);
  }

  #recount(taskId: string): void {
    if (this.#sql.deliverable.all(taskId).length === 0) this.#pushed.delete(taskId);
  }
}
