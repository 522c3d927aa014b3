import { describe, expect, it } from 'vitest';
import type { StreamResponse, TaskState } from '../../generated/a2a/1.0/types.js';
import type { StoreOp, WriteOutcome } from '../../src/store/store-ops.js';
import { SqliteTaskStore } from '../../src/store/sqlite-store.js';
import { TaskChannels } from '../../src/tasks/task-channels.js';
import { WriteQueue, type QueuedWrite } from '../../src/tasks/write-queue.js';
import { deferredStore } from '../helpers/deferred-store.js';

const createdAt = '2026-01-01T00:00:00.000Z';

/** `later`: the queue writes through a store that answers on a later turn, as one on a database server does. */
function setUp(later = false) {
  const store = SqliteTaskStore.open(':memory:');
  const channels = new TaskChannels();
  const logged: { message: string; details?: Record<string, unknown> }[] = [];
  const queue = new WriteQueue(later ? deferredStore(store) : store, channels, (_level, message, details) =>
    logged.push({ message, ...(details ? { details } : {}) }),
  );
  const create = (id: string) => queue.enqueue(createWrite(id));
  const complete = (id: string) => queue.enqueue(statusWrite(id, 'TASK_STATE_COMPLETED', true));
  return { store, channels, queue, logged, create, complete };
}

/** The task a store op writes. */
function taskOf(op: StoreOp): string {
  if (op.op === 'createTask') return op.task.id;
  if ('taskId' in op) return op.taskId;
  throw new Error(`no task in ${op.op}`);
}

function createWrite(id: string): QueuedWrite {
  return {
    taskId: id,
    final: false,
    creates: true,
    ops: [
      {
        op: 'createTask',
        task: {
          id,
          instanceId: 'i',
          contextId: 'c',
          skill: 'chat',
          createdAt,
          status: { state: 'TASK_STATE_SUBMITTED', timestamp: createdAt },
          message: { messageId: `m-${id}`, role: 'ROLE_USER', parts: [{ text: 'hi' }] },
        },
      },
    ],
  };
}

function statusWrite(id: string, state: TaskState, final: boolean): QueuedWrite {
  const frame: StreamResponse = { statusUpdate: { taskId: id, contextId: 'c', status: { state, timestamp: createdAt } } };
  return {
    taskId: id,
    frame,
    final,
    ops: [
      { op: 'setStatus', taskId: id, status: { state, timestamp: createdAt } },
      { op: 'appendEvent', taskId: id, frame },
    ],
  };
}

