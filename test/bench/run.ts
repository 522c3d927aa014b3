import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { availableParallelism, cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { SDK_AGENT_JSONRPC_PATH } from '../interop/sdk-agent.js';
import { ChildServer, type BareOps, type HubOps, type MemoryReport, type PushReport, type ServerOps, type StoreCounts } from './ipc.js';
import {
  bareTarget,
  combine,
  cpuPerRequest,
  hubTarget,
  measure,
  problemsOf,
  sdkTarget,
  type Scenario,
  type ScenarioName,
  type SideResult,
} from './measure.js';
import { AUTOCANNON, type LoadGenerator } from './load.js';
import { measureReplicas, printReplicas, REPLICA_SIDES } from './replicas.js';
import { findWrk, wrkGenerator } from './wrk.js';
import { bareLimit, roundOrder, roundRatios, targetVerdicts, type Round, type ScenarioResult, type Side } from './judgement.js';
import { printProfile, profilesIn, summarize } from './profile.js';
import { fixed, median, mib, table } from './report.js';
import {
  COMPLETED_MARKER,
  REST_SEND_PATH,
  REST_STREAM_PATH,
  restSendBody,
  CARD_HEADERS,
  RPC_HEADERS,
  sampleBare,
  sampleHub,
  sendBody,
  SSE_HEADERS,
  walkListTasks,
  type Samples,
} from './samples.js';

/**
 * `npm run bench`: wrk against the hub and, in the same run and with the same settings,
 * against a bare node:http JSON-RPC responder; prints req/s and p50/p99/p99.9 per
 * scenario with the ratio to the bare responder, then the RSS of a hub holding 20k tasks
 * and ListTasks page latencies over them. Speed is measured and printed, never asserted:
 * the exit code is 1 only when the measurement itself is invalid (errors, wrong answers,
 * tasks that were not stored). All traffic goes to 127.0.0.1; every loop is bounded in
 * count and time, and a watchdog ends the run if anything hangs.
 *
 * Environment: BENCH_DURATION (s per measured run, default 5), BENCH_CONNECTIONS (32),
 * BENCH_WARMUP (s, 1), BENCH_TASKS (20000), BENCH_SELF_CHECK (on|off, default on as in
 * production), BENCH_CPU_PROF (a directory: profile the load-test hub with --cpu-prof and print
 * where its main thread spent its busiest window; one scenario at a time gives a clear picture),
 * BENCH_HUB_NODE_FLAGS (node flags for the load-test hub, e.g. --max-semi-space-size=64),
 * BENCH_SCENARIOS (comma list of card, send, stream, rest-send, rest-stream, memory, push,
 * replicas; default all), BENCH_PUSH_TASKS (2000 webhook deliveries for push), BENCH_ROUNDS (3):
 * each scenario runs this many rounds of one bare and one hub run back to back, in
 * alternating order, and the ratio is the median of the rounds' ratios. BENCH_LOAD (wrk |
 * autocannon, default wrk, installed from Debian when missing and possible): autocannon runs in
 * this process and becomes the limit on the bare side. BENCH_SDK (on|off, default on): the
 * official @a2a-js/sdk server as a second reference for card, send and stream, measured in the
 * same rounds (sdk-process.ts).
 */

interface Settings {
  readonly durationSeconds: number;
  readonly connections: number;
  readonly warmupSeconds: number;
  readonly tasks: number;
  readonly selfCheck: boolean;
  readonly cpuProfDir: string | undefined;
  /** Node flags for the load-test hub (BENCH_HUB_NODE_FLAGS, space-separated): GC and other experiments. */
  readonly hubNodeFlags: readonly string[];
  /** Rounds per scenario, each a bare and a hub run side by side (alternating which goes first). */
  readonly rounds: number;
  /** Webhook deliveries measured by the push part (BENCH_PUSH_TASKS). */
  readonly pushTasks: number;
  /**
   * Scenarios to run, in the order of `scenarios()`; `memory` is the 20k-task fill and ListTasks
   * walk; `push` is webhook throughput and blocking SendMessage with and without registered
   * configs; `replicas` is SendMessage and SendStreamingMessage on PostgreSQL, 1 and 2 replicas, beside SQLite.
   */
  readonly only: ReadonlySet<Part>;
  /** What drives the load (BENCH_LOAD): wrk when it is installed or can be, else autocannon. */
  readonly load: LoadGenerator;
  /** Whether the @a2a-js/sdk server runs the scenarios it serves beside the hub (BENCH_SDK). */
  readonly sdk: boolean;
}

const ALL_PARTS = ['card', 'send', 'stream', 'rest-send', 'rest-stream', 'memory', 'push', 'replicas'] as const;
type Part = ScenarioName | 'memory' | 'push' | 'replicas';

function readParts(): ReadonlySet<Part> {
  const raw = process.env['BENCH_SCENARIOS'];
  if (raw === undefined || raw.trim() === '') return new Set(ALL_PARTS);
  const parts = raw.split(',').map((part) => part.trim());
  const unknown = parts.filter((part) => !(ALL_PARTS as readonly string[]).includes(part));
  if (unknown.length > 0 || parts.length === 0)
    throw new Error(`BENCH_SCENARIOS is a comma list of ${ALL_PARTS.join(', ')}; got ${JSON.stringify(raw)}`);
  return new Set(parts as Part[]);
}

function envInt(name: string, fallback: number, min: number, max: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < min || value > max)
    throw new Error(`${name} must be an integer from ${min} to ${max}, got ${JSON.stringify(raw)}`);
  return value;
}

