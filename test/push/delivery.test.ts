import { describe, expect, it } from 'vitest';
import { MEDIA_TYPES } from '../../generated/a2a/1.0/protocol.js';
import type { StreamResponse } from '../../generated/a2a/1.0/types.js';
import { verifyWebhook } from '../../src/push/signature.js';
import { userMessage } from '../helpers/a2a-client.js';
import { startTestHub, type TestHub } from '../helpers/hub.js';
import { inputRequiredTask, sendTask } from '../helpers/tasks.js';
import { until } from '../helpers/wait.js';
import { closeAfterEach } from './delivery-fixture.js';
import { labelOf, registerPushConfig, TEST_PUSH } from './delivery-helpers.js';

/** The frames the echo agent's input-required task gives a config registered on it, then continued with "::slow 2". */
const CONTINUED = ['task:input_required', 'status:working', 'status:working:step 1 of 2', 'status:working:step 2 of 2'];
const COMPLETED = [...CONTINUED, 'artifact:echo: go on', 'status:completed'];

describe('push delivery', () => {
  let hub: TestHub | undefined;
  const receiver = closeAfterEach(
    () => hub,
    () => (hub = undefined),
  );

  async function continueTask(taskId: string, text = 'go on\n::slow 2'): Promise<void> {
    await sendTask(hub!.endpoint, { message: userMessage(text, { taskId }) });
  }

  async function attempts(taskId: string, configId: string) {
    return (await hub!.store.listAttempts(taskId, configId, 100)).reverse();
  }

  it('delivers every event in order, signed, with the configured Authorization and token', async () => {
    hub = await startTestHub({ push: TEST_PUSH });
    const hook = await receiver();
    const task = await inputRequiredTask(hub.endpoint);
    const secret = await registerPushConfig(hub, task, {
      id: 'c1',
      url: hook.url,
      token: 'notification-token-1',
      authentication: { scheme: 'Bearer', credentials: 'receiver-credentials-1' },
    });
    await continueTask(task.id);
    await until(() => hook.received.length >= COMPLETED.length, 'every event to arrive');
    expect(hook.received.map((webhook) => labelOf(webhook.frame))).toEqual(COMPLETED);
    for (const webhook of hook.received) {
      expect(webhook.headers['content-type']).toBe(MEDIA_TYPES.a2aJson);
      expect(webhook.headers['authorization']).toBe('Bearer receiver-credentials-1');
      expect(webhook.headers['a2a-notification-token']).toBe('notification-token-1');
      expect(verifyWebhook({ secret, body: webhook.body, headers: webhook.headers })).toMatchObject({ ok: true });
      expect(taskIdOf(webhook.frame)).toBe(task.id);
    }
    expect(new Set(hook.received.map((webhook) => webhook.headers['webhook-id'])).size).toBe(COMPLETED.length);
    // Each attempt's signature is only good under its own secret.
    expect(verifyWebhook({ secret: await registerPushConfig(hub, task, { id: 'c2', url: hook.url }), ...hook.received[0]! })).toMatchObject(
      {
        ok: false,
      },
    );
    await until(async () => (await hub!.store.pendingDeliveries()) === 0, 'the outbox to drain');
    // c2 has neither authentication nor token: neither header is sent.
    const plain = hook.received.at(-1);
    expect(hook.received).toHaveLength(COMPLETED.length + 1);
    expect(plain?.headers['authorization']).toBeUndefined();
    expect(plain?.headers['a2a-notification-token']).toBeUndefined();
    expect((await hub.store.getPushConfig(task.id, 'c1'))?.health).toMatchObject({ state: 'active', consecutiveFailures: 0 });
    expect((await attempts(task.id, 'c1')).every((attempt) => attempt.outcome === 'delivered' && attempt.status === 204)).toBe(true);
  });

  it('a receiver failing twice with 503 gets that event exactly once more, with the same webhook-id, then the rest in order', async () => {
    hub = await startTestHub({ push: TEST_PUSH });
    const hook = await receiver((index) => (index < 2 ? { status: 503 } : { status: 200 }));
    const task = await inputRequiredTask(hub.endpoint);
    const secret = await registerPushConfig(hub, task, { id: 'c1', url: hook.url });
    await continueTask(task.id);
    await until(() => hook.delivered().length >= COMPLETED.length, 'every event to be delivered');
    expect(hook.received.map((webhook) => labelOf(webhook.frame))).toEqual([COMPLETED[0], COMPLETED[0], ...COMPLETED]);
    expect(hook.delivered().map((webhook) => labelOf(webhook.frame))).toEqual(COMPLETED);
    const [first, second, third] = hook.received;
    expect(second!.headers['webhook-id']).toBe(first!.headers['webhook-id']);
    expect(third!.headers['webhook-id']).toBe(first!.headers['webhook-id']);
    expect(third!.body).toBe(first!.body);
    for (const webhook of hook.received) expect(verifyWebhook({ secret, body: webhook.body, headers: webhook.headers }).ok).toBe(true);
    await until(async () => (await attempts(task.id, 'c1')).length === COMPLETED.length + 2, 'every attempt to be recorded');
    const log = await attempts(task.id, 'c1');
    expect(log.slice(0, 3).map((attempt) => [attempt.attempt, attempt.outcome, attempt.status])).toEqual([
      [1, 'retry', 503],
      [2, 'retry', 503],
      [3, 'delivered', 200],
    ]);
    expect(log[0]).toMatchObject({ error: 'HTTP 503' });
    expect(log.every((attempt) => attempt.latencyMs >= 0 && !Number.isNaN(Date.parse(attempt.at)))).toBe(true);
    expect((await hub.store.getPushConfig(task.id, 'c1'))?.health).toMatchObject({ state: 'active', consecutiveFailures: 0 });
  });

  it('honours Retry-After as a lower bound on the next attempt', async () => {
    hub = await startTestHub({ push: { ...TEST_PUSH, retryMaxMs: 5000 } });
    const arrivals: number[] = [];
    const hook = await receiver((index) => {
      arrivals.push(Date.now());
      return index === 0 ? { status: 429, headers: { 'retry-after': '1' } } : { status: 200 };
    });
    const task = await inputRequiredTask(hub.endpoint);
    await registerPushConfig(hub, task, { id: 'c1', url: hook.url });
    await until(() => hook.delivered().length === 1, 'the retry to be delivered');
    expect(arrivals[1]! - arrivals[0]!).toBeGreaterThanOrEqual(1000 - 5);
  });

  it('400 drops that delivery without a retry and goes on with the next', async () => {
    hub = await startTestHub({ push: TEST_PUSH });
    const hook = await receiver((index) => (index === 0 ? { status: 400 } : { status: 200 }));
    const task = await inputRequiredTask(hub.endpoint);
    await registerPushConfig(hub, task, { id: 'c1', url: hook.url });
    await continueTask(task.id);
    await until(() => hook.received.length >= COMPLETED.length, 'every event to arrive');
    await until(async () => (await hub!.store.pendingDeliveries()) === 0, 'the outbox to drain');
    expect(hook.received.map((webhook) => labelOf(webhook.frame))).toEqual(COMPLETED);
    expect((await attempts(task.id, 'c1'))[0]).toMatchObject({ outcome: 'failed', status: 400, attempt: 1 });
  });

  it('a 3xx is a failed delivery: the redirect is not followed', async () => {
    hub = await startTestHub({ push: TEST_PUSH });
    const elsewhere = await receiver();
    const hook = await receiver(() => ({ status: 307, headers: { location: elsewhere.url } }));
    const task = await inputRequiredTask(hub.endpoint);
    await registerPushConfig(hub, task, { id: 'c1', url: hook.url });
    await until(async () => (await hub!.store.pendingDeliveries()) === 0, 'the delivery to be given up');
    expect(hook.received).toHaveLength(1);
    expect(elsewhere.received).toHaveLength(0);
    expect(await attempts(task.id, 'c1')).toEqual([expect.objectContaining({ outcome: 'failed', status: 307 })]);
  });

  it('410 Gone disables the config: nothing more is queued or delivered', async () => {
    hub = await startTestHub({ push: TEST_PUSH });
    const hook = await receiver(() => ({ status: 410 }));
    const witness = await receiver();
    const task = await inputRequiredTask(hub.endpoint);
    await registerPushConfig(hub, task, { id: 'gone', url: hook.url });
    await registerPushConfig(hub, task, { id: 'witness', url: witness.url });
    await until(async () => (await hub!.store.getPushConfig(task.id, 'gone'))?.health.state === 'disabled', 'the config to be disabled');
    await continueTask(task.id);
    // The witness config of the same task sees every event: once it has, the disabled one has had its chance.
    await until(() => witness.delivered().length === COMPLETED.length, 'the witness to get every event');
    expect(hook.received.map((webhook) => labelOf(webhook.frame))).toEqual(['task:input_required']);
    expect(await hub.store.pendingDeliveries(task.id, 'gone')).toBe(0);
    expect((await hub.store.getPushConfig(task.id, 'gone'))?.health).toMatchObject({ state: 'disabled', consecutiveFailures: 1 });
  });

  it('marks a config failing after failingAfter failures, probes it, and resumes in order once a probe succeeds', async () => {
    hub = await startTestHub({ push: { ...TEST_PUSH, failingAfter: 3, retryMaxMs: 100 } });
    let up = false;
    const hook = await receiver(() => (up ? { status: 200 } : { status: 500 }));
    const task = await inputRequiredTask(hub.endpoint);
    await registerPushConfig(hub, task, { id: 'c1', url: hook.url });
    await until(async () => (await hub!.store.getPushConfig(task.id, 'c1'))?.health.state === 'failing', 'the config to be failing');
    expect((await hub.store.getPushConfig(task.id, 'c1'))?.health).toMatchObject({ consecutiveFailures: 3, lastError: 'HTTP 500' });
    await continueTask(task.id);
    // Failing: only the head is probed; the events queued behind it wait.
    await until(() => hook.received.length >= 5, 'two probes');
    expect(new Set(hook.received.map((webhook) => labelOf(webhook.frame)))).toEqual(new Set(['task:input_required']));
    up = true;
    await until(() => hook.delivered().length === COMPLETED.length, 'the rest to flow');
    expect(hook.delivered().map((webhook) => labelOf(webhook.frame))).toEqual(COMPLETED);
    expect((await hub.store.getPushConfig(task.id, 'c1'))?.health).toMatchObject({ state: 'active', consecutiveFailures: 0 });
  });

  it("retryNow sends a failing config's waiting deliveries at once instead of at the next probe", async () => {
    hub = await startTestHub({ push: { ...TEST_PUSH, failingAfter: 1, retryMaxMs: 600_000 } });
    let up = false;
    const hook = await receiver(() => (up ? { status: 200 } : { status: 503 }));
    const task = await inputRequiredTask(hub.endpoint);
    await registerPushConfig(hub, task, { id: 'c1', url: hook.url });
    await until(async () => (await hub!.store.getPushConfig(task.id, 'c1'))?.health.state === 'failing', 'the config to be failing');
    await continueTask(task.id);
    expect(hook.received).toHaveLength(1);
    up = true;
    await hub.push.dispatcher.retryNow(task.id, 'c1');
    await until(() => hook.delivered().length === COMPLETED.length, 'every event, long before the next probe');
    expect(hook.delivered().map((webhook) => labelOf(webhook.frame))).toEqual(COMPLETED);
  });

  it('with the default destination policy a loopback receiver receives nothing, and the attempts say refused', async () => {
    hub = await startTestHub({ push: { retryMinMs: 10, retryMaxMs: 50 } });
    const hook = await receiver();
    const task = await inputRequiredTask(hub.endpoint);
    await registerPushConfig(hub, task, { id: 'c1', url: hook.url.replace('http:', 'https:') });
    await registerPushConfig(hub, task, { id: 'c2', url: hook.url });
    await until(
      async () => (await attempts(task.id, 'c1')).length >= 2 && (await attempts(task.id, 'c2')).length >= 2,
      'attempts to be refused again',
    );
    expect(hook.received).toHaveLength(0);
    for (const configId of ['c1', 'c2']) {
      expect((await attempts(task.id, configId)).every((attempt) => attempt.outcome === 'refused' && attempt.status === undefined)).toBe(
        true,
      );
      expect(await hub.store.pendingDeliveries(task.id, configId)).toBe(1);
    }
    expect((await attempts(task.id, 'c1'))[0]?.error).toMatch(/allowLoopback/);
    expect((await attempts(task.id, 'c2'))[0]?.error).toMatch(/scheme "http"/);
  });

  it('20 tasks × 3 configs deliver concurrently, each config in order, never over the concurrency cap', async () => {
    hub = await startTestHub({ push: { ...TEST_PUSH, concurrency: 4 } });
    // One receiver for all three configs (a path each), so that it counts every request in flight.
    const hook = await receiver(() => ({ status: 200, delayMs: 5 }));
    const configs = ['c0', 'c1', 'c2'];
    const tasks = await Promise.all(Array.from({ length: 20 }, () => inputRequiredTask(hub!.endpoint)));
    for (const task of tasks) for (const id of configs) await registerPushConfig(hub, task, { id, url: `${hook.url}/${id}` });
    await Promise.all(tasks.map((task) => continueTask(task.id)));
    await until(() => hook.delivered().length === tasks.length * configs.length * COMPLETED.length, 'every delivery', 60_000);
    for (const task of tasks) {
      for (const id of configs) {
        const mine = hook.received.filter((webhook) => webhook.path === `/hook/${id}` && taskIdOf(webhook.frame) === task.id);
        expect(mine.map((webhook) => labelOf(webhook.frame))).toEqual(COMPLETED);
      }
    }
    expect(hook.maxInFlight()).toBeGreaterThan(1);
    expect(hook.maxInFlight()).toBeLessThanOrEqual(4);
  });
});

function taskIdOf(frame: StreamResponse): string | undefined {
  return frame.task?.id ?? frame.statusUpdate?.taskId ?? frame.artifactUpdate?.taskId;
}
