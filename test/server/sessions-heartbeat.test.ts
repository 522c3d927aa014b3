import { afterAll, describe, expect, it } from 'vitest';
import { SessionRegistry } from '../../src/tasks/sessions.js';
import { stream, userMessage } from '../helpers/a2a-client.js';
import { startTestHub, type TestHub } from '../helpers/hub.js';

describe('sessions', () => {
  it('one live session per (instance, contextId), reused, and released when idle but never while a task runs', () => {
    let now = Date.parse('2026-01-01T00:00:00.000Z');
    const sessions = new SessionRegistry(60_000, () => new Date(now).toISOString());
    try {
      const first = sessions.acquire('default', 'ctx-1');
      first.values.set('turns', 1);
      expect(sessions.acquire('default', 'ctx-1')).toBe(first);
      expect(sessions.acquire('other', 'ctx-1')).not.toBe(first);
      const busy = sessions.acquire('default', 'ctx-2');
      busy.activeTasks.add('task-1');
      now += 61_000;
      expect(sessions.releaseIdle()).toBe(2);
      expect(sessions.get('default', 'ctx-1')).toBeUndefined();
      expect(sessions.get('default', 'ctx-2')).toBe(busy);
      expect(sessions.list()).toEqual([{ instanceId: 'default', contextId: 'ctx-2', createdAt: '2026-01-01T00:00:00.000Z', lastActiveAt: '2026-01-01T00:00:00.000Z', activeTasks: 1 }]);
      expect(sessions.release('default', 'ctx-2')).toBe(true);
    } finally {
      sessions.close();
    }
  });
});

describe('SSE keep-alive', () => {
  let hub: TestHub | undefined;
  afterAll(() => hub?.dispose());

  it('sends heartbeat comments while a stream waits for its task', async () => {
    hub = await startTestHub({ sseHeartbeatMs: 40 });
    const result = await stream(hub.endpoint, 'SendStreamingMessage', { message: userMessage('wait', { metadata: { 'a2a-hub/test': { steps: 4, stepMs: 100 } } }) });
    expect(result.comments).toBeGreaterThanOrEqual(3);
    expect(result.events.at(-1)?.frame.statusUpdate?.status.state).toBe('TASK_STATE_COMPLETED');
  });
});
