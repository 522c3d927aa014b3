/** The SSE streams open right now: for metrics, and so shutdown can let them finish writing. */
export class StreamTracker {
  readonly #open = new Set<Promise<void>>();

  /** Tracks a stream until `closed` resolves. */
  track(closed: Promise<void>): void {
    this.#open.add(closed);
    void closed.finally(() => this.#open.delete(closed));
  }

  get count(): number {
    return this.#open.size;
  }

  /** Resolves when every open stream has ended, or after timeoutMs. */
  async drain(timeoutMs: number): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([Promise.allSettled([...this.#open]), new Promise((resolve) => (timer = setTimeout(resolve, timeoutMs)))]);
    clearTimeout(timer);
  }
}
