import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Task } from '../../generated/a2a/1.0/types.js';
import { testDirectiveMetadata } from '../../generated/hub/test-directives.js';
import { call, stream, userMessage, type SseEvent } from '../helpers/a2a-client.js';
import { BINDING_DRIVERS } from '../helpers/bindings.js';
import { controlAction, controlSnapshot, createInbound, inboundRow } from '../helpers/control.js';
import { startTestHub, type TestHub } from '../helpers/hub.js';
import { hubStores, POSTGRES_AVAILABLE, sharedTestPostgres } from '../helpers/postgres.js';
import { runCli } from '../helpers/run.js';
import { waitFor } from '../helpers/wait.js';

/**
 * Retention (issue 42): an instance keeps its terminal tasks only as long as its retention says,
 * and a pruned task reads as not found on every route, while running and waiting tasks, their
 * streams and their replays go on untouched. On SQLite and on PostgreSQL; with replicas sweeping
 * at once; from the control API, by itself, and from `a2a-hub db prune`.
 */
const postgres = sharedTestPostgres();

const STORES = hubStores(postgres);

const slow = (steps: number) => ({ metadata: testDirectiveMetadata({ steps, stepMs: 100 }) });

describe.each(STORES.map((store) => [store.name, store] as const))('retention on %s', (_name, store) => {
  let hub: TestHub;
  beforeAll(async () => {
    if (store.available) hub = await startTestHub(await store.options());
  });
  afterAll(async () => {
    await hub?.dispose();
  });

  describe.skipIf(!store.available)('an instance that keeps its 3 newest terminal tasks', () => {
    it('deletes the older ones on task.prune: every route reads them as not found, while live tasks and their streams go on', async () => {
      const id = await createInbound(hub.url, 'kept', { retention: { maxTasks: 3 } });
      expect((await inboundRow(hub.url, id))?.retention).toEqual({ maxTasks: 3 });
      const endpoint = `${hub.url}/a2a/${id}`;
      const messages = Array.from({ length: 6 }, (_, index) => userMessage(`done ${index}`));
      const done: Task[] = [];
      for (const message of messages) done.push((await call(endpoint, 'SendMessage', { message })).task as Task);
      const waiting = (await call(endpoint, 'SendMessage', { message: userMessage('wait\n::input-required') })).task as Task;
      const running = (
        await call(endpoint, 'SendMessage', { message: userMessage('run', slow(12)), configuration: { returnImmediately: true } })
      ).task as Task;
      // A stream following the running task, open across the prune.
      const following = stream(endpoint, 'SubscribeToTask', { id: running.id });

      const pruned = await controlAction(hub.url, { action: 'task.prune', id });
      expect(pruned.pruned).toBe(3);
      const gone = done.slice(0, 3);
      const kept = [...done.slice(3), waiting, running];

      for (const driver of BINDING_DRIVERS) {
        for (const task of gone) {
          (await driver.call({ url: endpoint, method: 'GetTask', params: { id: task.id } })).expectError('TaskNotFoundError');
          (await driver.call({ url: endpoint, method: 'CancelTask', params: { id: task.id } })).expectError('TaskNotFoundError');
          (await driver.call({ url: endpoint, method: 'SubscribeToTask', params: { id: task.id } })).expectError('TaskNotFoundError');
          (await driver.call({ url: endpoint, method: 'ListTaskPushNotificationConfigs', params: { taskId: task.id } })).expectError(
            'TaskNotFoundError',
          );
          (
            await driver.call({ url: endpoint, method: 'SendMessage', params: { message: userMessage('again', { taskId: task.id }) } })
          ).expectError('TaskNotFoundError');
        }
        for (const task of kept)
          expect((await driver.call({ url: endpoint, method: 'GetTask', params: { id: task.id } })).result).toBeDefined();
      }
      const listed = await call(endpoint, 'ListTasks', { pageSize: 100 });
      expect(listed.tasks.map((task) => task.id).sort()).toEqual(kept.map((task) => task.id).sort());
      expect((await fetch(`${hub.url}/a2a/api/task?id=${gone[0]?.id ?? ''}`)).status).toBe(404);
      // The message of a pruned task is a new message again: its idempotency record went with it.
      const resent = (await call(endpoint, 'SendMessage', { message: messages[0]! })).task as Task;
      expect(resent.id).not.toBe(gone[0]?.id);

      // The stream that was open across the prune ran to its end, frame by frame.
      const events = (await following).events;
      expectContiguous(events);
      expect(events.at(-1)?.frame.task?.status.state).toBe('TASK_STATE_COMPLETED');
      // The waiting task still takes its answer.
      const answered = (await call(endpoint, 'SendMessage', { message: userMessage('answer', { taskId: waiting.id }) })).task;
      expect(answered?.status.state).toBe('TASK_STATE_COMPLETED');

      const summary = (await controlSnapshot(hub.url)).retention;
      expect(summary.prunedTotal).toBeGreaterThanOrEqual(3);
      expect(summary.lastRunAt).toBeDefined();
    });

    it('keeps a replay (Last-Event-ID) of a running task whole while its instance is pruned', async () => {
      const id = await createInbound(hub.url, 'replayed', { retention: { maxTasks: 1 } });
      const endpoint = `${hub.url}/a2a/${id}`;
      for (let index = 0; index < 3; index += 1) await call(endpoint, 'SendMessage', { message: userMessage(`done ${index}`) });
      const running = (
        await call(endpoint, 'SendMessage', { message: userMessage('run', slow(8)), configuration: { returnImmediately: true } })
      ).task as Task;
      const cut = await stream(endpoint, 'SubscribeToTask', { id: running.id }, { until: (event) => Number(event.id) >= 2 });
      expect((await controlAction(hub.url, { action: 'task.prune', id })).pruned).toBe(2);
      const lastSeen = Number(cut.events.at(-1)?.id);
      const resumed = await stream(endpoint, 'SubscribeToTask', { id: running.id }, { headers: { 'last-event-id': String(lastSeen) } });
      expect(Number(resumed.events[0]?.id)).toBe(lastSeen);
      expect(resumed.events.at(-1)?.frame.task?.status.state).toBe('TASK_STATE_COMPLETED');
    });

    it('refuses task.prune for an unknown instance, and for one that keeps every task', async () => {
      const keepsAll = await createInbound(hub.url, 'keeps all');
      for (const [action, reason] of [
        [{ action: 'task.prune', id: 'no-such-instance' }, /no inbound server has id/],
        [{ action: 'task.prune', id: keepsAll }, /keeps every task/],
      ] as const) {
        const response = await fetch(`${hub.url}/a2a/api`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify(action),
        });
        expect(response.status).toBe(409);
        expect(((await response.json()) as { message: string }).message).toMatch(reason);
      }
      // inbound.update with an empty retention keeps every task again.
      const id = await createInbound(hub.url, 'changed', { retention: { maxAgeMs: 3_600_000 } });
      await controlAction(hub.url, { action: 'inbound.update', id, retention: {} });
      expect((await inboundRow(hub.url, id))?.retention).toBeUndefined();
    });
  });
});

