export interface RateLimitOptions {
  /** Sustained requests per second allowed per source address. */
  readonly perSecond: number;
  /** Requests a source may make in a burst above the sustained rate. */
  readonly burst: number;
}

/**
 * A token bucket per source address, in process memory. Buckets of quiet sources are swept
 * so the table does not grow with every address ever seen.
 */
export class RateLimiter {
  readonly #buckets = new Map<string, { tokens: number; at: number }>();
  #rejections = 0;

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
    if (this.#buckets.size > 10_000) this.#sweep(now);
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

  #sweep(now: number): void {
    const full = (this.options.burst / this.options.perSecond) * 1000;
    for (const [source, bucket] of this.#buckets) if (now - bucket.at > full) this.#buckets.delete(source);
  }
}
