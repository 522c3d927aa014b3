import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { pino } from 'pino';
import type { SendMessageRequest, Task, TaskState } from '../../generated/a2a/1.0/types.js';
import { startHub } from '../../src/hub.js';
import { registerPushConfig } from '../push/delivery-helpers.js';
import { cpuNow, memoryNow, serveIpc, type FillReport, type HubOps, type PushReport, type StoreCounts } from './ipc.js';

/**
 * The hub under test, in its own process: production defaults (SQLite in WAL mode with
 * synchronous=NORMAL, selfCheck on, body limit, SSE heartbeats…) except that rate limiting is
 * off and the logger is silent. argv: <dataDir> [selfCheck: on|off] [push] [postgres=<url>].
 * With `push`, webhooks may go to plain-HTTP loopback receivers (the bench's own); with
 * `postgres=<url>` the hub is a replica on that database instead of SQLite in the data dir.
 * The parent owns the data dir (and the database) and deletes it.
 */
const [dataDir, selfCheckArg, ...flags] = process.argv.slice(2);
if (dataDir === undefined) throw new Error('usage: hub-process.ts <dataDir> [on|off] [push] [postgres=<url>]');
const databaseUrl = flags.find((flag) => flag.startsWith('postgres='))?.slice('postgres='.length);

const hub = await startHub({
  host: '127.0.0.1',
  port: 0,
  dataDir,
  rateLimit: false,
  logger: pino({ level: 'silent' }),
  ...(selfCheckArg === 'off' ? { selfCheck: false } : {}),
  ...(databaseUrl === undefined ? {} : { store: 'postgres' as const, databaseUrl }),
  ...(flags.includes('push') ? { push: { destinations: { allowLoopback: true, allowedSchemes: ['http'] } } } : {}),
});
const agent = required(hub.inbounds.defaultAgent(), 'the hub has no default agent');

function required<T>(value: T | undefined, problem: string): T {
  if (value === undefined) throw new Error(problem);
  return value;
}

// Where a tail comes from: a stalled loop delays every request waiting on it.
const delay = monitorEventLoopDelay({ resolution: 1 });
delay.enable();

/** HTTP requests the hub has started and not finished answering. */
let inFlight = 0;
hub.server.on('request', (_request: IncomingMessage, response: ServerResponse) => {
  inFlight += 1;
  response.once('close', () => (inFlight -= 1));
});

async function count(state?: TaskState): Promise<number> {
  return (
    await hub.store.listTasks(agent.id, {
      pageSize: 1,
      historyLength: 0,
      includeArtifacts: false,
      ...(state === undefined ? {} : { state }),
    })
  ).totalSize;
}

async function counts(): Promise<StoreCounts> {
  return {
    tasks: await count(),
    completed: await count('TASK_STATE_COMPLETED'),
    active: hub.runtime.activeCount,
    requests: inFlight,
    sessions: hub.sessions.list().length,
  };
}

/** Registers a config per new task and waits for the outbox to drain: webhook throughput to the parent's receiver. */
async function pushDeliveries(tasks: number, url: string, timeoutMs: number): Promise<PushReport> {
  const created: Task[] = [];
  for (let n = 0; n < tasks; n += 1) {
    const request: SendMessageRequest = { message: { messageId: `push-${randomUUID()}`, role: 'ROLE_USER', parts: [{ text: 'hello' }] } };
    const outcome = await hub.runtime.send(agent, request);
    if (outcome.kind !== 'task') throw new Error('push: the echo agent answered with a message instead of a task');
    await hub.runtime.settled(outcome.taskId);
    created.push(required(await hub.store.getTask(agent.id, outcome.taskId), `push: task ${outcome.taskId} was not stored`));
  }
  const pendingBefore = await hub.store.pendingDeliveries();
  if (pendingBefore !== 0) throw new Error(`push: ${pendingBefore} deliveries were pending before the run`);
  const started = performance.now();
  const deadline = started + timeoutMs;
  for (const task of created) await registerPushConfig(hub, task, { id: 'bench', url });
  while ((await hub.store.pendingDeliveries()) > 0 && performance.now() < deadline) await sleep(5);
  const seconds = (performance.now() - started) / 1000;
  const pending = await hub.store.pendingDeliveries();
  let retried = 0;
  for (const task of created) if ((await hub.store.listAttempts(task.id, 'bench', 10)).length > 1) retried += 1;
  return { delivered: tasks - pending, seconds, timedOut: pending > 0, retried };
}

async function fill(total: number, concurrency: number, timeoutMs: number): Promise<FillReport> {
  const started = performance.now();
  const deadline = started + timeoutMs;
  const prefix = `fill-${randomUUID()}-`;
  let next = 0;
  let inserted = 0;
  const worker = async (): Promise<void> => {
    while (next < total && performance.now() < deadline) {
      const n = next++;
      const request: SendMessageRequest = { message: { messageId: `${prefix}${n}`, role: 'ROLE_USER', parts: [{ text: 'hello' }] } };
      const outcome = await hub.runtime.send(agent, request);
      if (outcome.kind !== 'task') throw new Error(`fill: the echo agent answered with a message instead of a task (${n})`);
      await hub.runtime.settled(outcome.taskId);
      inserted += 1;
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, concurrency) }, worker));
  return { inserted, seconds: (performance.now() - started) / 1000, timedOut: inserted < total };
}

const QUIET_MS = 300;

let closing: Promise<void> | undefined;
function close(): Promise<void> {
  closing ??= hub.close();
  return closing;
}

serveIpc<HubOps>(
  hub.url,
  {
    cpu: () => cpuNow(),
    loopDelay() {
      const at = (percentile: number): number => delay.percentile(percentile) / 1e6;
      const reading = { p50: at(50), p90: at(90), p99: at(99), p999: at(99.9), max: delay.max / 1e6 };
      delay.reset();
      return reading;
    },
    counts: () => counts(),
    async settle({ timeoutMs }) {
      // Quiet means: no executor running, no request being answered, and the task count
      // unchanged for QUIET_MS. Requests of a load run that ended can still be waiting in
      // the accept queue (a saturated loop accepts about one connection per turn); once the
      // loop is idle they are accepted within milliseconds, so a quiet window catches them.
      const deadline = performance.now() + timeoutMs;
      let last = await counts();
      let quietSince = performance.now();
      while (performance.now() < deadline) {
        await sleep(25);
        const now = await counts();
        if (now.active > 0 || now.requests > 0 || now.tasks !== last.tasks) quietSince = performance.now();
        last = now;
        if (performance.now() - quietSince >= QUIET_MS) return { ...now, settled: true };
      }
      return { ...last, settled: false };
    },
    fill: ({ count: total, concurrency, timeoutMs }) => fill(total, concurrency, timeoutMs),
    memory: () => memoryNow(),
    pushDeliveries: ({ tasks, url, timeoutMs }) => pushDeliveries(tasks, url, timeoutMs),
    async close() {
      await close();
      // Exit once the reply is on its way; exiting also writes a --cpu-prof profile.
      setTimeout(() => process.exit(0), 50);
      return null;
    },
  },
  () => void close().finally(() => process.exit(0)),
);
