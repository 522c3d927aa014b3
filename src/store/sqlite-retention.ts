import type Database from 'better-sqlite3';
import { TERMINAL_STATES_SQL, type RetentionRule } from './retention.js';

interface Victim {
  readonly key: number;
  readonly id: string;
}

/**
 * The retention statements of the SQLite store: which terminal tasks a rule no longer keeps
 * (walked oldest first on the partial index tasks_settled, those with pending webhook deliveries
 * left out), and the deletes that take a task with everything filed under it. The caller runs
 * them in one transaction.
 */
export class SqliteRetention {
  readonly #settledCount: Database.Statement<[string], number>;
  readonly #olderThan: Database.Statement<[string, number, number], Victim>;
  readonly #oldest: Database.Statement<[string, number, number], Victim>;
  readonly #deletes: readonly Database.Statement<[number | string]>[];
  readonly #deleteIdempotency: Database.Statement<[string]>;
  readonly #deletePush: readonly Database.Statement<[string]>[];

  constructor(db: Database.Database) {
    const settled = `instance_id = ? AND state IN (${TERMINAL_STATES_SQL})`;
    const nothingPending = 'NOT EXISTS (SELECT 1 FROM push_outbox o WHERE o.task_id = t.id)';
    this.#settledCount = db.prepare<[string], number>(`SELECT count(*) FROM tasks WHERE ${settled}`).pluck();
    this.#olderThan = db.prepare<[string, number, number], Victim>(
      `SELECT key, id FROM tasks t WHERE ${settled} AND status_ts < ? AND ${nothingPending} ORDER BY status_ts, id LIMIT ?`,
    );
    this.#oldest = db.prepare<[string, number, number], Victim>(
      `SELECT key, id FROM (SELECT key, id FROM tasks WHERE ${settled} ORDER BY status_ts, id LIMIT ?) t WHERE ${nothingPending} LIMIT ?`,
    );
    // Children before their parents: the foreign keys are enforced.
    this.#deletes = [
      'DELETE FROM task_messages WHERE task_key = ?',
      'DELETE FROM task_events WHERE task_key = ?',
      'DELETE FROM artifact_chunks WHERE task_key = ?',
      'DELETE FROM task_artifacts WHERE task_key = ?',
      'DELETE FROM task_status WHERE task_key = ?',
      'DELETE FROM tasks WHERE key = ?',
    ].map((sql) => db.prepare<[number | string]>(sql));
    this.#deleteIdempotency = db.prepare<[string]>('DELETE FROM idempotency WHERE task_id = ?');
    this.#deletePush = ['DELETE FROM push_attempts WHERE task_id = ?', 'DELETE FROM push_configs WHERE task_id = ?'].map((sql) =>
      db.prepare<[string]>(sql),
    );
  }

  /** The terminal tasks of the instance the rule no longer keeps, up to `limit`, oldest first. */
  victims(instanceId: string, rule: RetentionRule, nowMs: number, limit: number): Victim[] {
    const found = new Map<number, Victim>();
    if (rule.maxAgeMs !== undefined)
      for (const victim of this.#olderThan.all(instanceId, nowMs - rule.maxAgeMs, limit)) found.set(victim.key, victim);
    if (rule.maxTasks !== undefined && found.size < limit) {
      const excess = (this.#settledCount.get(instanceId) ?? 0) - rule.maxTasks;
      if (excess > 0) for (const victim of this.#oldest.all(instanceId, excess, limit - found.size)) found.set(victim.key, victim);
    }
    return [...found.values()].slice(0, limit);
  }

  /** Deletes the task and every row filed under it or naming it. */
  delete(victim: Victim): void {
    for (const statement of this.#deletePush) statement.run(victim.id);
    this.#deleteIdempotency.run(victim.id);
    for (const statement of this.#deletes) statement.run(victim.key);
  }
}
