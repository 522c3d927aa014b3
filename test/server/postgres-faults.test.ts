import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Task } from '../../generated/a2a/1.0/types.js';
import { testDirectiveMetadata } from '../../generated/hub/test-directives.js';
import { rpc, stream, userMessage } from '../helpers/a2a-client.js';
import { spawnHub, type ChildHub } from '../helpers/child-hub.js';
import { errorInfoOf } from '../helpers/errors.js';
import { POSTGRES_AVAILABLE, startTestPostgres, type TestPostgres } from '../helpers/postgres.js';
import { waitFor } from '../helpers/wait.js';

/**
 * Two `a2a-hub serve` replicas on one PostgreSQL while the database misbehaves as it does in
 * production: every backend terminated (pg_terminate_backend, 57P01) again and again under load,
 * and the cluster restarted once (pg_ctl restart -m fast). The replicas stay up; every request
 * in flight is answered, either as done or with StorageUnavailableError (never a 500 without
 * ErrorInfo, never a dropped connection); /readyz says 503 while the database is away; and
 * every task a replica answered with is stored, in the state it was answered in.
 */
describe.skipIf(!POSTGRES_AVAILABLE)('replicas on a PostgreSQL whose backends are terminated and which restarts', () => {
  const folder = mkdtempSync(join(tmpdir(), 'a2a-hub-pg-faults-'));
  let cluster: TestPostgres;
  const replicas: ChildHub[] = [];

  beforeAll(async () => {
    cluster = await startTestPostgres();
    const config = join(folder, 'hub.json');
    writeFileSync(config, JSON.stringify({ rateLimit: false, shutdownDrainMs: 0 }));
    const start = (name: string): Promise<ChildHub> => spawnHub(join(folder, name), ['--database-url', cluster.url, '--config', config]);
    replicas.push(await start('a'));
    replicas.push(await start('b'));
  }, 90_000);

  afterAll(async () => {
    for (const hub of replicas) if (hub.process.exitCode === null && hub.process.signalCode === null) hub.process.kill('SIGTERM');
    await Promise.all(replicas.map((hub) => hub.exited));
    cluster?.stop();
    rmSync(folder, { recursive: true, force: true });
  });

  it('keeps both replicas up, answers every request, and stores every task it answered with', async () => {
    const endpoint = (index: number): string => `${replicas[index % replicas.length]!.url}/a2a/default`;
    const answered: { taskId: string; state: string }[] = [];
    const refusals = new Map<string, number>();
    const problems: string[] = [];
    let sent = 0;
    let running = true;

    const load = Array.from({ length: 8 }, async (_, worker) => {
      for (let round = 0; running; round += 1) {
        const slow = round % 5 === 0;
        const message = userMessage(`load ${worker}/${round}`, slow ? { metadata: testDirectiveMetadata({ steps: 3, stepMs: 20 }) } : {});
        sent += 1;
        try {
          const response = await rpc(endpoint(worker + round), 'SendMessage', {
            message,
            ...(round % 3 === 1 ? { configuration: { returnImmediately: true } } : {}),
          });
          const error = response.body.error;
          if (error !== undefined) {
            const reason = errorInfoOf(error.data).reason;
            refusals.set(reason, (refusals.get(reason) ?? 0) + 1);
            if (reason !== 'STORAGE_UNAVAILABLE') problems.push(`refused with ${reason}: ${error.message}`);
            continue;
          }
          const task = (response.body.result as { task?: Task }).task;
          if (task !== undefined) answered.push({ taskId: task.id, state: task.status.state });
        } catch (error) {
          problems.push(`no answer: ${String(error)}`);
        }
      }
    });

    const admin = new pg.Client({ connectionString: cluster.url });
    admin.on('error', () => undefined);
    await admin.connect();
    const terminate = async (): Promise<number> => {
      const { rowCount } = await admin.query(
        "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE backend_type = 'client backend' AND pid <> pg_backend_pid()",
      );
      return rowCount ?? 0;
    };
    let terminated = 0;
    const readiness: number[] = [];
    const probe = setInterval(() => {
      void fetch(`${replicas[0]!.url}/readyz`).then(
        (response) => readiness.push(response.status),
        () => readiness.push(-1),
      );
    }, 50);
    try {
      // Every backend of both replicas ended, over and over, under load.
      for (const until = Date.now() + 3000; Date.now() < until;) {
        terminated += await terminate();
        await new Promise((resolve) => setTimeout(resolve, 40));
      }
      await admin.end();
      // The whole cluster restarted once, the load still running.
      await cluster.restart();
      await new Promise((resolve) => setTimeout(resolve, 1500));
    } finally {
      clearInterval(probe);
      running = false;
      await Promise.all(load);
    }

    for (const hub of replicas) expect(hub.process.exitCode, hub.output()).toBeNull();
    expect(hub0Output()).not.toMatch(/Unhandled|uncaught/i);
    expect(problems).toEqual([]);
    expect(terminated).toBeGreaterThan(0);
    expect(readiness, 'readiness said 503 while the database was away').toContain(503);
    expect(readiness).not.toContain(-1);
    expect(answered.length).toBeGreaterThan(50);
    expect(sent).toBeGreaterThan(answered.length);

    // Both ready again, and everything answered is stored as it was answered.
    for (const hub of replicas)
      await waitFor(
        () => fetch(`${hub.url}/readyz`).then((response) => response.status),
        (status) => status === 200,
        'a replica ready again after the restart',
        30_000,
        200,
      );
    const missing: string[] = [];
    for (const [index, { taskId, state }] of answered.entries()) {
      const read = await rpc(endpoint(index), 'GetTask', { id: taskId });
      const task = read.body.result;
      if (task === undefined) missing.push(taskId);
      else if (state === 'TASK_STATE_COMPLETED') expect(task.status.state).toBe(state);
    }
    expect(missing, `of ${answered.length} answered tasks`).toEqual([]);

    // Each replica listens again: a task run by A streams to a subscriber on B to its end.
    const started = await rpc(`${replicas[0]!.url}/a2a/default`, 'SendMessage', {
      message: userMessage('after the restart', { metadata: testDirectiveMetadata({ steps: 4, stepMs: 150 }) }),
      configuration: { returnImmediately: true },
    });
    const runningTask = (started.body.result as { task: Task }).task;
    const followed = await stream(`${replicas[1]!.url}/a2a/default`, 'SubscribeToTask', { id: runningTask.id });
    expect(followed.errors).toEqual([]);
    const states = followed.events.map(({ frame }) => frame.statusUpdate?.status.state ?? frame.task?.status.state);
    expect(states.at(-1)).toBe('TASK_STATE_COMPLETED');

    function hub0Output(): string {
      return replicas.map((hub) => hub.output()).join('\n');
    }
  });
});
