import { createHash } from 'node:crypto';
import type { LogFunction } from '../support/log.js';
import {
  deliveryPairKey,
  type PushConfigRecord,
  type PushConfigs,
  type PushDelivery,
  type PushHealth,
  type PushOutbox,
  type PushOutcome,
} from '../store/push-store.js';
import type { StoreOp } from '../store/store-ops.js';
import type { BatchWrites, TaskReads } from '../store/task-store.js';
import { minProbeGapMs, probeDelayMs, retryDelayMs, type BackoffSettings } from './backoff.js';
import { configIdentity, SealedSecretsError, type PushSecrets } from './sealed-secrets.js';
import type { WebhookAttempt, WebhookRequest } from './webhook-sender.js';

export interface DispatcherSettings extends BackoffSettings {
  /** Most attempts in flight at once, over every task and config. */
  readonly concurrency: number;
  /** Consecutive failed attempts after which a config is failing (probed once per retryMaxMs). */
  readonly failingAfter: number;
  /** Attempts remembered per config. */
  readonly attemptsKept: number;
}

/** What one finished attempt was, for metrics: no URL, token or secret. */
export interface AttemptObservation {
  readonly outcome: PushOutcome;
  readonly status?: number;
  readonly latencyMs: number;
}

export interface PushDispatcherOptions {
  readonly store: PushConfigs & PushOutbox & BatchWrites & Pick<TaskReads, 'getTaskInfo'>;
  /**
   * Whether the instance serves push now (its capabilities.pushNotifications); when it does
   * not, its tasks' deliveries wait, uncounted, until it does again. Always, without it.
   */
  readonly pushEnabled?: (instanceId: string) => boolean;
  readonly sender: { send(webhook: WebhookRequest, signal?: AbortSignal): Promise<WebhookAttempt> };
  readonly sealer: { open(sealed: string, configIdentity: string): PushSecrets };
  readonly settings: DispatcherSettings;
  readonly log?: LogFunction;
  /** Called after every attempt (the hub's metrics). */
  readonly onAttempt?: (attempt: AttemptObservation) => void;
  /** ms since the epoch; defaults to the clock. */
  readonly nowMs?: () => number;
  /** In [0, 1); defaults to Math.random (the backoff's jitter). */
  readonly random?: () => number;
}

/** close() waits at most this long for attempts in flight before aborting them. */
const CLOSE_WAIT_MS = 2000;
/**
 * While some pair's attempt is in flight, nextDueAt() reports that pair's head (due, but
 * busy), which hides when the next other delivery is due; the dispatcher looks again this often.
 */
const BUSY_RECHECK_MS = 250;
/** setTimeout's limit; a later due time is waited for in steps. */
const MAX_TIMER_MS = 2 ** 31 - 1;

/**
 * Drains the durable push outbox (src/store/push-store.ts): one attempt in flight per
 * (task, config), so each config gets its deliveries in event order; different pairs in
 * parallel up to `concurrency`. What happens after each outcome is in docs/push.md
 * ("Delivery, retries and failing configs"). Deliveries leave the outbox only once accepted
 * or given up, so a crash at any point means at least once, never lost.
 */
export class PushDispatcher {
  readonly #options: PushDispatcherOptions;
  /** Attempts in flight, by pair key; aborted on close. */
  readonly #inFlight = new Map<string, AbortController>();
  readonly #settled = new Set<Promise<void>>();
  /**
   * Pairs whose last attempt could not be read or recorded (a store error), by pair key: not
   * tried again before `until`, so a store that keeps failing is not hammered with resends.
   */
  readonly #cooling = new Map<string, { readonly until: number; readonly errors: number }>();
  #running = false;
  #drainScheduled = false;
  /** A drain reads the outbox and launches what it found; one at a time, so no delivery is launched twice. */
  #draining = false;
  /** A kick came while a drain was reading: drain again when it is done. */
  #drainAgain = false;
  #timer: NodeJS.Timeout | undefined;

  constructor(options: PushDispatcherOptions) {
    this.#options = options;
  }

