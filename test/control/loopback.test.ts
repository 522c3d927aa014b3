import type Router from '@koa/router';
import type Koa from 'koa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createControlRouter } from '../../src/control/control-router.js';
import { isLoopbackAddress } from '../../src/control/loopback.js';
import { HubMetrics } from '../../src/control/metrics.js';
import { PeerTracker } from '../../src/control/peers.js';
import { CONTROL } from '../../src/protocol/control-schema.js';
import { checkValue } from '../../src/protocol/validation.js';
import { askAs, type FakeAnswer, type FakeRequest } from '../helpers/fake-peer.js';
import { userMessage } from '../helpers/a2a-client.js';
import { startTestHub, type TestHub } from '../helpers/hub.js';
import { seedPushConfig } from '../helpers/push-fixtures.js';
import { sendTask } from '../helpers/tasks.js';

describe('isLoopbackAddress', () => {
  it.each([
    ['127.0.0.1', true],
    ['127.1.2.3', true],
    ['127.255.255.254', true],
    ['10.0.0.1', false],
    ['192.168.1.1', false],
    ['0.0.0.0', false],
    ['128.0.0.1', false],
    ['1.127.0.0', false],
  ])('IPv4 %s → %s', (address, expected) => {
    expect(isLoopbackAddress(address)).toBe(expected);
  });

  it.each([
    ['::1', true],
    ['0:0:0:0:0:0:0:1', true],
    ['::1%lo', true],
    ['fe80::1', false],
    ['fe80::1%eth0', false],
    ['2001:db8::1', false],
    ['::', false],
    ['::2', false],
  ])('IPv6 %s → %s', (address, expected) => {
    expect(isLoopbackAddress(address)).toBe(expected);
  });

  it.each([
    ['::ffff:127.0.0.1', true],
    ['::FFFF:127.0.0.1', true],
    ['::ffff:127.9.8.7', true],
    ['0:0:0:0:0:ffff:127.0.0.1', true],
    ['::ffff:10.0.0.1', false],
    ['::ffff:192.168.0.9', false],
    ['::127.0.0.1', false],
  ])('IPv4-mapped %s → %s', (address, expected) => {
    expect(isLoopbackAddress(address)).toBe(expected);
  });

  it.each([
    [undefined],
    [''],
    ['localhost'],
    ['127.0.0.1.evil'],
    ['127.0.0'],
    ['127.0.0.1:8080'],
    ['not an address'],
    ['[::1]'],
    [' 127.0.0.1'],
  ])('garbage %s → false', (address) => {
    expect(isLoopbackAddress(address)).toBe(false);
  });
});

/**
 * The router judged by the socket alone: requests built in-process over a `net.Socket` whose
 * remoteAddress is stubbed, so a non-loopback peer can be simulated without sending traffic
 * to any interface. Forwarding headers claim loopback and must not help.
 */
