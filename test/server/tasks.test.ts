import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { MethodTypes } from '../../generated/a2a/1.0/methods.js';
import type { AgentCard, ListTasksResponse, Task } from '../../generated/a2a/1.0/types.js';
import { testDirectiveMetadata } from '../../generated/hub/test-directives.js';
import { A2A_1_0 } from '../../src/protocol/a2a-schema.js';
import { checkValue } from '../../src/protocol/validation.js';
import { call, expectErrorResponse, expectRpcError, rpc, userMessage } from '../helpers/a2a-client.js';
import { violationFields } from '../helpers/errors.js';
import { startTestHub, type TestHub } from '../helpers/hub.js';
import { inputRequiredTask, sendTask } from '../helpers/tasks.js';
import { waitFor } from '../helpers/wait.js';

/**
 * GetTask, ListTasks, CancelTask, the push-config methods and GetExtendedAgentCard over real
 * HTTP, against the default echo agent and a second instance of the same hub.
 */

let hub: TestHub;
/** JSON-RPC endpoint of a second inbound instance. */
let otherUrl: string;

beforeAll(async () => {
  hub = await startTestHub();
  const other = await hub.inbounds.create({ name: 'other', description: 'd', version: '1' });
  otherUrl = `${hub.url}/a2a/${other.id}`;
});

afterAll(async () => {
  await hub?.dispose();
});

/** A completed echo task in the given context. */
async function completedTask(contextId: string, text = 'hello', url = hub.endpoint): Promise<Task> {
  const task = await sendTask(url, { message: userMessage(text, { contextId }) });
  expect(task.status.state).toBe('TASK_STATE_COMPLETED');
  return task;
}

/** A completed task with three history messages: user, agent (input request), user. */
async function threeMessageTask(contextId?: string): Promise<Task> {
  const first = await inputRequiredTask(hub.endpoint, contextId === undefined ? {} : { contextId });
  const done = await sendTask(hub.endpoint, { message: userMessage('more', { taskId: first.id }) });
  expect(done.status.state).toBe('TASK_STATE_COMPLETED');
  expect(done.history).toHaveLength(3);
  return done;
}

async function listTasks(params: MethodTypes['ListTasks']['params'], url = hub.endpoint): Promise<ListTasksResponse> {
  return call(url, 'ListTasks', params);
}

/**
 * Walks the ListTasks pages of a context two tasks at a time, checking every page (pageSize 2,
 * `totalSize` throughout, two tasks on every page but the last) and running `between` after
 * each page but the last. Returns the task ids in the order visited and the number of pages.
 */
async function walkInPagesOfTwo(
  contextId: string,
  totalSize: number,
  between: (visited: readonly string[], pages: number) => Promise<void>,
): Promise<{ visited: string[]; pages: number }> {
  const visited: string[] = [];
  let pageToken = '';
  for (let pages = 1; ; pages += 1) {
    const page = await listTasks({ contextId, pageSize: 2, ...(pageToken === '' ? {} : { pageToken }) });
    expect(page.pageSize).toBe(2);
    expect(page.totalSize).toBe(totalSize);
    expect(page.tasks.length).toBeLessThanOrEqual(2);
    visited.push(...page.tasks.map((task) => task.id));
    pageToken = page.nextPageToken;
    if (pageToken === '') return { visited, pages };
    expect(page.tasks).toHaveLength(2);
    if (pages > 10) throw new Error('the walk does not end');
    await between(visited, pages);
  }
}

/** Waits (bounded) until the wall clock is past the given timestamp, so later statuses are strictly newer. */
async function clockPast(timestamp: string | undefined): Promise<void> {
  const target = Date.parse(timestamp ?? '');
  expect(Number.isFinite(target)).toBe(true);
  const deadline = Date.now() + 2000;
  while (Date.now() <= target) {
    if (Date.now() > deadline) throw new Error(`the clock did not pass ${timestamp}`);
    await new Promise((resolve) => setTimeout(resolve, 1));
  }
}