describe('the sweeper runs by itself', () => {
  it('deletes, every retentionSweepMs, the terminal tasks its retention no longer keeps', async () => {
    const hub = await startTestHub({ retentionSweepMs: 1000 });
    try {
      const id = await createInbound(hub.url, 'aging', { retention: { maxAgeMs: 60_000 } });
      const old = (await call(`${hub.url}/a2a/${id}`, 'SendMessage', { message: userMessage('old') })).task as Task;
      // Nothing is old yet: a sweep keeps it.
      await waitFor(
        () => controlSnapshot(hub.url),
        (snapshot) => snapshot.retention.lastRunAt !== undefined,
        'a first sweep',
        5000,
        100,
      );
      expect((await call(`${hub.url}/a2a/${id}`, 'GetTask', { id: old.id })).id).toBe(old.id);
      // The hub's clock is not the test's to move: a count the older task is past stands in for time passing.
      await controlAction(hub.url, { action: 'inbound.update', id, retention: { maxAgeMs: 60_000, maxTasks: 1 } });
      await call(`${hub.url}/a2a/${id}`, 'SendMessage', { message: userMessage('new') });
      await waitFor(
        async () => (await fetch(`${hub.url}/a2a/api/task?id=${old.id}`)).status,
        (status) => status === 404,
        'the sweeper to delete the older task',
        5000,
        100,
      );
    } finally {
      await hub.dispose();
    }
  });
});

