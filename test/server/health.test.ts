import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CONTROL_API } from '../../generated/control/api.js';
import { MemoryTaskStore } from '../../src/store/memory-store.js';
import { fails } from '../outbound/helpers.js';
import { startTestHub, type TestHub } from '../helpers/hub.js';

/** The health endpoints a load balancer probes: liveness, and readiness that asks the store. */

/** A store whose reads can be made to fail, as a database that went away would. */
class FlakyStore extends MemoryTaskStore {
  down = false;
  override ping(): void {
    if (this.down) throw new Error('connection lost');
  }
}

const store = new FlakyStore();
let hub: TestHub;
const { live, ready } = CONTROL_API.healthPaths;

beforeAll(async () => {
  hub = await startTestHub({ taskStore: store });
});
afterAll(async () => {
  await hub.dispose();
});

describe('health endpoints', () => {
  it('liveness answers 200 and is never cached; another method is 405 naming GET', async () => {
    const response = await fetch(`${hub.url}${live}`);
    expect(response.status).toBe(200);
    expect(response.headers.get('cache-control')).toBe('no-store');
    expect(await response.json()).toEqual({ status: 'live' });
    const post = await fetch(`${hub.url}${live}`, { method: 'POST' });
    expect(post.status).toBe(405);
    expect(post.headers.get('allow')).toBe('GET');
  });

  it('readiness answers 200 while the store answers, and 503 with the reason when it does not', async () => {
    const up = await fetch(`${hub.url}${ready}`);
    expect(up.status).toBe(200);
    expect(await up.json()).toEqual({ status: 'ready' });
    store.down = true;
    try {
      const down = await fetch(`${hub.url}${ready}`);
      expect(down.status).toBe(503);
      expect(await down.json()).toEqual({ status: 'not ready', reason: 'the task store does not answer: connection lost' });
      // Liveness is about the process, not the store.
      expect((await fetch(`${hub.url}${live}`)).status).toBe(200);
    } finally {
      store.down = false;
    }
  });

  it('no instance may take their paths', async () => {
    for (const path of [live, ready, `${ready}/below`]) {
      const refused = await fails(hub.url, {
        action: 'inbound.create',
        name: 'squatter',
        description: 'd',
        version: '1',
        endpointPath: path,
      });
      expect(refused.text).toMatch(/is not usable: .*outside .*\/livez, \/readyz/);
    }
  });
});

describe('shutdownDrainMs', () => {
  it('keeps serving, with readiness at 503 and liveness at 200, for the drain, then stops accepting', async () => {
    const draining = await startTestHub({ shutdownDrainMs: 400 });
    const closed = draining.dispose();
    const readyAnswer = await fetch(`${draining.url}${ready}`);
    expect(readyAnswer.status).toBe(503);
    expect(await readyAnswer.json()).toEqual({ status: 'not ready', reason: 'the hub is shutting down' });
    expect((await fetch(`${draining.url}${live}`)).status).toBe(200);
    // A2A requests are still served during the drain.
    expect((await fetch(`${draining.endpoint}/agent-card.json`)).status).toBe(200);
    await closed;
    await expect(fetch(`${draining.url}${live}`)).rejects.toThrow();
  });
});