/** Waits (bounded) until no executor is running in the hub. */
async function executorsIdle(): Promise<void> {
  await waitFor(
    () => hub.runtime.activeCount,
    (running) => running === 0,
    'every executor of the hub to stop (the count still running is the last read)',
    10_000,
    10,
  );
}

describe('GetTask', () => {
  it('returns the task, with its whole history when historyLength is unset', async () => {
    const done = await threeMessageTask();
    const task = await call(hub.endpoint, 'GetTask', { id: done.id });
    expect(task.id).toBe(done.id);
    expect(task.contextId).toBe(done.contextId);
    expect(task.status).toEqual(done.status);
    expect(task.artifacts).toEqual(done.artifacts);
    expect(task.history).toEqual(done.history);
    expect(task.history?.map((message) => message.role)).toEqual(['ROLE_USER', 'ROLE_AGENT', 'ROLE_USER']);
  });

  it('historyLength 0 omits history, 1 returns the most recent message', async () => {
    const done = await threeMessageTask();
    const none = await call(hub.endpoint, 'GetTask', { id: done.id, historyLength: 0 });
    expect(none).not.toHaveProperty('history');
    expect(none.status.state).toBe('TASK_STATE_COMPLETED');
    const one = await call(hub.endpoint, 'GetTask', { id: done.id, historyLength: 1 });
    expect(one.history).toHaveLength(1);
    expect(one.history?.[0]).toEqual(done.history?.[2]);
    const two = await call(hub.endpoint, 'GetTask', { id: done.id, historyLength: 2 });
    expect(two.history).toEqual(done.history?.slice(1));
    const many = await call(hub.endpoint, 'GetTask', { id: done.id, historyLength: 100 });
    expect(many.history).toEqual(done.history);
  });

  it('a negative historyLength is INVALID_PARAMS', async () => {
    const done = await completedTask(`ctx-${randomUUID()}`);
    const error = await expectRpcError(hub.endpoint, 'GetTask', { id: done.id, historyLength: -1 }, 'InvalidParamsError');
    expect(violationFields(error)).toEqual(['params.historyLength']);
  });

  it('an unknown id is TASK_NOT_FOUND', async () => {
    await expectRpcError(hub.endpoint, 'GetTask', { id: `no-such-task-${randomUUID()}` }, 'TaskNotFoundError');
  });

  it('a task of another instance is not found, in both directions', async () => {
    const mine = await completedTask(`ctx-${randomUUID()}`);
    await expectRpcError(otherUrl, 'GetTask', { id: mine.id }, 'TaskNotFoundError');
    const theirs = await completedTask(`ctx-${randomUUID()}`, 'hello', otherUrl);
    expect((await call(otherUrl, 'GetTask', { id: theirs.id })).id).toBe(theirs.id);
    await expectRpcError(hub.endpoint, 'GetTask', { id: theirs.id }, 'TaskNotFoundError');
  });
});

