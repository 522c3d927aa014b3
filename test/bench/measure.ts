import { cpus } from 'node:os';
import type { ChildServer, BareOps, HubOps, LoopDelay, ServerOps, StoreCounts } from './ipc.js';
import type { LoadGenerator, LoadResult, LoadSpec } from './load.js';
import { median } from './report.js';

/** One measured load run against one target, and what makes such a run valid: shared by every part of the bench. */

export type ScenarioName = 'card' | 'send' | 'stream' | 'rest-send' | 'rest-stream';

export interface Scenario {
  readonly name: ScenarioName;
  readonly title: string;
  /** Builds the load spec against `url`, whose JSON-RPC endpoint is at `rpcPath`; `tag` makes every messageId of the run unique. */
  readonly spec: (url: string, tag: string, rpcPath: string) => LoadSpec;
  /** Whether the @a2a-js/sdk reference runs it too (it serves no HTTP+JSON routes at the hub's paths). */
  readonly sdk: boolean;
  /** Whether each request must leave a COMPLETED task in the store. */
  readonly createsTasks: boolean;
}

export interface SideResult {
  readonly load: LoadResult;
  /** Server process CPU (user + system) during the measured run, µs. */
  readonly serverCpuMicros: number;
  /** Load generator (this process) CPU during the measured run, µs. */
  readonly loadgenCpuMicros: number;
  /** CPU used on the machine by everything else during the measured run, µs (other tests, the OS). */
  readonly otherCpuMicros: number;
  /** The server's event-loop delay during the measured run (hubs only). */
  readonly loopDelay?: LoopDelay;
  readonly before?: StoreCounts;
  readonly after?: StoreCounts & { settled: boolean };
}

/** Busy CPU time of the whole machine so far, µs (all CPUs, from os.cpus()). */
function machineBusyMicros(): number {
  return cpus().reduce((sum, cpu) => sum + (cpu.times.user + cpu.times.nice + cpu.times.sys + cpu.times.irq) * 1000, 0);
}

function cpuOfThisProcess(): number {
  const usage = process.cpuUsage();
  return usage.user + usage.system;
}

/** Where the hub (and the bare reference, which answers any path) serve JSON-RPC: the default instance. */
export const HUB_RPC_PATH = '/a2a/default';

/** A server under test: its URL, its CPU counter (every process it is made of), and for hubs their store's counts once quiet. */
export interface Target {
  readonly url: string;
  /** Its JSON-RPC endpoint below `url` (HUB_RPC_PATH unless said). */
  readonly rpcPath?: string;
  readonly cpuMicros: () => Promise<number>;
  readonly settle?: () => Promise<StoreCounts & { settled: boolean }>;
  /** The hub's event-loop delay since the last call (each call starts a new reading). */
  readonly loopDelay?: () => Promise<LoopDelay>;
}

const SETTLE_TIMEOUT_MS = 10_000;

export function hubTarget(hub: ChildServer<HubOps>): Target {
  return {
    url: hub.url,
    cpuMicros: async () => (await hub.call('cpu', undefined)).cpuMicros,
    settle: () => hub.call('settle', { timeoutMs: SETTLE_TIMEOUT_MS }),
    loopDelay: () => hub.call('loopDelay', undefined),
  };
}

export function bareTarget(bare: ChildServer<BareOps>): Target {
  return { url: bare.url, cpuMicros: async () => (await bare.call('cpu', undefined)).cpuMicros };
}

/** The @a2a-js/sdk reference (sdk-process.ts), whose JSON-RPC middleware is mounted at `rpcPath`. */
export function sdkTarget(sdk: ChildServer<ServerOps>, rpcPath: string): Target {
  return { url: sdk.url, rpcPath, cpuMicros: async () => (await sdk.call('cpu', undefined)).cpuMicros };
}

/**
 * Replicas on one database behind a proxy: the CPU of all of them, and quiet when each is. The
 * task counts are the database's, the same from any replica; executors and requests add up.
 */
export function replicasTarget(proxy: ChildServer<ServerOps>, replicas: readonly ChildServer<HubOps>[]): Target {
  const cpu = async (child: { call(op: 'cpu', args: undefined): Promise<{ cpuMicros: number }> }): Promise<number> =>
    (await child.call('cpu', undefined)).cpuMicros;
  return {
    url: proxy.url,
    cpuMicros: async () => (await Promise.all([cpu(proxy), ...replicas.map(cpu)])).reduce((sum, one) => sum + one, 0),
    async settle() {
      const each = await Promise.all(replicas.map((replica) => replica.call('settle', { timeoutMs: SETTLE_TIMEOUT_MS })));
      const first = each[0];
      if (first === undefined) throw new Error('no replicas');
      return {
        ...first,
        active: each.reduce((sum, one) => sum + one.active, 0),
        requests: each.reduce((sum, one) => sum + one.requests, 0),
        sessions: each.reduce((sum, one) => sum + one.sessions, 0),
        settled: each.every((one) => one.settled),
      };
    },
  };
}

