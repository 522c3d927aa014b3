import { describe, expect, it } from 'vitest';
import { probeDelayMs } from '../../src/push/backoff.js';
import { MemoryTaskStore } from '../../src/store/memory-store.js';
import { type PushAttempt, type PushDelivery, type PushHealth } from '../../src/store/push-store.js';
import { rpc, userMessage } from '../helpers/a2a-client.js';
import { controlAction } from '../helpers/control.js';
import { startTestHub, type TestHub } from '../helpers/hub.js';
import { inputRequiredTask, sendTask } from '../helpers/tasks.js';
import { until } from '../helpers/wait.js';
import { closeAfterEach } from './delivery-fixture.js';
import { labelOf, registerPushConfig, TEST_PUSH } from './delivery-helpers.js';

/**
 * The dispatcher's guards: an attempt settling onto a config that was replaced meanwhile, one
 * retry-now path, store errors, failing configs and instances with push turned off. Deliveries
 * are held by moving their due time: "nothing was sent" is seen as pending deliveries none of
 * which is due, which the dispatcher reaches only by deciding not to send.
 */

/** The events after the snapshot that continuing the echo agent's input-required task with "::slow 2" gives. */
const EVENTS = ['status:working', 'status:working:step 1 of 2', 'status:working:step 2 of 2', 'artifact:echo: go on', 'status:completed'];

/** A memory store whose push writes throw while their counter is above zero. */
class FlakyStore extends MemoryTaskStore {
  failRecordAttempt = 0;
  failSetPushHealth = 0;

  override recordAttempt(attempt: PushAttempt, keep: number): void {
    if (this.failRecordAttempt > 0) {
      this.failRecordAttempt -= 1;
      throw new Error('disk I/O error (recordAttempt)');
    }
    super.recordAttempt(attempt, keep);
  }

  override setPushHealth(taskId: string, configId: string, health: PushHealth): void {
    if (this.failSetPushHealth > 0) {
      this.failSetPushHealth -= 1;
      throw new Error('disk I/O error (setPushHealth)');
    }
    super.setPushHealth(taskId, configId, health);
  }
}

describe('probe delays', () => {
  it('lie between half and all of retryMaxMs, so configs that failed together do not probe together', () => {
    const settings = { retryMinMs: 1000, retryMaxMs: 60_000 };
    expect(probeDelayMs(settings, () => 0)).toBe(30_000);
    expect(probeDelayMs(settings, () => 0.5)).toBe(45_000);
    expect(probeDelayMs(settings, () => 0.999999)).toBe(60_000);
  });
});

