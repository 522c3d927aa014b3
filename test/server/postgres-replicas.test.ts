import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { StreamResponse } from '../../generated/a2a/1.0/types.js';
import { storeLocation } from '../../src/hub.js';
import { call, rpc, stream, userMessage, type SseEvent } from '../helpers/a2a-client.js';
import { inputRequiredTask } from '../helpers/tasks.js';
import { seedPushConfig } from '../helpers/push-fixtures.js';
import { controlAction, controlSnapshot, createInbound, inboundRow } from '../helpers/control.js';
import { PostgresTaskStore } from '../../src/store/postgres-store.js';
import { startTestHub, type TestHub } from '../helpers/hub.js';
import { until } from '../helpers/wait.js';
import { POSTGRES_AVAILABLE, sharedTestPostgres } from '../helpers/postgres.js';

/**
 * Two hubs on one PostgreSQL database (store postgres, databaseUrl), as two replicas behind a load
 * balancer: what one stores, the other answers at once; a stream on one follows a task the other
 * runs, a cancel on one stops the other's executor, and control-API changes reach both.
 */
const postgres = sharedTestPostgres();

/** A SendMessage over plain HTTP, with a bearer token when given: its status is what matters. */
async function rawSend(endpoint: string, message: unknown, token?: string): Promise<Response> {
  const response = await fetch(endpoint, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      'a2a-version': '1.0',
      ...(token === undefined ? {} : { authorization: `Bearer ${token}` }),
    },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'SendMessage', params: { message } }),
  });
  await response.text();
  return response;
}

