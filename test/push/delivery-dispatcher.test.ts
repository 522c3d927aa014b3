import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { retryDelayMs } from '../../src/push/backoff.js';
import { webhookIdOf } from '../../src/push/push-dispatcher.js';
import { configIdentity, SecretSealer } from '../../src/push/sealed-secrets.js';
import { generateSigningSecret } from '../../src/push/signature.js';
import { MemoryTaskStore } from '../../src/store/memory-store.js';
import { userMessage } from '../helpers/a2a-client.js';
import { startTestHub, type TestHub } from '../helpers/hub.js';
import { send } from '../helpers/raw-http.js';
import { inputRequiredTask, sendTask } from '../helpers/tasks.js';
import { until } from '../helpers/wait.js';
import { closeAfterEach } from './delivery-fixture.js';
import { registerPushConfig, TEST_PUSH } from './delivery-helpers.js';

describe('retry delays', () => {
  const settings = { retryMinMs: 1000, retryMaxMs: 60_000 };

  it('double from retryMinMs per failure, with jitter in the upper half of the step, capped at retryMaxMs', () => {
    expect([1, 2, 3, 4].map((failures) => retryDelayMs(failures, settings, () => 0))).toEqual([500, 1000, 2000, 4000]);
    expect([1, 2, 3, 4].map((failures) => retryDelayMs(failures, settings, () => 0.999999))).toEqual([1000, 2000, 4000, 8000]);
    expect(retryDelayMs(30, settings, () => 0.999999)).toBe(60_000);
    expect(retryDelayMs(30, settings, () => 0)).toBe(30_000);
    expect(retryDelayMs(10_000, settings, () => 0.5)).toBe(45_000);
  });

  it('are never shorter than Retry-After, which is itself capped at retryMaxMs', () => {
    expect(retryDelayMs(1, settings, () => 0, 20_000)).toBe(20_000);
    expect(retryDelayMs(1, settings, () => 0, 10 * 60_000)).toBe(60_000);
    expect(retryDelayMs(8, settings, () => 0, 10)).toBe(30_000);
  });
});

describe('webhook ids', () => {
  it('are msg_ and 32 hex digits, the same for the same delivery and different for any other', () => {
    const delivery = { taskId: 't', configId: 'c', id: 7, createdAt: '2026-01-01T00:00:00.000Z' };
    expect(webhookIdOf(delivery)).toMatch(/^msg_[0-9a-f]{32}$/);
    expect(webhookIdOf({ ...delivery })).toBe(webhookIdOf(delivery));
    for (const other of [{ id: 8 }, { configId: 'd' }, { taskId: 'u' }, { createdAt: '2026-01-01T00:00:00.001Z' }])
      expect(webhookIdOf({ ...delivery, ...other })).not.toBe(webhookIdOf(delivery));
  });
});

