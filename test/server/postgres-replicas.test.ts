import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { storeLocation } from '../../src/hub.js';
import { call, userMessage } from '../helpers/a2a-client.js';
import { PostgresTaskStore } from '../../src/store/postgres-store.js';
import { startTestHub, type TestHub } from '../helpers/hub.js';
import { until } from '../helpers/wait.js';
import { POSTGRES_AVAILABLE, sharedTestPostgres } from '../helpers/postgres.js';

/**
 * Two hubs on one PostgreSQL database (store postgres, databaseUrl), as two replicas behind a load
 * balancer: what one stores, the other answers at once. (Live events, cancels and control-API
 * changes across replicas come with the rest of issue 20.)
 */
const postgres = sharedTestPostgres();

describe.skipIf(!POSTGRES_AVAILABLE)('two hubs on one PostgreSQL database', () => {
  let a: TestHub;
  let b: TestHub;
  beforeAll(async () => {
    const databaseUrl = (await postgres.databaseUrl()).replace('://a2ahub@', '://a2ahub:secret-pw@');
    // One after the other: the second finds the schema and the default instance the first made.
    a = await startTestHub({ store: 'postgres', databaseUrl });
    b = await startTestHub({ store: 'postgres', databaseUrl });
  });
  afterAll(async () => {
    await a?.dispose();
    await b?.dispose();
  });

  it('serves a task one replica created from the other: GetTask, ListTasks, a resend of its message and the control API', async () => {
    const message = userMessage('hello replicas');
    const sent = await call(a.endpoint, 'SendMessage', { message });
    const taskId = sent.task?.id ?? '';
    expect(sent.task?.status.state).toBe('TASK_STATE_COMPLETED');
    const read = await call(b.endpoint, 'GetTask', { id: taskId });
    expect(read).toEqual(sent.task);
    const listed = await call(b.endpoint, 'ListTasks', { pageSize: 10, includeArtifacts: true });
    expect(listed.tasks.map((task) => task.id)).toContain(taskId);
    // The same message sent to the other replica is the same message: its task, not a new one.
    const resent = await call(b.endpoint, 'SendMessage', { message });
    expect(resent.task?.id).toBe(taskId);
    const control = await fetch(`${b.url}/a2a/api/task?id=${taskId}`);
    expect(((await control.json()) as { status?: { state?: string } }).status?.state).toBe('TASK_STATE_COMPLETED');
  });

  it('settles the running task of a replica that died, from a live replica, once its lease lapses', async () => {
    const databaseUrl = await postgres.databaseUrl();
    const survivorStore = await PostgresTaskStore.open({ url: databaseUrl, leaseMs: 150 });
    const survivor = await startTestHub({ taskStore: survivorStore });
    try {
      // A replica that stored a running task and then died: its store stops renewing the lease.
      const dead = await PostgresTaskStore.open({ url: databaseUrl, leaseMs: 150 });
      const at = new Date().toISOString();
      await dead.createTask({
        id: 'orphan',
        instanceId: 'default',
        contextId: 'c',
        skill: 'echo',
        status: { state: 'TASK_STATE_WORKING', timestamp: at },
        message: userMessage('left running'),
        createdAt: at,
      });
      await dead.close();
      await until(
        async () => (await call(survivor.endpoint, 'GetTask', { id: 'orphan' })).status.state === 'TASK_STATE_FAILED',
        'the orphan FAILED',
      );
      const settled = await call(survivor.endpoint, 'GetTask', { id: 'orphan' });
      expect(settled.status.message?.parts[0]?.text).toMatch(/retry/);
    } finally {
      await survivor.dispose();
      await survivorStore.close();
    }
  });

  it('names its store in the banner as PostgreSQL without the password', () => {
    expect(a.config.store).toBe('postgres');
    const shown = storeLocation(a.config);
    expect(shown).toMatch(/^PostgreSQL postgres:\/\/a2ahub@127\.0\.0\.1:\d+\/postgres$/);
    expect(shown).not.toContain('secret-pw');
  });
});
