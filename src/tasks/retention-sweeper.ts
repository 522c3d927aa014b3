import type { RetentionSummary } from '../../generated/control/types.js';
import { prunes, type RetentionRule, type TaskRetention } from '../store/retention.js';
import type { LogFunction } from '../support/log.js';

/** How often the sweeper runs by itself. */
export const SWEEP_EVERY_MS = 60_000;
/**
 * Tasks deleted per transaction: small, so that a SQLite hub's event loop (which runs the deletes)
 * and a PostgreSQL replica's connection are held briefly, and other work goes on between batches.
 */
export const SWEEP_BATCH = 200;

export interface RetentionSweeperDeps {
  readonly store: TaskRetention;
  /** The instances with a retention, as they are configured now. */
  readonly rules: () => readonly { readonly instanceId: string; readonly rule: RetentionRule }[];
  readonly now?: () => number;
  readonly log?: LogFunction;
  readonly everyMs?: number;
  readonly batch?: number;
}

/**
 * Deletes, by each instance's retention, the terminal tasks it no longer keeps: every `everyMs`
 * by itself, and when asked (task.prune, `a2a-hub db prune`). A sweep goes instance by instance
 * in batches of `batch` tasks, each its own transaction, yielding to the event loop between them,
 * until a batch comes back short. One sweep at a time in a process; with replicas sharing a
 * PostgreSQL store, one batch at a time across them (the store's advisory lock), and a replica that
 * finds the lock held ends its sweep for this round.
 */
export class RetentionSweeper {
  readonly #deps: RetentionSweeperDeps;
  #timer: NodeJS.Timeout | undefined;
  #running: Promise<number> | undefined;
  #closed = false;
  #lastRunAt: string | undefined;
  #lastPruned = 0;
  #prunedTotal = 0;
  #lastError: string | undefined;
  #heldElsewhere = false;

  constructor(deps: RetentionSweeperDeps) {
    this.#deps = deps;
  }

  /** Sweeps every `everyMs` from now on (the timer does not hold the process open). */
  start(): void {
    if (this.#timer !== undefined || this.#closed) return;
    this.#timer = setInterval(() => void this.sweep().catch(() => undefined), this.#deps.everyMs ?? SWEEP_EVERY_MS);
    this.#timer.unref();
  }

  /** Stops the timer and waits for a sweep under way to end its batch. */
  async close(): Promise<void> {
    this.#closed = true;
    clearInterval(this.#timer);
    await this.#running?.catch(() => undefined);
  }

  /**
   * Runs a sweep now (joining one under way), of `instanceId` or of every instance with a
   * retention; resolves with the tasks it deleted.
   */
  sweep(instanceId?: string): Promise<number> {
    const running = this.#running;
    if (running !== undefined) return instanceId === undefined ? running : running.then(() => this.sweep(instanceId));
    const sweep = this.#sweep(instanceId).finally(() => {
      if (this.#running === sweep) this.#running = undefined;
    });
    this.#running = sweep;
    return sweep;
  }

  /** Whether the last sweep ended early because another replica's sweep held the store. */
  get heldElsewhere(): boolean {
    return this.#heldElsewhere;
  }

  summary(): RetentionSummary {
    return {
      sweepEveryMs: this.#deps.everyMs ?? SWEEP_EVERY_MS,
      ...(this.#lastRunAt === undefined ? {} : { lastRunAt: this.#lastRunAt }),
      lastPruned: this.#lastPruned,
      prunedTotal: this.#prunedTotal,
      ...(this.#lastError === undefined ? {} : { lastError: this.#lastError }),
    };
  }

  async #sweep(instanceId: string | undefined): Promise<number> {
    const now = this.#deps.now ?? Date.now;
    const batch = this.#deps.batch ?? SWEEP_BATCH;
    let pruned = 0;
    this.#lastError = undefined;
    this.#heldElsewhere = false;
    try {
      for (const { instanceId: id, rule } of this.#deps.rules()) {
        if ((instanceId !== undefined && id !== instanceId) || !prunes(rule)) continue;
        for (;;) {
          if (this.#closed) return pruned;
          const deleted = await this.#deps.store.pruneTasks(id, rule, now(), batch);
          // Another replica's sweep holds the store: it is doing this work now.
          if (deleted === undefined) {
            this.#heldElsewhere = true;
            return pruned;
          }
          pruned += deleted.length;
          this.#prunedTotal += deleted.length;
          if (deleted.length < batch) break;
          await new Promise((resolve) => setImmediate(resolve));
        }
      }
      return pruned;
    } catch (error) {
      this.#lastError = error instanceof Error ? error.message : String(error);
      this.#deps.log?.('warn', 'the retention sweep stopped early; the next one goes on', { pruned, error: this.#lastError });
      throw error;
    } finally {
      this.#lastRunAt = new Date(now()).toISOString();
      this.#lastPruned = pruned;
      if (pruned > 0) this.#deps.log?.('info', 'the retention sweep deleted terminal tasks', { pruned });
    }
  }
}