function readSettings(): Settings {
  const selfCheck = process.env['BENCH_SELF_CHECK'] ?? 'on';
  if (!['on', 'off'].includes(selfCheck)) throw new Error(`BENCH_SELF_CHECK must be on or off, got ${JSON.stringify(selfCheck)}`);
  const sdk = process.env['BENCH_SDK'] || 'on';
  if (!['on', 'off'].includes(sdk)) throw new Error(`BENCH_SDK must be on or off, got ${JSON.stringify(sdk)}`);
  return {
    durationSeconds: envInt('BENCH_DURATION', 5, 1, 120),
    connections: envInt('BENCH_CONNECTIONS', 32, 1, 1000),
    warmupSeconds: envInt('BENCH_WARMUP', 1, 0, 30),
    tasks: envInt('BENCH_TASKS', 20_000, 100, 200_000),
    selfCheck: selfCheck === 'on',
    cpuProfDir: process.env['BENCH_CPU_PROF'] || undefined,
    hubNodeFlags: (process.env['BENCH_HUB_NODE_FLAGS'] ?? '').split(' ').filter((flag) => flag !== ''),
    rounds: envInt('BENCH_ROUNDS', 3, 1, 20),
    pushTasks: envInt('BENCH_PUSH_TASKS', 2000, 10, 100_000),
    only: readParts(),
    load: readLoadGenerator(),
    sdk: sdk === 'on',
  };
}

function readLoadGenerator(): LoadGenerator {
  const wanted = process.env['BENCH_LOAD'] ?? 'wrk';
  if (wanted === 'autocannon') return AUTOCANNON;
  if (wanted !== 'wrk') throw new Error(`BENCH_LOAD must be wrk or autocannon, got ${JSON.stringify(wanted)}`);
  const wrk = findWrk((line) => console.log(line));
  if (wrk !== undefined) return wrkGenerator(wrk);
  console.log(
    'wrk is not installed and cannot be installed here: autocannon drives the load instead (it becomes the limit on the bare side)',
  );
  return AUTOCANNON;
}

const FILL_CONCURRENCY = 100;
const FILL_TIMEOUT_MS = 180_000;
const LIST_WALKS = 3;
const START_TIMEOUT_MS = 30_000;
const PUSH_TIMEOUT_MS = 120_000;

function scenarios(settings: Settings): Scenario[] {
  const common = { connections: settings.connections, durationSeconds: settings.durationSeconds };
  const all: Scenario[] = [
    {
      name: 'card',
      title: 'agent card (GET)',
      createsTasks: false,
      sdk: true,
      spec: (url) => ({
        ...common,
        url: `${url}/.well-known/agent-card.json`,
        method: 'GET',
        headers: CARD_HEADERS,
        verify: { marker: '"skills"' },
      }),
    },
    {
      name: 'send',
      title: 'SendMessage (blocking, echo)',
      createsTasks: true,
      sdk: true,
      spec: (url, tag, rpcPath) => ({
        ...common,
        url: `${url}${rpcPath}`,
        method: 'POST',
        headers: RPC_HEADERS,
        body: sendBody('SendMessage', tag),
        verify: { marker: COMPLETED_MARKER },
      }),
    },
    // Each send over HTTP+JSON right after the same send over JSON-RPC, so that the bindings are
    // compared back to back (with the streaming run between them, HTTP+JSON's send measured
    // 0.88-0.90 of JSON-RPC's in three runs; adjacent, 1.02). The bare reference answers them
    // with the JSON-RPC bytes, a few bytes more than the hub's results.
    {
      name: 'rest-send',
      title: 'SendMessage over HTTP+JSON (blocking, echo)',
      createsTasks: true,
      sdk: false,
      spec: (url, tag) => ({
        ...common,
        url: `${url}${REST_SEND_PATH}`,
        method: 'POST',
        headers: RPC_HEADERS,
        body: restSendBody(tag),
        verify: { marker: COMPLETED_MARKER },
      }),
    },
    {
      name: 'stream',
      title: 'SendStreamingMessage (echo)',
      createsTasks: true,
      sdk: true,
      spec: (url, tag, rpcPath) => ({
        ...common,
        url: `${url}${rpcPath}`,
        method: 'POST',
        headers: SSE_HEADERS,
        body: sendBody('SendStreamingMessage', tag),
        verify: { marker: COMPLETED_MARKER, ending: '\n\n' },
      }),
    },
    {
      name: 'rest-stream',
      title: 'SendStreamingMessage over HTTP+JSON (echo)',
      createsTasks: true,
      sdk: false,
      spec: (url, tag) => ({
        ...common,
        url: `${url}${REST_STREAM_PATH}`,
        method: 'POST',
        headers: SSE_HEADERS,
        body: restSendBody(tag),
        verify: { marker: COMPLETED_MARKER, ending: '\n\n' },
      }),
    },
  ];
  return all.filter((scenario) => settings.only.has(scenario.name));
}