describe('ListTasks', () => {
  it('always has tasks, nextPageToken, pageSize and totalSize, even when nothing matches', async () => {
    const empty = await listTasks({ contextId: `ctx-empty-${randomUUID()}` });
    expect(empty).toEqual({ tasks: [], nextPageToken: '', pageSize: 50, totalSize: 0 });
    const contextId = `ctx-${randomUUID()}`;
    const task = await completedTask(contextId);
    const page = await listTasks({ contextId });
    expect(Object.keys(page).sort()).toEqual(['nextPageToken', 'pageSize', 'tasks', 'totalSize']);
    expect(page.tasks.map((entry) => entry.id)).toEqual([task.id]);
    expect(page.nextPageToken).toBe('');
    expect(page.pageSize).toBe(50);
    expect(page.totalSize).toBe(1);
  });

  it('params may be omitted', async () => {
    const response = await rpc(hub.endpoint, 'ListTasks', undefined);
    expect(response.body.error).toBeUndefined();
    expect(response.body.result?.pageSize).toBe(50);
  });

  it('pages by 50 by default', async () => {
    const contextId = `ctx-many-${randomUUID()}`;
    const created: Task[] = [];
    for (let batch = 0; batch < 5; batch += 1) {
      created.push(...(await Promise.all(Array.from({ length: 11 }, () => completedTask(contextId)))));
    }
    const first = await listTasks({ contextId });
    expect(first.pageSize).toBe(50);
    expect(first.tasks).toHaveLength(50);
    expect(first.totalSize).toBe(55);
    expect(first.nextPageToken).not.toBe('');
    const second = await listTasks({ contextId, pageToken: first.nextPageToken });
    expect(second.tasks).toHaveLength(5);
    expect(second.totalSize).toBe(55);
    expect(second.nextPageToken).toBe('');
    const seen = [...first.tasks, ...second.tasks].map((task) => task.id);
    expect(new Set(seen).size).toBe(55);
    expect(new Set(seen)).toEqual(new Set(created.map((task) => task.id)));
  });

  it('omits artifacts on every task unless includeArtifacts is true', async () => {
    const contextId = `ctx-artifacts-${randomUUID()}`;
    await completedTask(contextId, 'one');
    await completedTask(contextId, 'two');
    await completedTask(contextId, 'three');
    for (const params of [{ contextId }, { contextId, includeArtifacts: false }]) {
      const page = await listTasks(params);
      expect(page.tasks).toHaveLength(3);
      for (const task of page.tasks) expect(task).not.toHaveProperty('artifacts');
    }
    const withArtifacts = await listTasks({ contextId, includeArtifacts: true });
    expect(withArtifacts.tasks).toHaveLength(3);
    for (const task of withArtifacts.tasks) {
      expect(task.artifacts).toHaveLength(1);
      expect(task.artifacts?.[0]?.parts.map((part) => part.text).join('')).toMatch(/^echo: (one|two|three)$/);
    }
  });

  it('filters by contextId', async () => {
    const a = `ctx-a-${randomUUID()}`;
    const b = `ctx-b-${randomUUID()}`;
    const inA = [await completedTask(a), await completedTask(a)];
    const inB = [await completedTask(b)];
    const pageA = await listTasks({ contextId: a });
    expect(pageA.totalSize).toBe(2);
    expect(new Set(pageA.tasks.map((task) => task.id))).toEqual(new Set(inA.map((task) => task.id)));
    for (const task of pageA.tasks) expect(task.contextId).toBe(a);
    const pageB = await listTasks({ contextId: b });
    expect(pageB.tasks.map((task) => task.id)).toEqual(inB.map((task) => task.id));
  });

  it('filters by status', async () => {
    const contextId = `ctx-status-${randomUUID()}`;
    const waiting = await inputRequiredTask(hub.endpoint, { contextId });
    const done = [await completedTask(contextId), await completedTask(contextId)];
    const interrupted = await listTasks({ contextId, status: 'TASK_STATE_INPUT_REQUIRED' });
    expect(interrupted.totalSize).toBe(1);
    expect(interrupted.tasks.map((task) => task.id)).toEqual([waiting.id]);
    expect(interrupted.tasks[0]?.status.state).toBe('TASK_STATE_INPUT_REQUIRED');
    const completed = await listTasks({ contextId, status: 'TASK_STATE_COMPLETED' });
    expect(completed.totalSize).toBe(2);
    expect(new Set(completed.tasks.map((task) => task.id))).toEqual(new Set(done.map((task) => task.id)));
    const failed = await listTasks({ contextId, status: 'TASK_STATE_FAILED' });
    expect(failed).toEqual({ tasks: [], nextPageToken: '', pageSize: 50, totalSize: 0 });
  });

  it('filters by statusTimestampAfter, inclusively', async () => {
    const contextId = `ctx-since-${randomUUID()}`;
    const before = [await completedTask(contextId), await completedTask(contextId)];
    await clockPast(before.at(-1)?.status.timestamp);
    const cut = new Date().toISOString();
    const after = [await completedTask(contextId), await completedTask(contextId), await completedTask(contextId)];
    for (const task of after) expect(Date.parse(task.status.timestamp ?? '')).toBeGreaterThanOrEqual(Date.parse(cut));
    const page = await listTasks({ contextId, statusTimestampAfter: cut });
    expect(page.totalSize).toBe(3);
    expect(new Set(page.tasks.map((task) => task.id))).toEqual(new Set(after.map((task) => task.id)));
    // ">=": a task whose status timestamp equals the bound is included.
    const exact = before.at(-1)?.status.timestamp as string;
    const inclusive = await listTasks({ contextId, statusTimestampAfter: exact });
    const expected = [...before, ...after].filter((task) => Date.parse(task.status.timestamp ?? '') >= Date.parse(exact));
    expect(expected.map((task) => task.id)).toContain(before.at(-1)?.id);
    expect(new Set(inclusive.tasks.map((task) => task.id))).toEqual(new Set(expected.map((task) => task.id)));
    expect(inclusive.totalSize).toBe(expected.length);
  });

  it('sorts by status timestamp, newest first', async () => {
    const contextId = `ctx-order-${randomUUID()}`;
    const waiting = await inputRequiredTask(hub.endpoint, { contextId });
    const a = await completedTask(contextId);
    const b = await completedTask(contextId);
    await clockPast(b.status.timestamp);
    // Resuming the oldest task gives it the newest status: it moves to the top.
    const resumed = await sendTask(hub.endpoint, { message: userMessage('more', { taskId: waiting.id }) });
    expect(resumed.status.state).toBe('TASK_STATE_COMPLETED');
    const page = await listTasks({ contextId });
    expect(page.tasks).toHaveLength(3);
    expect(page.tasks[0]?.id).toBe(waiting.id);
    expect(new Set(page.tasks.slice(1).map((task) => task.id))).toEqual(new Set([a.id, b.id]));
    const stamps = page.tasks.map((task) => Date.parse(task.status.timestamp ?? ''));
    for (let index = 1; index < page.tasks.length; index += 1) {
      const [previous, current] = [page.tasks[index - 1] as Task, page.tasks[index] as Task];
      expect(stamps[index - 1]).toBeGreaterThanOrEqual(stamps[index] as number);
      if (stamps[index - 1] === stamps[index]) expect(previous.id > current.id).toBe(true);
    }
  });

  it('pages of 2 over 7 tasks visit each once, with totalSize 7 throughout, even while tasks are created', async () => {
    const contextId = `ctx-walk-${randomUUID()}`;
    const original: string[] = [];
    for (let index = 0; index < 7; index += 1) original.push((await completedTask(contextId, `task ${index}`)).id);
    const reference = await listTasks({ contextId, pageSize: 100 });
    expect(reference.totalSize).toBe(7);

    const created: string[] = [];
    const { visited, pages } = await walkInPagesOfTwo(contextId, 7, async (_visited, pages) => {
      // A new task in the same context between two page requests.
      created.push((await completedTask(contextId, `new ${pages}`)).id);
    });
    expect(pages).toBe(4);
    expect(visited).toHaveLength(7);
    expect(new Set(visited).size).toBe(7);
    expect(visited).toEqual(reference.tasks.map((task) => task.id));
    expect(new Set(visited)).toEqual(new Set(original));
    for (const id of created) expect(visited).not.toContain(id);
    const now = await listTasks({ contextId });
    expect(now.totalSize).toBe(7 + created.length);
  });

  it('a walk visits each task once even when tasks change status between page requests', async () => {
    const contextId = `ctx-walk-status-${randomUUID()}`;
    const waiting: Task[] = [];
    for (let index = 0; index < 3; index += 1) waiting.push(await inputRequiredTask(hub.endpoint, { contextId }));
    const done: Task[] = [];
    for (let index = 0; index < 4; index += 1) done.push(await completedTask(contextId, `done ${index}`));
    const reference = await listTasks({ contextId, pageSize: 100 });
    expect(reference.totalSize).toBe(7);

    const { visited } = await walkInPagesOfTwo(contextId, 7, async (visited) => {
      // An interrupted task not visited yet gets the newest status (it would jump above the cursor).
      const next = waiting.find((task) => !visited.includes(task.id) && task.status.state === 'TASK_STATE_INPUT_REQUIRED');
      if (next !== undefined) {
        await clockPast((await call(hub.endpoint, 'GetTask', { id: visited.at(-1) as string })).status.timestamp);
        const resumed = await sendTask(hub.endpoint, { message: userMessage('more', { taskId: next.id }) });
        expect(resumed.status.state).toBe('TASK_STATE_COMPLETED');
        next.status = resumed.status;
      }
    });
    expect(visited).toHaveLength(7);
    expect(new Set(visited)).toEqual(new Set([...waiting, ...done].map((task) => task.id)));
    expect(visited).toEqual(reference.tasks.map((task) => task.id));
  });

  it('a bad pageToken is INVALID_PARAMS on params.pageToken', async () => {
    const contextId = `ctx-token-${randomUUID()}`;
    for (let index = 0; index < 3; index += 1) await completedTask(contextId);
    for (const pageToken of ['not-a-token', '!!!', Buffer.from('{"v":1}').toString('base64url')]) {
      const error = await expectRpcError(hub.endpoint, 'ListTasks', { contextId, pageToken }, 'InvalidParamsError');
      expect(violationFields(error)).toEqual(['params.pageToken']);
    }
    // A real token, replayed with other filters.
    const first = await listTasks({ contextId, pageSize: 1 });
    expect(first.nextPageToken).not.toBe('');
    const error = await expectRpcError(
      hub.endpoint,
      'ListTasks',
      { contextId: `${contextId}-other`, pageSize: 1, pageToken: first.nextPageToken },
      'InvalidParamsError',
    );
    expect(violationFields(error)).toEqual(['params.pageToken']);
  });

  it('pageSize 0 and 101 are INVALID_PARAMS; 1 and 100 are accepted', async () => {
    for (const pageSize of [0, 101, -1]) {
      const error = await expectRpcError(hub.endpoint, 'ListTasks', { pageSize }, 'InvalidParamsError');
      expect(violationFields(error)).toEqual(['params.pageSize']);
    }
    for (const pageSize of [1, 100]) expect((await listTasks({ pageSize })).pageSize).toBe(pageSize);
  });

  it('historyLength applies to every listed task', async () => {
    const contextId = `ctx-history-${randomUUID()}`;
    const tasks = [await threeMessageTask(contextId), await threeMessageTask(contextId)];
    const full = await listTasks({ contextId });
    expect(full.tasks).toHaveLength(2);
    for (const task of full.tasks) expect(task.history).toHaveLength(3);
    const one = await listTasks({ contextId, historyLength: 1 });
    expect(one.tasks).toHaveLength(2);
    for (const task of one.tasks) {
      const original = tasks.find((candidate) => candidate.id === task.id);
      expect(task.history).toEqual(original?.history?.slice(-1));
    }
    const none = await listTasks({ contextId, historyLength: 0 });
    expect(none.tasks).toHaveLength(2);
    for (const task of none.tasks) expect(task).not.toHaveProperty('history');
    await expectRpcError(hub.endpoint, 'ListTasks', { contextId, historyLength: -1 }, 'InvalidParamsError');
  });

  it('never lists tasks of another instance', async () => {
    const contextId = `ctx-shared-${randomUUID()}`;
    const mine = await completedTask(contextId);
    const theirs = await completedTask(contextId, 'hello', otherUrl);
    const here = await listTasks({ contextId });
    expect(here.totalSize).toBe(1);
    expect(here.tasks.map((task) => task.id)).toEqual([mine.id]);
    const there = await listTasks({ contextId }, otherUrl);
    expect(there.totalSize).toBe(1);
    expect(there.tasks.map((task) => task.id)).toEqual([theirs.id]);
    // Without filters, too: nothing of the default instance shows on the other one.
    const all = await listTasks({ pageSize: 100 }, otherUrl);
    expect(all.tasks.map((task) => task.id)).not.toContain(mine.id);
    const allHere = await listTasks({ pageSize: 100 });
    expect(allHere.tasks.map((task) => task.id)).not.toContain(theirs.id);
    expect(all.totalSize).toBeLessThan(allHere.totalSize);
  });
});

