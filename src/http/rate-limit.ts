export interface RateLimitOptions {
  /** Sustained requests per second allowed per source address. */
  readonly perSecond: number;
  /** Requests a source may make in a burst above the sustained rate. */
  readonly burst: number;
}

/** Buckets kept at most: past it, even after a sweep, the longest-kept ones go (a source seen anew starts full). */
const MAX_BUCKETS = 100_000;

/**
 * A token bucket per source (support/source-address.ts: an IPv4 address, an IPv6 /64), in
 * process memory. Buckets of quiet sources are swept so the table does not grow with every
 * address ever seen, and it never holds more than MAX_BUCKETS, however many sources are busy.
 */
export class RateLimiter {
  readonly #buckets = new Map<string, { tokens: number; at: number }>();
  #rejections = 0;
  #sweptAt = Number.NEGATIVE_INFINITY;

  constructor(
    private readonly options: RateLimitOptions,
    private readonly now: () => number = Date.now,
  ) {}

  /** Takes one token for `source`: 0 when allowed, else the seconds to wait before retrying. */
  take(source: string): number {
    const now = this.now();
    const bucket = this.#buckets.get(source) ?? { tokens: this.options.burst, at: now };
    bucket.tokens = Math.min(this.options.burst, bucket.tokens + ((now - bucket.at) / 1000) * this.options.perSecond);
    bucket.at = now;
    this.#buckets.set(source, bucket);
    // At most one sweep a second: with many sources busy at once nothing is quiet, and a sweep
    // on every request would walk the whole table each time.
    if (this.#buckets.size > 10_000 && now - this.#sweptAt >= 1000) {
      this.#sweptAt = now;
      this.#sweep(now);
    }
    if (this.#buckets.size > MAX_BUCKETS) this.#evict(this.#buckets.size - MAX_BUCKETS);
    if (bucket.tokens >= 1) {
      bucket.tokens -= 1;
      return 0;
    }
    this.#rejections += 1;
    return Math.max(1, Math.ceil((1 - bucket.tokens) / this.options.perSecond));
  }

  get rejections(): number {
    return this.#rejections;
  }

  /** Drops the `count` buckets kept longest (a Map iterates in insertion order). */
  #evict(count: number): void {
    let left = count;
    for (const source of this.#buckets.keys()) {
      if (left <= 0) break;
      this.#buckets.delete(source);
      left -= 1;
    }
  }

  /** Buckets held now. */
  get size(): number {
    return this.#buckets.size;
  }

  #sweep(now: number): void {
    const full = (this.options.burst / this.options.perSecond) * 1000;
    for (const [source, bucket] of this.#buckets) if (now - bucket.at > full) this.#buckets.delete(source);
  }
}