describe('the dispatcher guards', () => {
  let hub: TestHub | undefined;
  const receiver = closeAfterEach(
    () => hub,
    () => (hub = undefined),
  );

  async function continueTask(taskId: string): Promise<void> {
    await sendTask(hub!.endpoint, { message: userMessage('go on\n::slow 2', { taskId }) });
  }

  async function isDue(delivery: Pick<PushDelivery, 'taskId' | 'configId'>): Promise<boolean> {
    return (await hub!.store.dueDeliveries(Date.now(), 1000)).some(
      (due) => due.taskId === delivery.taskId && due.configId === delivery.configId,
    );
  }

  /** The config's deliveries all wait (the dispatcher held them back), and there are `count`. */
  async function heldBack(taskId: string, configId: string, count: number): Promise<boolean> {
    return (await hub!.store.pendingDeliveries(taskId, configId)) === count && !(await isDue({ taskId, configId }));
  }

  it('an attempt answered 410 by the old URL of a replaced config disables nothing: its delivery goes to the new one', async () => {
    hub = await startTestHub({ push: TEST_PUSH });
    // Slow enough for the config to be replaced while the first attempt is out.
    const old = await receiver(() => ({ status: 410, delayMs: 1500 }));
    const fresh = await receiver();
    const task = await inputRequiredTask(hub.endpoint);
    await registerPushConfig(hub, task, { id: 'c1', url: old.url });
    await until(() => old.received.length === 1, 'the attempt to the old URL');
    await registerPushConfig(hub, task, { id: 'c1', url: fresh.url });
    // The old URL's snapshot delivery is retried to the new URL, then the new registration's snapshot.
    await until(() => fresh.delivered().length === 2, 'both snapshots at the new URL');
    // The receiver has its answer before the hub records the attempt.
    await until(async () => (await hub!.store.listAttempts(task.id, 'c1', 100)).length >= 2, 'both attempts recorded');
    expect((await hub.store.getPushConfig(task.id, 'c1'))?.health.state).toBe('active');
    expect((await hub.store.listAttempts(task.id, 'c1', 100)).map((attempt) => attempt.outcome)).toEqual(['delivered', 'delivered']);
    await continueTask(task.id);
    await until(() => fresh.delivered().length === 2 + EVENTS.length, 'the events at the new URL');
    expect(fresh.delivered().map((webhook) => labelOf(webhook.frame))).toEqual(['task:input_required', 'task:input_required', ...EVENTS]);
    expect(old.received).toHaveLength(1);
  });

  it('re-creating a failing config through the API makes its waiting deliveries due at once, not at the next probe', async () => {
    hub = await startTestHub({ push: { ...TEST_PUSH, failingAfter: 1, retryMaxMs: 600_000 } });
    const down = await receiver(() => ({ status: 503 }));
    const up = await receiver();
    const task = await inputRequiredTask(hub.endpoint);
    await registerPushConfig(hub, task, { id: 'c1', url: down.url });
    await until(async () => (await hub!.store.getPushConfig(task.id, 'c1'))?.health.state === 'failing', 'the config to be failing');
    await continueTask(task.id);
    await until(() => heldBack(task.id, 'c1', 1 + EVENTS.length), 'the events to wait for the probe');
    const created = await rpc(hub.endpoint, 'CreateTaskPushNotificationConfig', { taskId: task.id, id: 'c1', url: up.url });
    expect(created.body.error).toBeUndefined();
    await until(() => up.delivered().length === 2 + EVENTS.length, 'every waiting delivery and the new snapshot');
    // The new registration's snapshot is the task as it is now, after the events.
    expect(up.delivered().map((webhook) => labelOf(webhook.frame))).toEqual(['task:input_required', ...EVENTS, 'task:completed']);
  });

  it('a failing config is not sent a new event at once: it waits for the probe time, with no attempt counted', async () => {
    hub = await startTestHub({ push: { ...TEST_PUSH, failingAfter: 1, retryMaxMs: 600_000 } });
    // 400 drops the snapshot's delivery: the config is failing with an empty outbox.
    const hook = await receiver(() => ({ status: 400 }));
    const task = await inputRequiredTask(hub.endpoint);
    await registerPushConfig(hub, task, { id: 'c1', url: hook.url });
    await until(async () => (await hub!.store.getPushConfig(task.id, 'c1'))?.health.state === 'failing', 'the config to be failing');
    expect(await hub.store.pendingDeliveries(task.id, 'c1')).toBe(0);
    await continueTask(task.id);
    await until(() => heldBack(task.id, 'c1', EVENTS.length), 'the new events to wait');
    expect(hook.received).toHaveLength(1);
    expect((await hub.store.getPushConfig(task.id, 'c1'))?.health.consecutiveFailures).toBe(1);
    expect(await hub.store.listAttempts(task.id, 'c1', 100)).toHaveLength(1);
  });

  it('an instance with push turned off delivers nothing; turned on again, its deliveries arrive in order', async () => {
    hub = await startTestHub({ push: TEST_PUSH });
    const hook = await receiver();
    const task = await inputRequiredTask(hub.endpoint);
    await registerPushConfig(hub, task, { id: 'c1', url: hook.url });
    await until(() => hook.delivered().length === 1, 'the snapshot');
    const instanceId = (await hub.store.getTaskInfo(task.id))?.instanceId ?? '';
    await controlAction(hub.url, { action: 'inbound.update', id: instanceId, pushNotifications: false });
    await continueTask(task.id);
    await until(() => heldBack(task.id, 'c1', EVENTS.length), 'the events to wait while push is off');
    expect(hook.received).toHaveLength(1);
    expect((await hub.store.getPushConfig(task.id, 'c1'))?.health).toMatchObject({ state: 'active', consecutiveFailures: 0 });
    await controlAction(hub.url, { action: 'inbound.update', id: instanceId, pushNotifications: true });
    await until(() => hook.delivered().length === 1 + EVENTS.length, 'the events once push is on');
    expect(hook.delivered().map((webhook) => labelOf(webhook.frame))).toEqual(['task:input_required', ...EVENTS]);
  });

  it('a store that keeps failing to record an attempt is not hammered: each resend waits at least half of a growing step', async () => {
    const store = new FlakyStore();
    hub = await startTestHub({ taskStore: store, push: { ...TEST_PUSH, retryMinMs: 1000, retryMaxMs: 8000 } });
    const arrivals: number[] = [];
    const hook = await receiver(() => {
      arrivals.push(Date.now());
      return { status: 204 };
    });
    const task = await inputRequiredTask(hub.endpoint);
    store.failRecordAttempt = 2;
    await registerPushConfig(hub, task, { id: 'c1', url: hook.url });
    await until(() => store.listAttempts(task.id, 'c1', 10).length === 1, 'an attempt recorded once the store recovers');
    // Two failed settles, then one that held: three sends of the same delivery, after cooldowns of ≥ 500 and ≥ 1000 ms.
    expect(hook.received).toHaveLength(3);
    expect(new Set(hook.received.map((webhook) => webhook.headers['webhook-id'])).size).toBe(1);
    expect((arrivals[1] ?? 0) - (arrivals[0] ?? 0)).toBeGreaterThanOrEqual(500);
    expect((arrivals[2] ?? 0) - (arrivals[1] ?? 0)).toBeGreaterThanOrEqual(1000);
    expect(store.pendingDeliveries(task.id, 'c1')).toBe(0);
  });

  it('a settle that fails half-way is undone whole: the delivery is not lost, it is sent again', async () => {
    const store = new FlakyStore();
    hub = await startTestHub({ taskStore: store, push: { ...TEST_PUSH, retryMinMs: 10 } });
    const hook = await receiver();
    const task = await inputRequiredTask(hub.endpoint);
    // completeDelivery runs before setPushHealth throws: without one transaction the delivery would be gone.
    store.failSetPushHealth = 1;
    await registerPushConfig(hub, task, { id: 'c1', url: hook.url });
    await until(() => hook.received.length === 2, 'the delivery sent again');
    await until(() => store.pendingDeliveries(task.id, 'c1') === 0, 'the delivery completed');
    expect(new Set(hook.received.map((webhook) => webhook.headers['webhook-id'])).size).toBe(1);
    expect(store.listAttempts(task.id, 'c1', 10)).toHaveLength(1);
  });
});
