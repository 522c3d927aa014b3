import type { TaskState } from '../../generated/a2a/1.0/types.js';
import type { Metrics } from '../../generated/control/types.js';

/** Latency bucket bounds in seconds, Prometheus style. */
const BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

interface Histogram {
  counts: number[];
  sum: number;
  count: number;
}

export interface GaugeSources {
  readonly tasksByState: () => Partial<Record<TaskState, number>>;
  readonly openStreams: () => number;
  readonly sessions: () => number;
  readonly rateLimitRejections: () => number;
}

/** Request counters and latency histograms of the A2A endpoints, plus gauges read on demand. */
export class HubMetrics {
  readonly #requests = new Map<string, Map<string, number>>();
  readonly #latency = new Map<string, Histogram>();

  constructor(private readonly gauges: GaugeSources) {}

  record(method: string, outcome: string, seconds: number): void {
    const outcomes = this.#requests.get(method) ?? new Map<string, number>();
    outcomes.set(outcome, (outcomes.get(outcome) ?? 0) + 1);
    this.#requests.set(method, outcomes);
    const histogram = this.#latency.get(method) ?? { counts: BUCKETS.map(() => 0), sum: 0, count: 0 };
    for (let index = 0; index < BUCKETS.length; index += 1) {
      if (seconds <= (BUCKETS[index] ?? 0)) histogram.counts[index] = (histogram.counts[index] ?? 0) + 1;
    }
    histogram.sum += seconds;
    histogram.count += 1;
    this.#latency.set(method, histogram);
  }

  toJson(): Metrics {
    return {
      requests: Object.fromEntries([...this.#requests].map(([method, outcomes]) => [method, Object.fromEntries(outcomes)])),
      tasksByState: this.gauges.tasksByState(),
      openStreams: this.gauges.openStreams(),
      sessions: this.gauges.sessions(),
      rateLimitRejections: this.gauges.rateLimitRejections(),
      latencySeconds: Object.fromEntries(
        [...this.#latency].map(([method, histogram]) => [
          method,
          {
            count: histogram.count,
            sum: round(histogram.sum),
            buckets: Object.fromEntries(BUCKETS.map((bound, index) => [String(bound), histogram.counts[index] ?? 0])),
          },
        ]),
      ),
    };
  }

  /** The Prometheus text exposition format (version 0.0.4). */
  toPrometheus(): string {
    const lines: string[] = [];
    const family = (name: string, type: string, help: string) => lines.push(`# HELP ${name} ${help}`, `# TYPE ${name} ${type}`);
    family('a2a_hub_requests_total', 'counter', 'A2A endpoint requests by JSON-RPC method and outcome.');
    for (const [method, outcomes] of this.#requests) {
      for (const [outcome, count] of outcomes)
        lines.push(`a2a_hub_requests_total{method="${label(method)}",outcome="${label(outcome)}"} ${count}`);
    }
    family('a2a_hub_request_duration_seconds', 'histogram', 'Time to answer (for streams: to open) A2A endpoint requests.');
    for (const [method, histogram] of this.#latency) {
      BUCKETS.forEach((bound, index) =>
        lines.push(`a2a_hub_request_duration_seconds_bucket{method="${label(method)}",le="${bound}"} ${histogram.counts[index] ?? 0}`),
      );
      lines.push(`a2a_hub_request_duration_seconds_bucket{method="${label(method)}",le="+Inf"} ${histogram.count}`);
      lines.push(`a2a_hub_request_duration_seconds_sum{method="${label(method)}"} ${round(histogram.sum)}`);
      lines.push(`a2a_hub_request_duration_seconds_count{method="${label(method)}"} ${histogram.count}`);
    }
    family('a2a_hub_tasks', 'gauge', 'Stored tasks by state.');
    for (const [state, count] of Object.entries(this.gauges.tasksByState())) lines.push(`a2a_hub_tasks{state="${state}"} ${count ?? 0}`);
    family('a2a_hub_open_streams', 'gauge', 'SSE streams open now.');
    lines.push(`a2a_hub_open_streams ${this.gauges.openStreams()}`);
    family('a2a_hub_sessions', 'gauge', 'Live sessions (instance, contextId).');
    lines.push(`a2a_hub_sessions ${this.gauges.sessions()}`);
    family('a2a_hub_rate_limit_rejections_total', 'counter', 'Requests refused by the rate limiter.');
    lines.push(`a2a_hub_rate_limit_rejections_total ${this.gauges.rateLimitRejections()}`);
    return `${lines.join('\n')}\n`;
  }
}

function label(value: string): string {
  return value.replaceAll('\\', '\\\\').replaceAll('"', '\\"').replaceAll('\n', '\\n');
}

function round(value: number): number {
  return Math.round(value * 1e6) / 1e6;
}
