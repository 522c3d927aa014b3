import type { StreamResponse, TaskPushNotificationConfig } from '../../generated/a2a/1.0/types.js';
import { fromJson } from './json.js';
import type { PushAttempt, PushConfigRecord, PushDelivery, PushOutcome, PushState } from './push-store.js';

/*
 * The push tables' rows as both SQL stores read them (the column names are the same in SQLite
 * and PostgreSQL), and what each row means to the contract.
 */

export interface ConfigRow {
  readonly task_id: string;
  readonly config_id: string;
  readonly config_json: string;
  readonly secrets: string;
  readonly created_at: string;
  readonly state: PushState;
  readonly failures: number;
  readonly last_error: string | null;
  readonly last_attempt_at: string | null;
  readonly last_success_at: string | null;
}

export interface DeliveryRow {
  readonly id: number;
  readonly task_id: string;
  readonly config_id: string;
  readonly frame_json: string;
  readonly attempts: number;
  readonly due_at: number;
  readonly created_at: string;
}

export interface AttemptRow {
  readonly task_id: string;
  readonly config_id: string;
  readonly delivery_id: number;
  readonly at: string;
  readonly attempt: number;
  readonly outcome: PushOutcome;
  readonly status: number | null;
  readonly latency_ms: number;
  readonly error: string | null;
}

/** Each pair's oldest pending delivery: the only one of the pair that may be attempted. */
export const PUSH_HEADS =
  'SELECT o.* FROM (SELECT min(id) AS id FROM push_outbox GROUP BY task_id, config_id) h JOIN push_outbox o ON o.id = h.id';

export function recordOf(row: ConfigRow): PushConfigRecord {
  return {
    taskId: row.task_id,
    id: row.config_id,
    config: fromJson<TaskPushNotificationConfig>(row.config_json),
    secrets: row.secrets,
    createdAt: row.created_at,
    health: {
      state: row.state,
      consecutiveFailures: row.failures,
      ...(row.last_error === null ? {} : { lastError: row.last_error }),
      ...(row.last_attempt_at === null ? {} : { lastAttemptAt: row.last_attempt_at }),
      ...(row.last_success_at === null ? {} : { lastSuccessAt: row.last_success_at }),
    },
  };
}

export function deliveryOf(row: DeliveryRow): PushDelivery {
  return {
    id: row.id,
    taskId: row.task_id,
    configId: row.config_id,
    frame: fromJson<StreamResponse>(row.frame_json),
    attempts: row.attempts,
    dueAt: row.due_at,
    createdAt: row.created_at,
  };
}

export function attemptOf(row: AttemptRow): PushAttempt {
  return {
    taskId: row.task_id,
    configId: row.config_id,
    deliveryId: row.delivery_id,
    at: row.at,
    attempt: row.attempt,
    outcome: row.outcome,
    ...(row.status === null ? {} : { status: row.status }),
    latencyMs: row.latency_ms,
    ...(row.error === null ? {} : { error: row.error }),
  };
}