describe.skipIf(!POSTGRES_AVAILABLE)('two hubs on one PostgreSQL database', () => {
  let a: TestHub;
  let b: TestHub;
  let databaseUrl: string;
  beforeAll(async () => {
    databaseUrl = (await postgres.databaseUrl()).replace('://a2ahub@', '://a2ahub:secret-pw@');
    // One after the other: the second finds the schema and the default instance the first made.
    a = await startTestHub({ store: 'postgres', databaseUrl });
    b = await startTestHub({ store: 'postgres', databaseUrl });
  });
  afterAll(async () => {
    await a?.dispose();
    await b?.dispose();
  });

  it('serves a task one replica created from the other: GetTask, ListTasks, a resend of its message and the control API', async () => {
    const message = userMessage('hello replicas');
    const sent = await call(a.endpoint, 'SendMessage', { message });
    const taskId = sent.task?.id ?? '';
    expect(sent.task?.status.state).toBe('TASK_STATE_COMPLETED');
    const read = await call(b.endpoint, 'GetTask', { id: taskId });
    expect(read).toEqual(sent.task);
    const listed = await call(b.endpoint, 'ListTasks', { pageSize: 10, includeArtifacts: true });
    expect(listed.tasks.map((task) => task.id)).toContain(taskId);
    // The same message sent to the other replica is the same message: its task, not a new one.
    const resent = await call(b.endpoint, 'SendMessage', { message });
    expect(resent.task?.id).toBe(taskId);
    const control = await fetch(`${b.url}/a2a/api/task?id=${taskId}`);
    expect(((await control.json()) as { status?: { state?: string } }).status?.state).toBe('TASK_STATE_COMPLETED');
  });

  it('settles the running task of a replica that died, from a live replica, once its lease lapses', async () => {
    const databaseUrl = await postgres.databaseUrl();
    const survivorStore = await PostgresTaskStore.open({ url: databaseUrl, leaseMs: 150 });
    const survivor = await startTestHub({ taskStore: survivorStore });
    try {
      // A replica that stored a running task and then died: its store stops renewing the lease.
      const dead = await PostgresTaskStore.open({ url: databaseUrl, leaseMs: 150 });
      const at = new Date().toISOString();
      await dead.createTask({
        id: 'orphan',
        instanceId: 'default',
        contextId: 'c',
        skill: 'echo',
        status: { state: 'TASK_STATE_WORKING', timestamp: at },
        message: userMessage('left running'),
        createdAt: at,
      });
      await dead.close();
      await until(
        async () => (await call(survivor.endpoint, 'GetTask', { id: 'orphan' })).status.state === 'TASK_STATE_FAILED',
        'the orphan FAILED',
      );
      const settled = await call(survivor.endpoint, 'GetTask', { id: 'orphan' });
      expect(settled.status.message?.parts[0]?.text).toMatch(/retry/);
    } finally {
      await survivor.dispose();
      await survivorStore.close();
    }
  });

  it('delivers, from a live replica and in order, the webhooks a replica that died left in the outbox, the one it held included', async () => {
    const received: StreamResponse[] = [];
    const receiver = createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        received.push(JSON.parse(Buffer.concat(chunks).toString('utf8')) as StreamResponse);
        response.writeHead(204).end();
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    const hook = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
    const databaseUrl = await postgres.databaseUrl();
    const survivorStore = await PostgresTaskStore.open({ url: databaseUrl, leaseMs: 300 });
    const survivor = await startTestHub({
      taskStore: survivorStore,
      push: { destinations: { allowLoopback: true, allowedSchemes: ['http', 'https'] } },
    });
    try {
      // A replica that ran a task with a webhook, logged three frames, began delivering the
      // first (its claim is taken) and died: nothing was delivered, nothing will be renewed.
      const dead = await PostgresTaskStore.open({ url: databaseUrl, leaseMs: 300 });
      const at = new Date().toISOString();
      await dead.createTask({
        id: 'pushed',
        instanceId: 'default',
        contextId: 'c',
        skill: 'echo',
        status: { state: 'TASK_STATE_WORKING', timestamp: at },
        message: userMessage('left running'),
        createdAt: at,
      });
      await seedPushConfig(dead, 'pushed', 'hook', { url: hook, scheme: null });
      for (const text of ['first', 'second', 'third'])
        await dead.appendEvent('pushed', {
          statusUpdate: {
            taskId: 'pushed',
            contextId: 'c',
            status: { state: 'TASK_STATE_WORKING', message: { messageId: text, role: 'ROLE_AGENT', parts: [{ text }] } },
          },
        });
      expect((await dead.dueDeliveries(Date.now(), 10)).map((delivery) => delivery.frame.statusUpdate?.status.message?.messageId)).toEqual([
        'first',
      ]);
      await dead.close();
      // The survivor settles the task FAILED once the lease lapses, which is a frame too: it
      // goes out after the three, once the dead replica's claim on the first has lapsed.
      await until(() => received.length >= 4, 'four webhooks delivered', 10_000);
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(received.map((frame) => frame.statusUpdate?.status.message?.messageId ?? frame.statusUpdate?.status.state)).toEqual([
        'first',
        'second',
        'third',
        expect.any(String),
      ]);
      expect(received[3]?.statusUpdate?.status.state).toBe('TASK_STATE_FAILED');
      expect(await survivorStore.pendingDeliveries('pushed')).toBe(0);
    } finally {
      await survivor.dispose();
      await survivorStore.close();
      await new Promise<void>((resolve) => receiver.close(() => resolve()));
    }
  });

  /** The status texts of a stream's frames, in order: what a client must see once each, with no gap. */
  function stepTexts(events: readonly SseEvent[]): string[] {
    return events.flatMap((event) => {
      const text = event.frame.statusUpdate?.status.message?.parts[0]?.text;
      return text?.startsWith('step ') === true ? [text] : [];
    });
  }

  /** Frame ids after the first (the snapshot's) follow on one by one: the stream has no gap and no duplicate. */
  function expectContiguous(events: readonly SseEvent[]): void {
    const ids = events.map((event) => Number(event.id));
    const live = ids.slice(1, -1); // the final Task repeats its status frame's id
    expect(live).toEqual(live.map((_, index) => ids[0]! + 1 + index));
  }

  it('streams from B, frame by frame, a task A runs: every status and artifact chunk in order, then the final Task', async () => {
    const sent = await call(a.endpoint, 'SendMessage', {
      message: userMessage('followed\n::slow 6', { metadata: { 'a2a-hub/test': { steps: 6, stepMs: 60, chunks: 4 } } }),
      configuration: { returnImmediately: true },
    });
    const taskId = sent.task?.id ?? '';
    expect(a.runtime.isRunning(taskId)).toBe(true);
    const [onB, onA] = await Promise.all([
      stream(b.endpoint, 'SubscribeToTask', { id: taskId }),
      stream(a.endpoint, 'SubscribeToTask', { id: taskId }),
    ]);
    expect(b.runtime.isRunning(taskId)).toBe(false);
    expectContiguous(onB.events);
    const finalTask = onB.events.at(-1)?.frame.task;
    expect(finalTask?.status.state).toBe('TASK_STATE_COMPLETED');
    const chunks = onB.events.flatMap((event) => event.frame.artifactUpdate?.artifact.parts ?? []);
    expect(chunks).toHaveLength(4);
    expect(finalTask?.artifacts?.[0]?.parts).toEqual(chunks);
    // B saw what A's own stream saw, from the later of the two snapshots on (either may be read first).
    const from = Math.max(Number(onB.events[0]?.id), Number(onA.events[0]?.id));
    const after = (events: readonly SseEvent[]) =>
      events.filter((event) => Number(event.id) > from && event.frame.task === undefined).map((event) => event.frame);
    expect(after(onB.events)).toEqual(after(onA.events));
    expect(onB.events.at(-1)?.frame).toEqual(onA.events.at(-1)?.frame);
    // Nothing the snapshot holds comes again: the first status after it is a new one.
    const firstStatus = onB.events.slice(1).find((event) => event.frame.statusUpdate !== undefined)?.frame.statusUpdate?.status;
    expect(firstStatus).not.toEqual(onB.events[0]?.frame.task?.status);
  });

  it('resumes on B with Last-Event-ID a stream cut on A: every step once, in order, to the end', async () => {
    const steps = 8;
    const message = userMessage(`resumed\n::slow ${steps}`, { metadata: { 'a2a-hub/test': { steps, stepMs: 60 } } });
    const first = await stream(
      a.endpoint,
      'SendStreamingMessage',
      { message },
      { until: (event) => stepTexts([event]).length > 0 && event.id !== undefined && stepTexts([event])[0] === `step 2 of ${steps}` },
    );
    const taskId = first.events[0]?.frame.task?.id ?? '';
    const lastId = first.events.at(-1)?.id ?? '';
    const rest = await stream(b.endpoint, 'SubscribeToTask', { id: taskId }, { headers: { 'last-event-id': lastId } });
    expect(rest.events.at(-1)?.frame.task?.status.state).toBe('TASK_STATE_COMPLETED');
    const seen = [...stepTexts(first.events), ...stepTexts(rest.events)];
    expect(seen).toEqual(Array.from({ length: steps }, (_, index) => `step ${index + 1} of ${steps}`));
  });

  it('cancels on B a task A runs: A stops its executor, and the task ends CANCELED once', async () => {
    const sent = await call(a.endpoint, 'SendMessage', {
      message: userMessage('long\n::slow 200', { metadata: { 'a2a-hub/test': { steps: 200, stepMs: 50 } } }),
      configuration: { returnImmediately: true },
    });
    const taskId = sent.task?.id ?? '';
    await until(async () => (await call(b.endpoint, 'GetTask', { id: taskId })).status.state === 'TASK_STATE_WORKING', 'the task works');
    const watching = stream(a.endpoint, 'SubscribeToTask', { id: taskId });
    await until(() => a.channels.subscriberCount(taskId) > 0, 'A streams the task');
    const canceled = await call(b.endpoint, 'CancelTask', { id: taskId });
    expect(canceled.status.state).toBe('TASK_STATE_CANCELED');
    await until(() => !a.runtime.isRunning(taskId), 'A stopped the executor', 2000);
    // A's stream of the task ends with B's cancel, read from the log.
    const seenOnA = await watching;
    expect(seenOnA.events.at(-1)?.frame.task?.status.state).toBe('TASK_STATE_CANCELED');
    const after = await call(a.endpoint, 'GetTask', { id: taskId, historyLength: 100 });
    expect(after.status.state).toBe('TASK_STATE_CANCELED');
    const finals = (await a.store.eventsAfter(taskId, 0)).filter(
      (event) => event.frame.statusUpdate?.status.state === 'TASK_STATE_CANCELED',
    );
    expect(finals).toHaveLength(1);
    // Nothing A's executor did afterwards was stored.
    const last = (await a.store.eventsAfter(taskId, 0)).at(-1);
    expect(last?.frame.statusUpdate?.status.state).toBe('TASK_STATE_CANCELED');
  });

  it('takes one of two answers sent to A and B at once to a task waiting for input, refusing the other whole', async () => {
    // Several tasks at once, so that some pairs read the waiting status before either commits:
    // then only the status-version guard tells them apart.
    const waiting = await Promise.all(Array.from({ length: 20 }, async () => inputRequiredTask(a.endpoint)));
    const rounds = await Promise.all(
      waiting.map(async (task) => {
        const answer = (text: string) => userMessage(text, { taskId: task.id, contextId: task.contextId });
        const answers = await Promise.all([
          rpc(a.endpoint, 'SendMessage', { message: answer('from A') }),
          rpc(b.endpoint, 'SendMessage', { message: answer('from B') }),
        ]);
        return { task, answers };
      }),
    );
    for (const { task, answers } of rounds) {
      const taken = answers.filter((answer) => answer.body.error === undefined);
      const refused = answers.filter((answer) => answer.body.error !== undefined);
      expect(taken).toHaveLength(1);
      expect(refused.map((answer) => answer.body.error?.code)).toEqual([-32004]);
      expect(refused[0]?.body.error?.message).toMatch(
        new RegExp(`task ${task.id} (is still running|is completed|took another message first)`),
      );
      const stored = await call(b.endpoint, 'GetTask', { id: task.id, historyLength: 100 });
      const userTurns = (stored.history ?? []).filter((message) => message.role === 'ROLE_USER').map((message) => message.parts[0]?.text);
      // The first question's message, then exactly one answer: the one that was taken.
      expect(userTurns).toHaveLength(2);
      expect(['from A', 'from B']).toContain(userTurns[1]);
    }
  });

  it("applies on B, without a restart, instances created, changed and removed through A's control API", async () => {
    const id = await createInbound(a.url, 'replicated');
    const row = await inboundRow(a.url, id);
    const path = row?.endpointPath ?? '';
    const card = `${b.url}${row?.cardPath ?? ''}`;
    await until(async () => (await fetch(card)).status === 200, 'B serves the new instance');
    const sent = await call(`${b.url}${path}`, 'SendMessage', { message: userMessage('to the new one') });
    expect(sent.task?.status.state).toBe('TASK_STATE_COMPLETED');
    await controlAction(a.url, { action: 'inbound.update', id, description: 'changed on A' });
    await until(
      async () => ((await (await fetch(card)).json()) as { description?: string }).description === 'changed on A',
      'B publishes the new description',
    );
    await controlAction(a.url, { action: 'inbound.setAuth', id, token: 'replica-secret' });
    const guarded = userMessage('needs the token');
    await until(async () => (await rawSend(`${b.url}${path}`, guarded)).status === 401, 'B asks for the token');
    expect((await rawSend(`${b.url}${path}`, guarded, 'replica-secret')).status).toBe(200);
    await controlAction(a.url, { action: 'inbound.disable', id });
    await until(async () => (await fetch(card)).status !== 200, 'B stops serving it');
    await controlAction(a.url, { action: 'inbound.enable', id });
    await until(async () => (await fetch(card)).status === 200, 'B serves it again');
    await controlAction(a.url, { action: 'inbound.remove', id });
    await until(async () => (await inboundRow(b.url, id)) === undefined, 'B forgets it');
  });

  it("applies on B, without a restart, outbound connections created, changed and removed through A's control API", async () => {
    const remote = await startTestHub();
    try {
      const created = await controlAction(a.url, {
        action: 'outbound.create',
        name: 'shared-remote',
        agentCardUrl: `${remote.url}/a2a/default/agent-card.json`,
      });
      const id = created.id ?? '';
      const rowOnB = async () => (await controlSnapshot(b.url)).outbounds.find((row) => row.id === id);
      await until(async () => (await rowOnB())?.state === 'connected', 'B connects the new outbound');
      await controlAction(a.url, { action: 'outbound.disable', id });
      await until(async () => (await rowOnB())?.state === 'disabled', 'B disables it');
      await controlAction(a.url, { action: 'outbound.remove', id });
      await until(async () => (await rowOnB()) === undefined, 'B forgets it');
    } finally {
      await remote.dispose();
    }
  });

  it('still follows a task another replica runs when it hears no signals: it polls the log', async () => {
    const deafStore = await PostgresTaskStore.open({ url: databaseUrl });
    const deaf = await startTestHub({ taskStore: deafStore });
    try {
      await deafStore.signals.close();
      expect(deafStore.signals.listening).toBe(false);
      const sent = await call(a.endpoint, 'SendMessage', {
        message: userMessage('unheard\n::slow 4', { metadata: { 'a2a-hub/test': { steps: 4, stepMs: 100 } } }),
        configuration: { returnImmediately: true },
      });
      const followed = await stream(deaf.endpoint, 'SubscribeToTask', { id: sent.task?.id ?? '' });
      expectContiguous(followed.events);
      expect(followed.events.at(-1)?.frame.task?.status.state).toBe('TASK_STATE_COMPLETED');
    } finally {
      await deaf.dispose();
      await deafStore.close();
    }
  });

  it('stops a task it runs when another replica cancels it, even hearing no signals and with the executor silent', async () => {
    const deafStore = await PostgresTaskStore.open({ url: databaseUrl });
    const deaf = await startTestHub({ taskStore: deafStore });
    try {
      await deafStore.signals.close();
      // One step of 20 s: the executor writes nothing a refused write could stop it by.
      const sent = await call(deaf.endpoint, 'SendMessage', {
        message: userMessage('quiet', { metadata: { 'a2a-hub/test': { steps: 1, stepMs: 20_000 } } }),
        configuration: { returnImmediately: true },
      });
      const taskId = sent.task?.id ?? '';
      await until(() => deaf.runtime.isRunning(taskId), 'the deaf replica runs the task');
      const canceled = await call(b.endpoint, 'CancelTask', { id: taskId });
      expect(canceled.status.state).toBe('TASK_STATE_CANCELED');
      // Within a poll while listening (2 s), then one while deaf (250 ms).
      await until(() => !deaf.runtime.isRunning(taskId), 'the deaf replica stopped the executor', 3000);
      expect((await call(deaf.endpoint, 'GetTask', { id: taskId })).status.state).toBe('TASK_STATE_CANCELED');
    } finally {
      await deaf.dispose();
      await deafStore.close();
    }
  });

  it('names its store in the banner as PostgreSQL without the password', () => {
    expect(a.config.store).toBe('postgres');
    const shown = storeLocation(a.config);
    expect(shown).toMatch(/^PostgreSQL postgres:\/\/a2ahub@127\.0\.0\.1:\d+\/postgres$/);
    expect(shown).not.toContain('secret-pw');
  });
});
