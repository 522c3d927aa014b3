import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type * as V03 from '../../generated/a2a/0.3/types.js';
import type { Task } from '../../generated/a2a/1.0/types.js';
import { validateGatewayListTasksResult } from '../../generated/hub/validators.js';
import { A2A_0_3, A2A_1_0 } from '../../src/protocol/a2a-schema.js';
import { checkValue } from '../../src/protocol/validation.js';
import { startTestHub, type TestHub } from '../helpers/hub.js';
import { jsonBlocks } from '../helpers/json-blocks.js';
import { SEED_004, sharedFileAvailable } from '../helpers/paths.js';
import { openFeed, type OpenFeed } from '../helpers/worker-feed.js';

/**
 * Seed 004's gateway behaviour over real HTTP: its example requests as written, the agent-side
 * methods (CompleteTask / tasks/complete, UpdateStatus / tasks/updateStatus) through which an
 * external worker does the tasks of an instance on the worker preset, the worker feed,
 * `configuration.skills` and tasks/list by limit and offset (docs/worker.md, docs/server.md).
 */

const TOKEN = 'worker-secret';
let hub: TestHub;
let worker: string;
let open: string;

beforeAll(async () => {
  hub = await startTestHub({ store: 'memory' });
  worker = (await workerInstance('Worker')).endpoint;
  const unprotected = await hub.inbounds.create({ name: 'Open worker', description: 'no token', version: '1.0.0', preset: 'worker' });
  open = `${hub.url}${unprotected.endpointPath}`;
});

afterAll(() => hub.dispose());

interface Answer {
  readonly status: number;
  readonly version: string | null;
  readonly result?: unknown;
  readonly error?: { code: number; message: string; data?: Record<string, unknown> };
}

/** POSTs an envelope as given (no A2A-Version unless `headers` has one). */
async function rpc(endpoint: string, envelope: unknown, headers: Record<string, string> = {}): Promise<Answer> {
  const response = await fetch(endpoint, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(envelope),
  });
  const body = (await response.json()) as Omit<Answer, 'status' | 'version'>;
  return { status: response.status, version: response.headers.get('a2a-version'), ...body };
}

const bearer = { authorization: `Bearer ${TOKEN}` };

/** An instance of its own on the worker preset, with TOKEN: a feed another test closed may still be attached to a shared one. */
async function workerInstance(name: string, on: TestHub = hub): Promise<{ id: string; endpoint: string }> {
  const created = await on.inbounds.create({ name, description: `${name} (worker preset)`, version: '1.0.0', preset: 'worker' });
  await on.inbounds.setAuth(created.id, TOKEN);
  return { id: created.id, endpoint: `${on.url}${created.endpointPath}` };
}

function task03(answer: Answer): V03.Task {
  expect(answer.error, JSON.stringify(answer.error)).toBeUndefined();
  const verdict = checkValue(A2A_0_3, 'Task', answer.result, { flavour: 'exact' });
  expect(verdict.ok ? [] : verdict.violations).toEqual([]);
  return answer.result as V03.Task;
}

function message03(text: string): Record<string, unknown> {
  return { kind: 'message', messageId: crypto.randomUUID(), role: 'user', parts: [{ kind: 'text', text }] };
}

/** Starts a send that waits for its task, and the assignment the feed got for it. */
async function assignedSend(feed: OpenFeed, text: string): Promise<{ answer: Promise<Answer>; taskId: string }> {
  const answer = rpc(worker, { jsonrpc: '2.0', id: 1, method: 'message/send', params: { message: message03(text) } }, bearer);
  const assigned = await feed.next((event) => event.event === 'assigned' && event.data.text === text);
  return { answer, taskId: assigned.data.taskId };
}

