import type { Awaitable } from '../support/awaitable.js';
import type { StreamResponse, TaskPushNotificationConfig } from '../../generated/a2a/1.0/types.js';

/**
 * The push-notification part of the store contract: each task's webhook configs, and the
 * outbox of deliveries owed to them. The outbox is filled by the store itself: every frame
 * `EventLog.appendEvent` numbers (artifact chunks and the frames of a task that ends in the same
 * transaction included, unlike the event log) is queued for every config of its task that is
 * not disabled, in the same transaction. A delivery is therefore durable exactly when its event
 * is, and no crash can lose or reorder one.
 *
 * What a config's secrets are is the push layer's business (src/push/): the store keeps them as
 * one opaque string, sealed when a key is configured.
 */
export interface PushConfigs {
  /**
   * Stores a config, or replaces the task's config with the same id (a re-create): the
   * replacement keeps the old one's pending deliveries (they go to the new URL) and starts
   * healthy. Throws UnknownTaskError for a task the store does not hold.
   */
  putPushConfig(config: StoredPushConfig): Awaitable<void>;
  /** The config with this id of this task, or undefined. */
  getPushConfig(taskId: string, configId: string): Awaitable<PushConfigRecord | undefined>;
  /** The task's configs, in the order they were first created ([] for an unknown task). */
  listPushConfigs(taskId: string): Awaitable<PushConfigRecord[]>;
  /** How many configs the task has. */
  countPushConfigs(taskId: string): Awaitable<number>;
  /**
   * False when the task certainly has no config deliveries are queued for; true when it may
   * have one. Answered from memory, without a query: the dispatcher asks it after every commit,
   * and tasks without configs must pay nothing for push.
   */
  mayHavePushConfigs(taskId: string): boolean;
  /**
   * Forgets the config with its pending deliveries and its attempts. Returns whether there was
   * one: deleting again is not an error.
   */
  deletePushConfig(taskId: string, configId: string): Awaitable<boolean>;
  /**
   * Records a config's delivery health. `disabled` also drops its pending deliveries, and
   * appendEvent queues none for it from then on. Does nothing for an unknown config.
   */
  setPushHealth(taskId: string, configId: string, health: PushHealth): Awaitable<void>;
  /** Configs in any state but active, oldest first, at most `limit` (all without one): the snapshot lists only the first few. */
  unhealthyPushConfigs(limit?: number): Awaitable<PushConfigRecord[]>;
  /** How many configs are in each state but active, counted whatever unhealthyPushConfigs' limit. */
  unhealthyPushConfigCounts(): Awaitable<UnhealthyCounts>;
}

export interface UnhealthyCounts {
  readonly failing: number;
  readonly disabled: number;
}

export interface PushOutbox {
  /**
   * Queues one delivery of `frame` to one config of the task, after every delivery already
   * queued for it (the Task snapshot sent when a config is registered). Nothing is queued for
   * an unknown or disabled config.
   */
  enqueueDelivery(taskId: string, configId: string, frame: StreamResponse): Awaitable<void>;
  /**
   * The deliveries that may be attempted now: for each (task, config) pair not in `busy`
   * (keys from `deliveryPairKey`), its oldest pending delivery, if that one is due at
   * `nowMs` (ms since the epoch). Oldest first (by id), at most `limit`.
   */
  dueDeliveries(nowMs: number, limit: number, busy?: ReadonlySet<string>): Awaitable<PushDelivery[]>;
  /** The earliest `dueAt` of any pair's oldest pending delivery, or undefined when nothing is pending. */
  nextDueAt(): Awaitable<number | undefined>;
  /** The delivery was accepted (or will never be): it leaves the outbox. */
  completeDelivery(deliveryId: number): Awaitable<void>;
  /** The attempt failed and may succeed later: count it and try again at `dueAt`. */
  retryDelivery(deliveryId: number, dueAt: number): Awaitable<void>;
  /** Moves every pending delivery of a config to `dueAt` (a retry requested through the control API). */
  rescheduleConfig(taskId: string, configId: string, dueAt: number): Awaitable<void>;
  /** How many deliveries wait for this config (for every config when both are unset). */
  pendingDeliveries(taskId?: string, configId?: string): Awaitable<number>;
  /** Remembers an attempt; only the newest `keep` per config are kept. */
  recordAttempt(attempt: PushAttempt, keep: number): Awaitable<void>;
  /** A config's attempts, newest first, at most `limit`. */
  listAttempts(taskId: string, configId: string, limit: number): Awaitable<PushAttempt[]>;
}

/** A config as stored: the wire config without its secrets, and the secrets as the push layer sealed them. */
export interface StoredPushConfig {
  readonly taskId: string;
  readonly id: string;
  /**
   * The config as it is shown: `token` and `authentication.credentials` are left out (the push
   * layer redacts them on the way out); `id` and `taskId` are set.
   */
  readonly config: TaskPushNotificationConfig;
  /** Token, credentials and signing secret, as one string the push layer sealed. */
  readonly secrets: string;
  /** RFC 3339. */
  readonly createdAt: string;
}

export type PushState = 'active' | 'failing' | 'disabled';

export interface PushHealth {
  /** active: delivered as events come; failing: one probe at a time until an attempt succeeds; disabled: nothing more is delivered (410 Gone). */
  readonly state: PushState;
  readonly consecutiveFailures: number;
  /** What the last failed attempt met, with no secret in it. */
  readonly lastError?: string;
  /** RFC 3339. */
  readonly lastAttemptAt?: string;
  /** RFC 3339. */
  readonly lastSuccessAt?: string;
}

export const HEALTHY: PushHealth = Object.freeze({ state: 'active', consecutiveFailures: 0 });

export interface PushConfigRecord extends StoredPushConfig {
  readonly health: PushHealth;
}

export interface PushDelivery {
  /** Increases with every delivery queued in this store: a pair's deliveries go in id order. */
  readonly id: number;
  readonly taskId: string;
  readonly configId: string;
  readonly frame: StreamResponse;
  /** Failed attempts so far. */
  readonly attempts: number;
  /** ms since the epoch. */
  readonly dueAt: number;
  /** RFC 3339: when it was queued. */
  readonly createdAt: string;
}

export type PushOutcome = 'delivered' | 'retry' | 'failed' | 'disabled' | 'refused';

export interface PushAttempt {
  readonly taskId: string;
  readonly configId: string;
  readonly deliveryId: number;
  /** RFC 3339: when the attempt started. */
  readonly at: string;
  /** 1 for the first attempt of this delivery. */
  readonly attempt: number;
  readonly outcome: PushOutcome;
  /** The receiver's HTTP status, when it answered. */
  readonly status?: number;
  readonly latencyMs: number;
  /** What went wrong, with no secret in it. */
  readonly error?: string;
}

/** The key of a (task, config) pair in `dueDeliveries`' busy set. */
export function deliveryPairKey(taskId: string, configId: string): string {
  return `${taskId}\u0000${configId}`;
}
