import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CallerContexts } from '../../src/outbound/caller-contexts.js';
import { ToolError } from '../../src/outbound/tool-registry.js';
import { startTestHub, type TestHub } from '../helpers/hub.js';
import { cardUrl, createOutbound, outboundRow, slowTaskUnderway, startLocalHub, until } from './helpers.js';

/** What the hub does with its connections when it stops, and the pieces that keep per-caller state. */

let remote: TestHub;
beforeAll(async () => {
  remote = await startTestHub();
});
afterAll(() => remote.dispose());

describe('hub.close()', () => {
  it('aborts running tool calls, which cancels their remote tasks', async () => {
    const hub = await startLocalHub();
    let closed = false;
    try {
      await createOutbound(hub.url, 'closing', cardUrl(remote));
      const call = hub.tools.call('a2a__closing__chat', { prompt: 'long\n::slow 100' });
      const taskId = await slowTaskUnderway(remote);
      await hub.dispose();
      closed = true;
      const error: unknown = await call.catch((reason: unknown) => reason);
      expect(error).toBeInstanceOf(ToolError);
      expect(error).toMatchObject({
        kind: 'not-connected',
        message: 'the call of tool a2a__closing__chat was stopped: the hub is shutting down',
      });
      await until(
        async () => (await remote.store.getTaskInfo(taskId))?.state === 'TASK_STATE_CANCELED',
        'the remote task to be CANCELED',
        3000,
      );
    } finally {
      if (!closed) await hub.dispose();
    }
  });
});

describe('a hub on the memory store', () => {
  it('keeps connections like the SQLite one', async () => {
    const hub = await startLocalHub({ store: 'memory' });
    try {
      const id = await createOutbound(hub.url, 'in-memory', cardUrl(remote));
      expect(await outboundRow(hub.url, id)).toMatchObject({ state: 'connected', toolCount: 1 });
      expect((await hub.store.loadOutbounds()).map((stored) => stored.id)).toEqual([id]);
    } finally {
      await hub.dispose();
    }
  });
});

describe('CallerContexts', () => {
  it('keeps one context per caller and connection, forgets the oldest past its limit, and drops removed connections', () => {
    const contexts = new CallerContexts(2);
    contexts.remember('alice', 'out-1', 'ctx-a1');
    contexts.remember('bob', 'out-1', 'ctx-b1');
    contexts.remember('alice', 'out-1', 'ctx-a1');
    contexts.remember('alice', 'out-2', 'ctx-a2');
    // bob's entry was the oldest once alice's first one was used again.
    expect(contexts.get('bob', 'out-1')).toBeUndefined();
    expect(contexts.get('alice', 'out-1')).toBe('ctx-a1');
    expect(contexts.get('alice', 'out-2')).toBe('ctx-a2');
    contexts.retain(new Set(['out-2']));
    expect(contexts.get('alice', 'out-1')).toBeUndefined();
    expect(contexts.get('alice', 'out-2')).toBe('ctx-a2');
  });
});