async function main(): Promise<number> {
  const settings = readSettings();
  const base = mkdtempSync(join(tmpdir(), 'a2a-hub-bench-'));
  const children: { stop(): Promise<void>; kill(): void }[] = [];
  const plan = scenarios(settings);
  const pushRuns = settings.only.has('push') ? 1 : 0;
  // Two scenarios on three setups: three runs' worth of pairs.
  const replicaRuns = settings.only.has('replicas') ? REPLICA_SIDES.length : 0;
  const budgetMs =
    (plan.length + pushRuns + replicaRuns) * settings.rounds * 2 * (settings.warmupSeconds + settings.durationSeconds + 25) * 1000 +
    FILL_TIMEOUT_MS +
    pushRuns * PUSH_TIMEOUT_MS +
    180_000;
  const abort = (why: string, code: number): void => {
    console.error(`\nbench: ${why}; stopping`);
    for (const child of children) child.kill();
    rmSync(base, { recursive: true, force: true });
    process.exit(code);
  };
  const watchdog = setTimeout(() => abort(`the run exceeded its ${Math.round(budgetMs / 1000)} s budget`, 2), budgetMs);
  watchdog.unref();
  const onSignal = (signal: NodeJS.Signals): void => abort(`received ${signal}`, 130);
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);

  const problems: string[] = [];
  try {
    const load0 = loadavg();
    console.log('a2a-hub benchmark');
    console.log(
      `  machine: ${availableParallelism()} CPUs (${cpus()[0]?.model.trim() ?? 'unknown'}), node ${process.version}, load average ${load0.map((v) => v.toFixed(2)).join(' ')}`,
    );
    console.log(
      `  load: ${settings.load.describe}, ${settings.connections} connections, ${settings.durationSeconds} s measured after ${settings.warmupSeconds} s warm-up, per scenario and side; target 127.0.0.1`,
    );
    console.log(
      `  hub: production defaults (SQLite WAL, synchronous=NORMAL, selfCheck ${settings.selfCheck ? 'on' : 'off'}), rate limit off, silent logger; own process`,
    );
    console.log('  bare: node:http, reads and JSON.parses the body, answers the bytes the hub gave to a sample request; own process');
    if (settings.sdk)
      console.log(
        `  a2a-js: the official @a2a-js/sdk ${sdkVersion()} server (DefaultRequestHandler, InMemoryTaskStore, Express JSON-RPC middleware), echo agent; own process`,
      );
    console.log('  server and load generator share the same CPUs.\n');

    // A folder per run, so the summary reads this run's profiles only.
    const profileDir = settings.cpuProfDir === undefined ? undefined : join(settings.cpuProfDir, `hub-${Date.now().toString(36)}`);
    const hub = await ChildServer.start<HubOps>('hub', {
      module: './hub-process.ts',
      args: [join(base, 'load'), settings.selfCheck ? 'on' : 'off'],
      startTimeoutMs: START_TIMEOUT_MS,
      nodeFlags: [...settings.hubNodeFlags, ...(profileDir ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] : [])],
    });
    children.push(hub);
    const bare = await ChildServer.start<BareOps>('bare', { module: './bare-process.ts', startTimeoutMs: START_TIMEOUT_MS });
    children.push(bare);
    const sdk =
      settings.sdk && plan.some((scenario) => scenario.sdk)
        ? await ChildServer.start<ServerOps>('@a2a-js/sdk', { module: './sdk-process.ts', startTimeoutMs: START_TIMEOUT_MS })
        : undefined;
    if (sdk) children.push(sdk);

    const runTag = `bench-${Date.now().toString(36)}-${process.pid}`;
    const samples: Samples = await sampleHub(hub.url, runTag);
    await bare.call('configure', { card: samples.card, rpc: samples.rpc, sse: samples.sse });
    await sampleBare(bare.url, samples);
    console.log(
      `checked samples: card ${samples.card.length} B; SendMessage → COMPLETED task, ${samples.rpc.length} B; SendStreamingMessage → ${samples.sseFrames} SSE frames, ${samples.sse.length} B`,
    );
    if (sdk) {
      const sdkSamples = await sampleHub(sdk.url, `${runTag}-sdk`, { rpcPath: SDK_AGENT_JSONRPC_PATH, finalTask: false });
      console.log(
        `@a2a-js/sdk samples: card ${sdkSamples.card.length} B; SendMessage → COMPLETED task, ${sdkSamples.rpc.length} B; SendStreamingMessage → ${sdkSamples.sseFrames} SSE frames, ${sdkSamples.sse.length} B`,
      );
    }
    console.log('');

    const results = new Map<ScenarioName, ScenarioResult>();
    for (const scenario of plan) {
      process.stdout.write(`running ${scenario.title}:`);
      const rounds: Round[] = [];
      const withSdk = sdk !== undefined && scenario.sdk;
      for (let round = 1; round <= settings.rounds; round += 1) {
        const measured: Partial<Record<Side, SideResult>> = {};
        for (const side of roundOrder(round, withSdk)) {
          process.stdout.write(` ${side}…`);
          const target =
            side === 'hub' ? hubTarget(hub) : side === 'sdk' && sdk ? sdkTarget(sdk, SDK_AGENT_JSONRPC_PATH) : bareTarget(bare);
          const result = await measure(
            settings.load,
            target,
            scenario,
            settings.warmupSeconds,
            `${runTag}-${scenario.name}-${side}-${round}`,
          );
          problems.push(...problemsOf(scenario, `${side}, round ${round}`, result));
          measured[side] = result;
        }
        if (measured.hub && measured.bare)
          rounds.push({ hub: measured.hub, bare: measured.bare, ...(measured.sdk ? { sdk: measured.sdk } : {}) });
      }
      console.log(' done');
      const sdkRuns = rounds.flatMap((round) => round.sdk ?? []);
      results.set(scenario.name, {
        rounds,
        hub: combine(rounds.map((round) => round.hub)),
        bare: combine(rounds.map((round) => round.bare)),
        ...(sdkRuns.length === 0 ? {} : { sdk: combine(sdkRuns) }),
      });
    }
    const loadHubMemory = await hub.call('memory', undefined);
    const loadHubCounts = await hub.call('counts', undefined);
    const bareMemory = await bare.call('memory', undefined);
    await hub.stop();
    await bare.stop();
    await sdk?.stop();
    // The main thread's profile is the largest; a worker's (tsx's loader) is nearly empty.
    const mainProfile = profileDir === undefined ? undefined : profilesIn(profileDir)[0];

    let memoryReport: Parameters<typeof printMemory>[0] | undefined;
    if (settings.only.has('memory')) {
      // Memory and listing: a fresh hub, filled through hub.runtime.send (the echo executor and
      // the SQLite store, as over HTTP, minus HTTP and JSON-RPC), FILL_CONCURRENCY at a time.
      const fillHub = await ChildServer.start<HubOps>('fill hub', {
        module: './hub-process.ts',
        args: [join(base, 'fill'), settings.selfCheck ? 'on' : 'off'],
        startTimeoutMs: START_TIMEOUT_MS,
      });
      children.push(fillHub);
      const emptyMemory = await fillHub.call('memory', undefined);
      process.stdout.write(`\nstoring ${settings.tasks} tasks through hub.runtime.send (${FILL_CONCURRENCY} at a time)… `);
      const fill = await fillHub.call(
        'fill',
        { count: settings.tasks, concurrency: FILL_CONCURRENCY, timeoutMs: FILL_TIMEOUT_MS },
        FILL_TIMEOUT_MS + 30_000,
      );
      const fillCounts = await fillHub.call('settle', { timeoutMs: 10_000 });
      console.log(`${fill.inserted} in ${fixed(fill.seconds, 1)} s`);
      if (fill.timedOut) problems.push(`fill: only ${fill.inserted} of ${settings.tasks} tasks within ${FILL_TIMEOUT_MS / 1000} s`);
      if (fillCounts.tasks !== fill.inserted || fillCounts.completed !== fill.inserted)
        problems.push(`fill: ${fillCounts.tasks} stored, ${fillCounts.completed} COMPLETED, for ${fill.inserted} sent`);
      const fullMemory = await fillHub.call('memory', undefined);
      // As many again: what the first fill adds includes the process warming up (compiled code,
      // SQLite's page cache, the allocator's arenas, sessions up to maxSessions); the second
      // shows what stored tasks themselves cost.
      process.stdout.write(`storing ${settings.tasks} more… `);
      const refill = await fillHub.call(
        'fill',
        { count: settings.tasks, concurrency: FILL_CONCURRENCY, timeoutMs: FILL_TIMEOUT_MS },
        FILL_TIMEOUT_MS + 30_000,
      );
      const refillCounts = await fillHub.call('settle', { timeoutMs: 10_000 });
      console.log(`${refill.inserted} in ${fixed(refill.seconds, 1)} s`);
      if (refill.timedOut)
        problems.push(`second fill: only ${refill.inserted} of ${settings.tasks} tasks within ${FILL_TIMEOUT_MS / 1000} s`);
      if (refillCounts.tasks !== fill.inserted + refill.inserted)
        problems.push(`second fill: ${refillCounts.tasks} stored for ${fill.inserted + refill.inserted} sent`);
      const fullerMemory = await fillHub.call('memory', undefined);
      const maxPages = Math.ceil((fill.inserted + refill.inserted) / 100) + 2;
      const walks: number[][] = [];
      for (let walk = 0; walk < LIST_WALKS; walk += 1) {
        const result = await walkListTasks(fillHub.url, maxPages);
        const stored = fill.inserted + refill.inserted;
        if (result.tasks !== stored || result.totalSize !== stored)
          problems.push(
            `ListTasks walk ${walk + 1}: ${result.tasks} tasks over the pages, totalSize ${result.totalSize}, expected ${stored}`,
          );
        walks.push(result.pageMs);
      }
      const afterWalkMemory = await fillHub.call('memory', undefined);
      await fillHub.stop();
      memoryReport = {
        bareMemory,
        loadHubMemory,
        loadHubCounts,
        fillCounts,
        emptyMemory,
        fullMemory,
        fullerMemory,
        afterWalkMemory,
        fill,
        refill,
        walks,
      };
    }

    const pushReport = settings.only.has('push') ? await measurePush(base, settings, children, problems) : undefined;
    const replicaReport = settings.only.has('replicas')
      ? await measureReplicas(
          base,
          {
            rounds: settings.rounds,
            warmupSeconds: settings.warmupSeconds,
            selfCheck: settings.selfCheck,
            startTimeoutMs: START_TIMEOUT_MS,
            load: settings.load,
          },
          scenarios({ ...settings, only: new Set(['send', 'stream']) }),
          children,
          problems,
        )
      : undefined;

    if (plan.length > 0) {
      printResults(plan, results, settings);
      printDurability(plan, results);
      printMarkdown(plan, results, settings);
    }
    if (mainProfile !== undefined)
      printProfile(
        summarize(mainProfile, settings.durationSeconds),
        `load-test hub's main thread (${plan.map((one) => one.name).join(', ')})`,
      );
    if (memoryReport) printMemory(memoryReport);
    if (pushReport) printPush(pushReport, settings);
    if (replicaReport) printReplicas(replicaReport, settings.connections);
    const load1 = loadavg();
    console.log(`\nload average at the end: ${load1.map((v) => v.toFixed(2)).join(' ')} (${availableParallelism()} CPUs)`);
  } finally {
    clearTimeout(watchdog);
    for (const child of children) await child.stop().catch(() => child.kill());
    rmSync(base, { recursive: true, force: true });
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }

  if (problems.length > 0) {
    console.log('\nINVALID MEASUREMENT:');
    for (const problem of problems) console.log(`  - ${problem}`);
    return 1;
  }
  console.log('\nall responses checked, every SendMessage/SendStreamingMessage left a COMPLETED task in SQLite.');
  return 0;
}