describe('the control router decides by the socket address, never by headers', () => {
  let hub: TestHub;
  const routers = new Map<boolean, Router>();
  let kicks = 0;

  beforeAll(async () => {
    hub = await startTestHub();
    for (const trustProxy of [false, true]) {
      routers.set(
        trustProxy,
        createControlRouter({
          deps: { ...hub, peers: new PeerTracker(() => new Date().toISOString()), retryPush: () => Promise.resolve(void (kicks += 1)) },
          metrics: new HubMetrics({ tasksByState: () => ({}), openStreams: () => 0, sessions: () => 0, rateLimitRejections: () => 0 }),
          bodyLimitBytes: 4096,
          trustProxy,
        }),
      );
    }
  });
  afterAll(() => hub.dispose());

  const CLAIMS: Record<string, string> = {
    'x-forwarded-for': '127.0.0.1',
    'x-real-ip': '127.0.0.1',
    forwarded: 'for=127.0.0.1',
    'x-forwarded-host': 'localhost',
    'true-client-ip': '127.0.0.1',
  };

  /** Runs one request through the router as if it came from `remoteAddress`. */
  function ask(remoteAddress: string, options: FakeRequest & { path?: string } = {}): Promise<FakeAnswer> {
    const router = routers.get(options.trustProxy ?? false);
    if (router === undefined) throw new Error('no router');
    return askAs(remoteAddress, router.routes() as Koa.Middleware, { path: '/a2a/api', ...options });
  }

  function expectForbidden(answer: FakeAnswer, def: 'ReadError' | 'ActionFailure' = 'ReadError'): void {
    expect(answer.status).toBe(403);
    const verdict = checkValue(CONTROL, def, answer.body, { flavour: 'exact' });
    expect(verdict.ok ? [] : verdict.violations).toEqual([]);
    expect(answer.body).toEqual({ ok: false, message: 'the control API answers loopback peers only' });
  }

  for (const address of ['10.1.2.3', '2001:db8::5', '::ffff:192.168.0.9']) {
    for (const trustProxy of [false, true]) {
      it(`${address} gets 403 on every path, with forwarding headers claiming 127.0.0.1 (trustProxy ${String(trustProxy)})`, async () => {
        for (const path of [
          '/a2a/api',
          '/a2a/api/presets',
          '/a2a/api/card?id=default',
          '/a2a/api/metrics',
          '/a2a/api/push?taskId=any-task',
          '/a2a/api/nothing-here',
          '/a2a/panel',
        ]) {
          expectForbidden(await ask(address, { path, trustProxy }));
          expectForbidden(await ask(address, { path, headers: CLAIMS, trustProxy }));
        }
        // 405 and 404 are not reachable either: the loopback check runs first.
        expectForbidden(await ask(address, { method: 'PUT', headers: CLAIMS, trustProxy }));
      });
    }

    it(`${address} cannot run an action, even with X-Forwarded-For: 127.0.0.1`, async () => {
      const before = hub.inbounds.list().length;
      const body = JSON.stringify({ action: 'inbound.create', name: 'intruder', description: 'd', version: '1' });
      expectForbidden(await ask(address, { method: 'POST', headers: CLAIMS, body }), 'ActionFailure');
      expectForbidden(await ask(address, { method: 'POST', headers: CLAIMS, body, trustProxy: true }), 'ActionFailure');
      expect(hub.inbounds.list()).toHaveLength(before);
      expect(hub.inbounds.list().some((inbound) => inbound.name === 'intruder')).toBe(false);
    });

    it(`${address} can neither read, retry nor delete a push config, even with X-Forwarded-For: 127.0.0.1`, async () => {
      const task = await sendTask(hub.endpoint, { message: userMessage('push behind the loopback check') });
      await seedPushConfig(hub.store, task.id, 'hook');
      const failing = { state: 'failing', consecutiveFailures: 8, lastError: 'HTTP 503' } as const;
      await hub.store.setPushHealth(task.id, 'hook', failing);
      expectForbidden(await ask(address, { path: `/a2a/api/push?taskId=${task.id}`, headers: CLAIMS }));
      for (const action of ['push.retry', 'push.delete']) {
        const body = JSON.stringify({ action, taskId: task.id, configId: 'hook' });
        expectForbidden(await ask(address, { method: 'POST', headers: CLAIMS, body }), 'ActionFailure');
        expectForbidden(await ask(address, { method: 'POST', headers: CLAIMS, body, trustProxy: true }), 'ActionFailure');
      }
      expect((await hub.store.getPushConfig(task.id, 'hook'))?.health).toEqual(failing);
      expect(kicks).toBe(0);
    });
  }

  for (const address of ['127.0.0.1', '::1', '::ffff:127.0.0.1']) {
    it(`${address} is served (200), with or without such headers`, async () => {
      for (const headers of [{}, CLAIMS, { 'x-forwarded-for': '203.0.113.7' }]) {
        const answer = await ask(address, { headers });
        expect(answer.status).toBe(200);
        const verdict = checkValue(CONTROL, 'Snapshot', answer.body, { flavour: 'exact' });
        expect(verdict.ok ? [] : verdict.violations).toEqual([]);
      }
      expect((await ask(address, { path: '/a2a/api/presets' })).status).toBe(200);
    });
  }

  it('127.0.0.1 can run an action through the same path', async () => {
    const answer = await ask('127.0.0.1', { method: 'POST', body: JSON.stringify({ action: 'inbound.disable', id: 'no-such-instance' }) });
    expect(answer.status).toBe(409);
    expect(answer.body).toEqual({ ok: false, message: 'no inbound instance has id "no-such-instance"' });
  });
});
