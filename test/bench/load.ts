import autocannon from 'autocannon';

/** One autocannon run: the same settings are used for the hub and for the bare reference. */
export interface LoadSpec {
  readonly url: string;
  readonly method: 'GET' | 'POST';
  readonly headers?: Record<string, string>;
  /** Builds the body of the n-th request (n counts from 0 within the run). */
  readonly body?: (n: number) => string;
  readonly connections: number;
  readonly durationSeconds: number;
  /** Every response body must pass, or it is counted as a mismatch. */
  readonly verify: (body: string) => boolean;
}

export interface LoadResult {
  /** autocannon's Req/Sec average (mean of its per-second samples). */
  readonly reqPerSec: number;
  /** Latency percentiles in ms, from autocannon's per-response time (request written until response complete). */
  readonly p50: number;
  readonly p99: number;
  /**
   * p99 without the first response of each connection. autocannon opens all connections at
   * once; a server whose event loop is saturated accepts about one new connection per loop
   * turn, so first requests wait for the ramp-up. This column shows the steady state.
   */
  readonly p99Steady: number;
  readonly completed: number;
  readonly sent: number;
  readonly ok2xx: number;
  readonly non2xx: number;
  readonly errors: number;
  readonly timeouts: number;
  readonly mismatches: number;
  readonly durationSeconds: number;
}

/**
 * Runs autocannon and collects latencies itself from the per-response event: autocannon's
 * own histogram has 1 ms resolution, too coarse for a sub-millisecond reference.
 */
export function runLoad(spec: LoadSpec): Promise<LoadResult> {
  const latencies: number[] = [];
  const steady: number[] = [];
  const answered = new WeakSet<object>();
  let n = 0;
  const build = spec.body;
  return new Promise<LoadResult>((resolve, reject) => {
    const instance = autocannon(
      {
        url: spec.url,
        method: spec.method,
        headers: spec.headers ?? {},
        connections: spec.connections,
        duration: spec.durationSeconds,
        timeout: 10,
        verifyBody: (body) => typeof body === 'string' && spec.verify(body),
        ...(build === undefined
          ? {}
          : { requests: [{ setupRequest: (request: autocannon.Request) => ({ ...request, body: build(n++) }) }] }),
      },
      (error: unknown, result: autocannon.Result) => {
        if (error) {
          reject(error instanceof Error ? error : new Error(`autocannon failed: ${JSON.stringify(error)}`));
          return;
        }
        const sorted = Float64Array.from(latencies).sort();
        resolve({
          reqPerSec: result.requests.average,
          p50: percentile(sorted, 50),
          p99: percentile(sorted, 99),
          p99Steady: percentile(Float64Array.from(steady).sort(), 99),
          completed: result.requests.total,
          sent: result.requests.sent,
          ok2xx: result['2xx'],
          non2xx: result.non2xx,
          errors: result.errors,
          timeouts: result.timeouts,
          mismatches: result.mismatches,
          durationSeconds: result.duration,
        });
      },
    );
    instance.on('response', (client, _status, _bytes, responseTime) => {
      latencies.push(responseTime);
      if (answered.has(client)) steady.push(responseTime);
      else answered.add(client);
    });
  });
}

/** Nearest-rank percentile of an ascending array; NaN when empty. */
export function percentile(sorted: Float64Array, p: number): number {
  if (sorted.length === 0) return Number.NaN;
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[rank] ?? Number.NaN;
}