  /** Starts draining what is pending (deliveries a previous process left included). */
  start(): void {
    if (this.#running) return;
    this.#running = true;
    this.kick();
  }

  /** There may be new deliveries due now (a config was registered, a retry was asked for): look soon. */
  kick(): void {
    if (!this.#running || this.#drainScheduled) return;
    this.#drainScheduled = true;
    setImmediate(() => void this.#drain());
  }

  /**
   * Makes a config's pending deliveries due now and looks at once: the control API's "retry
   * now", and a re-created config (whose deliveries may wait for a failing config's probe time).
   */
  async retryNow(taskId: string, configId: string): Promise<void> {
    try {
      await this.#makeDueNow(taskId, configId);
    } catch (error) {
      // Nothing is lost: the deliveries stay queued, due when they were.
      this.#options.log?.('error', "could not make a push config's deliveries due now", { taskId, configId, error: String(error) });
    }
    this.#cooling.delete(deliveryPairKey(taskId, configId));
    this.kick();
  }

  async #makeDueNow(taskId: string, configId: string): Promise<void> {
    const { store } = this.#options;
    const record = await store.getPushConfig(taskId, configId);
    if (record !== undefined) {
      const { lastAttemptAt, lastSuccessAt } = record.health;
      // The failures are forgotten, not the history: the times of the last attempt and success stay.
      // Health first: a disabled config queues deliveries again only once it is active. Guarded:
      // a config deleted or re-created meanwhile is left as it is now.
      const [outcome] = await store.commit([
        [
          { op: 'expectPushConfig', taskId, configId, secrets: record.secrets },
          {
            op: 'setPushHealth',
            taskId,
            configId,
            health: {
              state: 'active',
              consecutiveFailures: 0,
              ...(lastAttemptAt === undefined ? {} : { lastAttemptAt }),
              ...(lastSuccessAt === undefined ? {} : { lastSuccessAt }),
            },
          },
          { op: 'rescheduleConfig', taskId, configId, dueAt: this.#now() },
        ],
      ]);
      if (outcome?.ok === false && !outcome.stale) throw new Error(outcome.error);
    }
  }

  /**
   * A write batch of these tasks was committed. The store queues their deliveries in that
   * transaction; a task without configs costs one in-memory lookup, no query.
   */
  committed(taskIds: ReadonlySet<string>): void {
    if (!this.#running) return;
    for (const taskId of taskIds) {
      if (this.#options.store.mayHavePushConfigs(taskId)) {
        this.kick();
        return;
      }
    }
  }

  /** Attempts in flight now. */
  get inFlight(): number {
    return this.#inFlight.size;
  }

  /**
   * Stops taking work, gives the attempts in flight a moment to finish, then aborts the rest.
   * Whatever was not delivered stays in the outbox for the next start.
   */
  async close(waitMs = CLOSE_WAIT_MS): Promise<void> {
    this.#running = false;
    clearTimeout(this.#timer);
    this.#timer = undefined;
    if (this.#settled.size === 0) return;
    let timer: NodeJS.Timeout | undefined;
    const waited = new Promise<void>((resolve) => (timer = setTimeout(resolve, waitMs)));
    await Promise.race([Promise.all(this.#settled), waited]);
    clearTimeout(timer);
    for (const controller of this.#inFlight.values()) controller.abort();
    await Promise.all(this.#settled);
  }

  async #drain(): Promise<void> {
    this.#drainScheduled = false;
    if (!this.#running) return;
    if (this.#draining) {
      this.#drainAgain = true;
      return;
    }
    this.#draining = true;
    const { store, settings } = this.#options;
    try {
      const free = settings.concurrency - this.#inFlight.size;
      if (free > 0) for (const delivery of await store.dueDeliveries(this.#now(), free, this.#busyPairs())) this.#launch(delivery);
      await this.#arm();
    } catch (error) {
      this.#options.log?.('error', 'the push dispatcher could not read the outbox', { error: String(error) });
      this.#armIn(settings.retryMinMs);
    } finally {
      this.#draining = false;
      if (this.#drainAgain) {
        this.#drainAgain = false;
        this.kick();
      }
    }
  }

  /** Sleeps until the next delivery is due; an attempt finishing or a kick wakes it sooner. */
  async #arm(): Promise<void> {
    if (this.#inFlight.size >= this.#options.settings.concurrency) return; // a finishing attempt drains again
    const next = await this.#options.store.nextDueAt();
    if (next === undefined) return;
    const now = this.#now();
    const wait = next - now;
    if (wait > 0) return this.#armIn(wait);
    // The head due now belongs to a busy pair: look again when one may have become free.
    const coolingEnds = [...this.#cooling.values()].map((cooling) => cooling.until - now).filter((ms) => ms > 0);
    if (this.#inFlight.size > 0 || coolingEnds.length > 0) return this.#armIn(Math.min(BUSY_RECHECK_MS, ...coolingEnds));
    this.#armIn(0);
  }

  /** Pairs not to hand out now: those in flight and those cooling down after a store error. */
  #busyPairs(): Set<string> {
    const now = this.#now();
    const busy = new Set(this.#inFlight.keys());
    for (const [key, cooling] of this.#cooling) {
      // A cooled-down pair keeps its error count (the next cooldown grows) until an attempt is
      // recorded; one not tried for a long while (its config deleted, say) is forgotten.
      if (cooling.until > now) busy.add(key);
      else if (now - cooling.until > this.#options.settings.retryMaxMs) this.#cooling.delete(key);
    }
    return busy;
  }

  #armIn(ms: number): void {
    clearTimeout(this.#timer);
    this.#timer = setTimeout(
      () => {
        this.#timer = undefined;
        this.kick();
      },
      Math.min(Math.max(0, ms), MAX_TIMER_MS),
    );
    this.#timer.unref();
  }

  #launch(delivery: PushDelivery): void {
    const key = deliveryPairKey(delivery.taskId, delivery.configId);
    const controller = new AbortController();
    this.#inFlight.set(key, controller);
    const settled: Promise<void> = this.#attempt(delivery, controller.signal)
      .then(
        () => {
          this.#cooling.delete(key);
        },
        (error: unknown) => {
          const errors = (this.#cooling.get(key)?.errors ?? 0) + 1;
          this.#cooling.set(key, { until: this.#now() + retryDelayMs(errors, this.#options.settings, this.#random()), errors });
          this.#options.log?.('error', 'a push delivery attempt could not be recorded', {
            taskId: delivery.taskId,
            configId: delivery.configId,
            error: String(error),
          });
        },
      )
      .finally(() => {
        this.#inFlight.delete(key);
        this.#settled.delete(settled);
        this.kick();
      });
    this.#settled.add(settled);
  }

  async #attempt(delivery: PushDelivery, signal: AbortSignal): Promise<void> {
    const { store } = this.#options;
    const config = await store.getPushConfig(delivery.taskId, delivery.configId);
    // Deleted or disabled since it was handed out: the store has dropped (or is dropping) its deliveries.
    if (config === undefined || config.health.state === 'disabled') return;
    const holdUntil = await this.#holdUntil(config);
    if (holdUntil !== undefined) return store.rescheduleConfig(delivery.taskId, delivery.configId, holdUntil);
    const startedAt = this.#now();
    const attempt = await this.#send(delivery, config, signal);
    // Aborted by close(): not the receiver's failure; the delivery stays as it was for the next start.
    if (signal.aborted && !this.#running) return;
    await this.#settle(delivery, config, attempt, startedAt);
  }

  /**
   * When a config must not be sent to now, the time its deliveries wait until (no attempt is
   * counted): its instance has push turned off, or it is failing and was tried too recently,
   * whatever is at its head (a new event included).
   */
  async #holdUntil(config: PushConfigRecord): Promise<number | undefined> {
    const { store, settings, pushEnabled } = this.#options;
    const now = this.#now();
    if (pushEnabled !== undefined) {
      const instanceId = (await store.getTaskInfo(config.taskId))?.instanceId;
      if (instanceId !== undefined && !pushEnabled(instanceId)) return now + settings.retryMaxMs;
    }
    const { state, lastAttemptAt } = config.health;
    if (state !== 'failing' || lastAttemptAt === undefined) return undefined;
    const last = Date.parse(lastAttemptAt);
    if (now - last >= minProbeGapMs(settings)) return undefined;
    return last + probeDelayMs(settings, this.#random());
  }

  async #send(delivery: PushDelivery, config: PushConfigRecord, signal: AbortSignal): Promise<WebhookAttempt> {
    let secrets: PushSecrets;
    try {
      secrets = this.#options.sealer.open(config.secrets, configIdentity(config.taskId, config.id));
    } catch (error) {
      // The sealer's messages name the problem (no key, another key, damage) and never the secrets.
      const reason = error instanceof SealedSecretsError ? error.message : 'the stored push secrets could not be read';
      return { outcome: 'retry', error: reason, latencyMs: 0 };
    }
    const { authentication } = config.config;
    return this.#options.sender.send(
      {
        url: config.config.url,
        body: JSON.stringify(delivery.frame),
        webhookId: webhookIdOf(delivery),
        signingSecret: secrets.signingSecret,
        ...(authentication === undefined
          ? {}
          : {
              authentication: {
                scheme: authentication.scheme,
                ...(secrets.credentials === undefined ? {} : { credentials: secrets.credentials }),
              },
            }),
        ...(secrets.token === undefined ? {} : { token: secrets.token }),
      },
      signal,
    );
  }

  /**
   * The outcome's consequences for the delivery and the config's health, and the attempt log,
   * in one write so that none is half applied. The write is guarded by the config it was
   * computed from: if that was deleted or re-created (a new signing secret, so new secrets)
   * while the attempt was out, the outcome says nothing about the config now stored, and only
   * the delivery row is settled.
   */
  async #settle(delivery: PushDelivery, sentTo: PushConfigRecord, attempt: WebhookAttempt, startedAt: number): Promise<void> {
    const { store, settings } = this.#options;
    const current = await store.getPushConfig(delivery.taskId, delivery.configId);
    let applied = current !== undefined && current.secrets === sentTo.secrets;
    if (current !== undefined && applied) {
      const ops: StoreOp[] = [
        { op: 'expectPushConfig', taskId: delivery.taskId, configId: delivery.configId, secrets: current.secrets },
        {
          op: 'recordAttempt',
          attempt: {
            taskId: delivery.taskId,
            configId: delivery.configId,
            deliveryId: delivery.id,
            at: new Date(startedAt).toISOString(),
            attempt: delivery.attempts + 1,
            outcome: attempt.outcome,
            latencyMs: attempt.latencyMs,
            ...(attempt.status === undefined ? {} : { status: attempt.status }),
            ...(attempt.error === undefined ? {} : { error: attempt.error }),
          },
          keep: settings.attemptsKept,
        },
        ...this.#outcomeOps(delivery, current.health, attempt, startedAt),
      ];
      const [outcome] = await store.commit([ops]);
      if (outcome?.ok === false && !outcome.stale) throw new Error(outcome.error);
      applied = outcome?.ok === true;
    }
    if (!applied) {
      const [outcome] = await store.commit([this.#rowOnlyOps(delivery, attempt)]);
      if (outcome?.ok === false) throw new Error(outcome.error);
    }
    this.#options.onAttempt?.({
      outcome: attempt.outcome,
      latencyMs: attempt.latencyMs,
      ...(attempt.status === undefined ? {} : { status: attempt.status }),
    });
    if (applied && attempt.outcome === 'disabled')
      this.#options.log?.('warn', 'a push config was disabled: its receiver answered 410 Gone', {
        taskId: delivery.taskId,
        configId: delivery.configId,
      });
  }

  /** The config the attempt went to is gone: a delivered or refused-for-good row leaves, any other goes out again now (to the new config). */
  #rowOnlyOps(delivery: PushDelivery, attempt: WebhookAttempt): StoreOp[] {
    if (attempt.outcome === 'delivered' || attempt.outcome === 'failed') return [{ op: 'completeDelivery', deliveryId: delivery.id }];
    return [{ op: 'retryDelivery', deliveryId: delivery.id, dueAt: this.#now() }];
  }

  #outcomeOps(delivery: PushDelivery, before: PushHealth, attempt: WebhookAttempt, startedAt: number): StoreOp[] {
    const { settings } = this.#options;
    const now = this.#now();
    const at = new Date(startedAt).toISOString();
    const { taskId, configId } = delivery;
    const kept = before.lastSuccessAt === undefined ? {} : { lastSuccessAt: before.lastSuccessAt };
    switch (attempt.outcome) {
      case 'delivered':
        return [
          { op: 'completeDelivery', deliveryId: delivery.id },
          {
            op: 'setPushHealth',
            taskId,
            configId,
            health: { state: 'active', consecutiveFailures: 0, lastAttemptAt: at, lastSuccessAt: at },
          },
          // A recovered config's other deliveries may have been pushed back to the probe time: they go now, in order.
          ...(before.state === 'active' ? [] : [{ op: 'rescheduleConfig', taskId, configId, dueAt: now } as const]),
        ];
      case 'disabled':
        return [{ op: 'setPushHealth', taskId, configId, health: this.#failure(before, 'disabled', attempt, at, kept) }];
      case 'failed': {
        // The receiver will never take this one (a 4xx, a 3xx): drop it, count the failure.
        const health = this.#failure(before, undefined, attempt, at, kept);
        return [
          { op: 'completeDelivery', deliveryId: delivery.id },
          { op: 'setPushHealth', taskId, configId, health },
          ...(health.state === 'failing'
            ? [{ op: 'rescheduleConfig', taskId, configId, dueAt: now + probeDelayMs(settings, this.#random()) } as const]
            : []),
        ];
      }
      case 'retry':
      case 'refused': {
        // A refused destination is retried too: the policy is checked again, and DNS can change.
        const health = this.#failure(before, undefined, attempt, at, kept);
        const delay =
          health.state === 'failing'
            ? probeDelayMs(settings, this.#random())
            : retryDelayMs(delivery.attempts + 1, settings, this.#random(), attempt.retryAfterMs);
        return [
          { op: 'setPushHealth', taskId, configId, health },
          { op: 'retryDelivery', deliveryId: delivery.id, dueAt: now + delay },
        ];
      }
    }
  }

  #failure(
    before: PushHealth,
    state: 'disabled' | undefined,
    attempt: WebhookAttempt,
    at: string,
    kept: Pick<PushHealth, 'lastSuccessAt'>,
  ): PushHealth {
    const consecutiveFailures = before.consecutiveFailures + 1;
    return {
      state: state ?? (consecutiveFailures >= this.#options.settings.failingAfter ? 'failing' : 'active'),
      consecutiveFailures,
      lastAttemptAt: at,
      ...(attempt.error === undefined ? {} : { lastError: attempt.error }),
      ...kept,
    };
  }

  #random(): () => number {
    return this.#options.random ?? Math.random;
  }

  #now(): number {
    return this.#options.nowMs?.() ?? Date.now();
  }
}

/**
 * The `webhook-id` of a delivery: `msg_` and 32 hex digits of SHA-256 over the task id, the
 * config id, the delivery's number (never reused by the store) and when it was queued. The
 * same for every attempt, before and after a restart, so receivers can dedupe; it reveals
 * nothing about the task.
 */
export function webhookIdOf(delivery: Pick<PushDelivery, 'taskId' | 'configId' | 'id' | 'createdAt'>): string {
  const digest = createHash('sha256')
    .update(JSON.stringify([delivery.taskId, delivery.configId, delivery.id, delivery.createdAt]))
    .digest('hex');
  return `msg_${digest.slice(0, 32)}`;
}
