import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testDirectiveMetadata } from '../../generated/hub/test-directives.js';
import { PostgresTaskStore } from '../../src/store/postgres-store.js';
import { call, rpc, stream, userMessage, type SseEvent } from '../helpers/a2a-client.js';
import { spawnHub, type ChildHub } from '../helpers/child-hub.js';
import { controlSnapshot, createInbound, inboundRow } from '../helpers/control.js';
import { POSTGRES_AVAILABLE, sharedTestPostgres } from '../helpers/postgres.js';
import { until } from '../helpers/wait.js';

/**
 * Three `a2a-hub serve` processes on one PostgreSQL database, as replicas behind a load balancer
 * without sticky sessions: a stream cut by a kill -9 resumes on another replica, a survivor
 * settles what the dead one ran, a cancel reaches the replica running the task, identical
 * messages spread over all three make one task, and a control-API change on one is served by
 * the others. Leases are short (databaseLeaseMs 600) so that a dead replica is noticed quickly.
 */
const postgres = sharedTestPostgres();
const LEASE_MS = 600;

describe.skipIf(!POSTGRES_AVAILABLE)('three hub processes on one PostgreSQL database', () => {
  const folder = mkdtempSync(join(tmpdir(), 'a2a-hub-replicas-'));
  let databaseUrl: string;
  let replicas: ChildHub[] = [];
  let a: ChildHub;
  let b: ChildHub;
  let c: ChildHub;
  const endpoint = (hub: ChildHub): string => `${hub.url}/a2a/default`;

  beforeAll(async () => {
    databaseUrl = await postgres.databaseUrl();
    const settings = { databaseLeaseMs: LEASE_MS, shutdownDrainMs: 0, rateLimit: false };
    const config = join(folder, 'hub.json');
    writeFileSync(config, JSON.stringify(settings));
    // B and C name their database the way a replica's config file often does, in one member.
    const storeConfig = join(folder, 'hub-store.json');
    writeFileSync(storeConfig, JSON.stringify({ ...settings, store: { kind: 'postgres', url: databaseUrl } }));
    const start = (name: string, args: string[]): Promise<ChildHub> => spawnHub(join(folder, name), args);
    // The first creates the schema and the default instance; the other two find them.
    a = await start('a', ['--database-url', databaseUrl, '--config', config]);
    [b, c] = await Promise.all([start('b', ['--config', storeConfig]), start('c', ['--config', storeConfig])]);
    replicas = [a, b, c];
  });
  afterAll(async () => {
    for (const hub of replicas) if (hub.process.exitCode === null && hub.process.signalCode === null) hub.process.kill('SIGTERM');
    await Promise.all(replicas.map((hub) => hub.exited));
    rmSync(folder, { recursive: true, force: true });
  });

  it('makes one task of 20 identical messages sent to the three replicas at once', async () => {
    const message = userMessage('once only');
    const answers = await Promise.all(
      Array.from({ length: 20 }, (_, index) => rpc(endpoint(replicas[index % 3]!), 'SendMessage', { message })),
    );
    const ids = new Set(answers.map((answer) => (answer.body.result as { task?: { id: string } } | undefined)?.task?.id));
    expect(answers.map((answer) => answer.body.error)).toEqual(answers.map(() => undefined));
    expect(ids.size).toBe(1);
    expect([...ids][0]).toBeDefined();
  });

  it('serves on B and C an instance created through the control API of A', async () => {
    const id = await createInbound(a.url, 'everywhere');
    const row = await inboundRow(a.url, id);
    for (const other of [b, c]) {
      await until(async () => (await fetch(`${other.url}${row?.cardPath ?? ''}`)).status === 200, `the card on ${other.url}`);
      const sent = await call(`${other.url}${row?.endpointPath ?? ''}`, 'SendMessage', { message: userMessage('hello there') });
      expect(sent.task?.status.state).toBe('TASK_STATE_COMPLETED');
    }
  });

  it('stops on B, within a bounded time, a task canceled through C', async () => {
    const sent = await call(endpoint(b), 'SendMessage', {
      message: userMessage('runs long', { metadata: testDirectiveMetadata({ steps: 400, stepMs: 50 }) }),
      configuration: { returnImmediately: true },
    });
    const task = sent.task!;
    const running = async (): Promise<number> =>
      (await controlSnapshot(b.url)).sessions.find((session) => session.contextId === task.contextId)?.activeTasks ?? 0;
    await until(async () => (await running()) === 1, 'B runs the task');
    const started = Date.now();
    const canceled = await call(endpoint(c), 'CancelTask', { id: task.id });
    expect(canceled.status.state).toBe('TASK_STATE_CANCELED');
    await until(async () => (await running()) === 0, 'B stopped its executor', 5000);
    expect(Date.now() - started).toBeLessThan(5000);
    // CANCELED once, and the last word: B wrote nothing after it.
    const store = await PostgresTaskStore.open({ url: databaseUrl });
    try {
      const states = (await store.eventsAfter(task.id, 0)).flatMap((event) => event.frame.statusUpdate?.status.state ?? []);
      expect(states.filter((state) => state === 'TASK_STATE_CANCELED')).toHaveLength(1);
      expect(states.at(-1)).toBe('TASK_STATE_CANCELED');
    } finally {
      await store.close();
    }
    expect((await call(endpoint(a), 'GetTask', { id: task.id })).status.state).toBe('TASK_STATE_CANCELED');
  });

  it('resumes on B with Last-Event-ID a stream whose replica was killed with -9, with no gap and no duplicate; a survivor settles the task', async () => {
    const steps = 400;
    const message = userMessage('cut short', { metadata: testDirectiveMetadata({ steps, stepMs: 40 }) });
    // The client reads three steps from A, then its connection drops; A goes on logging steps.
    const first = await stream(
      endpoint(a),
      'SendStreamingMessage',
      { message },
      { until: (event) => texts([event])[0] === `step 3 of ${steps}` },
    );
    const taskId = first.events[0]?.frame.task?.id ?? '';
    const lastId = first.events.at(-1)?.id ?? '';
    await new Promise((resolve) => setTimeout(resolve, 200));
    a.process.kill('SIGKILL');
    expect(await a.exited).toBe('SIGKILL');

    const rest = await stream(endpoint(b), 'SubscribeToTask', { id: taskId }, { headers: { 'last-event-id': lastId } });
    const seen = [...texts(first.events), ...texts(rest.events)];
    // Every step A logged, each once and in order, then the end a survivor gave the task.
    expect(seen.length).toBeGreaterThan(3);
    expect(seen).toEqual(Array.from({ length: seen.length }, (_, index) => `step ${index + 1} of ${steps}`));
    const ids = rest.events.slice(1, -1).map((event) => Number(event.id));
    expect(ids).toEqual([...new Set(ids)].sort((x, y) => x - y));
    expect(Math.min(...ids)).toBe(Number(lastId) + 1);
    const settled = rest.events.at(-1)?.frame.task;
    expect(settled?.status.state).toBe('TASK_STATE_FAILED');
    expect(settled?.status.message?.parts[0]?.text).toMatch(/process running this task stopped before the task ended/);
    expect((await call(endpoint(c), 'GetTask', { id: taskId })).status.state).toBe('TASK_STATE_FAILED');
  });

  it('ends the streams of a replica stopped with SIGTERM cleanly, so that clients reconnect to another', async () => {
    const sent = await call(endpoint(b), 'SendMessage', {
      message: userMessage('outlives a replica', { metadata: testDirectiveMetadata({ steps: 400, stepMs: 50 }) }),
      configuration: { returnImmediately: true },
    });
    const taskId = sent.task?.id ?? '';
    const following = stream(endpoint(c), 'SubscribeToTask', { id: taskId });
    await new Promise((resolve) => setTimeout(resolve, 300));
    c.process.kill('SIGTERM');
    const ended = await following;
    expect(ended.status).toBe(200);
    expect(texts(ended.events).length).toBeGreaterThan(0);
    expect(await c.exited).toBe(0);
    // The task goes on where it runs, and another replica follows it.
    const resumed = await stream(
      endpoint(b),
      'SubscribeToTask',
      { id: taskId },
      { until: (event) => event.frame.statusUpdate !== undefined },
    );
    expect(resumed.events[0]?.frame.task?.status.state).toBe('TASK_STATE_WORKING');
    await call(endpoint(b), 'CancelTask', { id: taskId });
  });
});

function texts(events: readonly SseEvent[]): string[] {
  return events.flatMap((event) => {
    const text = event.frame.statusUpdate?.status.message?.parts[0]?.text;
    return text?.startsWith('step ') === true ? [text] : [];
  });
}