function printResults(plan: readonly Scenario[], results: ReadonlyMap<ScenarioName, ScenarioResult>, settings: Settings): void {
  console.log(
    `\nthroughput and latency (${settings.connections} connections; ${settings.rounds} rounds of ${settings.durationSeconds} s per side, bare and hub back to back in alternating order; latency = request written until the response has fully arrived, for SSE until the stream ended)\n`,
  );
  const rows: string[][] = [];
  const details: string[][] = [];
  for (const scenario of plan) {
    const result = results.get(scenario.name);
    if (result === undefined) continue;
    const { hub, bare, sdk } = result;
    const ratios = roundRatios(result);
    rows.push([
      scenario.title,
      fixed(hub.load.reqPerSec, 0),
      fixed(hub.load.p50, 2),
      fixed(hub.load.p99, 2),
      fixed(hub.load.p999, 2),
      fixed(bare.load.reqPerSec, 0),
      fixed(bare.load.p50, 2),
      fixed(bare.load.p99, 2),
      fixed(bare.load.p999, 2),
      fixed(ratios.ratio, 2),
      fixed(ratios.cpuRatio, 3),
      ratios.each.map((ratio) => fixed(ratio, 2)).join(' '),
      sdk === undefined ? '—' : fixed(sdk.load.reqPerSec, 0),
      sdk === undefined ? '—' : fixed(sdk.load.p99, 2),
      ratios.sdkRatio === undefined ? '—' : `${fixed(ratios.sdkRatio, 2)}×`,
    ]);
    const sides: [string, SideResult][] = [
      ['hub', hub],
      ['bare', bare],
      ...(sdk === undefined ? [] : [['@a2a-js/sdk', sdk] as [string, SideResult]]),
    ];
    for (const [side, sideResult] of sides) {
      const seconds = sideResult.load.durationSeconds;
      details.push([
        `${scenario.title} / ${side}`,
        String(sideResult.load.completed),
        settings.load.name === 'autocannon' ? fixed(sideResult.load.p99Steady, 2) : '—',
        sideResult.loopDelay === undefined
          ? '—'
          : [sideResult.loopDelay.p50, sideResult.loopDelay.p90, sideResult.loopDelay.p99, sideResult.loopDelay.p999]
              .map((value) => fixed(value, 1))
              .concat(fixed(sideResult.loopDelay.max, 0))
              .join(' / '),
        fixed(cpuPerRequest(sideResult), 0),
        `${fixed((sideResult.serverCpuMicros / 1e6 / seconds) * 100, 0)}%`,
        `${fixed((sideResult.loadgenCpuMicros / 1e6 / seconds) * 100, 0)}%`,
        `${fixed((sideResult.otherCpuMicros / 1e6 / seconds) * 100, 0)}%`,
      ]);
    }
  }
  console.log(
    table(
      [
        'scenario',
        'req/s',
        'p50 ms',
        'p99 ms',
        'p99.9 ms',
        'bare req/s',
        'bare p50',
        'bare p99',
        'bare p99.9',
        'ratio',
        'CPU ratio',
        'ratio per round',
        'a2a-js req/s',
        'a2a-js p99',
        'hub ÷ a2a-js',
      ],
      rows,
    ),
  );
  console.log(
    '(req/s and latencies over all rounds; ratio = hub req/s ÷ bare req/s of the same round, median over rounds; CPU ratio = bare server CPU per request ÷ hub server CPU per request, the ratio with equal CPU for both, median over rounds; a2a-js = the official @a2a-js/sdk server, tasks in memory, hub ÷ a2a-js the median over rounds)',
  );
  printTargets(results);
  printGeneratorLimit(plan, results, settings);
  console.log('\nwhere the CPU went (user + system CPU during the measured run; 100% = one core)\n');
  console.log(
    table(
      [
        'run',
        'responses',
        'p99 ms w/o 1st per conn. (autocannon)',
        'event-loop delay p50 / p90 / p99 / p99.9 / max ms',
        'server CPU µs/req',
        'server CPU',
        'load generator CPU',
        'other processes CPU',
      ],
      details,
    ),
  );
  console.log(
    `(${availableParallelism()} CPUs = ${availableParallelism() * 100}%; "other processes" above ~20% means the machine was busy and the req/s columns are low, by ±30% or more)`,
  );
}

