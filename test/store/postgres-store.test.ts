import { afterEach, describe, expect, it } from 'vitest';
import { migrationStatus, SCHEMA_VERSION } from '../../src/store/postgres-schema.js';
import { PostgresTaskStore } from '../../src/store/postgres-store.js';
import type { TaskStatus } from '../../generated/a2a/1.0/types.js';
import { DuplicateKeyError, InvalidCursorError, type NewTask, type ReplicaSignal, type TaskStore } from '../../src/store/task-store.js';
import { until } from '../helpers/wait.js';
import { POSTGRES_AVAILABLE, sharedTestPostgres, withClient } from '../helpers/postgres.js';

/**
 * What the PostgreSQL store does beyond the shared contract tests (push-store.contract, the task
 * runtime's and the streaming tests run on it too): versioned migrations, ListTasks walks, and
 * two stores on one database, as two replicas see it.
 */

const postgres = sharedTestPostgres();
const opened: TaskStore[] = [];
afterEach(async () => {
  for (const store of opened.splice(0)) await store.close();
});

async function open(url: string): Promise<PostgresTaskStore> {
  const store = await PostgresTaskStore.open({ url });
  opened.push(store);
  return store;
}

function newTask(id: string, second: number, overrides: Partial<NewTask> = {}): NewTask {
  const at = new Date(Date.UTC(2026, 0, 1, 0, 0, second)).toISOString();
  return {
    id,
    instanceId: 'agent',
    contextId: 'context',
    skill: 'chat',
    status: { state: 'TASK_STATE_SUBMITTED', timestamp: at },
    message: { messageId: `m-${id}`, role: 'ROLE_USER', parts: [{ text: id }] },
    createdAt: at,
    ...overrides,
  };
}

