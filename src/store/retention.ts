import { TERMINAL_STATES } from '../../generated/a2a/1.0/task-states.js';
import type { Retention } from '../../generated/control/types.js';
import type { Awaitable } from '../support/awaitable.js';

/** An instance's retention (spec/control/actions.schema.json Retention): which of its terminal tasks are kept. */
export type RetentionRule = Retention;

/** Whether the rule deletes anything (an empty one keeps every task). */
export function prunes(rule: RetentionRule | undefined): rule is RetentionRule {
  return rule !== undefined && (rule.maxAgeMs !== undefined || rule.maxTasks !== undefined);
}

/**
 * Deleting the terminal tasks an instance's retention no longer keeps. A store deletes a task with
 * everything that belongs to it (messages, status history, artifacts and chunks, event log, push
 * configs and attempts, and the idempotency records that name it), all in one transaction.
 */
export interface TaskRetention {
  /**
   * Deletes up to `limit` terminal tasks of the instance that `rule` no longer keeps: those whose
   * status is older than `nowMs - maxAgeMs`, and the oldest beyond the newest `maxTasks`. A task
   * with webhook deliveries still pending in the outbox is kept until they are done. Returns the
   * ids deleted, or undefined when another replica's sweep holds the store (nothing was done).
   */
  pruneTasks(instanceId: string, rule: RetentionRule, nowMs: number, limit: number): Awaitable<readonly string[] | undefined>;
}

/** The terminal states as a SQL list of literals (names from generated/: letters and underscores only). */
export const TERMINAL_STATES_SQL = [...TERMINAL_STATES].map((state) => `'${state}'`).join(', ');