/** Issue 21's targets, judged on this run: informational, never asserted. */
function printTargets(results: ReadonlyMap<ScenarioName, ScenarioResult>): void {
  const verdicts = targetVerdicts(results);
  if (verdicts.length === 0) return;
  console.log('\ntargets (issue 21; informational, not asserted):');
  for (const { target, met, measured } of verdicts) console.log(`  ${met ? 'met   ' : 'MISSED'}  ${target} (measured ${measured})`);
}

/** Whether the bare side measured its server or the load generator: the one near a whole core is the limit. */
function printGeneratorLimit(plan: readonly Scenario[], results: ReadonlyMap<ScenarioName, ScenarioResult>, settings: Settings): void {
  const parts: string[] = [];
  for (const scenario of plan) {
    const bare = results.get(scenario.name)?.bare;
    if (bare === undefined) continue;
    const { server, generator, limit } = bareLimit(bare);
    const named = limit === 'server' ? 'the server' : limit === 'generator' ? `${settings.load.name} (the load generator)` : 'neither';
    parts.push(`${scenario.name}: server ${fixed(server * 100, 0)}%, ${settings.load.name} ${fixed(generator * 100, 0)}% → ${named}`);
  }
  if (parts.length > 0) console.log(`\nwhat limited the bare reference (CPU of one core): ${parts.join('; ')}`);
}