describe('the dispatcher in the hub', () => {
  let hub: TestHub | undefined;
  const receiver = closeAfterEach(
    () => hub,
    () => (hub = undefined),
  );

  it('costs tasks without configs no outbox query: the commit hook asks the store from memory', async () => {
    const counted = new CountingStore();
    hub = await startTestHub({ taskStore: counted, push: TEST_PUSH });
    await until(() => counted.outboxReads > 0, 'the start-up drain');
    const atStart = counted.outboxReads;
    for (let i = 0; i < 5; i += 1) await sendTask(hub.endpoint, { message: userMessage(`no push ${i}`) });
    expect(counted.outboxReads).toBe(atStart);
    // With a config the same hook wakes the dispatcher.
    const hook = await receiver();
    const task = await inputRequiredTask(hub.endpoint);
    await registerPushConfig(hub, task, { id: 'c1', url: hook.url });
    await until(() => hook.delivered().length === 1, 'the snapshot');
    const beforeEvents = counted.outboxReads;
    await sendTask(hub.endpoint, { message: userMessage('more', { taskId: task.id }) });
    await until(() => hook.delivered().length === 4, 'the events of the continued task');
    expect(counted.outboxReads).toBeGreaterThan(beforeEvents);
  });

  it('secrets that do not open are a clear failure with no secret in it, retried, and nothing is sent', async () => {
    const key = randomBytes(32).toString('hex');
    hub = await startTestHub({ push: { ...TEST_PUSH, secretKeyEnv: 'PUSH_TEST_KEY' }, env: { PUSH_TEST_KEY: key } });
    const hook = await receiver();
    const task = await inputRequiredTask(hub.endpoint);
    const signingSecret = generateSigningSecret();
    const other = new SecretSealer(randomBytes(32).toString('hex'));
    await hub.store.putPushConfig({
      taskId: task.id,
      id: 'c1',
      config: { id: 'c1', taskId: task.id, url: hook.url },
      secrets: other.seal({ signingSecret, token: 'the-token' }, configIdentity(task.id, 'c1')),
      createdAt: new Date().toISOString(),
    });
    await hub.store.enqueueDelivery(task.id, 'c1', { task });
    hub.push.dispatcher.kick();
    await until(async () => (await hub!.store.listAttempts(task.id, 'c1', 10)).length >= 2, 'two attempts');
    const [attempt] = await hub.store.listAttempts(task.id, 'c1', 1);
    expect(attempt).toMatchObject({ outcome: 'retry' });
    expect(attempt?.error).toMatch(/do not open with this key/);
    const shown = JSON.stringify([await hub.store.listAttempts(task.id, 'c1', 10), (await hub.store.getPushConfig(task.id, 'c1'))?.health]);
    for (const secret of [signingSecret, 'the-token', key]) expect(shown).not.toContain(secret);
    expect(hook.received).toHaveLength(0);
    expect(await hub.store.pendingDeliveries(task.id, 'c1')).toBe(1);
    // The hub's own sealer works: a config registered with it is delivered (and encrypted at rest).
    expect(hub.push.sealer.encrypts).toBe(true);
    await registerPushConfig(hub, task, { id: 'c2', url: hook.url });
    await until(() => hook.delivered().length === 1, 'the delivery of the good config');
  });

  it('refuses to start with a push key that is unset or malformed, naming the setting and not the key', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'a2a-hub-push-key-'));
    try {
      await expect(startTestHub({ dataDir, push: { secretKeyEnv: 'PUSH_TEST_KEY' }, env: {} })).rejects.toThrow(
        /push\.secretKeyEnv names PUSH_TEST_KEY, which is not set/,
      );
      const error = await startTestHub({ dataDir, push: { secretKeyEnv: 'PUSH_TEST_KEY' }, env: { PUSH_TEST_KEY: 'not-a-key-123' } }).catch(
        (caught: unknown) => caught as Error,
      );
      expect(error).toBeInstanceOf(Error);
      expect((error as Error).message).toMatch(/push\.secretKeyEnv \(PUSH_TEST_KEY\): the push secret key must be 32 bytes/);
      expect((error as Error).message).not.toContain('not-a-key-123');
      // The refused starts released the data dir.
      hub = await startTestHub({ dataDir });
    } finally {
      await hub?.close();
      hub = undefined;
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  it('counts attempts by outcome, their latency and the pending deliveries in the metrics, with no URL or secret', async () => {
    hub = await startTestHub({ push: TEST_PUSH });
    const hook = await receiver((index) => (index === 0 ? { status: 503 } : { status: 200 }));
    const task = await inputRequiredTask(hub.endpoint);
    await registerPushConfig(hub, task, {
      id: 'c1',
      url: hook.url,
      token: 'metrics-token',
      authentication: { scheme: 'Bearer', credentials: 'metrics-credentials' },
    });
    await until(() => hook.delivered().length === 1, 'the snapshot, on the second attempt');
    const text = (await send(`${hub.url}/a2a/api/metrics?format=prometheus`)).text;
    expect(text).toContain('a2a_hub_push_attempts_total{outcome="retry"} 1');
    expect(text).toContain('a2a_hub_push_attempts_total{outcome="delivered"} 1');
    expect(text).toContain('a2a_hub_push_attempt_duration_seconds_count 2');
    expect(text).toMatch(/a2a_hub_push_attempt_duration_seconds_bucket\{le="\+Inf"\} 2/);
    expect(text).toContain('a2a_hub_push_pending 0');
    const json = JSON.parse((await send(`${hub.url}/a2a/api/metrics`)).text) as { push?: unknown };
    expect(json.push).toMatchObject({ attempts: { retry: 1, delivered: 1 }, pending: 0, latencySeconds: { count: 2 } });
    for (const shown of [text, JSON.stringify(json)])
      for (const secret of [hook.url, String(new URL(hook.url).port), 'metrics-token', 'metrics-credentials', task.id])
        expect(shown).not.toContain(secret);
  });

  it('close() does not wait for a receiver that never answers, and the delivery is made after the next start', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'a2a-hub-push-close-'));
    let answering = false;
    const hook = await receiver(() => (answering ? { status: 200 } : { status: 200, hang: true }));
    try {
      hub = await startTestHub({ dataDir, push: { ...TEST_PUSH, timeoutMs: 300_000 } });
      const task = await inputRequiredTask(hub.endpoint);
      await registerPushConfig(hub, task, { id: 'c1', url: hook.url });
      await until(() => hook.received.length === 1, 'the attempt to hang');
      await hub.close();
      answering = true;
      hub = await startTestHub({ dataDir, push: TEST_PUSH });
      await until(() => hook.delivered().length === 1, 'the delivery after the restart');
      expect(hook.received[1]?.headers['webhook-id']).toBe(hook.received[0]?.headers['webhook-id']);
      // The aborted attempt was the hub's doing, not the receiver's: it counts no failure.
      expect((await hub.store.listAttempts(task.id, 'c1', 10)).map((attempt) => attempt.outcome)).toEqual(['delivered']);
    } finally {
      await hub?.close();
      hub = undefined;
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});

/** A memory store that counts the dispatcher's outbox reads. */
class CountingStore extends MemoryTaskStore {
  outboxReads = 0;

  override dueDeliveries(...args: Parameters<MemoryTaskStore['dueDeliveries']>): ReturnType<MemoryTaskStore['dueDeliveries']> {
    this.outboxReads += 1;
    return super.dueDeliveries(...args);
  }

  override nextDueAt(): number | undefined {
    this.outboxReads += 1;
    return super.nextDueAt();
  }
}