describe('CancelTask', () => {
  it('cancels a running task, and the executor does not overwrite CANCELED', async () => {
    const running = await sendTask(hub.endpoint, {
      message: userMessage('hello\n::slow 50', { metadata: testDirectiveMetadata({ stepMs: 40 }) }),
      configuration: { returnImmediately: true },
    });
    expect(['TASK_STATE_SUBMITTED', 'TASK_STATE_WORKING']).toContain(running.status.state);
    const canceled = await call(hub.endpoint, 'CancelTask', { id: running.id });
    expect(canceled.id).toBe(running.id);
    expect(canceled.status.state).toBe('TASK_STATE_CANCELED');
    // Once every executor has stopped (a non-aborted one would take 2 s), the task is still CANCELED.
    await executorsIdle();
    const later = await call(hub.endpoint, 'GetTask', { id: running.id });
    expect(later.status.state).toBe('TASK_STATE_CANCELED');
    expect(later).not.toHaveProperty('artifacts');
    expect(running.contextId).toBeTruthy();
    const listed = await listTasks({ contextId: running.contextId, status: 'TASK_STATE_CANCELED' });
    expect(listed.tasks.map((task) => task.id)).toEqual([running.id]);
  });

  it('a completed task is TASK_NOT_CANCELABLE', async () => {
    const done = await completedTask(`ctx-${randomUUID()}`);
    await expectRpcError(hub.endpoint, 'CancelTask', { id: done.id }, 'TaskNotCancelableError');
    expect((await call(hub.endpoint, 'GetTask', { id: done.id })).status.state).toBe('TASK_STATE_COMPLETED');
  });

  it('an INPUT_REQUIRED task can be canceled, and canceling it again is TASK_NOT_CANCELABLE', async () => {
    const waiting = await inputRequiredTask(hub.endpoint);
    const canceled = await call(hub.endpoint, 'CancelTask', { id: waiting.id });
    expect(canceled.status.state).toBe('TASK_STATE_CANCELED');
    expect((await call(hub.endpoint, 'GetTask', { id: waiting.id })).status.state).toBe('TASK_STATE_CANCELED');
    await expectRpcError(hub.endpoint, 'CancelTask', { id: waiting.id }, 'TaskNotCancelableError');
    expect((await call(hub.endpoint, 'GetTask', { id: waiting.id })).status.state).toBe('TASK_STATE_CANCELED');
    // A canceled task is terminal: it takes no more messages.
    await expectRpcError(
      hub.endpoint,
      'SendMessage',
      { message: userMessage('more', { taskId: waiting.id }) },
      'UnsupportedOperationError',
    );
  });

  it('an unknown id, or a task of another instance, is TASK_NOT_FOUND', async () => {
    await expectRpcError(hub.endpoint, 'CancelTask', { id: `no-such-task-${randomUUID()}` }, 'TaskNotFoundError');
    const waiting = await inputRequiredTask(hub.endpoint);
    await expectRpcError(otherUrl, 'CancelTask', { id: waiting.id }, 'TaskNotFoundError');
    expect((await call(hub.endpoint, 'GetTask', { id: waiting.id })).status.state).toBe('TASK_STATE_INPUT_REQUIRED');
  });
});

