import { afterAll, describe, expect, it } from 'vitest';
import { testDirectiveMetadata } from '../../generated/hub/test-directives.js';
import { SessionRegistry } from '../../src/tasks/sessions.js';
import { call, stream, userMessage } from '../helpers/a2a-client.js';
import { startTestHub, type TestHub } from '../helpers/hub.js';

describe('sessions', () => {
  it('one live session per (instance, tenant, contextId), reused, and released when idle but never while a task runs', () => {
    let now = Date.parse('2026-01-01T00:00:00.000Z');
    const sessions = new SessionRegistry(60_000, () => new Date(now).toISOString());
    try {
      const first = sessions.acquire('default', 'ctx-1');
      first.values.set('turns', 1);
      expect(sessions.acquire('default', 'ctx-1')).toBe(first);
      expect(sessions.acquire('other', 'ctx-1')).not.toBe(first);
      // The same contextId under a tenant is another conversation; no tenant and '' are one.
      expect(sessions.acquire('default', 'ctx-1', 'tenant-a')).not.toBe(first);
      expect(sessions.acquire('default', 'ctx-1', '')).toBe(first);
      const busy = sessions.acquire('default', 'ctx-2');
      busy.activeTasks += 1;
      now += 61_000;
      expect(sessions.releaseIdle()).toBe(3);
      expect(sessions.get('default', 'ctx-1')).toBeUndefined();
      expect(sessions.get('default', 'ctx-2')).toBe(busy);
      expect(sessions.list()).toEqual([
        {
          instanceId: 'default',
          tenant: '',
          contextId: 'ctx-2',
          createdAt: '2026-01-01T00:00:00.000Z',
          lastActiveAt: '2026-01-01T00:00:00.000Z',
          activeTasks: 1,
        },
      ]);
      expect(sessions.release('default', 'ctx-2')).toBe(true);
    } finally {
      sessions.close();
    }
  });
});

describe('the session cap', () => {
  it('evicts the least recently active idle session when full, never a running one', () => {
    const sessions = new SessionRegistry(60_000, () => '2026-01-01T00:00:00.000Z', 3);
    try {
      const oldest = sessions.acquire('default', 'c1');
      oldest.activeTasks += 1;
      sessions.acquire('default', 'c2');
      sessions.acquire('default', 'c3');
      // c2 becomes the most recently used, so c3 is now the least recently active idle one.
      sessions.acquire('default', 'c2');
      sessions.acquire('default', 'c4');
      expect(sessions.list().map((session) => session.contextId)).toEqual(['c1', 'c2', 'c4']);
      expect(sessions.evicted).toBe(1);
      // Only running sessions left to evict: the cap yields rather than drop one.
      for (const contextId of ['c2', 'c4']) {
        const session = sessions.get('default', contextId);
        if (session !== undefined) session.activeTasks += 1;
      }
      sessions.acquire('default', 'c5');
      expect(sessions.list()).toHaveLength(4);
      expect(sessions.get('default', 'c1')).toBe(oldest);
    } finally {
      sessions.close();
    }
  });

  it('holds a hub to maxSessions under a stream of new contexts', async () => {
    const hub = await startTestHub({ maxSessions: 5 });
    try {
      for (let n = 0; n < 12; n += 1) await call(hub.endpoint, 'SendMessage', { message: userMessage(`new context ${n}`) });
      expect(hub.sessions.list()).toHaveLength(5);
      expect(hub.sessions.evicted).toBe(7);
      // The evicted contexts' tasks are still there.
      expect((await call(hub.endpoint, 'ListTasks', {})).totalSize).toBe(12);
    } finally {
      await hub.dispose();
    }
  });
});

describe('SSE keep-alive', () => {
  let hub: TestHub | undefined;
  afterAll(() => hub?.dispose());

  it('sends heartbeat comments while a stream waits for its task', async () => {
    hub = await startTestHub({ sseHeartbeatMs: 40 });
    const result = await stream(hub.endpoint, 'SendStreamingMessage', {
      message: userMessage('wait', { metadata: testDirectiveMetadata({ steps: 4, stepMs: 100 }) }),
    });
    expect(result.comments).toBeGreaterThanOrEqual(3);
    expect(result.events.at(-2)?.frame.statusUpdate?.status.state).toBe('TASK_STATE_COMPLETED');
    expect(result.events.at(-1)?.frame.task?.status.state).toBe('TASK_STATE_COMPLETED');
  });
});
