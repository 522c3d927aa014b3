import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { spawnHub, type ChildHub } from '../helpers/child-hub.js';
import { startTestPostgres } from '../helpers/postgres-cluster.js';

/**
 * The soak of issue 42, run by hand (`npm run soak`; it needs root for a tmpfs, and PostgreSQL):
 * real `a2a-hub serve` processes while the disk fills and empties, while PostgreSQL ends every
 * connection and restarts under load, and while hostile clients flood the hub. It prints what it
 * measured: answers and refusals by kind, tasks answered and then not found (must be 0), the
 * processes' exits (must be none) and their resident memory before and after.
 */

const folder = mkdtempSync(join(tmpdir(), 'a2a-hub-soak-'));
const results: Record<string, unknown> = {};

function rssMiB(hub: ChildHub): number {
  const status = readFileSync(`/proc/${hub.process.pid}/status`, 'utf8');
  return Math.round(Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0) / 102.4) / 10;
}

function config(name: string, settings: Record<string, unknown>): string {
  const path = join(folder, name);
  writeFileSync(path, JSON.stringify({ rateLimit: false, shutdownDrainMs: 0, ...settings }));
  return path;
}

interface Load {
  readonly answered: Map<string, string>;
  readonly refusals: Map<string, number>;
  readonly problems: string[];
  sent: number;
}

/** `workers` clients sending blocking SendMessage (every third returnImmediately) while `running()`. */
function load(endpoints: readonly string[], workers: number, running: () => boolean, text = 'soak'): { done: Promise<void>; stats: Load } {
  const stats: Load = { answered: new Map(), refusals: new Map(), problems: [], sent: 0 };
  const done = Promise.all(
    Array.from({ length: workers }, async (_, worker) => {
      for (let round = 0; running(); round += 1) {
        stats.sent += 1;
        const endpoint = endpoints[(worker + round) % endpoints.length] ?? '';
        try {
          const response = await fetch(endpoint, {
            method: 'POST',
            headers: { 'content-type': 'application/json', 'a2a-version': '1.0' },
            body: JSON.stringify({
              jsonrpc: '2.0',
              id: round,
              method: 'SendMessage',
              params: {
                message: { messageId: `soak-${worker}-${round}-${Math.random()}`, role: 'ROLE_USER', parts: [{ text }] },
                ...(round % 3 === 1 ? { configuration: { returnImmediately: true } } : {}),
              },
            }),
          });
          const body = (await response.json()) as {
            result?: { task?: { id: string; status: { state: string } } };
            error?: { data?: { reason?: string }[] };
          };
          if (body.error !== undefined) {
            const reason = body.error.data?.[0]?.reason ?? 'none';
            stats.refusals.set(reason, (stats.refusals.get(reason) ?? 0) + 1);
          } else if (body.result?.task !== undefined) stats.answered.set(body.result.task.id, body.result.task.status.state);
        } catch (error) {
          stats.problems.push(String(error));
          await new Promise((resolve) => setTimeout(resolve, 50));
        }
      }
    }),
  ).then(() => undefined);
  return { done, stats };
}

/** Tasks answered that the hub no longer finds, and those found in another state than a blocking answer gave. */
async function verify(endpoint: string, answered: ReadonlyMap<string, string>): Promise<{ missing: number; changed: number }> {
  let missing = 0;
  let changed = 0;
  for (const [id, state] of answered) {
    const response = await fetch(endpoint, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'a2a-version': '1.0' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'GetTask', params: { id } }),
    });
    const body = (await response.json()) as { result?: { status: { state: string } } };
    if (body.result === undefined) missing += 1;
    else if (state === 'TASK_STATE_COMPLETED' && body.result.status.state !== state) changed += 1;
  }
  return { missing, changed };
}

async function ready(hub: ChildHub): Promise<number> {
  return fetch(`${hub.url}/readyz`).then(
    (response) => response.status,
    () => -1,
  );
}

