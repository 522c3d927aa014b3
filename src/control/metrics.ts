import { METHOD_NAMES as METHOD_NAMES_03 } from '../../generated/a2a/0.3/methods.js';
import { METHOD_NAMES } from '../../generated/a2a/1.0/methods.js';
import type { TaskState } from '../../generated/a2a/1.0/types.js';
import type { Metrics } from '../../generated/control/types.js';
import { GATEWAY_METHOD_BY_NAME } from '../../generated/hub/gateway-methods.js';
import type { StorageHealth } from '../store/storage-health.js';
import type { Awaitable } from '../support/awaitable.js';

/**
 * The method labels a series may have: the registries' method names (1.0, 0.3, seed 004's
 * gateway), and `-` for a request refused before its method was read. Anything else a client
 * sends is counted under `unknown`: a label per name a client makes up would grow the series,
 * and the process's memory, without bound.
 */
const METHOD_LABELS: ReadonlySet<string> = new Set(['-', ...METHOD_NAMES, ...METHOD_NAMES_03, ...GATEWAY_METHOD_BY_NAME.keys()]);
const UNKNOWN_METHOD = 'unknown';

/** Latency bucket bounds in seconds, Prometheus style. */
const BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

interface Histogram {
  counts: number[];
  sum: number;
  count: number;
}

export interface GaugeSources {
  readonly tasksByState: () => Awaitable<Partial<Record<TaskState, number>>>;
  readonly openStreams: () => number;
  readonly sessions: () => number;
  readonly rateLimitRejections: () => number;
  /** Webhook deliveries waiting in the push outbox (read when scraped). */
  readonly pushPending?: () => Awaitable<number>;
  /** Whether the task store takes writes, and the writes storage faults failed. */
  readonly storage?: Pick<StorageHealth, 'failing' | 'failuresByCause'>;
  /** The HTTP connections open now, and those refused over a limit since start (connection-gate.ts). */
  readonly connections?: { readonly open: number; readonly refusedCount: number };
}

/** Request counters and latency histograms of the A2A endpoints, plus gauges read on demand. */
export class HubMetrics {
  readonly #requests = new Map<string, Map<string, number>>();
  readonly #latency = new Map<string, Histogram>();
  /** Webhook attempts by outcome (delivered, retry, failed, disabled, refused): never by URL or config. */
  readonly #pushAttempts = new Map<string, number>();
  readonly #pushLatency = emptyHistogram();

  constructor(private readonly gauges: GaugeSources) {}

  /** One request; `method` as the request named it (one that is not a registered method counts as `unknown`). */
  record(requested: string, outcome: string, seconds: number): void {
    const method = METHOD_LABELS.has(requested) ? requested : UNKNOWN_METHOD;
    const outcomes = this.#requests.get(method) ?? new Map<string, number>();
    outcomes.set(outcome, (outcomes.get(outcome) ?? 0) + 1);
    this.#requests.set(method, outcomes);
    const histogram = this.#latency.get(method) ?? emptyHistogram();
    observe(histogram, seconds);
    this.#latency.set(method, histogram);
  }

