import { describe, expect, it } from 'vitest';
import type { StreamResponse } from '../../generated/a2a/1.0/types.js';
import { SqliteTaskStore } from '../../src/store/sqlite-store.js';
import { TaskChannels } from '../../src/tasks/task-channels.js';
import { WriteQueue } from '../../src/tasks/write-queue.js';
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
  const create = (id: string) =>
    queue.enqueue({
      taskId: id,
      final: false,
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
    });
  const frame = (id: string): StreamResponse => ({
    statusUpdate: { taskId: id, contextId: 'c', status: { state: 'TASK_STATE_COMPLETED', timestamp: createdAt } },
  });
  const complete = (id: string) =>
    queue.enqueue({
      taskId: id,
      frame: frame(id),
      final: true,
      ops: [
        { op: 'setStatus', taskId: id, status: { state: 'TASK_STATE_COMPLETED', timestamp: createdAt } },
        { op: 'appendEvent', taskId: id, frame: frame(id) },
      ],
    });
  return { store, channels, queue, logged, create, complete };
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
