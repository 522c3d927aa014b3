import autocannon from 'autocannon';

/** What drives the load: wrk (test/bench/wrk.ts) or autocannon (below). */
export interface LoadGenerator {
  readonly name: 'wrk' | 'autocannon';
  /** For the bench's header. */
  readonly describe: string;
  run(spec: LoadSpec): Promise<LoadResult>;
}

export const AUTOCANNON: LoadGenerator = {
  name: 'autocannon',
  describe: 'autocannon 9, in the bench process',
  run: (spec) => runAutocannon(spec),
};

/** One load run: the same settings are used for the hub and for the bare reference. */
export interface LoadSpec {
  readonly url: string;
  readonly method: 'GET' | 'POST';
  readonly headers?: Record<string, string>;
  /** The body of every request, numbered so that each is unique. */
  readonly body?: NumberedBody;
  readonly connections: number;
  readonly durationSeconds: number;
  /** What every response body must hold, or it is counted as a mismatch. */
  readonly verify: { readonly marker: string; readonly ending?: string };
}

/** A request body with a number between its two halves (one per request; wrk adds its thread's too). */
export interface NumberedBody {
  readonly prefix: string;
  readonly suffix: string;
}

export function bodyOf(body: NumberedBody, n: number | string): string {
  return `${body.prefix}${n}${body.suffix}`;
}

function passes(verify: LoadSpec['verify'], body: string): boolean {
  return body.includes(verify.marker) && (verify.ending === undefined || body.endsWith(verify.ending));
}

export interface LoadResult {
  /** autocannon's Req/Sec average (mean of its per-second samples). */
  readonly reqPerSec: number;
  /** Latency percentiles in ms, from autocannon's per-response time (request written until response complete). */
  readonly p50: number;
  readonly p99: number;
  readonly p999: number;
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
  /** The load generator's CPU during the run, µs, when it runs in a process of its own (wrk). */
  readonly loadgenCpuMicros?: number;
}

/**
 * Runs autocannon and collects latencies itself from the per-response event: autocannon's
 * own histogram has 1 ms resolution, too coarse for a sub-millisecond reference.
 */
function runAutocannon(spec: LoadSpec): Promise<LoadResult> {
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
        verifyBody: (body) => typeof body === 'string' && passes(spec.verify, body),
        ...(build === undefined
          ? {}
          : { requests: [{ setupRequest: (request: autocannon.Request) => ({ ...request, body: bodyOf(build, n++) }) }] }),
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
          p999: percentile(sorted, 99.9),
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