  /** One webhook attempt (the push dispatcher's onAttempt). */
  recordPushAttempt(outcome: string, seconds: number): void {
    this.#pushAttempts.set(outcome, (this.#pushAttempts.get(outcome) ?? 0) + 1);
    observe(this.#pushLatency, seconds);
  }

  async toJson(): Promise<Metrics> {
    const [tasksByState, pushPending] = await Promise.all([this.gauges.tasksByState(), this.gauges.pushPending?.() ?? 0]);
    return {
      requests: Object.fromEntries([...this.#requests].map(([method, outcomes]) => [method, Object.fromEntries(outcomes)])),
      tasksByState,
      openStreams: this.gauges.openStreams(),
      sessions: this.gauges.sessions(),
      rateLimitRejections: this.gauges.rateLimitRejections(),
      latencySeconds: Object.fromEntries([...this.#latency].map(([method, histogram]) => [method, histogramJson(histogram)])),
      push: {
        attempts: Object.fromEntries(this.#pushAttempts),
        pending: pushPending,
        latencySeconds: histogramJson(this.#pushLatency),
      },
      ...(this.gauges.storage === undefined ? {} : { storage: storageJson(this.gauges.storage) }),
      ...(this.gauges.connections === undefined
        ? {}
        : { connections: { open: this.gauges.connections.open, refused: this.gauges.connections.refusedCount } }),
    };
  }

  /** The Prometheus text exposition format (version 0.0.4). */
  async toPrometheus(): Promise<string> {
    const [tasksByState, pushPending] = await Promise.all([this.gauges.tasksByState(), this.gauges.pushPending?.() ?? 0]);
    const lines: string[] = [];
    const family = (name: string, type: string, help: string) => lines.push(`# HELP ${name} ${help}`, `# TYPE ${name} ${type}`);
    family('a2a_hub_requests_total', 'counter', 'A2A endpoint requests by JSON-RPC method and outcome.');
    for (const [method, outcomes] of this.#requests) {
      for (const [outcome, count] of outcomes)
        lines.push(`a2a_hub_requests_total{method="${label(method)}",outcome="${label(outcome)}"} ${count}`);
    }
    family('a2a_hub_request_duration_seconds', 'histogram', 'Time to answer (for streams: to open) A2A endpoint requests.');
    for (const [method, histogram] of this.#latency)
      lines.push(...histogramLines('a2a_hub_request_duration_seconds', `method="${label(method)}"`, histogram));
    family('a2a_hub_tasks', 'gauge', 'Stored tasks by state.');
    for (const [state, count] of Object.entries(tasksByState)) lines.push(`a2a_hub_tasks{state="${state}"} ${count ?? 0}`);
    family('a2a_hub_open_streams', 'gauge', 'SSE streams open now.');
    lines.push(`a2a_hub_open_streams ${this.gauges.openStreams()}`);
    family('a2a_hub_sessions', 'gauge', 'Live sessions (instance, contextId).');
    lines.push(`a2a_hub_sessions ${this.gauges.sessions()}`);
    family('a2a_hub_rate_limit_rejections_total', 'counter', 'Requests refused by the rate limiter.');
    lines.push(`a2a_hub_rate_limit_rejections_total ${this.gauges.rateLimitRejections()}`);
    family('a2a_hub_push_attempts_total', 'counter', 'Webhook delivery attempts by outcome.');
    for (const [outcome, count] of this.#pushAttempts) lines.push(`a2a_hub_push_attempts_total{outcome="${label(outcome)}"} ${count}`);
    family('a2a_hub_push_attempt_duration_seconds', 'histogram', 'Time of webhook delivery attempts, connect to the end of the answer.');
    lines.push(...histogramLines('a2a_hub_push_attempt_duration_seconds', '', this.#pushLatency));
    family('a2a_hub_push_pending', 'gauge', 'Webhook deliveries waiting in the push outbox.');
    lines.push(`a2a_hub_push_pending ${pushPending}`);
    const connections = this.gauges.connections;
    if (connections !== undefined) {
      family('a2a_hub_connections_open', 'gauge', 'HTTP connections open now.');
      lines.push(`a2a_hub_connections_open ${connections.open}`);
      family('a2a_hub_connections_refused_total', 'counter', 'Connections refused over connections.max or connections.perSource.');
      lines.push(`a2a_hub_connections_refused_total ${connections.refusedCount}`);
    }
    const storage = this.gauges.storage;
    if (storage !== undefined) {
      family('a2a_hub_store_writable', 'gauge', '1 while the task store takes writes, 0 while a storage fault fails them.');
      lines.push(`a2a_hub_store_writable ${storage.failing === undefined ? 1 : 0}`);
      family(
        'a2a_hub_store_write_failures_total',
        'counter',
        'Writes a storage fault (full, unavailable) failed, by kind and driver code.',
      );
      for (const [cause, count] of storage.failuresByCause) {
        const [kind, code] = splitCause(cause);
        lines.push(`a2a_hub_store_write_failures_total{kind="${label(kind)}",code="${label(code)}"} ${count}`);
      }
    }
    return `${lines.join('\n')}\n`;
  }
}

function storageJson(storage: NonNullable<GaugeSources['storage']>): NonNullable<Metrics['storage']> {
  const failing = storage.failing;
  return {
    writable: failing === undefined,
    ...(failing === undefined ? {} : { failing: { kind: failing.kind, code: failing.code } }),
    writeFailures: Object.fromEntries(storage.failuresByCause),
  };
}

/** `full:SQLITE_FULL` → ['full', 'SQLITE_FULL']. */
function splitCause(cause: string): [string, string] {
  const colon = cause.indexOf(':');
  return [cause.slice(0, colon), cause.slice(colon + 1)];
}

function emptyHistogram(): Histogram {
  return { counts: BUCKETS.map(() => 0), sum: 0, count: 0 };
}

function observe(histogram: Histogram, seconds: number): void {
  for (let index = 0; index < BUCKETS.length; index += 1) {
    if (seconds <= (BUCKETS[index] ?? 0)) histogram.counts[index] = (histogram.counts[index] ?? 0) + 1;
  }
  histogram.sum += seconds;
  histogram.count += 1;
}

function histogramJson(histogram: Histogram): { count: number; sum: number; buckets: Record<string, number> } {
  return {
    count: histogram.count,
    sum: round(histogram.sum),
    buckets: Object.fromEntries(BUCKETS.map((bound, index) => [String(bound), histogram.counts[index] ?? 0])),
  };
}

/** A histogram's bucket, sum and count lines; `labels` are the series' other labels (may be empty). */
function histogramLines(name: string, labels: string, histogram: Histogram): string[] {
  const withLe = (le: string): string => `{${labels === '' ? '' : `${labels},`}le="${le}"}`;
  const plain = labels === '' ? '' : `{${labels}}`;
  return [
    ...BUCKETS.map((bound, index) => `${name}_bucket${withLe(String(bound))} ${histogram.counts[index] ?? 0}`),
    `${name}_bucket${withLe('+Inf')} ${histogram.count}`,
    `${name}_sum${plain} ${round(histogram.sum)}`,
    `${name}_count${plain} ${histogram.count}`,
  ];
}

function label(value: string): string {
  return value.replaceAll('\\', '\\\\').replaceAll('"', '\\"').replaceAll('\n', '\\n');
}

function round(value: number): number {
  return Math.round(value * 1e6) / 1e6;
}
