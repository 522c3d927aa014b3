import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import Koa from 'koa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Task } from '../../generated/a2a/1.0/types.js';
import { CONTROL_API } from '../../generated/control/api.js';
import type { PushConfigRow, TaskPushView } from '../../generated/control/types.js';
import { createControlRouter } from '../../src/control/control-router.js';
import { HubMetrics } from '../../src/control/metrics.js';
import { PeerTracker } from '../../src/control/peers.js';
import type { PushAttempt } from '../../src/store/push-store.js';
import { userMessage } from '../helpers/a2a-client.js';
import { controlAction, controlSnapshot, expectControl } from '../helpers/control.js';
import { startTestHub, type TestHub } from '../helpers/hub.js';
import { PUSH_SECRET_MARKERS, queueDeliveries, seedPushConfig } from '../helpers/push-fixtures.js';
import { send } from '../helpers/raw-http.js';
import { sendTask } from '../helpers/tasks.js';

/**
 * Push visibility and control over real HTTP: GET /a2a/api/push, the snapshot's push summary,
 * and the push.retry and push.delete actions. Configs, attempts and health are put straight
 * into the hub's store (what the dispatcher would write), so each test states exactly what
 * the API must show. The control router is served here on its own 127.0.0.1 port with the
 * hub's parts and a retryPush that counts and calls the (closed) dispatcher's retryNow, so that a
 * retry is seen to go through the one retry path.
 * Every answer is kept, and none may carry a push secret.
 */

const PUSH_PATH = `${CONTROL_API.basePath}/push`;

let hub: TestHub;
let control: { url: string; server: Server };
let kicks = 0;
/** Replies the router's self-check found not to conform to spec/control. */
const nonConforming: unknown[] = [];
/** The text of every control-API answer the tests received. */
const answers: string[] = [];

async function get(path: string): Promise<{ status: number; body: unknown }> {
  const answer = await send(`${control.url}${path}`);
  answers.push(answer.text);
  return { status: answer.status, body: JSON.parse(answer.text) as unknown };
}

async function readPush(taskId: string, query = ''): Promise<TaskPushView> {
  const answer = await get(`${PUSH_PATH}?taskId=${encodeURIComponent(taskId)}${query}`);
  expect(answer.status, JSON.stringify(answer.body)).toBe(200);
  return expectControl('TaskPushView', answer.body);
}

async function act(action: Record<string, unknown>) {
  const body = await controlAction(control.url, action);
  answers.push(JSON.stringify(body));
  return body;
}