describe('WriteQueue', () => {
  it('commits the writes queued in one turn together and publishes their frames only after the commit', async () => {
    const { store, channels, queue, create, complete } = setUp();
    const published: string[] = [];
    for (const id of ['a', 'b', 'c']) channels.subscribe(id, (event) => published.push(`${id}:${event.seq}`));
    for (const id of ['a', 'b', 'c']) {
      create(id);
      complete(id);
    }
    expect(store.getTaskInfo('a')).toBeUndefined();
    expect(queue.isQueued('b')).toBe(true);
    expect(published).toEqual([]);
    await queue.committed();
    expect(published).toEqual(['a:1', 'b:1', 'c:1']);
    expect(['a', 'b', 'c'].map((id) => store.getTaskInfo(id)?.state)).toEqual(Array(3).fill('TASK_STATE_COMPLETED'));
    expect(queue.isQueued('b')).toBe(false);
    store.close();
  });

  it('flushFor commits at once only when the task has queued writes', async () => {
    const { store, queue, create } = setUp();
    create('a');
    await queue.flushFor('other');
    expect(store.getTaskInfo('a')).toBeUndefined();
    await queue.flushFor('a');
    expect(store.getTaskInfo('a')?.state).toBe('TASK_STATE_SUBMITTED');
    store.close();
  });

  it('afterCommit calls back once the queued writes are committed, or at once when nothing is queued', async () => {
    const { store, queue, create } = setUp();
    const calls: string[] = [];
    queue.afterCommit(() => calls.push('idle'));
    expect(calls).toEqual(['idle']);
    create('a');
    queue.afterCommit(() => calls.push(`after a: ${store.getTaskInfo('a')?.state ?? 'missing'}`));
    expect(calls).toEqual(['idle']);
    await queue.committed();
    expect(calls).toEqual(['idle', 'after a: TASK_STATE_SUBMITTED']);
    store.close();
  });

  it('keeps the rest of a batch when one write fails, and logs the one that failed', async () => {
    const { store, channels, queue, logged, create, complete } = setUp();
    const finals: string[] = [];
    for (const id of ['a', 'ghost', 'b']) void channels.nextFinal(id).then(() => finals.push(id));
    create('a');
    complete('a');
    complete('ghost'); // never created: its status write fails
    create('b');
    complete('b');
    await queue.committed();
    await Promise.resolve();
    expect(store.getTaskInfo('a')?.state).toBe('TASK_STATE_COMPLETED');
    expect(store.getTaskInfo('b')?.state).toBe('TASK_STATE_COMPLETED');
    expect(finals).toEqual(['a', 'b']);
    expect(logged).toHaveLength(1);
    expect(logged[0]?.message).toBe('could not store a task update');
    expect(logged[0]?.details?.['taskId']).toBe('ghost');
    expect(String(logged[0]?.details?.['error'])).toContain('ghost');
    store.close();
  });

  describe('with a store that answers later', () => {
    it('commits one batch at a time: writes queued during a commit form the next, and frames are published in queue order', async () => {
      const { store, channels, queue, create, complete } = setUp(true);
      const published: string[] = [];
      for (const id of ['a', 'b', 'c']) channels.subscribe(id, () => published.push(id));
      create('a');
      complete('a');
      create('b');
      const first = queue.flush();
      // In flight (the store has it, its answer has not come): still queued for a reader that must see it.
      expect(store.getTaskInfo('a')).toBeDefined();
      expect(queue.isQueued('a')).toBe(true);
      complete('b');
      create('c');
      complete('c');
      await first;
      expect(published).toEqual(['a']);
      await queue.committed();
      expect(published).toEqual(['a', 'b', 'c']);
      expect(queue.isQueued('c')).toBe(false);
      store.close();
    });

    it('flushFor a task whose batch is in flight resolves once that batch is committed', async () => {
      const { store, channels, queue, create, complete } = setUp(true);
      const published: string[] = [];
      channels.subscribe('a', () => published.push('a'));
      create('a');
      complete('a');
      void queue.flush();
      await queue.flushFor('a');
      expect(published).toEqual(['a']);
      store.close();
    });

    it('afterCommit asked while a batch is in flight and nothing is queued waits for that batch', async () => {
      const { store, channels, queue, create, complete } = setUp(true);
      const calls: string[] = [];
      channels.subscribe('a', () => calls.push('published'));
      create('a');
      complete('a');
      void queue.flush();
      queue.afterCommit(() => calls.push('after'));
      expect(calls).toEqual([]);
      await queue.committed();
      expect(calls).toEqual(['published', 'after']);
      store.close();
    });

    it('commits up to commitConcurrency batches at once, never one task in two of them, each task in queue order', async () => {
      const sqlite = SqliteTaskStore.open(':memory:');
      const channels = new TaskChannels();
      const inFlight = new Set<string>();
      let open = 0;
      let most = 0;
      const overlaps: string[] = [];
      const store = {
        commitConcurrency: 3,
        commit(batch: readonly (readonly StoreOp[])[]): Promise<WriteOutcome[]> {
          const tasks = new Set(batch.flatMap((ops) => ops.map(taskOf)));
          for (const task of tasks) if (inFlight.has(task)) overlaps.push(task);
          for (const task of tasks) inFlight.add(task);
          open += 1;
          most = Math.max(most, open);
          const outcomes = sqlite.commit(batch);
          // Batches answer out of order, as connections do.
          return new Promise((resolve) =>
            setTimeout(() => {
              for (const task of tasks) inFlight.delete(task);
              open -= 1;
              resolve(outcomes);
            }, Math.random() * 5),
          );
        },
      };
      const queue = new WriteQueue(store, channels);
      const ids = Array.from({ length: 12 }, (_, n) => `t${n}`);
      const published: string[] = [];
      for (const id of ids) channels.subscribe(id, (event) => published.push(`${id}:${event.seq}`));
      for (const id of ids) queue.enqueue(createWrite(id));
      await new Promise((resolve) => setImmediate(resolve));
      // Queued while their tasks' batches are in flight: they wait for them.
      for (const id of ids) queue.enqueue(statusWrite(id, 'TASK_STATE_WORKING', false));
      for (const id of ids) queue.enqueue(statusWrite(id, 'TASK_STATE_COMPLETED', true));
      await queue.committed();
      expect(overlaps).toEqual([]);
      expect(most).toBe(3);
      for (const id of ids) {
        expect(sqlite.getTaskInfo(id)?.state).toBe('TASK_STATE_COMPLETED');
        expect(published.filter((entry) => entry.startsWith(`${id}:`))).toEqual([`${id}:1`, `${id}:2`]);
      }
      expect([...ids].some((id) => queue.isQueued(id))).toBe(false);
      sqlite.close();
    });

    it('close commits what is in flight and what is queued before it resolves', async () => {
      const { store, queue, create } = setUp(true);
      create('a');
      void queue.flush();
      create('b');
      await queue.close();
      expect(store.getTaskInfo('b')?.state).toBe('TASK_STATE_SUBMITTED');
      expect(() => create('c')).toThrow(/closed/);
      store.close();
    });
  });
});