describe('push notification config methods', () => {
  it('all four are PUSH_NOTIFICATION_NOT_SUPPORTED on an instance that turns push off', async () => {
    const quiet = await hub.inbounds.create({
      name: 'no push',
      description: 'push off',
      version: '1.0.0',
      preset: 'echo',
      pushNotifications: false,
    });
    const endpoint = `${hub.url}${quiet.endpointPath}`;
    const task = await completedTask(`ctx-${randomUUID()}`, 'hello', endpoint);
    const taskId = task.id;
    await expectRpcError(
      endpoint,
      'CreateTaskPushNotificationConfig',
      { taskId, url: 'https://example.com/webhook' },
      'PushNotificationNotSupportedError',
    );
    await expectRpcError(endpoint, 'GetTaskPushNotificationConfig', { taskId, id: 'config-1' }, 'PushNotificationNotSupportedError');
    await expectRpcError(endpoint, 'ListTaskPushNotificationConfigs', { taskId }, 'PushNotificationNotSupportedError');
    await expectRpcError(endpoint, 'DeleteTaskPushNotificationConfig', { taskId, id: 'config-1' }, 'PushNotificationNotSupportedError');
  });
});

describe('GetExtendedAgentCard', () => {
  async function publicCard(): Promise<AgentCard> {
    const response = await fetch(`${hub.endpoint}/agent-card.json`, { headers: { 'a2a-version': '1.0' } });
    expect(response.status).toBe(200);
    const card = (await response.json()) as AgentCard;
    const verdict = checkValue(A2A_1_0, 'AgentCard', card, { flavour: 'exact' });
    expect(verdict.ok ? [] : verdict.violations).toEqual([]);
    return card;
  }

  it('returns the agent card, the same as the public one', async () => {
    const card = await publicCard();
    const extended = await call(hub.endpoint, 'GetExtendedAgentCard', {});
    expect(extended.name).toBe(card.name);
    expect(extended).toEqual(card);
    // params may be omitted (paramsOptional).
    const bare = await rpc(hub.endpoint, 'GetExtendedAgentCard', undefined);
    expect(bare.body.error).toBeUndefined();
    expect(bare.body.result).toEqual(card);
    expect(card.capabilities.extendedAgentCard).toBe(true);
    expect(card.skills.map((skill) => skill.id)).toContain('chat');
  });

  it('needs the bearer token once the instance has one', async () => {
    await hub.inbounds.setAuth('default', 't0ken');
    try {
      const missing = await rpc(hub.endpoint, 'GetExtendedAgentCard', {});
      expectErrorResponse(missing, 'UnauthenticatedError', { httpStatus: 401 });
      expect(missing.headers.get('www-authenticate')).toMatch(/^Bearer\b/);

      const wrong = await rpc(hub.endpoint, 'GetExtendedAgentCard', {}, { headers: { authorization: 'Bearer wrong' } });
      expectErrorResponse(wrong, 'UnauthenticatedError', { httpStatus: 401 });

      const extended = await call(hub.endpoint, 'GetExtendedAgentCard', {}, { headers: { authorization: 'Bearer t0ken' } });
      const card = await publicCard();
      expect(extended.name).toBe(card.name);
      expect(extended).toEqual(card);
      expect(card.securitySchemes).toHaveProperty('bearer');
      expect(JSON.stringify(card)).not.toContain('t0ken');
    } finally {
      await hub.inbounds.setAuth('default', undefined);
    }
    // Open again once the token is cleared.
    expect((await call(hub.endpoint, 'GetExtendedAgentCard', {})).name).toBe((await publicCard()).name);
  });
});
