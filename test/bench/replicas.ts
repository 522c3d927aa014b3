import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { postgresBinDir, startTestPostgres, withClient, type TestPostgres } from '../helpers/postgres-cluster.js';
import { ChildServer, type HubOps, type ServerOps } from './ipc.js';
import type { LoadGenerator } from './load.js';
import {
  combine,
  cpuPerRequest,
  hubTarget,
  measure,
  problemsOf,
  replicasTarget,
  type Scenario,
  type SideResult,
  type Target,
} from './measure.js';
import { fixed, median, table } from './report.js';

/**
 * The hub on PostgreSQL beside the hub on SQLite, in the same run: one replica on its own
 * database, and two replicas on another behind the bench's round-robin proxy (no sticky
 * sessions, so a stream's task may run on either). The cluster is a throwaway one on
 * 127.0.0.1 with PostgreSQL's durable defaults (fsync on, synchronous_commit on): a task is
 * acknowledged once its commit is on disk, as with SQLite.
 */

export const REPLICA_SIDES = ['SQLite, 1 process', 'PostgreSQL, 1 replica', 'PostgreSQL, 2 replicas + proxy'] as const;
export type ReplicaSide = (typeof REPLICA_SIDES)[number];

export interface ReplicaSettings {
  readonly rounds: number;
  readonly warmupSeconds: number;
  readonly selfCheck: boolean;
  readonly startTimeoutMs: number;
  readonly load: LoadGenerator;
}

export interface ReplicaReport {
  /** Why it did not run, when it did not. */
  readonly skipped?: string;
  readonly scenarios: readonly { readonly scenario: Scenario; readonly rounds: readonly Record<ReplicaSide, SideResult>[] }[];
}

interface Stoppable {
  stop(): Promise<void>;
  kill(): void;
}

export async function measureReplicas(
  base: string,
  settings: ReplicaSettings,
  plan: readonly Scenario[],
  children: Stoppable[],
  problems: string[],
): Promise<ReplicaReport> {
  if (postgresBinDir() === undefined) return { skipped: 'PostgreSQL is not installed (Debian: apt-get install postgresql)', scenarios: [] };
  let cluster: TestPostgres | undefined;
  try {
    process.stdout.write('\nstarting a throwaway PostgreSQL on 127.0.0.1 (fsync on)… ');
    cluster = await startTestPostgres({ durable: true });
    const single = await createDatabase(cluster.url, 'bench_single');
    const pair = await createDatabase(cluster.url, 'bench_pair');
    console.log('ready');
    const start = async (name: string, flags: readonly string[]): Promise<ChildServer<HubOps>> => {
      const hub = await ChildServer.start<HubOps>(name, {
        module: './hub-process.ts',
        args: [join(base, name.replace(/\W+/g, '-')), settings.selfCheck ? 'on' : 'off', ...flags],
        startTimeoutMs: settings.startTimeoutMs,
      });
      children.push(hub);
      return hub;
    };
    const sqlite = await start('replica bench sqlite', []);
    const alone = await start('replica bench postgres', [`postgres=${single}`]);
    const replicas = [await start('replica bench a', [`postgres=${pair}`]), await start('replica bench b', [`postgres=${pair}`])];
    const proxy = await ChildServer.start<ServerOps>('round-robin', {
      module: './round-robin.ts',
      args: replicas.map((replica) => replica.url),
      startTimeoutMs: settings.startTimeoutMs,
    });
    children.push(proxy);
    const targets: Record<ReplicaSide, Target> = {
      'SQLite, 1 process': hubTarget(sqlite),
      'PostgreSQL, 1 replica': withDatabaseCpu(hubTarget(alone)),
      'PostgreSQL, 2 replicas + proxy': withDatabaseCpu(replicasTarget(proxy, replicas)),
    };

    const scenarios: ReplicaReport['scenarios'][number][] = [];
    for (const scenario of plan) {
      process.stdout.write(`running ${scenario.title} on SQLite and PostgreSQL:`);
      const rounds: Record<ReplicaSide, SideResult>[] = [];
      for (let round = 0; round < settings.rounds; round += 1) {
        // Each round starts with a different side, as the machine's speed drifts over seconds.
        const order = REPLICA_SIDES.map((_, n) => REPLICA_SIDES[(n + round) % REPLICA_SIDES.length] as ReplicaSide);
        const measured: Partial<Record<ReplicaSide, SideResult>> = {};
        for (const side of order) {
          process.stdout.write(` ${side.split(',')[0]?.toLowerCase() ?? side}…`);
          const tag = `replicas-${scenario.name}-${round}-${Date.now().toString(36)}`;
          const result = await measure(settings.load, targets[side], scenario, settings.warmupSeconds, tag);
          problems.push(...problemsOf(scenario, `${side}, round ${round + 1}`, result));
          measured[side] = result;
        }
        rounds.push(measured as Record<ReplicaSide, SideResult>);
      }
      console.log(' done');
      scenarios.push({ scenario, rounds });
    }
    for (const child of [proxy, ...replicas, alone, sqlite]) await child.stop();
    return { scenarios };
  } finally {
    cluster?.stop();
  }
}