describe.skipIf(!sharedFileAvailable(SEED_004, "seed 004's example requests"))("seed 004's example requests, as written", () => {
  const blocks = () =>
    jsonBlocks(readFileSync(SEED_004, 'utf8')).map((block) => block.value as { method?: string; params?: Record<string, unknown> });
  const request = (method: string) => {
    const found = blocks().find((block) => block.method === method);
    if (found === undefined) throw new Error(`seed 004 has no ${method} example`);
    return found;
  };

  it('SendMessage (kind parts, role "user", no messageId) is answered by the worker through UpdateStatus and CompleteTask', async () => {
    const feed = await openFeed(worker, TOKEN);
    try {
      const sent = rpc(worker, request('SendMessage'), bearer);
      const assigned = await feed.next();
      expect(assigned.event).toBe('assigned');
      const taskId = assigned.event === 'assigned' ? assigned.data.taskId : '';
      expect(assigned.data).toMatchObject({ text: 'What is the weather in San Francisco?', resumed: false, skill: 'chat' });

      const update = request('UpdateStatus');
      const updated = task03(await rpc(worker, { ...update, params: { ...update.params, id: taskId } }, bearer));
      expect(updated.status).toMatchObject({
        state: 'working',
        message: { role: 'agent', parts: [{ kind: 'text', text: 'Processing step 2 of 5...' }] },
      });

      const complete = request('CompleteTask');
      const completed = task03(await rpc(worker, { ...complete, params: { ...complete.params, id: taskId } }, bearer));
      expect(completed.status.state).toBe('completed');
      expect(completed.artifacts?.map((artifact) => artifact.parts)).toEqual([[{ kind: 'text', text: 'Done!' }]]);

      const answer = await sent;
      expect(answer.version).toBe('0.3');
      expect(task03(answer)).toMatchObject({ id: taskId, status: { state: 'completed' } });

      const got = request('GetTask');
      expect(task03(await rpc(worker, { ...got, params: { id: taskId } }, bearer)).artifacts?.[0]?.parts).toEqual([
        { kind: 'text', text: 'Done!' },
      ]);
    } finally {
      feed.close();
    }
  });

  it('CancelTask reaches the worker: the feed says the task was released, and the task is canceled', async () => {
    const feed = await openFeed(worker, TOKEN);
    try {
      const { answer, taskId } = await assignedSend(feed, 'to be canceled');
      const cancel = request('CancelTask');
      expect(task03(await rpc(worker, { ...cancel, params: { id: taskId } }, bearer)).status.state).toBe('canceled');
      const released = await feed.next((event) => event.event === 'released');
      expect(released.data).toEqual({ taskId, reason: 'canceled by the client' });
      expect(task03(await answer).status.state).toBe('canceled');
      const late = await rpc(worker, { jsonrpc: '2.0', id: 2, method: 'CompleteTask', params: { id: taskId } }, bearer);
      expect(late.error).toMatchObject({ code: -32001 });
      expect(late.error?.message).toMatch(/no worker holds task/);
    } finally {
      feed.close();
    }
  });
});