async function waitReady(hub: ChildHub, timeoutMs = 60_000): Promise<number> {
  const started = Date.now();
  while (Date.now() - started < timeoutMs) {
    if ((await ready(hub)) === 200) return Date.now() - started;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new Error('the hub did not become ready again');
}

const summary = (stats: Load) => ({
  sent: stats.sent,
  answered: stats.answered.size,
  refusals: Object.fromEntries(stats.refusals),
  transportProblems: stats.problems.length,
});

async function diskFull(): Promise<void> {
  const mount = join(folder, 'disk');
  mkdirSync(mount);
  execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=48m', 'tmpfs', mount]);
  try {
    const filler = join(mount, 'filler');
    writeFileSync(filler, Buffer.alloc(24 * 1024 * 1024));
    const hub = await spawnHub(join(mount, 'data'), ['--config', config('disk.json', {})]);
    const before = rssMiB(hub);
    let running = true;
    const statuses = new Set<number>();
    const probe = setInterval(() => void ready(hub).then((status) => statuses.add(status)), 200);
    const { done, stats } = load([`${hub.url}/a2a/default`], 8, () => running, 'x'.repeat(8192));
    // Until the disk has been full for a while.
    while (![...stats.refusals.keys()].includes('STORAGE_FULL') && stats.sent < 200_000)
      await new Promise((resolve) => setTimeout(resolve, 200));
    await new Promise((resolve) => setTimeout(resolve, 3000));
    running = false;
    await done;
    clearInterval(probe);
    const whileFull = { ...summary(stats), readiness: [...statuses] };
    // Space back (the heavy load would fill it again at once): small sends must all be stored.
    rmSync(filler);
    const recoveredInMs = await waitReady(hub);
    let after = true;
    const { done: afterDone, stats: afterStats } = load([`${hub.url}/a2a/default`], 4, () => after);
    await new Promise((resolve) => setTimeout(resolve, 3000));
    after = false;
    await afterDone;
    results['disk full (SQLite on a 48 MiB tmpfs)'] = {
      whileFull,
      recoveredInMs,
      afterSpaceFreed: summary(afterStats),
      ...(await verify(`${hub.url}/a2a/default`, new Map([...stats.answered, ...afterStats.answered]))),
      exited: hub.process.exitCode,
      rssMiB: { before, after: rssMiB(hub) },
    };
    hub.process.kill('SIGTERM');
    await hub.exited;
  } finally {
    execFileSync('umount', ['-l', mount]);
  }
}

async function databaseRestarts(): Promise<void> {
  const cluster = await startTestPostgres();
  try {
    const settings = config('pg.json', {});
    const replicas = [
      await spawnHub(join(folder, 'a'), ['--database-url', cluster.url, '--config', settings]),
      await spawnHub(join(folder, 'b'), ['--database-url', cluster.url, '--config', settings]),
    ];
    const before = replicas.map(rssMiB);
    let running = true;
    const { done, stats } = load(
      replicas.map((hub) => `${hub.url}/a2a/default`),
      8,
      () => running,
    );
    let terminated = 0;
    for (let round = 0; round < 2; round += 1) {
      const admin = new pg.Client({ connectionString: cluster.url });
      admin.on('error', () => undefined);
      await admin.connect();
      for (const until = Date.now() + 5000; Date.now() < until;) {
        const { rowCount } = await admin.query(
          "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE backend_type = 'client backend' AND pid <> pg_backend_pid()",
        );
        terminated += rowCount ?? 0;
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      await admin.end().catch(() => undefined);
      await cluster.restart();
      await new Promise((resolve) => setTimeout(resolve, 3000));
    }
    running = false;
    await done;
    for (const hub of replicas) await waitReady(hub);
    results['PostgreSQL: backends terminated for 2 x 5 s, cluster restarted twice, 2 replicas'] = {
      terminated,
      total: summary(stats),
      ...(await verify(`${replicas[0]?.url ?? ''}/a2a/default`, stats.answered)),
      exited: replicas.map((hub) => hub.process.exitCode),
      rssMiB: { before, after: replicas.map(rssMiB) },
    };
    for (const hub of replicas) hub.process.kill('SIGTERM');
    await Promise.all(replicas.map((hub) => hub.exited));
  } finally {
    cluster.stop();
  }
}

async function hostileFlood(): Promise<void> {
  const hub = await spawnHub(join(folder, 'flood'), ['--config', config('flood.json', {})]);
  const { port } = new URL(hub.url);
  const before = rssMiB(hub);
  const post = (body: string, headers: Record<string, string> = {}) =>
    fetch(`${hub.url}/a2a/default`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body }).then(
      async (response) => (await response.arrayBuffer(), response.status),
      () => -1,
    );
  const deep = `${'['.repeat(200_000)}${']'.repeat(200_000)}`;
  const attacks: Record<string, () => Promise<number[]>> = {
    '200 POSTs of 1 MB made-up 0.3 method names': async () => {
      const statuses: number[] = [];
      for (let index = 0; index < 200; index += 1)
        statuses.push(
          await post(JSON.stringify({ jsonrpc: '2.0', id: 1, method: `m${index}${'x'.repeat(1 << 20)}`, params: {} }), {
            'a2a-version': '0.3',
          }),
        );
      return statuses;
    },
    '100 bodies nested 200,000 deep': async () => {
      const statuses: number[] = [];
      for (let index = 0; index < 100; index += 1)
        statuses.push(
          await post(
            `{"jsonrpc":"2.0","id":1,"method":"SendMessage","params":{"message":{"messageId":"d${index}","role":"ROLE_USER","parts":[{"text":"x"}],"metadata":{"d":${deep}}}}}`,
            {
              'a2a-version': '1.0',
            },
          ),
        );
      return statuses;
    },
    '200 GETs of a 16,000-slash path, 20 at a time': async () => {
      const statuses: number[] = [];
      for (let batch = 0; batch < 10; batch += 1)
        statuses.push(
          ...(await Promise.all(
            Array.from({ length: 20 }, () =>
              fetch(`${hub.url}${'/'.repeat(16_000)}x`).then(
                (response) => response.status,
                () => -1,
              ),
            ),
          )),
        );
      return statuses;
    },
    '20,000 idle connections from one address': async () => {
      // From 127.0.0.2, so that the /livez probe (127.0.0.1) is another source.
      const idle: Socket[] = [];
      for (let index = 0; index < 20_000; index += 1) {
        const socket = connect({ port: Number(port), host: '127.0.0.1', localAddress: '127.0.0.2' });
        socket.on('error', () => undefined);
        socket.on('data', () => undefined);
        idle.push(socket);
        if (index % 500 === 0) await new Promise((resolve) => setTimeout(resolve, 10));
      }
      await new Promise((resolve) => setTimeout(resolve, 2000));
      const open = idle.filter((socket) => !socket.destroyed && socket.readyState === 'open').length;
      for (const socket of idle) socket.destroy();
      return [open];
    },
  };
  const measured: Record<string, unknown> = {};
  // Each attack alone, twice: memory that grows round after round is a leak, memory that levels off is not.
  for (const [name, attack] of Object.entries(attacks)) {
    const rounds: unknown[] = [];
    for (let round = 0; round < 2; round += 1) {
      let worstLivezMs = 0;
      let probing = true;
      const probe = (async () => {
        while (probing) {
          const started = Date.now();
          await fetch(`${hub.url}/livez`).then(
            (response) => response.text(),
            () => undefined,
          );
          worstLivezMs = Math.max(worstLivezMs, Date.now() - started);
          await new Promise((resolve) => setTimeout(resolve, 20));
        }
      })();
      const statuses = await attack();
      probing = false;
      await probe;
      await new Promise((resolve) => setTimeout(resolve, 1000));
      const by = new Map<number, number>();
      for (const status of statuses) by.set(status, (by.get(status) ?? 0) + 1);
      rounds.push({ answers: Object.fromEntries(by), worstLivezMs, rssMiB: rssMiB(hub) });
    }
    measured[name] = rounds;
  }
  const metrics = (await (await fetch(`${hub.url}/a2a/api/metrics?format=json`)).json()) as {
    connections: unknown;
    requests: Record<string, unknown>;
  };
  results['hostile flood (one SQLite hub)'] = {
    rssMiBBefore: before,
    attacks: measured,
    metricMethods: Object.keys(metrics.requests),
    connections: metrics.connections,
    exited: hub.process.exitCode,
  };
  hub.process.kill('SIGTERM');
  await hub.exited;
}

try {
  for (const [name, run] of [
    ['disk', diskFull],
    ['database', databaseRestarts],
    ['flood', hostileFlood],
  ] as const) {
    if (process.argv.length > 2 && !process.argv.includes(name)) continue;
    await run();
  }
} finally {
  rmSync(folder, { recursive: true, force: true });
}
process.stdout.write(`${JSON.stringify(results, null, 2)}\n`);