/** The table docs/performance.md carries, in Markdown, from this run. */
function printMarkdown(plan: readonly Scenario[], results: ReadonlyMap<ScenarioName, ScenarioResult>, settings: Settings): void {
  const cell = (side: SideResult | undefined): string =>
    side === undefined
      ? '—'
      : `${fixed(side.load.reqPerSec / 1000, 2)}k req/s, p99 ${fixed(side.load.p99, 1)} ms, p99.9 ${fixed(side.load.p999, 1)} ms`;
  const rows = [
    `| scenario (${settings.load.name}, ${settings.connections} connections, ${settings.rounds} × ${settings.durationSeconds} s) | bare node:http | @a2a-js/sdk ${sdkVersion()} | a2a-hub | hub / bare | hub / a2a-js |`,
    '|---|---|---|---|---:|---:|',
  ];
  for (const scenario of plan) {
    const result = results.get(scenario.name);
    if (result === undefined) continue;
    const { ratio, sdkRatio } = roundRatios(result);
    rows.push(
      `| ${scenario.title} | ${cell(result.bare)} | ${cell(result.sdk)} | ${cell(result.hub)} | ${fixed(ratio, 2)} | ${sdkRatio === undefined ? '—' : `${fixed(sdkRatio, 2)}×`} |`,
    );
  }
  console.log(`\nfor docs/performance.md:\n\n${rows.join('\n')}`);
}