/**
 * The setup's CPU with PostgreSQL's own added (every `postgres` process on the machine: the
 * bench's cluster is the only one), so that it compares with SQLite's, which works inside the hub.
 */
function withDatabaseCpu(target: Target): Target {
  return { ...target, cpuMicros: async () => (await target.cpuMicros()) + postgresCpuMicros() };
}

let ticksPerSecond: number | undefined;

/** User + system CPU of the `postgres` processes, running and ended, from /proc, µs. */
function postgresCpuMicros(): number {
  ticksPerSecond ??= Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
  let ticks = 0;
  for (const pid of readdirSync('/proc').filter((name) => /^\d+$/.test(name))) {
    let stat: string;
    try {
      stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    } catch {
      continue; // ended meanwhile
    }
    const close = stat.lastIndexOf(')');
    if (stat.slice(stat.indexOf('(') + 1, close) !== 'postgres') continue;
    // After "pid (comm) ": state is field 3, utime 14, stime 15, then cutime 16 and cstime 17:
    // the postmaster's children that ended (a pool closes idle connections) are counted there.
    const fields = stat.slice(close + 2).split(' ');
    ticks += Number(fields[11]) + Number(fields[12]) + Number(fields[13]) + Number(fields[14]);
  }
  return (ticks / ticksPerSecond) * 1e6;
}

/** A database of its own on the cluster, so that each setup starts from empty tables. */
async function createDatabase(url: string, name: string): Promise<string> {
  await withClient(url, (client) => client.query(`CREATE DATABASE ${name}`));
  const database = new URL(url);
  database.pathname = `/${name}`;
  return database.href;
}

export function printReplicas(report: ReplicaReport, connections: number): void {
  console.log('\nPostgreSQL replicas beside SQLite\n');
  if (report.skipped !== undefined) {
    console.log(`skipped: ${report.skipped}`);
    return;
  }
  const rows: string[][] = [];
  for (const { scenario, rounds } of report.scenarios) {
    for (const side of REPLICA_SIDES) {
      const all = combine(rounds.map((round) => round[side]));
      const ratios = rounds.map((round) => round[side].load.reqPerSec / round['SQLite, 1 process'].load.reqPerSec);
      rows.push([
        scenario.title,
        side,
        fixed(all.load.reqPerSec, 0),
        fixed(all.load.p50, 2),
        fixed(all.load.p99, 2),
        fixed(cpuPerRequest(all), 0),
        fixed(median(ratios), 2),
      ]);
    }
  }
  console.log(table(['scenario', 'store', 'req/s', 'p50 ms', 'p99 ms', 'server CPU µs/req', 'vs SQLite'], rows, (column) => column > 1));
  console.log(
    `(${connections} connections; server CPU counts every process of the setup: the replicas, the proxy and PostgreSQL's processes; vs SQLite = req/s ÷ the SQLite hub's of the same round, median over rounds; the load generator, the servers and PostgreSQL share the same CPUs)`,
  );
}