describe('the worker feed and the agent-side methods', () => {
  it('needs the instance token; an instance without one refuses its worker', async () => {
    expect((await openFeed(worker, undefined)).status).toBe(401);
    expect((await openFeed(worker, 'wrong')).status).toBe(401);
    const unprotected = await openFeed(open, undefined);
    expect(unprotected.status).toBe(401);
    const complete = await rpc(open, { jsonrpc: '2.0', id: 1, method: 'tasks/complete', params: { id: 'x' } });
    expect(complete.status).toBe(401);
    expect(complete.error?.message).toMatch(/needs the agent's token, but this agent has none/);
  });

  it("is the worker preset's only: another agent answers CompleteTask with -32601", async () => {
    const answer = await rpc(hub.endpoint, { jsonrpc: '2.0', id: 1, method: 'CompleteTask', params: { id: 'x' } });
    expect(answer.error).toMatchObject({ code: -32601, data: { reason: 'METHOD_NOT_FOUND' } });
    expect(answer.error?.message).toMatch(/worker preset/);
  });

  it("refuses a state a worker may not post, and bad artifacts, naming the field in the request's version", async () => {
    const feed = await openFeed(worker, TOKEN);
    try {
      const { answer, taskId } = await assignedSend(feed, 'bad reports');
      const completed = await rpc(
        worker,
        { jsonrpc: '2.0', id: 1, method: 'tasks/updateStatus', params: { id: taskId, status: { state: 'completed' } } },
        bearer,
      );
      expect(completed.error).toMatchObject({ code: -32602, data: { fieldViolations: [{ field: 'params.status.state' }] } });
      expect(completed.error?.message).toMatch(/working, input-required, auth-required, failed, rejected/);
      // Without a version a part without kind would be read as 1.0's, which it is: 0.3 says so.
      const noKind = await rpc(
        worker,
        { jsonrpc: '2.0', id: 2, method: 'CompleteTask', params: { id: taskId, artifacts: [{ parts: [{ text: 'x' }] }] } },
        { ...bearer, 'a2a-version': '0.3' },
      );
      expect(noKind.error?.code).toBe(-32602);
      expect((noKind.error?.data?.['fieldViolations'] as { field: string }[])[0]?.field).toMatch(/^params\.artifacts\[0\]\.parts\[0\]/);
      // Nothing was applied: the task is still the worker's.
      const done = await rpc(
        worker,
        { jsonrpc: '2.0', id: 3, method: 'CompleteTask', params: { id: taskId, message: 'all good' } },
        bearer,
      );
      expect(task03(done).status).toMatchObject({ state: 'completed', message: { parts: [{ kind: 'text', text: 'all good' }] } });
      expect(task03(await answer).status.state).toBe('completed');
    } finally {
      feed.close();
    }
  });

  it('input-required goes back to the client, and its follow-up comes to a worker as a resumed assignment', async () => {
    const feed = await openFeed(worker, TOKEN);
    try {
      const { answer, taskId } = await assignedSend(feed, 'ask me');
      await rpc(
        worker,
        {
          jsonrpc: '2.0',
          id: 1,
          method: 'UpdateStatus',
          params: { id: taskId, status: { state: 'input-required', message: 'which city?' } },
        },
        bearer,
      );
      expect(task03(await answer).status).toMatchObject({
        state: 'input-required',
        message: { parts: [{ kind: 'text', text: 'which city?' }] },
      });
      const followUp = rpc(
        worker,
        { jsonrpc: '2.0', id: 2, method: 'message/send', params: { message: { ...message03('Paris'), taskId } } },
        bearer,
      );
      const resumed = await feed.next((event) => event.event === 'assigned' && event.data.taskId === taskId);
      expect(resumed.data).toMatchObject({ resumed: true, text: 'Paris' });
      await rpc(
        worker,
        {
          jsonrpc: '2.0',
          id: 3,
          method: 'CompleteTask',
          params: { id: taskId, artifacts: [{ parts: [{ kind: 'text', text: 'sunny' }] }] },
        },
        bearer,
      );
      expect(task03(await followUp).status.state).toBe('completed');
    } finally {
      feed.close();
    }
  });

  it('a task waits for a worker; one whose worker goes away is given to the next', async () => {
    const { endpoint: worker } = await workerInstance('Lonely worker');
    const sent = rpc(
      worker,
      { jsonrpc: '2.0', id: 1, method: 'message/send', params: { message: message03('nobody yet'), configuration: { blocking: false } } },
      bearer,
    );
    const taskId = task03(await sent).id;
    expect(task03(await rpc(worker, { jsonrpc: '2.0', id: 2, method: 'tasks/get', params: { id: taskId } }, bearer)).status.state).toBe(
      'submitted',
    );
    const first = await openFeed(worker, TOKEN);
    expect((await first.next((event) => event.data.taskId === taskId)).event).toBe('assigned');
    expect(task03(await rpc(worker, { jsonrpc: '2.0', id: 3, method: 'tasks/get', params: { id: taskId } }, bearer)).status.state).toBe(
      'working',
    );
    first.close();
    const second = await openFeed(worker, TOKEN);
    try {
      expect((await second.next((event) => event.data.taskId === taskId)).event).toBe('assigned');
      const done = await rpc(worker, { jsonrpc: '2.0', id: 4, method: 'CompleteTask', params: { id: taskId } }, bearer);
      expect(task03(done).status.state).toBe('completed');
    } finally {
      second.close();
    }
  });

  it("a report naming an assignment that is over is refused; one naming the holder's is not echoed back as a release", async () => {
    const { endpoint } = await workerInstance('Handover');
    const first = await openFeed(endpoint, TOKEN);
    const sent = rpc(endpoint, { jsonrpc: '2.0', id: 1, method: 'message/send', params: { message: message03('handover') } }, bearer);
    const before = await first.next((event) => event.event === 'assigned');
    const taskId = before.data.taskId;
    first.close();
    await first.ended;
    const second = await openFeed(endpoint, TOKEN);
    try {
      const after = await second.next((event) => event.event === 'assigned' && event.data.taskId === taskId);
      const [old, current] = [before, after].map((event) => (event.event === 'assigned' ? event.data.assignmentId : ''));
      expect(current).not.toBe(old);
      const stale = await rpc(
        endpoint,
        { jsonrpc: '2.0', id: 2, method: 'tasks/complete', params: { id: taskId, assignmentId: old, message: 'late' } },
        bearer,
      );
      expect(stale.error).toMatchObject({ code: -32001, data: { metadata: { taskId } } });
      expect(stale.error?.message).toMatch(/is over: the task was given to another worker/);
      const working = await rpc(
        endpoint,
        {
          jsonrpc: '2.0',
          id: 3,
          method: 'tasks/updateStatus',
          params: { id: taskId, assignmentId: current, status: { state: 'working' } },
        },
        bearer,
      );
      expect(task03(working).status.state).toBe('working');
      const done = await rpc(
        endpoint,
        { jsonrpc: '2.0', id: 4, method: 'tasks/complete', params: { id: taskId, assignmentId: current, message: 'mine' } },
        bearer,
      );
      expect(task03(done).status.state).toBe('completed');
      expect(task03(await sent).status.message?.parts).toEqual([{ kind: 'text', text: 'mine' }]);
      // A report that names no assignment may be anyone's: the holder hears of it.
      const other = rpc(endpoint, { jsonrpc: '2.0', id: 5, method: 'message/send', params: { message: message03('anonymous') } }, bearer);
      const next = await second.next((event) => event.event === 'assigned' && event.data.text === 'anonymous');
      await rpc(endpoint, { jsonrpc: '2.0', id: 6, method: 'CompleteTask', params: { id: next.data.taskId } }, bearer);
      expect(task03(await other).status.state).toBe('completed');
      const released = await second.next((event) => event.event === 'released');
      expect(released.data).toEqual({ taskId: next.data.taskId, reason: 'completed by CompleteTask' });
      expect(second.events.filter((event) => event.event === 'released').map((event) => event.data.taskId)).toEqual([next.data.taskId]);
    } finally {
      second.close();
    }
  });

  it('a new token, the instance turned off or removed disconnects its workers; tasks they held wait for the next', async () => {
    const { id, endpoint } = await workerInstance('Rekeyed');
    const feed = await openFeed(endpoint, TOKEN);
    const sent = rpc(endpoint, { jsonrpc: '2.0', id: 1, method: 'message/send', params: { message: message03('rekey') } }, bearer);
    const taskId = (await feed.next((event) => event.event === 'assigned')).data.taskId;
    // A change that leaves token and path alone keeps the worker.
    await hub.inbounds.update(id, { description: 'still the same worker' });
    await hub.inbounds.setAuth(id, 'new-secret');
    expect(await feed.ended).toBe('ended');
    expect((await openFeed(endpoint, TOKEN)).status).toBe(401);
    const rekeyed = await openFeed(endpoint, 'new-secret');
    const stillTheTask = await rekeyed.next((event) => event.event === 'assigned' && event.data.taskId === taskId);
    expect(stillTheTask.data).toMatchObject({ taskId, resumed: false });
    await hub.inbounds.setEnabled(id, false);
    expect(await rekeyed.ended).toBe('ended');
    await hub.inbounds.setEnabled(id, true);
    const again = await openFeed(endpoint, 'new-secret');
    await again.next((event) => event.event === 'assigned' && event.data.taskId === taskId);
    const done = await rpc(
      endpoint,
      { jsonrpc: '2.0', id: 2, method: 'CompleteTask', params: { id: taskId } },
      { authorization: 'Bearer new-secret' },
    );
    expect(task03(done).status.state).toBe('completed');
    expect(task03(await sent).status.state).toBe('completed');
    await hub.inbounds.remove(id);
    expect(await again.ended).toBe('ended');
  });

  it('a 1.0 worker reports in 1.0 shapes and gets 1.0 tasks back', async () => {
    const feed = await openFeed(worker, TOKEN);
    try {
      const { answer, taskId } = await assignedSend(feed, 'in 1.0');
      const headers = { ...bearer, 'a2a-version': '1.0' };
      const updated = await rpc(
        worker,
        { jsonrpc: '2.0', id: 1, method: 'UpdateStatus', params: { id: taskId, status: { state: 'TASK_STATE_WORKING' } } },
        headers,
      );
      expect((updated.result as Task).status.state).toBe('TASK_STATE_WORKING');
      const done = await rpc(
        worker,
        {
          jsonrpc: '2.0',
          id: 2,
          method: 'CompleteTask',
          params: { id: taskId, artifacts: [{ artifactId: 'a1', parts: [{ text: 'from 1.0' }] }] },
        },
        headers,
      );
      expect(checkValue(A2A_1_0, 'Task', done.result, { flavour: 'exact' }).ok).toBe(true);
      expect((done.result as Task).artifacts).toEqual([{ artifactId: 'a1', parts: [{ text: 'from 1.0' }] }]);
      expect(task03(await answer).status.state).toBe('completed');
    } finally {
      feed.close();
    }
  });
});

describe('tasks/list (seed 004)', () => {
  it('ListTasks answers a 0.3 caller by limit and offset (and still a 1.0 caller by page)', async () => {
    for (const text of ['one', 'two', 'three']) {
      await rpc(hub.endpoint, { jsonrpc: '2.0', id: 1, method: 'message/send', params: { message: message03(text) } });
    }
    // Seed 004 gives ListTasks a params table, not an example: limit and offset, no header, as its other requests.
    const list = { jsonrpc: '2.0', id: 2, method: 'ListTasks' };
    const all = await rpc(hub.endpoint, { ...list, params: { limit: 100 } });
    const page = await rpc(hub.endpoint, { ...list, params: { limit: 2, offset: 1 } });
    for (const answer of [all, page]) {
      expect(answer.version).toBe('0.3');
      expect(validateGatewayListTasksResult(answer.result) ? [] : validateGatewayListTasksResult.errors).toEqual([]);
    }
    const everything = all.result as { tasks: V03.Task[]; total: number };
    const paged = page.result as { tasks: V03.Task[]; total: number; limit: number; offset: number };
    expect(everything.tasks.length).toBeGreaterThanOrEqual(3);
    for (const task of everything.tasks) expect(checkValue(A2A_0_3, 'Task', task, { flavour: 'exact' }).ok).toBe(true);
    expect(paged).toMatchObject({ total: everything.total, limit: 2, offset: 1 });
    expect(paged.tasks.map((task) => task.id)).toEqual(everything.tasks.slice(1, 3).map((task) => task.id));
    const slash = await rpc(hub.endpoint, {
      jsonrpc: '2.0',
      id: 3,
      method: 'tasks/list',
      params: { limit: 2, offset: 1, state: 'completed' },
    });
    expect((slash.result as { tasks: V03.Task[] }).tasks.map((task) => task.status.state)).toEqual(['completed', 'completed']);
    const as10 = await rpc(hub.endpoint, { jsonrpc: '2.0', id: 4, method: 'ListTasks', params: { pageSize: 2 } }, { 'a2a-version': '1.0' });
    expect(as10.version).toBe('1.0');
    expect(checkValue(A2A_1_0, 'ListTasksResponse', as10.result, { flavour: 'exact' }).ok).toBe(true);
  });
});

describe('configuration.skills (seed 004)', () => {
  let skilled: string;
  beforeAll(async () => {
    const skill = (id: string) => ({ id, name: id, description: `the ${id} skill`, tags: ['test'] });
    const created = await hub.inbounds.create({
      name: 'Skilled',
      description: 'two skills',
      version: '1.0.0',
      skills: [skill('alpha'), skill('beta')],
    });
    skilled = `${hub.url}${created.endpointPath}`;
  });

  const send = (configuration: unknown, metadata?: Record<string, unknown>) =>
    rpc(skilled, {
      jsonrpc: '2.0',
      id: 1,
      method: 'message/send',
      params: { message: { ...message03('x'), ...(metadata ? { metadata } : {}) }, configuration },
    });

  it('runs the first listed skill the agent has, and rejects a task none of whose skills it has', async () => {
    const beta = task03(await send({ skills: ['gamma', 'beta'] }));
    expect((await hub.store.getTaskInfo(beta.id))?.skill).toBe('beta');
    const none = task03(await send({ skills: ['gamma'] }));
    expect(none.status.state).toBe('rejected');
    expect(none.status.message?.parts).toEqual([{ kind: 'text', text: 'unknown skill "gamma"; this agent advertises: alpha, beta' }]);
  });

  it('refuses a message naming a skill outside the list, and a list that is not one, naming the field', async () => {
    const outside = await send({ skills: ['beta'] }, { skill: 'alpha' });
    expect(outside.error).toMatchObject({ code: -32602, data: { fieldViolations: [{ field: 'params.configuration.skills' }] } });
    const empty = await send({ skills: [] });
    expect(empty.error).toMatchObject({ code: -32602, data: { fieldViolations: [{ field: 'params.configuration.skills' }] } });
  });
});

describe('hub shutdown', () => {
  it('takes back the tasks workers hold and ends their feeds', async () => {
    const own = await startTestHub({ store: 'memory', shutdownGraceMs: 50 });
    let disposed = false;
    try {
      const { endpoint } = await workerInstance('Shut', own);
      const feed = await openFeed(endpoint, TOKEN);
      const sent = rpc(
        endpoint,
        { jsonrpc: '2.0', id: 1, method: 'message/send', params: { message: message03('held'), configuration: { blocking: false } } },
        bearer,
      );
      const taskId = task03(await sent).id;
      await feed.next((event) => event.event === 'assigned' && event.data.taskId === taskId);
      await own.dispose();
      disposed = true;
      // Finished by the hub, not cut when the server dropped its last connections.
      expect(await feed.ended).toBe('ended');
      const released = feed.events.find((event) => event.event === 'released');
      expect(released?.data.taskId).toBe(taskId);
      expect(released?.data.reason).not.toBe('');
    } finally {
      if (!disposed) await own.dispose();
    }
  });
});