/** The @a2a-js/sdk version installed, as its package says. */
function sdkVersion(): string {
  try {
    const path = new URL('../../node_modules/@a2a-js/sdk/package.json', import.meta.url);
    return (JSON.parse(readFileSync(path, 'utf8')) as { version?: string }).version ?? '?';
  } catch {
    return '?';
  }
}

interface PushMeasurement {
  readonly deliveries: PushReport;
  /** Blocking SendMessage on a hub holding delivered push configs, against one holding none, round by round. */
  readonly rounds: readonly { readonly with: SideResult; readonly without: SideResult }[];
}

/**
 * Webhook throughput: a push hub registers a config on each of `pushTasks` tasks and delivers
 * their snapshots to a node:http receiver in this process (204 for every POST). Then blocking
 * SendMessage, rounds alternating, on that hub (its configs registered and delivered) and on
 * a fresh hub with no config; the tasks the load creates have no config themselves.
 */
async function measurePush(
  base: string,
  settings: Settings,
  children: { stop(): Promise<void>; kill(): void }[],
  problems: string[],
): Promise<PushMeasurement> {
  const receiver = createServer((request, response) => {
    request.resume();
    request.on('end', () => response.writeHead(204).end());
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  try {
    const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
    const selfCheck = settings.selfCheck ? 'on' : 'off';
    const withConfigs = await ChildServer.start<HubOps>('push hub', {
      module: './hub-process.ts',
      args: [join(base, 'push-on'), selfCheck, 'push'],
      startTimeoutMs: START_TIMEOUT_MS,
    });
    children.push(withConfigs);
    const without = await ChildServer.start<HubOps>('hub without push configs', {
      module: './hub-process.ts',
      args: [join(base, 'push-off'), selfCheck],
      startTimeoutMs: START_TIMEOUT_MS,
    });
    children.push(without);
    process.stdout.write(`\ndelivering ${settings.pushTasks} webhooks to a receiver on 127.0.0.1… `);
    const deliveries = await withConfigs.call(
      'pushDeliveries',
      { tasks: settings.pushTasks, url, timeoutMs: PUSH_TIMEOUT_MS },
      PUSH_TIMEOUT_MS + 60_000,
    );
    console.log(`${deliveries.delivered} in ${fixed(deliveries.seconds, 1)} s`);
    if (deliveries.timedOut) problems.push(`push: only ${deliveries.delivered} of ${settings.pushTasks} webhooks delivered in time`);
    const [send] = scenarios({ ...settings, only: new Set(['send']) });
    if (send === undefined) throw new Error('the send scenario is missing');
    process.stdout.write('running SendMessage with and without registered push configs:');
    const rounds: { with: SideResult; without: SideResult }[] = [];
    for (let round = 1; round <= settings.rounds; round += 1) {
      const sides = round % 2 === 1 ? (['without', 'with'] as const) : (['with', 'without'] as const);
      const measured: Partial<Record<'with' | 'without', SideResult>> = {};
      for (const side of sides) {
        process.stdout.write(` ${side}…`);
        const target = hubTarget(side === 'with' ? withConfigs : without);
        const result = await measure(
          settings.load,
          target,
          send,
          settings.warmupSeconds,
          `push-${side}-${round}-${Date.now().toString(36)}`,
        );
        problems.push(...problemsOf(send, `${side} push configs, round ${round}`, result));
        measured[side] = result;
      }
      if (measured.with && measured.without) rounds.push({ with: measured.with, without: measured.without });
    }
    console.log(' done');
    await withConfigs.stop();
    await without.stop();
    return { deliveries, rounds };
  } finally {
    await new Promise<void>((resolve) => {
      receiver.closeAllConnections();
      receiver.close(() => resolve());
    });
  }
}

function printPush(report: PushMeasurement, settings: Settings): void {
  const { deliveries, rounds } = report;
  console.log('\npush notifications\n');
  console.log(
    `webhook throughput: ${fixed(deliveries.delivered / Math.max(1e-9, deliveries.seconds), 0)} deliveries/s (${deliveries.delivered} Task snapshots, one config per task, default concurrency, to a node:http receiver on 127.0.0.1; ${deliveries.retried} needed a retry)`,
  );
  const ratios = rounds.map((round) => round.with.load.reqPerSec / round.without.load.reqPerSec);
  const cpu = rounds.map((round) => cpuPerRequest(round.without) / cpuPerRequest(round.with));
  const ratio = median(ratios);
  console.log(
    table(
      ['SendMessage (blocking, echo)', 'req/s', 'p50 ms', 'p99 ms', 'server CPU µs/req'],
      [
        ['hub with push configs registered', ...sideColumns(combine(rounds.map((round) => round.with)))],
        ['hub without push configs', ...sideColumns(combine(rounds.map((round) => round.without)))],
      ],
    ),
  );
  console.log(
    `target: registered push configs slow blocking SendMessage by at most 15 %: ${ratio >= 0.85 ? 'met' : 'MISSED'} (req/s ratio ${fixed(ratio, 2)}, per round ${ratios.map((one) => fixed(one, 2)).join(' ')}; CPU ratio ${fixed(median(cpu), 3)}; ${settings.rounds} rounds; informational, not asserted)`,
  );
}

function sideColumns(side: SideResult): string[] {
  return [fixed(side.load.reqPerSec, 0), fixed(side.load.p50, 2), fixed(side.load.p99, 2), fixed(cpuPerRequest(side), 0)];
}

function printDurability(plan: readonly Scenario[], results: ReadonlyMap<ScenarioName, ScenarioResult>): void {
  console.log(
    '\ndurability (tasks counted in SQLite with hub.store.listTasks(...).totalSize around each measured run, after the executors settled; all rounds)\n',
  );
  const rows: string[][] = [];
  for (const scenario of plan) {
    const result = results.get(scenario.name);
    if (result === undefined) continue;
    let stored = 0;
    let completed = 0;
    let total = 0;
    for (const { hub } of result.rounds) {
      if (!hub.before || !hub.after) continue;
      stored += hub.after.tasks - hub.before.tasks;
      completed += hub.after.completed - hub.before.completed;
      total = hub.after.tasks;
    }
    rows.push([
      scenario.title,
      String(result.hub.load.ok2xx),
      String(result.hub.load.sent),
      String(stored),
      String(completed),
      String(total),
    ]);
  }
  console.log(table(['run', '2xx answers', 'requests sent', 'tasks stored', 'of them COMPLETED', 'store total'], rows));
}

function printMemory(report: {
  bareMemory: MemoryReport;
  loadHubMemory: MemoryReport;
  loadHubCounts: StoreCounts;
  fillCounts: StoreCounts;
  emptyMemory: MemoryReport;
  fullMemory: MemoryReport;
  fullerMemory: MemoryReport;
  afterWalkMemory: MemoryReport;
  fill: { inserted: number; seconds: number };
  refill: { inserted: number };
  walks: readonly (readonly number[])[];
}): void {
  const { emptyMemory, fullMemory, fullerMemory, afterWalkMemory, loadHubMemory, fill, refill, walks } = report;
  const gc = fullMemory.gcForced ? 'after global.gc()' : 'WITHOUT gc (run node with --expose-gc)';
  console.log(`\nmemory (${gc})\n`);
  const row = (label: string, memory: MemoryReport): string[] => [
    label,
    mib(memory.rssBytes),
    mib(memory.heapUsedBytes),
    mib(memory.externalBytes),
    mib(memory.maxRssBytes),
  ];
  console.log(
    table(
      ['process', 'RSS', 'heap used', 'external', 'peak RSS'],
      [
        row('fresh hub, empty store', emptyMemory),
        row(`same hub, ${fill.inserted} tasks stored (${report.fillCounts.sessions} live sessions)`, fullMemory),
        row(`same hub, ${fill.inserted + refill.inserted} tasks stored`, fullerMemory),
        row(`same hub, after ${walks.length} ListTasks walks`, afterWalkMemory),
        row(`load-test hub after its runs (${report.loadHubCounts.tasks} tasks, ${report.loadHubCounts.sessions} sessions)`, loadHubMemory),
        row('bare reference after its runs (node + tsx floor)', report.bareMemory),
      ],
      (column) => column > 0,
    ),
  );
  // Issue 21's memory target, scaled to 20k tasks when BENCH_TASKS differs: judged on the
  // second fill, since the first also pays for the process warming up.
  const per20k = (bytes: number, tasks: number): number => (bytes * 20_000) / Math.max(1, tasks);
  const warming = per20k(fullMemory.rssBytes - emptyMemory.rssBytes, fill.inserted);
  const steady = per20k(fullerMemory.rssBytes - fullMemory.rssBytes, refill.inserted);
  console.log(
    `\ntarget (issue 21; informational): RSS growth at most 20 MB per 20k stored tasks: ${steady <= 20 * 1024 * 1024 ? 'met' : 'MISSED'} (${mib(steady)} per 20k over the second fill; the first, warm-up included, ${mib(warming)}; ${gc})`,
  );
  console.log(`\nfill rate through hub.runtime.send (no HTTP, no load generator): ${fixed(fill.inserted / fill.seconds, 0)} tasks/s`);
  const first = walks.map((walk) => walk[0] ?? Number.NaN);
  const last = walks.map((walk) => walk.at(-1) ?? Number.NaN);
  const all = walks.flat();
  const pages = walks[0]?.length ?? 0;
  console.log(
    `ListTasks over JSON-RPC, pageSize 100, ${pages} pages per walk, ${walks.length} walks (median): first page ${fixed(median(first), 2)} ms, last page ${fixed(median(last), 2)} ms, any page ${fixed(median(all), 2)} ms (max ${fixed(Math.max(...all), 2)} ms)`,
  );
}

const code = await main().catch((error: unknown) => {
  console.error(`\nbench failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
  return 1;
});
process.exitCode = code;
// Nothing should hold the loop open now; if something does, do not hang.
setTimeout(() => process.exit(code), 10_000).unref();
