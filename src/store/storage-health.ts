import type { Awaitable } from '../support/awaitable.js';
import type { LogFunction } from '../support/log.js';
import { storageFaultOf, type StorageFault } from './storage-fault.js';
import type { WriteOutcome } from './store-ops.js';

export interface StorageHealthOptions {
  /** Where the store keeps its data, as the log names it: the data dir, or the database without its password. */
  readonly location: string;
  /**
   * A small write that needs what real writes need (new pages, a WAL append): tried by the
   * readiness check while writes fail, so that a hub taken out of its load balancer learns when
   * space (or the database) is back without waiting for traffic.
   */
  readonly probe: () => Awaitable<void>;
  readonly log?: LogFunction;
  readonly now?: () => number;
  /** The least time between two probes, so a readiness check polled often does not hammer a failing disk. */
  readonly probeEveryMs?: number;
}

/** A cause as the log and the metrics count it: its kind and driver code. */
function causeOf(fault: StorageFault): string {
  return `${fault.kind}:${fault.code}`;
}

/**
 * Whether the task store takes writes now. The write queue reports every commit's outcomes;
 * the first write a storage fault fails turns the hub not ready (`problem()`), and is logged
 * once per cause with where the data is, however many writes fail after it; a commit (or a
 * probe) that succeeds turns it back, logged once with how many writes failed meanwhile.
 */
export class StorageHealth {
  readonly #options: StorageHealthOptions;
  #failing: { fault: StorageFault; since: number; failures: number } | undefined;
  #lastProbe = Number.NEGATIVE_INFINITY;
  #probing: Promise<void> | undefined;
  /** Writes failed by a storage fault, by cause (`full:SQLITE_FULL`), since the hub started. */
  readonly failuresByCause = new Map<string, number>();

  constructor(options: StorageHealthOptions) {
    this.#options = options;
  }

  /** What writes fail with now, or undefined while they succeed. */
  get failing(): StorageFault | undefined {
    return this.#failing?.fault;
  }

  /** The outcomes of one commit. */
  record(outcomes: readonly WriteOutcome[]): void {
    let fault: StorageFault | undefined;
    let failed = 0;
    let stored = false;
    for (const outcome of outcomes) {
      if (outcome.ok) stored = true;
      else if (outcome.fault !== undefined) {
        fault = outcome.fault;
        failed += 1;
        this.#count(outcome.fault);
      }
    }
    if (fault !== undefined) this.#failed(fault, failed);
    else if (stored) this.#recovered('a write');
  }

  /** A store call outside the write queue failed: counted and judged as a write that failed. */
  recordError(error: unknown): void {
    const fault = storageFaultOf(error);
    if (fault === undefined) return;
    this.#count(fault);
    this.#failed(fault, 1);
  }

  /**
   * Why the hub should get no traffic, or undefined when writes work: while they fail, a probe
   * write (at most one per probeEveryMs) decides whether they work again.
   */
  async problem(): Promise<string | undefined> {
    if (this.#failing === undefined) return undefined;
    const now = this.#now();
    if (now - this.#lastProbe >= (this.#options.probeEveryMs ?? 1000)) {
      this.#lastProbe = now;
      this.#probing ??= this.#probe().finally(() => (this.#probing = undefined));
    }
    await this.#probing;
    const failing = this.#failing;
    if (failing === undefined) return undefined;
    return `the task store refuses writes: ${failing.fault.kind === 'full' ? 'it is out of space' : 'it is unavailable'} (${failing.fault.code})`;
  }

  async #probe(): Promise<void> {
    try {
      await this.#options.probe();
      this.#recovered('a probe write');
    } catch (error) {
      const fault = storageFaultOf(error);
      if (fault !== undefined) this.#failed(fault, 0);
    }
  }

  #count(fault: StorageFault): void {
    const cause = causeOf(fault);
    this.failuresByCause.set(cause, (this.failuresByCause.get(cause) ?? 0) + 1);
  }

  /** `writes`: how many writes the fault failed this time (0 for a probe). */
  #failed(fault: StorageFault, writes: number): void {
    const current = this.#failing;
    if (current !== undefined && causeOf(current.fault) === causeOf(fault)) {
      current.failures += writes;
      return;
    }
    this.#failing = { fault, since: current?.since ?? this.#now(), failures: (current?.failures ?? 0) + writes };
    this.#options.log?.(
      'error',
      fault.kind === 'full'
        ? 'the task store is out of space: writes fail, requests that need one are refused, and the hub reports not ready until space is freed'
        : 'the task store is unavailable: writes fail, requests that need one are refused, and the hub reports not ready until it answers again',
      { store: this.#options.location, kind: fault.kind, code: fault.code, error: fault.detail },
    );
  }

  #recovered(how: string): void {
    const failing = this.#failing;
    if (failing === undefined) return;
    this.#failing = undefined;
    this.#options.log?.('warn', `the task store takes writes again (${how} succeeded)`, {
      store: this.#options.location,
      failedFor: `${Math.round(this.#now() - failing.since)} ms`,
      writesFailed: failing.failures,
    });
  }

  #now(): number {
    return (this.#options.now ?? Date.now)();
  }
}
