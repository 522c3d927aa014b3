import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { StreamResponse } from '../../generated/a2a/1.0/types.js';
import { MemoryTaskStore } from '../../src/store/memory-store.js';
import { deliveryPairKey, type StoredPushConfig } from '../../src/store/push-store.js';
import { SqliteTaskStore } from '../../src/store/sqlite-store.js';
import { PostgresTaskStore } from '../../src/store/postgres-store.js';
import { UnknownTaskError, type NewTask, type TaskStore } from '../../src/store/task-store.js';
import { POSTGRES_AVAILABLE, sharedTestPostgres } from '../helpers/postgres.js';

const postgres = sharedTestPostgres();

const scratch = mkdtempSync(join(tmpdir(), 'a2a-hub-push-store-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));
let databases = 0;
const path = (): string => join(scratch, `push-${++databases}.db`);

/** `hint`: the store answers mayHavePushConfigs from what it holds (one shared by replicas says true for any task). */
const IMPLEMENTATIONS: { name: string; open: () => Promise<TaskStore> | TaskStore; hint: boolean }[] = [
  { name: 'MemoryTaskStore', open: () => new MemoryTaskStore(), hint: true },
  { name: 'SqliteTaskStore', open: () => SqliteTaskStore.open(path(), { exclusive: true }), hint: true },
  ...(POSTGRES_AVAILABLE
    ? [{ name: 'PostgresTaskStore', open: async () => PostgresTaskStore.open({ url: await postgres.databaseUrl() }), hint: false }]
    : []),
];

function newTask(id: string): NewTask {
  return {
    id,
    instanceId: 'default',
    contextId: `ctx-${id}`,
    skill: 'echo',
    status: { state: 'TASK_STATE_SUBMITTED', timestamp: '2026-01-01T00:00:00.000Z' },
    message: { messageId: `m-${id}`, role: 'ROLE_USER', parts: [{ text: 'hi' }] },
    createdAt: '2026-01-01T00:00:00.000Z',
  };
}

function config(taskId: string, id: string, url = `https://hooks.example.com/${id}`): StoredPushConfig {
  return { taskId, id, config: { id, taskId, url }, secrets: `sealed-${id}`, createdAt: '2026-01-01T00:00:01.000Z' };
}

function working(taskId: string, text: string): StreamResponse {
  return {
    statusUpdate: {
      taskId,
      contextId: `ctx-${taskId}`,
      status: { state: 'TASK_STATE_WORKING', message: { messageId: text, role: 'ROLE_AGENT', parts: [{ text }] } },
    },
  };
}

function chunk(taskId: string, text: string): StreamResponse {
  return { artifactUpdate: { taskId, contextId: `ctx-${taskId}`, artifact: { artifactId: 'a', parts: [{ text }] }, append: true } };
}

/** The text each queued frame of a pair carries, in delivery order, completing each head in turn. */
async function drain(store: TaskStore, taskId: string, configId: string): Promise<string[]> {
  const texts: string[] = [];
  for (;;) {
    const [head] = (await store.dueDeliveries(Date.now(), 100)).filter((d) => d.taskId === taskId && d.configId === configId);
    if (head === undefined) return texts;
    const frame = head.frame;
    texts.push(
      frame.statusUpdate?.status.message?.parts[0]?.text ?? frame.artifactUpdate?.artifact.parts[0]?.text ?? (frame.task ? 'task' : '?'),
    );
    await store.completeDelivery(head.id);
  }
}

describe.each(IMPLEMENTATIONS)('push store contract: $name', ({ open, hint }) => {
  let store: TaskStore;
  beforeEach(async () => {
    store = await open();
    await store.createTask(newTask('t1'));
    await store.createTask(newTask('t2'));
  });
  afterEach(async () => {
    await store.close();
  });

  it('stores, replaces in place, lists in creation order, counts and deletes idempotently', async () => {
    await store.putPushConfig(config('t1', 'a'));
    await store.putPushConfig(config('t1', 'b'));
    await store.putPushConfig(config('t1', 'a', 'https://hooks.example.com/a2'));
    expect((await store.listPushConfigs('t1')).map((c) => [c.id, c.config.url])).toEqual([
      ['a', 'https://hooks.example.com/a2'],
      ['b', 'https://hooks.example.com/b'],
    ]);
    expect(await store.countPushConfigs('t1')).toBe(2);
    expect(await store.getPushConfig('t1', 'b')).toMatchObject({
      secrets: 'sealed-b',
      health: { state: 'active', consecutiveFailures: 0 },
    });
    expect(await store.getPushConfig('t2', 'b')).toBeUndefined();
    expect(await store.deletePushConfig('t1', 'b')).toBe(true);
    expect(await store.deletePushConfig('t1', 'b')).toBe(false);
    expect(await store.getPushConfig('t1', 'b')).toBeUndefined();
    expect(await store.listPushConfigs('unknown')).toEqual([]);
  });

  it('refuses a write guarded by a config that was re-created or deleted since it was read, applying none of it', async () => {
    await store.putPushConfig(config('t1', 'a'));
    const read = await store.getPushConfig('t1', 'a');
    const guarded = (secrets: string) => [
      [
        { op: 'expectPushConfig', taskId: 't1', configId: 'a', secrets } as const,
        { op: 'setPushHealth', taskId: 't1', configId: 'a', health: { state: 'failing', consecutiveFailures: 3 } } as const,
      ],
    ];
    await store.putPushConfig({ ...config('t1', 'a'), secrets: 'sealed-again' });
    const [stale] = await store.commit(guarded(read?.secrets ?? ''));
    expect(stale).toMatchObject({ ok: false, stale: true });
    expect((await store.getPushConfig('t1', 'a'))?.health.state).toBe('active');
    const [fresh] = await store.commit(guarded('sealed-again'));
    expect(fresh).toEqual({ ok: true });
    expect((await store.getPushConfig('t1', 'a'))?.health.state).toBe('failing');
    await store.deletePushConfig('t1', 'a');
    expect((await store.commit(guarded('sealed-again')))[0]).toMatchObject({ ok: false, stale: true });
  });

  it('says which tasks may have configs: never "none" for one that has one; from memory, exactly, where the store holds them alone', async () => {
    await store.putPushConfig(config('t1', 'a'));
    expect(store.mayHavePushConfigs('t1')).toBe(true);
    // A store shared by replicas cannot know what another replica registered: it says "may" for every task.
    if (!hint) return;
    expect(store.mayHavePushConfigs('t2')).toBe(false);
    await store.deletePushConfig('t1', 'a');
    expect(store.mayHavePushConfigs('t1')).toBe(false);
  });

  it('refuses a config for a task it does not hold', async () => {
    await expect(async () => store.putPushConfig(config('nope', 'a'))).rejects.toThrow(UnknownTaskError);
  });

  it('queues every frame appendEvent numbers, chunks included, for each config, in order', async () => {
    await store.putPushConfig(config('t1', 'a'));
    await store.putPushConfig(config('t1', 'b'));
    await store.appendEvent('t1', working('t1', 'one'));
    await store.appendEvent('t1', chunk('t1', 'two'));
    await store.appendEvent('t2', working('t2', 'other task'));
    await store.appendEvent('t1', working('t1', 'three'));
    expect(await store.pendingDeliveries()).toBe(6);
    expect(await store.pendingDeliveries('t1', 'a')).toBe(3);
    expect(await drain(store, 't1', 'a')).toEqual(['one', 'two', 'three']);
    expect(await drain(store, 't1', 'b')).toEqual(['one', 'two', 'three']);
    expect(await store.pendingDeliveries()).toBe(0);
  });

  it('queues in the transaction of the event: a rolled-back event queues nothing', async () => {
    await store.putPushConfig(config('t1', 'a'));
    const [outcome] = await store.commit([
      [
        { op: 'appendEvent', taskId: 't1', frame: working('t1', 'lost') },
        { op: 'setStatus', taskId: 'no-such-task', status: { state: 'TASK_STATE_WORKING' } },
      ],
    ]);
    expect(outcome?.ok).toBe(false);
    expect(await store.pendingDeliveries()).toBe(0);
  });

  it('registers a config and queues its snapshot in the batch that creates the task', async () => {
    const [outcome] = await store.commit([
      [
        { op: 'createTask', task: newTask('t3') },
        { op: 'putPushConfig', config: config('t3', 'inline') },
        {
          op: 'enqueueDelivery',
          taskId: 't3',
          configId: 'inline',
          frame: { task: { id: 't3', contextId: 'ctx-t3', status: { state: 'TASK_STATE_SUBMITTED' } } },
        },
        { op: 'setStatus', taskId: 't3', status: { state: 'TASK_STATE_COMPLETED' } },
        { op: 'appendEvent', taskId: 't3', frame: working('t3', 'done') },
      ],
    ]);
    expect(outcome?.ok).toBe(true);
    expect(await drain(store, 't3', 'inline')).toEqual(['task', 'done']);
  });

  it('hands out one delivery per pair at a time, skips busy pairs and respects dueAt', async () => {
    await store.putPushConfig(config('t1', 'a'));
    await store.putPushConfig(config('t2', 'a'));
    await store.appendEvent('t1', working('t1', 'x1'));
    await store.appendEvent('t1', working('t1', 'x2'));
    await store.appendEvent('t2', working('t2', 'y1'));
    const now = Date.now();
    const due = await store.dueDeliveries(now, 10);
    expect(due.map((d) => [d.taskId, d.attempts])).toEqual([
      ['t1', 0],
      ['t2', 0],
    ]);
    expect((await store.dueDeliveries(now, 10, new Set([deliveryPairKey('t1', 'a')]))).map((d) => d.taskId)).toEqual(['t2']);
    expect(await store.dueDeliveries(now, 1)).toHaveLength(1);
    const head = due[0];
    if (head === undefined) throw new Error('no head');
    await store.retryDelivery(head.id, now + 60_000);
    // The pair waits for its head: the second frame is not handed out ahead of it.
    expect((await store.dueDeliveries(now, 10)).map((d) => d.taskId)).toEqual(['t2']);
    expect(await store.nextDueAt()).toBe(0);
    await store.completeDelivery(due[1]?.id ?? -1);
    expect(await store.nextDueAt()).toBe(now + 60_000);
    expect(await store.dueDeliveries(now + 60_000, 10)).toMatchObject([{ id: head.id, attempts: 1 }]);
    await store.rescheduleConfig('t1', 'a', now);
    expect(await store.dueDeliveries(now, 10)).toMatchObject([{ id: head.id }]);
  });

  it('unhealthyPushConfigs takes a limit, oldest first, and the counts stay exact past it', async () => {
    for (const [i, id] of ['d', 'c', 'b', 'a'].entries())
      await store.putPushConfig({ ...config('t1', id), createdAt: `2026-01-01T00:00:0${4 - i}.000Z` });
    await store.setPushHealth('t1', 'a', { state: 'failing', consecutiveFailures: 2 });
    await store.setPushHealth('t1', 'b', { state: 'disabled', consecutiveFailures: 1 });
    await store.setPushHealth('t1', 'c', { state: 'failing', consecutiveFailures: 1 });
    expect((await store.unhealthyPushConfigs()).map((c) => c.id)).toEqual(['a', 'b', 'c']); // by createdAt, not by insertion
    expect((await store.unhealthyPushConfigs(2)).map((c) => c.id)).toEqual(['a', 'b']);
    expect(await store.unhealthyPushConfigCounts()).toEqual({ failing: 2, disabled: 1 });
  });

  it('disabling a config drops its deliveries and queues none after; a re-create makes it healthy again', async () => {
    await store.putPushConfig(config('t1', 'a'));
    await store.appendEvent('t1', working('t1', 'before'));
    await store.setPushHealth('t1', 'a', { state: 'disabled', consecutiveFailures: 1, lastError: 'HTTP 410' });
    await store.appendEvent('t1', working('t1', 'after'));
    await store.enqueueDelivery('t1', 'a', working('t1', 'direct'));
    expect(await store.pendingDeliveries('t1', 'a')).toBe(0);
    expect((await store.unhealthyPushConfigs()).map((c) => [c.id, c.health.state, c.health.lastError])).toEqual([
      ['a', 'disabled', 'HTTP 410'],
    ]);
    await store.putPushConfig(config('t1', 'a'));
    expect((await store.getPushConfig('t1', 'a'))?.health).toEqual({ state: 'active', consecutiveFailures: 0 });
    await store.appendEvent('t1', working('t1', 'again'));
    expect(await drain(store, 't1', 'a')).toEqual(['again']);
  });

  it('queues again for a disabled config made active again (without a re-create)', async () => {
    await store.putPushConfig(config('t1', 'a'));
    await store.setPushHealth('t1', 'a', { state: 'disabled', consecutiveFailures: 1, lastError: 'HTTP 410' });
    await store.appendEvent('t1', working('t1', 'while disabled'));
    await store.setPushHealth('t1', 'a', { state: 'active', consecutiveFailures: 0 });
    expect(store.mayHavePushConfigs('t1')).toBe(true);
    await store.appendEvent('t1', working('t1', 'active again'));
    expect(await drain(store, 't1', 'a')).toEqual(['active again']);
  });

  it('keeps the newest attempts per config, newest first, and forgets them with the config', async () => {
    await store.putPushConfig(config('t1', 'a'));
    for (let attempt = 1; attempt <= 5; attempt += 1)
      await store.recordAttempt(
        {
          taskId: 't1',
          configId: 'a',
          deliveryId: 1,
          at: `2026-01-01T00:00:0${attempt}.000Z`,
          attempt,
          outcome: 'retry',
          status: 503,
          latencyMs: 1.5,
        },
        3,
      );
    expect((await store.listAttempts('t1', 'a', 10)).map((a) => a.attempt)).toEqual([5, 4, 3]);
    expect(await store.listAttempts('t1', 'a', 1)).toEqual([
      {
        taskId: 't1',
        configId: 'a',
        deliveryId: 1,
        at: '2026-01-01T00:00:05.000Z',
        attempt: 5,
        outcome: 'retry',
        status: 503,
        latencyMs: 1.5,
      },
    ]);
    await store.deletePushConfig('t1', 'a');
    expect(await store.listAttempts('t1', 'a', 10)).toEqual([]);
  });
});

describe('SqliteTaskStore keeps configs and pending deliveries across a reopen', () => {
  it('delivers after a reopen what was queued before it, in order', async () => {
    const file = path();
    const first = SqliteTaskStore.open(file, { exclusive: true });
    first.createTask(newTask('t1'));
    first.putPushConfig(config('t1', 'a'));
    first.appendEvent('t1', working('t1', 'one'));
    first.appendEvent('t1', working('t1', 'two'));
    first.close();
    const second = SqliteTaskStore.open(file, { exclusive: true });
    try {
      expect(second.getPushConfig('t1', 'a')?.config.url).toBe('https://hooks.example.com/a');
      second.appendEvent('t1', working('t1', 'three'));
      expect(await drain(second, 't1', 'a')).toEqual(['one', 'two', 'three']);
    } finally {
      second.close();
    }
  });
});