describe.skipIf(!POSTGRES_AVAILABLE)('two replicas sweeping one PostgreSQL database at once', () => {
  it('delete each task once, never fail, and leave exactly what the retention keeps, over 10 races', async () => {
    const databaseUrl = await postgres.databaseUrl();
    const [a, b] = [await startTestHub({ store: 'postgres', databaseUrl }), await startTestHub({ store: 'postgres', databaseUrl })];
    try {
      const id = await createInbound(a.url, 'shared', { retention: { maxTasks: 2 } });
      await waitFor(
        () => inboundRow(b.url, id),
        (row) => row !== undefined,
        'the instance on replica B',
      );
      for (let race = 0; race < 10; race += 1) {
        await Promise.all(
          Array.from({ length: 6 }, (_, index) =>
            call(`${(index % 2 === 0 ? a : b).url}/a2a/${id}`, 'SendMessage', { message: userMessage(`r${race}/${index}`) }),
          ),
        );
        const [onA, onB] = await Promise.all([a, b].map((hub) => controlAction(hub.url, { action: 'task.prune', id })));
        expect((onA?.pruned ?? 0) + (onB?.pruned ?? 0)).toBeLessThanOrEqual(6);
        // Whichever replica was held off, a third sweep finds nothing left over the retention.
        await controlAction(a.url, { action: 'task.prune', id });
        const listed = await call(`${a.url}/a2a/${id}`, 'ListTasks', { pageSize: 100 });
        expect(listed.tasks).toHaveLength(2);
      }
    } finally {
      await a.dispose();
      await b.dispose();
    }
  });
});

describe('a2a-hub db prune', () => {
  const folder = mkdtempSync(join(tmpdir(), 'a2a-hub-prune-'));
  afterAll(() => rmSync(folder, { recursive: true, force: true }));

  const prune = (args: string[]) => runCli(['db', 'prune', ...args]);

  it('prunes a data dir by the instances’ retention, or by the rule its flags give, and says how many', async () => {
    const dataDir = join(folder, 'offline');
    const hub = await startTestHub({ dataDir });
    const id = await createInbound(hub.url, 'offline', { retention: { maxTasks: 1 } });
    for (let index = 0; index < 4; index += 1) await call(`${hub.url}/a2a/${id}`, 'SendMessage', { message: userMessage(`m${index}`) });
    for (let index = 0; index < 3; index += 1) await call(hub.endpoint, 'SendMessage', { message: userMessage(`d${index}`) });
    // While the hub holds the data dir, the command says where to go instead.
    const held = prune(['--data-dir', dataDir]);
    expect(held.status).toBe(1);
    expect(held.stderr).toMatch(/in use by another process/);
    await hub.close();

    const byRetention = prune(['--data-dir', dataDir]);
    expect(byRetention.stderr).toBe('');
    expect(byRetention.status).toBe(0);
    expect(byRetention.stdout).toMatch(new RegExp(`${id}: 3 terminal tasks deleted`));
    expect(byRetention.stdout).toMatch(/keeps every task \(no retention\): default/);
    expect(byRetention.stdout).toMatch(/Pruned: {2}3/);

    const byFlags = prune(['--data-dir', dataDir, '--instance', 'default', '--max-tasks', '1']);
    expect(byFlags.status).toBe(0);
    expect(byFlags.stdout).toMatch(/default: 2 terminal tasks deleted/);

    const refused = prune(['--data-dir', dataDir, '--older-than', '5s']);
    expect(refused.status).toBe(2);
    expect(refused.stderr).toMatch(/at least a minute/);
  });
});

/** Frame ids after the snapshot follow on one by one; the closing Task repeats the last one. */
function expectContiguous(events: readonly SseEvent[]): void {
  const ids = events.map((event) => Number(event.id));
  const frames = ids.slice(1, -1);
  expect(frames).toEqual(frames.map((_, index) => (ids[0] ?? 0) + 1 + index));
}