/** A POST that must fail with `status` and a valid ActionFailure. */
async function refused(action: Record<string, unknown>, status: number) {
  const answer = await send(`${control.url}${CONTROL_API.basePath}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(action),
  });
  answers.push(answer.text);
  expect(answer.status, answer.text).toBe(status);
  return expectControl('ActionFailure', JSON.parse(answer.text));
}

async function newTask(): Promise<Task> {
  return sendTask(hub.endpoint, { message: userMessage('push control') });
}

function attempt(task: Task, configId: string, deliveryId: number, at: string, extra: Partial<PushAttempt> = {}): PushAttempt {
  return {
    taskId: task.id,
    configId,
    deliveryId,
    at,
    attempt: 1,
    outcome: 'retry',
    status: 503,
    latencyMs: 12.5,
    error: 'HTTP 503',
    ...extra,
  };
}

/** Makes the config's oldest pending delivery wait an hour, as a backoff would. */
async function postpone(taskId: string, configId: string): Promise<void> {
  const due = (await hub.store.dueDeliveries(Date.now(), 1000)).find(
    (delivery) => delivery.taskId === taskId && delivery.configId === configId,
  );
  expect(due, 'a pending delivery to postpone').toBeDefined();
  await hub.store.retryDelivery(due?.id ?? -1, Date.now() + 3_600_000);
}

async function isDue(taskId: string, configId: string): Promise<boolean> {
  return (await hub.store.dueDeliveries(Date.now(), 1000)).some((delivery) => delivery.taskId === taskId && delivery.configId === configId);
}

beforeAll(async () => {
  hub = await startTestHub();
  // The store holds exactly what each test put there: no delivery is attempted behind its back.
  await hub.push.dispatcher.close();
  const retryPush = (taskId: string, configId: string): Promise<void> => {
    kicks += 1;
    return hub.push.dispatcher.retryNow(taskId, configId);
  };
  const router = createControlRouter({
    deps: { ...hub, peers: new PeerTracker(() => new Date().toISOString()), retryPush },
    metrics: new HubMetrics({ tasksByState: () => ({}), openStreams: () => 0, sessions: () => 0, rateLimitRejections: () => 0 }),
    bodyLimitBytes: 64 * 1024,
    trustProxy: false,
    selfCheck: true,
    log: (level, message, details) => {
      if (level === 'error') nonConforming.push({ message, details });
    },
  });
  const app = new Koa();
  app.use(router.routes());
  const handle = app.callback();
  const server = createServer((request, response) => void handle(request, response));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  control = { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server };
});

afterAll(async () => {
  await new Promise((resolve) => control?.server.close(resolve));
  await hub?.dispose();
});

describe('GET /a2a/api/push', () => {
  it("a config row has no tenant of its own, even when the stored config names one: the task view carries the task's", async () => {
    const task = await newTask();
    await seedPushConfig(hub.store, task.id, 'tenanted', { tenant: 'acme' });
    const view = await readPush(task.id);
    expect(view.configs.map((row) => row.configId)).toEqual(['tenanted']);
    expect(view.configs[0]).not.toHaveProperty('tenant');
  });

  it("shows a task's configs, redacted, with health and pending deliveries, and its attempts newest first", async () => {
    const task = await newTask();
    const first = await seedPushConfig(hub.store, task.id, 'first', { url: 'https://one.example/hook' });
    await seedPushConfig(hub.store, task.id, 'second', { url: 'https://two.example/hook', scheme: null });
    await queueDeliveries(hub.store, task, 'first', 3);
    await hub.store.setPushHealth(task.id, 'first', {
      state: 'failing',
      consecutiveFailures: 8,
      lastError: 'HTTP 503',
      lastAttemptAt: '2026-01-01T00:00:03.000Z',
      lastSuccessAt: '2026-01-01T00:00:00.000Z',
    });
    await hub.store.recordAttempt(attempt(task, 'first', 7, '2026-01-01T00:00:01.000Z'), 20);
    await hub.store.recordAttempt(
      attempt(task, 'second', 8, '2026-01-01T00:00:02.000Z', { outcome: 'delivered', status: 200, error: undefined }),
      20,
    );
    await hub.store.recordAttempt(
      attempt(task, 'first', 7, '2026-01-01T00:00:03.000Z', { attempt: 2, status: undefined, error: 'timed out after 10000 ms' }),
      20,
    );

    const view = await readPush(task.id);
    expect(view.taskId).toBe(task.id);
    expect(view.serverId).toBe('default');
    expect(view.tenant).toBeUndefined();
    expect(view.configs).toEqual<PushConfigRow[]>([
      {
        taskId: task.id,
        configId: 'first',
        url: 'https://one.example/hook',
        authenticationScheme: 'Bearer',
        createdAt: first.createdAt,
        state: 'failing',
        consecutiveFailures: 8,
        lastError: 'HTTP 503',
        lastAttemptAt: '2026-01-01T00:00:03.000Z',
        lastSuccessAt: '2026-01-01T00:00:00.000Z',
        pendingDeliveries: 3,
      },
      {
        taskId: task.id,
        configId: 'second',
        url: 'https://two.example/hook',
        createdAt: expect.any(String) as string,
        state: 'active',
        consecutiveFailures: 0,
        pendingDeliveries: 0,
      },
    ]);
    expect(view.attempts).toEqual([
      {
        configId: 'first',
        deliveryId: 7,
        at: '2026-01-01T00:00:03.000Z',
        attempt: 2,
        outcome: 'retry',
        latencyMs: 12.5,
        error: 'timed out after 10000 ms',
      },
      { configId: 'second', deliveryId: 8, at: '2026-01-01T00:00:02.000Z', attempt: 1, outcome: 'delivered', status: 200, latencyMs: 12.5 },
      {
        configId: 'first',
        deliveryId: 7,
        at: '2026-01-01T00:00:01.000Z',
        attempt: 1,
        outcome: 'retry',
        status: 503,
        latencyMs: 12.5,
        error: 'HTTP 503',
      },
    ]);

    const limited = await readPush(task.id, '&attemptLimit=2');
    expect(limited.attempts.map((row) => row.at)).toEqual(['2026-01-01T00:00:03.000Z', '2026-01-01T00:00:02.000Z']);
  });

  it('answers an empty view for a task without configs', async () => {
    const task = await newTask();
    expect(await readPush(task.id)).toEqual({ taskId: task.id, serverId: 'default', configs: [], attempts: [] });
  });

  it('answers 404 naming an unknown task, and 400 naming a missing or bad parameter', async () => {
    const unknown = await get(`${PUSH_PATH}?taskId=no-such-task`);
    expect(unknown.status).toBe(404);
    expect(expectControl('ReadError', unknown.body)).toEqual({ ok: false, message: 'no task has id "no-such-task"' });

    const missing = await get(PUSH_PATH);
    expect(missing.status).toBe(400);
    expect(expectControl('ReadError', missing.body).violations).toEqual([{ field: 'taskId', description: 'is required' }]);

    for (const [value, description] of [
      ['0', 'must be >= 1'],
      ['1001', 'must be <= 1000'],
      ['many', 'must be a whole number, got "many"'],
    ] as const) {
      const bad = await get(`${PUSH_PATH}?taskId=x&attemptLimit=${value}`);
      expect(bad.status).toBe(400);
      expect(expectControl('ReadError', bad.body).violations).toEqual([{ field: 'attemptLimit', description }]);
    }
  });
});

describe('the snapshot', () => {
  it('counts pending deliveries and lists the failing and disabled configs', async () => {
    const before = (await controlSnapshot(control.url)).push;
    const task = await newTask();
    await seedPushConfig(hub.store, task.id, 'fine');
    await seedPushConfig(hub.store, task.id, 'failing');
    await seedPushConfig(hub.store, task.id, 'gone');
    await queueDeliveries(hub.store, task, 'fine', 1);
    await queueDeliveries(hub.store, task, 'failing', 2);
    await hub.store.setPushHealth(task.id, 'failing', { state: 'failing', consecutiveFailures: 9, lastError: 'connection refused' });
    await hub.store.setPushHealth(task.id, 'gone', { state: 'disabled', consecutiveFailures: 1, lastError: 'HTTP 410' });

    const snapshot = await controlSnapshot(control.url);
    answers.push(JSON.stringify(snapshot));
    expect(snapshot.push.pendingDeliveries).toBe(before.pendingDeliveries + 3);
    expect(snapshot.push.failingConfigs).toBe(before.failingConfigs + 1);
    expect(snapshot.push.disabledConfigs).toBe(before.disabledConfigs + 1);
    // Oldest first, and these three were created in (about) the same millisecond: compare them by id.
    const mine = snapshot.push.unhealthy.filter((row) => row.taskId === task.id).sort((a, b) => a.configId.localeCompare(b.configId));
    expect(mine.map((row) => [row.configId, row.state, row.consecutiveFailures, row.lastError, row.pendingDeliveries])).toEqual([
      ['failing', 'failing', 9, 'connection refused', 2],
      ['gone', 'disabled', 1, 'HTTP 410', 0],
    ]);
  });
});

describe('the snapshot, with more unhealthy configs than it lists', () => {
  it('lists 100 and counts them all', async () => {
    const task = await newTask();
    const ids = Array.from({ length: 101 }, (_, index) => `many-${String(index).padStart(3, '0')}`);
    for (const id of ids) {
      await seedPushConfig(hub.store, task.id, id);
      await hub.store.setPushHealth(task.id, id, { state: 'failing', consecutiveFailures: 8 });
    }
    try {
      const { push } = await controlSnapshot(control.url);
      expect(push.unhealthy).toHaveLength(100);
      expect(push.failingConfigs).toBeGreaterThanOrEqual(101);
    } finally {
      for (const id of ids) await hub.store.deletePushConfig(task.id, id);
    }
  });
});

describe('push.retry', () => {
  it('makes a failing config active with no failures, its deliveries due now, and wakes the dispatcher', async () => {
    const task = await newTask();
    await seedPushConfig(hub.store, task.id, 'hook');
    await queueDeliveries(hub.store, task, 'hook', 2);
    await postpone(task.id, 'hook');
    await hub.store.setPushHealth(task.id, 'hook', {
      state: 'failing',
      consecutiveFailures: 8,
      lastError: 'HTTP 503',
      lastAttemptAt: '2026-01-01T00:00:03.000Z',
      lastSuccessAt: '2026-01-01T00:00:00.000Z',
    });
    expect(await isDue(task.id, 'hook')).toBe(false);
    const kicksBefore = kicks;

    const done = await act({ action: 'push.retry', taskId: task.id, configId: 'hook' });
    expect(done).toEqual({
      ok: true,
      message: `push config "hook" of task ${task.id} is active again: 2 pending deliveries due now`,
      taskId: task.id,
      id: 'hook',
    });
    expect(kicks).toBe(kicksBefore + 1);
    expect(await isDue(task.id, 'hook')).toBe(true);
    expect((await hub.store.getPushConfig(task.id, 'hook'))?.health).toEqual({
      state: 'active',
      consecutiveFailures: 0,
      lastAttemptAt: '2026-01-01T00:00:03.000Z',
      lastSuccessAt: '2026-01-01T00:00:00.000Z',
    });
    const [row] = (await readPush(task.id)).configs;
    expect(row).toMatchObject({ state: 'active', consecutiveFailures: 0, pendingDeliveries: 2 });
    expect(row?.lastError).toBeUndefined();
  });

  it('enables a config the receiver disabled again, and says that the dropped deliveries stay dropped', async () => {
    const task = await newTask();
    await seedPushConfig(hub.store, task.id, 'hook');
    await queueDeliveries(hub.store, task, 'hook', 1);
    await hub.store.setPushHealth(task.id, 'hook', { state: 'disabled', consecutiveFailures: 1, lastError: 'HTTP 410' });
    expect(await hub.store.pendingDeliveries(task.id, 'hook')).toBe(0);

    const done = await act({ action: 'push.retry', taskId: task.id, configId: 'hook' });
    expect(done.message).toBe(
      `push config "hook" of task ${task.id} is active again: 0 pending deliveries due now; it had been disabled, and the deliveries dropped then are not restored`,
    );
    expect((await hub.store.getPushConfig(task.id, 'hook'))?.health.state).toBe('active');
    // Active again, it is owed the task's next events.
    await queueDeliveries(hub.store, task, 'hook', 1);
    expect(await hub.store.pendingDeliveries(task.id, 'hook')).toBe(1);
  });

  it('on an active config, resets its failures and makes its backlog due all the same', async () => {
    const task = await newTask();
    await seedPushConfig(hub.store, task.id, 'hook');
    await queueDeliveries(hub.store, task, 'hook', 1);
    await postpone(task.id, 'hook');
    await hub.store.setPushHealth(task.id, 'hook', { state: 'active', consecutiveFailures: 2, lastError: 'HTTP 502' });

    const done = await act({ action: 'push.retry', taskId: task.id, configId: 'hook' });
    expect(done.message).toBe(`push config "hook" of task ${task.id} is active: 1 pending delivery due now`);
    expect((await hub.store.getPushConfig(task.id, 'hook'))?.health).toEqual({ state: 'active', consecutiveFailures: 0 });
    expect(await isDue(task.id, 'hook')).toBe(true);
  });

  it('fails with 409 naming an unknown task or config, and wakes nothing', async () => {
    const task = await newTask();
    const kicksBefore = kicks;
    expect(await refused({ action: 'push.retry', taskId: 'no-such-task', configId: 'hook' }, 409)).toEqual({
      ok: false,
      message: 'no task has id "no-such-task"',
    });
    expect(await refused({ action: 'push.retry', taskId: task.id, configId: 'nope' }, 409)).toEqual({
      ok: false,
      message: `task ${task.id} has no push config "nope"; GET /a2a/api/push?taskId=${task.id} lists its configs`,
    });
    expect(kicks).toBe(kicksBefore);
  });
});

describe('push.delete', () => {
  it('deletes a config with its deliveries and attempts, and succeeds again when it is gone', async () => {
    const task = await newTask();
    await seedPushConfig(hub.store, task.id, 'hook');
    await seedPushConfig(hub.store, task.id, 'kept');
    await queueDeliveries(hub.store, task, 'hook', 2);
    await hub.store.recordAttempt(attempt(task, 'hook', 1, new Date().toISOString()), 20);

    const done = await act({ action: 'push.delete', taskId: task.id, configId: 'hook' });
    expect(done).toEqual({
      ok: true,
      message: `push config "hook" of task ${task.id} deleted with 2 pending deliveries`,
      taskId: task.id,
      id: 'hook',
    });
    expect(await hub.store.getPushConfig(task.id, 'hook')).toBeUndefined();
    expect(await hub.store.pendingDeliveries(task.id, 'hook')).toBe(0);
    const view = await readPush(task.id);
    expect(view.configs.map((row) => row.configId)).toEqual(['kept']);
    expect(view.attempts).toEqual([]);

    const again = await act({ action: 'push.delete', taskId: task.id, configId: 'hook' });
    expect(again).toEqual({
      ok: true,
      message: `task ${task.id} has no push config "hook" (already deleted): nothing to do`,
      taskId: task.id,
      id: 'hook',
    });
    expect((await readPush(task.id)).configs.map((row) => row.configId)).toEqual(['kept']);
  });

  it('fails with 409 for an unknown task', async () => {
    expect(await refused({ action: 'push.delete', taskId: 'no-such-task', configId: 'hook' }, 409)).toEqual({
      ok: false,
      message: 'no task has id "no-such-task"',
    });
  });
});

describe('bad push action bodies', () => {
  it.each([
    [{ action: 'push.retry', taskId: 't' }, 'configId'],
    [{ action: 'push.delete', configId: 'c' }, 'taskId'],
    [{ action: 'push.retry', taskId: '', configId: 'c' }, 'taskId'],
    [{ action: 'push.delete', taskId: 't', configId: 7 }, 'configId'],
    [{ action: 'push.retry', taskId: 't', configId: 'c', token: 'x' }, 'token'],
  ])('%j is refused with 400 naming %s', async (body, field) => {
    const failure = await refused(body, 400);
    expect(failure.message).toMatch(/^not a valid control action: /);
    expect(failure.message).toContain(field);
    expect(failure.violations?.map((violation) => violation.field)).toContain(field);
  });
});

describe('no push secret leaves the control API', () => {
  it('in no answer above, nor in the task read, the snapshot, the metrics or the panel', async () => {
    const task = await newTask();
    await seedPushConfig(hub.store, task.id, 'hook');
    await hub.store.setPushHealth(task.id, 'hook', { state: 'failing', consecutiveFailures: 8, lastError: 'HTTP 500' });
    for (const path of [
      `${PUSH_PATH}?taskId=${task.id}`,
      `${CONTROL_API.basePath}/task?id=${task.id}`,
      CONTROL_API.basePath,
      `${CONTROL_API.basePath}/metrics`,
      `${CONTROL_API.basePath}/metrics?format=prometheus`,
    ])
      answers.push((await send(`${control.url}${path}`)).text);
    // The panel is the one HTML page, which `send` refuses: read it plainly.
    answers.push(await (await fetch(`${control.url}${CONTROL_API.panelPath}`)).text());
    answers.push(JSON.stringify(await act({ action: 'push.retry', taskId: task.id, configId: 'hook' })));
    answers.push(JSON.stringify(await act({ action: 'push.delete', taskId: task.id, configId: 'hook' })));

    // The sealed value in the store does hold them: the check below would see a leak.
    await seedPushConfig(hub.store, task.id, 'probe');
    expect(JSON.stringify(await hub.store.getPushConfig(task.id, 'probe'))).toContain(PUSH_SECRET_MARKERS[0]);
    expect(answers.length).toBeGreaterThan(20);
    for (const marker of PUSH_SECRET_MARKERS) expect(answers.filter((text) => text.includes(marker))).toEqual([]);
  });

  it('and every reply conformed to spec/control', () => {
    expect(nonConforming).toEqual([]);
  });
});