describe.skipIf(!POSTGRES_AVAILABLE)('PostgresTaskStore', () => {
  it('migrates an empty database once: a second opener applies nothing, and the ledger says what ran', async () => {
    const url = await postgres.databaseUrl();
    await Promise.all([open(url), open(url)]);
    const status = await withClient(url, (client) => migrationStatus(client));
    expect(status.applied.map((migration) => migration.version)).toEqual(Array.from({ length: SCHEMA_VERSION }, (_, index) => index + 1));
    expect(status.pending).toEqual([]);
    expect(status.ahead).toBe(false);
  });

  it('refuses a database a newer a2a-hub migrated, saying which versions', async () => {
    const url = await postgres.databaseUrl();
    await (await open(url)).close();
    await withClient(url, (client) => client.query("INSERT INTO a2a_hub_migrations (version, name) VALUES (999, 'from the future')"));
    await expect(PostgresTaskStore.open({ url })).rejects.toThrow(
      `schema version 999, newer than this a2a-hub understands (${SCHEMA_VERSION})`,
    );
  });

  it('walks ListTasks pages newest first, each task once, with one totalSize, and refuses a cursor of other filters', async () => {
    const store = await open(await postgres.databaseUrl());
    const seconds = [5, 1, 9, 3, 7, 2, 8];
    for (const [n, second] of seconds.entries()) await store.createTask(newTask(`t${n}`, second));
    const ids: string[] = [];
    let page = await store.listTasks('agent', { pageSize: 3 });
    const total = page.totalSize;
    for (;;) {
      expect(page.totalSize).toBe(total);
      ids.push(...page.tasks.map((task) => task.id));
      if (page.nextCursor === '') break;
      // A task created mid-walk is not in it: the walk reads the snapshot of its first page.
      await store.createTask(newTask(`late-${ids.length}`, 10));
      page = await store.listTasks('agent', { pageSize: 3, cursor: page.nextCursor });
    }
    expect(total).toBe(seconds.length);
    expect(ids).toEqual(['t2', 't6', 't4', 't0', 't3', 't5', 't1']);
    const first = await store.listTasks('agent', { pageSize: 2 });
    await expect(store.listTasks('agent', { pageSize: 2, state: 'TASK_STATE_WORKING', cursor: first.nextCursor })).rejects.toThrow(
      InvalidCursorError,
    );
  });

  it('shares one database between two stores as replicas do: a task written through one is read through the other at once', async () => {
    const url = await postgres.databaseUrl();
    const [a, b] = await Promise.all([open(url), open(url)]);
    await a.createTask(newTask('shared', 1));
    await a.appendEvent('shared', { statusUpdate: { taskId: 'shared', contextId: 'context', status: { state: 'TASK_STATE_WORKING' } } });
    expect((await b.getTask('agent', 'shared'))?.history?.[0]?.messageId).toBe('m-shared');
    expect(await b.lastEventSeq('shared')).toBe(1);
    expect((await b.snapshotTask('agent', 'shared'))?.seq).toBe(1);
    await expect(b.createTask(newTask('shared', 2))).rejects.toThrow(DuplicateKeyError);
  });

  it('lets one of 20 identical first writes of a message, spread over two stores at once, create its task', async () => {
    const url = await postgres.databaseUrl();
    const [a, b] = await Promise.all([open(url), open(url)]);
    const key = { messageId: 'same-message', tenant: '' };
    const outcomes = await Promise.all(
      Array.from({ length: 20 }, (_, n) =>
        (n % 2 === 0 ? a : b).commit([
          [
            { op: 'createTask', task: newTask(`attempt-${n}`, 1) },
            { op: 'recordIdempotent', instanceId: 'agent', key, result: { kind: 'task', taskId: `attempt-${n}` } },
          ],
        ]),
      ),
    );
    const stored = outcomes.flatMap((outcome, n) => (outcome[0]?.ok === true ? [`attempt-${n}`] : []));
    expect(stored).toHaveLength(1);
    expect(await b.findIdempotent('agent', key)).toEqual({ kind: 'task', taskId: stored[0] });
    expect((await a.browseTasks({ limit: 100, offset: 0 })).total).toBe(1);
  });

  it('settles only the running tasks whose replica stopped renewing their lease, and refuses a late write from that replica', async () => {
    const url = await postgres.databaseUrl();
    const alive = await PostgresTaskStore.open({ url, leaseMs: 150 });
    const dying = await PostgresTaskStore.open({ url, leaseMs: 150 });
    const survivor = await open(url);
    opened.push(alive);
    const working = { state: 'TASK_STATE_WORKING' } as const;
    await alive.createTask(newTask('held', 1));
    await alive.setStatus('held', working);
    await dying.createTask(newTask('orphan', 2));
    await dying.setStatus('orphan', working);
    const failed = (task: { id: string }): TaskStatus => ({
      state: 'TASK_STATE_FAILED',
      message: { messageId: `x-${task.id}`, role: 'ROLE_AGENT', parts: [{ text: 'lease lapsed' }] },
    });
    expect(await survivor.settleUnfinished(failed)).toEqual([]);
    // The dying replica stops renewing (its process is gone); the live one renews three times a lease.
    await dying.close();
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(await survivor.settleUnfinished(failed)).toEqual(['orphan']);
    expect((await survivor.getTaskInfo('held'))?.state).toBe('TASK_STATE_WORKING');
    // The replica that ran the orphan comes back late with its result: refused, the task stays FAILED.
    const late = await open(url);
    await expect(late.setStatus('orphan', { state: 'TASK_STATE_COMPLETED' })).rejects.toThrow(/already TASK_STATE_FAILED/);
    expect((await survivor.getTaskInfo('orphan'))?.state).toBe('TASK_STATE_FAILED');
  });

  it('hands each push delivery to one replica at a time, in order, and to another once the holder’s claim lapses', async () => {
    const url = await postgres.databaseUrl();
    const a = await open(url);
    const b = await PostgresTaskStore.open({ url, leaseMs: 200 });
    opened.push(b);
    await a.createTask(newTask('pushed', 1));
    await a.putPushConfig({
      taskId: 'pushed',
      id: 'hook',
      config: { id: 'hook', taskId: 'pushed', url: 'https://hooks.example.com/x' },
      secrets: 'sealed',
      createdAt: '2026-01-01T00:00:00.000Z',
    });
    const frame = (text: string) => ({
      statusUpdate: {
        taskId: 'pushed',
        contextId: 'context',
        status: { state: 'TASK_STATE_WORKING' as const, message: { messageId: text, role: 'ROLE_AGENT' as const, parts: [{ text }] } },
      },
    });
    await a.appendEvent('pushed', frame('first'));
    await a.appendEvent('pushed', frame('second'));
    const now = Date.now();
    // Both look at once: one of them gets the head, the other nothing of this webhook.
    const [fromA, fromB] = await Promise.all([a.dueDeliveries(now, 10), b.dueDeliveries(now, 10)]);
    expect([...fromA, ...fromB].map((delivery) => delivery.frame.statusUpdate?.status.message?.messageId)).toEqual(['first']);
    const [holder, other] = fromA.length === 1 ? [a, b] : [b, a];
    const head = [...fromA, ...fromB][0]!;
    expect(await other.dueDeliveries(now, 10)).toEqual([]);
    // The holder's own look still shows it (its dispatcher keeps it from starting twice).
    expect((await holder.dueDeliveries(now, 10)).map((delivery) => delivery.id)).toEqual([head.id]);
    expect(await other.nextDueAt()).toBeGreaterThan(now);
    await holder.completeDelivery(head.id);
    const next = await other.dueDeliveries(Date.now(), 10);
    expect(next.map((delivery) => delivery.frame.statusUpdate?.status.message?.messageId)).toEqual(['second']);
    await other.completeDelivery(next[0]!.id);
    // b's claims last 200 ms: b dies holding one, and a takes it over once it lapses.
    await a.appendEvent('pushed', frame('third'));
    expect(await b.dueDeliveries(Date.now(), 10)).toHaveLength(1);
    expect(await a.dueDeliveries(Date.now(), 10)).toEqual([]);
    await until(async () => (await a.dueDeliveries(Date.now(), 10)).length === 1, 'the lapsed claim taken over');
  });

  describe('signals between replicas (LISTEN/NOTIFY)', () => {
    /** Collects what `store` hears; `next(match)` waits for a signal that matches. */
    async function listening(
      store: PostgresTaskStore,
    ): Promise<{ heard: ReplicaSignal[]; next(match: (signal: ReplicaSignal) => boolean): Promise<void> }> {
      const heard: ReplicaSignal[] = [];
      await store.signals.listen((signal) => heard.push(signal));
      return { heard, next: (match) => until(() => heard.some(match), 'the signal') };
    }

    it('announces a frame to every replica once its transaction commits, and never one rolled back', async () => {
      const url = await postgres.databaseUrl();
      const [a, b] = await Promise.all([open(url), open(url)]);
      const onB = await listening(b);
      await a.createTask(newTask('told', 1));
      const frame = { statusUpdate: { taskId: 'told', contextId: 'context', status: { state: 'TASK_STATE_WORKING' as const } } };
      // A batch whose second write fails: the first commits on its own and is announced, the failed one is not.
      const outcomes = await a.commit([[{ op: 'appendEvent', taskId: 'told', frame }], [{ op: 'appendEvent', taskId: 'missing', frame }]]);
      expect(outcomes.map((outcome) => outcome.ok)).toEqual([true, false]);
      await onB.next((signal) => signal.kind === 'frame' && signal.taskId === 'told');
      await a.signals.send({ kind: 'config', from: a.signals.id });
      await onB.next((signal) => signal.kind === 'config');
      expect(onB.heard).toEqual([
        { kind: 'frame', taskId: 'told', seq: 1 },
        { kind: 'config', from: a.signals.id },
      ]);
      // Another schema of the same database is another hub: it hears none of this.
      const other = await open(await postgres.databaseUrl());
      const onOther = await listening(other);
      await a.signals.send({ kind: 'settled', taskId: 'told' });
      await onB.next((signal) => signal.kind === 'settled');
      expect(onOther.heard).toEqual([]);
    });

    it('listens again after its connection drops, and says so (resync), so that what was missed is read', async () => {
      const url = await postgres.databaseUrl();
      const [a, b] = await Promise.all([open(url), open(url)]);
      const onB = await listening(b);
      expect(b.signals.listening).toBe(true);
      await withClient(url, (client) =>
        client.query(`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE query LIKE 'LISTEN %' AND pid <> pg_backend_pid()`),
      );
      await onB.next((signal) => signal.kind === 'resync');
      expect(b.signals.listening).toBe(true);
      await a.createTask(newTask('after', 1));
      await a.appendEvent('after', { statusUpdate: { taskId: 'after', contextId: 'context', status: { state: 'TASK_STATE_WORKING' } } });
      await onB.next((signal) => signal.kind === 'frame' && signal.taskId === 'after');
    });
  });
});