export async function measure(
  load: LoadGenerator,
  target: Target,
  scenario: Scenario,
  warmupSeconds: number,
  tag: string,
): Promise<SideResult> {
  if (warmupSeconds > 0) {
    await load.run({ ...scenario.spec(target.url, `${tag}-warmup`, target.rpcPath ?? HUB_RPC_PATH), durationSeconds: warmupSeconds });
  }
  const before = await target.settle?.();
  await target.loopDelay?.();
  const serverCpu0 = await target.cpuMicros();
  const machine0 = machineBusyMicros();
  const loadgenCpu0 = cpuOfThisProcess();
  const result = await load.run(scenario.spec(target.url, tag, target.rpcPath ?? HUB_RPC_PATH));
  // wrk runs in a process of its own and says what it used; autocannon runs in this one.
  const loadgenCpuMicros = result.loadgenCpuMicros ?? cpuOfThisProcess() - loadgenCpu0;
  const machineMicros = machineBusyMicros() - machine0;
  const serverCpuMicros = (await target.cpuMicros()) - serverCpu0;
  const loopDelay = await target.loopDelay?.();
  const otherCpuMicros = Math.max(0, machineMicros - loadgenCpuMicros - serverCpuMicros);
  const after = await target.settle?.();
  return {
    load: result,
    serverCpuMicros,
    loadgenCpuMicros,
    otherCpuMicros,
    ...(loopDelay ? { loopDelay } : {}),
    ...(before ? { before } : {}),
    ...(after ? { after } : {}),
  };
}

/** The rounds of one side as one run: counts and CPU summed, req/s over the total time, p50 the median, p99 the worst. */
export function combine(sides: readonly SideResult[]): SideResult {
  const sum = (pick: (side: SideResult) => number): number => sides.reduce((total, side) => total + pick(side), 0);
  const loads = sides.map((side) => side.load);
  const load: LoadResult = {
    reqPerSec:
      sum((side) => side.load.completed) /
      Math.max(
        1e-9,
        sum((side) => side.load.durationSeconds),
      ),
    p50: median(loads.map((one) => one.p50)),
    p99: Math.max(...loads.map((one) => one.p99)),
    p999: Math.max(...loads.map((one) => one.p999)),
    p99Steady: Math.max(...loads.map((one) => one.p99Steady)),
    completed: sum((side) => side.load.completed),
    sent: sum((side) => side.load.sent),
    ok2xx: sum((side) => side.load.ok2xx),
    non2xx: sum((side) => side.load.non2xx),
    errors: sum((side) => side.load.errors),
    timeouts: sum((side) => side.load.timeouts),
    mismatches: sum((side) => side.load.mismatches),
    durationSeconds: sum((side) => side.load.durationSeconds),
  };
  const delays = sides.flatMap((side) => side.loopDelay ?? []);
  return {
    load,
    serverCpuMicros: sum((side) => side.serverCpuMicros),
    loadgenCpuMicros: sum((side) => side.loadgenCpuMicros),
    otherCpuMicros: sum((side) => side.otherCpuMicros),
    ...(delays.length === 0
      ? {}
      : {
          loopDelay: {
            p50: median(delays.map((one) => one.p50)),
            // The worst round's: the tail is what these columns are for.
            p90: Math.max(...delays.map((one) => one.p90)),
            p99: Math.max(...delays.map((one) => one.p99)),
            p999: Math.max(...delays.map((one) => one.p999)),
            max: Math.max(...delays.map((one) => one.max)),
          },
        }),
  };
}

/** Everything that makes a load run invalid as a measurement. */
export function problemsOf(scenario: Scenario, side: string, result: SideResult): string[] {
  const { load } = result;
  const problems: string[] = [];
  const where = `${scenario.title} / ${side}`;
  if (load.completed === 0) problems.push(`${where}: no request completed`);
  if (load.non2xx > 0) problems.push(`${where}: ${load.non2xx} non-2xx responses`);
  if (load.errors > 0 || load.timeouts > 0) problems.push(`${where}: ${load.errors} errors, ${load.timeouts} timeouts`);
  if (load.mismatches > 0) problems.push(`${where}: ${load.mismatches} response bodies were not the expected answer`);
  if (result.before && result.after) {
    const created = result.after.tasks - result.before.tasks;
    const completed = result.after.completed - result.before.completed;
    if (!result.after.settled)
      problems.push(
        `${where}: the hub was not quiet 10 s after the run (${result.after.active} executors, ${result.after.requests} requests)`,
      );
    if (scenario.createsTasks) {
      // Requests in flight when autocannon stops may or may not have reached the hub.
      if (created < load.ok2xx || created > load.sent)
        problems.push(`${where}: ${created} tasks stored for ${load.ok2xx} answered and ${load.sent} sent requests`);
      if (completed !== created) problems.push(`${where}: only ${completed} of ${created} stored tasks are COMPLETED`);
    } else if (created !== 0) {
      problems.push(`${where}: ${created} tasks appeared during a run that creates none`);
    }
  }
  return problems;
}

export function cpuPerRequest(side: SideResult): number {
  return side.serverCpuMicros / Math.max(1, side.load.completed);
}
