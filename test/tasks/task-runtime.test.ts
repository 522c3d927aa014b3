import { afterEach, describe, expect, it } from 'vitest';
import type { AgentExecutor } from '../../src/executors/executor.js';
import { echoExecutor } from '../../src/executors/echo.js';
import { MemoryTaskStore } from '../../src/store/memory-store.js';
import { SqliteTaskStore } from '../../src/store/sqlite-store.js';
import type { TaskStore } from '../../src/store/task-store.js';
import { toWireTask } from '../../src/store/task-view.js';
import { deferredStore } from '../helpers/deferred-store.js';
import { POSTGRES_AVAILABLE, sharedTestPostgres } from '../helpers/postgres.js';
import { PostgresTaskStore } from '../../src/store/postgres-store.js';
import { monotonicClock } from '../../src/tasks/frames.js';
import { SessionRegistry } from '../../src/tasks/sessions.js';
import { TaskChannels } from '../../src/tasks/task-channels.js';
import { TaskRuntime, type RuntimeInstance } from '../../src/tasks/task-runtime.js';
import type { ToolProvider } from '../../src/tasks/tool-provider.js';

const postgres = sharedTestPostgres();

const stores: { name: string; open: () => Promise<TaskStore> | TaskStore }[] = [
  { name: 'MemoryTaskStore', open: () => new MemoryTaskStore() },
  { name: 'SqliteTaskStore', open: () => SqliteTaskStore.open(':memory:') },
  // Answers on a later turn, as a store on a database server does.
  { name: 'a store that answers later', open: () => deferredStore(new MemoryTaskStore()) },
  ...(POSTGRES_AVAILABLE
    ? [{ name: 'PostgresTaskStore', open: async () => PostgresTaskStore.open({ url: await postgres.databaseUrl() }) }]
    : []),
];

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

async function setUp(open: () => Promise<TaskStore> | TaskStore, executor: AgentExecutor) {
  const store = await open();
  const sessions = new SessionRegistry(60_000, monotonicClock());
  // A store with replica signals is shared, and the hub runs the runtime in its shared mode there.
  const runtime = new TaskRuntime({
    store,
    channels: new TaskChannels(),
    sessions,
    now: monotonicClock(),
    shared: store.signals !== undefined,
  });
  cleanups.push(async () => {
    sessions.close();
    await runtime.close();
    await store.close();
  });
  const instance: RuntimeInstance = { id: 'agent', executor, skills: ['chat'], defaultSkill: 'chat' };
  let n = 0;
  const send = (text: string, messageId = `m-${(n += 1)}`) =>
    runtime.send(instance, { message: { messageId, role: 'ROLE_USER', parts: [{ text }] } });
  return { store, runtime, send, instance };
}

describe.each(stores)('TaskRuntime on $name', ({ open }) => {
  it('answers settled() from the task it stored, equal to reading it back, once the executor has returned', async () => {
    const { runtime, send } = await setUp(open, echoExecutor);
    const outcome = await send('hello');
    if (outcome.kind !== 'task') throw new Error('echo answered with a message');
    // By now the executor has returned; the answer must still come from memory.
    await Promise.resolve();
    const settled = await runtime.settled(outcome.taskId);
    expect(settled).toBeDefined();
    const stored = await runtime.getTask('agent', outcome.taskId);
    expect(stored.status.state).toBe('TASK_STATE_COMPLETED');
    expect(toWireTask(settled!)).toStrictEqual(stored);
    expect(runtime.activeCount).toBe(0);
  });

  it('answers nothing from memory for a task another replica settled: the end is in the store, not in its run', async () => {
    const { runtime, send } = await setUp(open, {
      async execute(_request, events, signal) {
        events.working('on it');
        await new Promise((resolve) => signal.addEventListener('abort', resolve, { once: true }));
      },
    });
    const outcome = await send('hello');
    if (outcome.kind !== 'task') throw new Error('expected a task');
    while (!runtime.isRunning(outcome.taskId)) await new Promise((resolve) => setImmediate(resolve));
    runtime.settledElsewhere(outcome.taskId);
    expect(runtime.isRunning(outcome.taskId)).toBe(false);
    expect(runtime.settledContent(outcome.taskId)).toBeUndefined();
    expect(await runtime.settled(outcome.taskId)).toBeUndefined();
  });

  it('fails a task whose executor throws, with the error as the status message, and ignores events after the end', async () => {
    const late: string[] = [];
    const { runtime, send } = await setUp(open, {
      async execute(_request, events) {
        events.working('on it');
        await Promise.resolve();
        setImmediate(() => {
          events.complete('too late');
          late.push(events.artifact({ parts: 'too late' }));
        });
        throw new Error('boom');
      },
    });
    const outcome = await send('hello');
    if (outcome.kind !== 'task') throw new Error('expected a task');
    await runtime.settled(outcome.taskId);
    await new Promise((resolve) => setTimeout(resolve, 10));
    const task = await runtime.getTask('agent', outcome.taskId);
    expect(task.status.state).toBe('TASK_STATE_FAILED');
    expect(task.status.message?.parts).toEqual([{ text: 'the agent failed: boom' }]);
    expect(task.artifacts).toBeUndefined();
    expect(late).toHaveLength(1);
  });

  it('stores no task for a direct reply, and answers a resend with the same message without running again', async () => {
    let runs = 0;
    const { store, send } = await setUp(open, {
      execute(_request, events) {
        runs += 1;
        events.reply('just a message');
        events.complete('ignored');
        return Promise.resolve();
      },
    });
    const first = await send('hi', 'once');
    const again = await send('hi', 'once');
    expect(first.kind).toBe('message');
    expect(again).toStrictEqual(first);
    expect(runs).toBe(1);
    expect((await store.listTasks('agent', { pageSize: 10 })).totalSize).toBe(0);
  });

  it('runs a message once however often it is sent, 20 copies at once included; a messageId reused with another target runs as new', async () => {
    const runs: string[] = [];
    const { runtime, instance } = await setUp(open, {
      execute(request, events) {
        runs.push(request.resumed ? `${request.text} (resumed)` : request.text);
        if (request.text === 'ask') events.inputRequired('more?');
        else events.complete(`done: ${request.text}`);
        return Promise.resolve();
      },
    });
    const copies = async (message: { text: string; taskId?: string; contextId?: string }) => {
      const { text, ...target } = message;
      const outcomes = await Promise.all(
        Array.from({ length: 20 }, () =>
          runtime.send(instance, { message: { messageId: 'reused', role: 'ROLE_USER', parts: [{ text }], ...target } }),
        ),
      );
      const ids = new Set(outcomes.map((outcome) => (outcome.kind === 'task' ? outcome.taskId : 'a message')));
      expect(ids.size, `${text}: one answer for all copies`).toBe(1);
      const [taskId = ''] = ids;
      await runtime.settled(taskId);
      return await runtime.getTask('agent', taskId);
    };

    const asked = await copies({ text: 'ask' });
    expect(asked.status.state).toBe('TASK_STATE_INPUT_REQUIRED');
    expect(runs).toEqual(['ask']);
    // The same id naming the task: the follow-up it is, not a resend of the question.
    const answered = await copies({ text: 'answer', taskId: asked.id });
    expect(answered.id).toBe(asked.id);
    expect(answered.status.state).toBe('TASK_STATE_COMPLETED');
    expect(answered.history?.filter((entry) => entry.role === 'ROLE_USER').map((entry) => entry.parts)).toEqual([
      [{ text: 'ask' }],
      [{ text: 'answer' }],
    ]);
    const elsewhere = await copies({ text: 'again', contextId: 'elsewhere' });
    expect(elsewhere.id).not.toBe(asked.id);
    expect(elsewhere.contextId).toBe('elsewhere');
    expect(runs).toEqual(['ask', 'answer (resumed)', 'again']);
    // Each resent as it was: its own task back, nothing run again.
    expect((await copies({ text: 'ask' })).id).toBe(asked.id);
    expect((await copies({ text: 'answer', taskId: asked.id })).id).toBe(asked.id);
    expect((await copies({ text: 'again', contextId: 'elsewhere' })).id).toBe(elsewhere.id);
    expect(runs).toHaveLength(3);
  });
});

describe.each(stores)('TaskRuntime, executors that do not behave, on $name', ({ open }) => {
  it('completes a task whose executor returns no promise (plain JavaScript)', async () => {
    const plain = {
      execute(_request: unknown, events: { artifact(chunk: { parts: string }): string }) {
        events.artifact({ parts: 'done' });
      },
    } as unknown as AgentExecutor;
    const { runtime, send } = await setUp(open, plain);
    const outcome = await send('hi');
    if (outcome.kind !== 'task') throw new Error('expected a task');
    await runtime.settled(outcome.taskId);
    const task = await runtime.getTask('agent', outcome.taskId);
    expect(task.status.state).toBe('TASK_STATE_COMPLETED');
    expect(task.artifacts?.[0]?.parts).toEqual([{ text: 'done' }]);
  });

  it('a shutdown never stores a task that was stopped before it said anything as COMPLETED', async () => {
    const { runtime, send } = await setUp(open, {
      execute: (_request, _events, signal) =>
        new Promise((_resolve, reject) => signal.addEventListener('abort', () => reject(new Error('stopped')), { once: true })),
    });
    const sent = send('wait');
    await new Promise((resolve) => setTimeout(resolve, 20));
    await runtime.shutdown(10);
    const outcome = await sent;
    if (outcome.kind !== 'task') throw new Error('expected a task');
    await runtime.committed();
    expect((await runtime.getTask('agent', outcome.taskId)).status.state).toBe('TASK_STATE_FAILED');
  });
});

describe('monotonicClock', () => {
  it('formats each millisecond once and never goes backwards', () => {
    let wall = Date.parse('2026-01-01T00:00:00.005Z');
    const now = monotonicClock(() => wall);
    const first = now();
    expect(first).toBe('2026-01-01T00:00:00.005Z');
    expect(now()).toBe(first);
    wall -= 3;
    expect(now()).toBe(first);
    wall += 10;
    expect(now()).toBe('2026-01-01T00:00:00.012Z');
  });
});

describe('TaskRuntime under tenants', () => {
  it("gives each (tenant, contextId) its own session and tool caller, and tells the executor the task's tenant", async () => {
    const callers: string[] = [];
    const seen: { tenant: string; values: Map<string, unknown> }[] = [];
    const tools: ToolProvider = {
      list: () => [],
      call: (_name, _args, options) => {
        callers.push(options.callerId);
        return Promise.resolve({ text: 'ok', state: 'TASK_STATE_COMPLETED' });
      },
    };
    const executor: AgentExecutor = {
      async execute(request, events) {
        seen.push({ tenant: request.tenant, values: request.session.values });
        await request.tools.call('tool', { prompt: 'p' });
        events.complete();
      },
    };
    const store = new MemoryTaskStore();
    const sessions = new SessionRegistry(60_000, monotonicClock());
    const runtime = new TaskRuntime({ store, channels: new TaskChannels(), sessions, now: monotonicClock(), tools });
    cleanups.push(async () => {
      sessions.close();
      await runtime.close();
      store.close();
    });
    const instance: RuntimeInstance = { id: 'agent', executor, skills: ['chat'], defaultSkill: 'chat' };
    for (const [n, tenant] of [undefined, 'acme', '', 'acme'].entries()) {
      const message = { messageId: `m-${n}`, contextId: 'ctx', role: 'ROLE_USER' as const, parts: [{ text: 'hi' }] };
      const outcome = await runtime.send(instance, { ...(tenant === undefined ? {} : { tenant }), message });
      if (outcome.kind === 'task') await runtime.settled(outcome.taskId);
    }
    expect(seen.map((run) => run.tenant)).toEqual(['', 'acme', '', 'acme']);
    // No tenant and '' share a conversation; acme's is another, reused by its second message.
    expect(seen[2]?.values).toBe(seen[0]?.values);
    expect(seen[3]?.values).toBe(seen[1]?.values);
    expect(seen[1]?.values).not.toBe(seen[0]?.values);
    expect(callers).toEqual(['agent/ctx', '["agent","acme","ctx"]', 'agent/ctx', '["agent","acme","ctx"]']);
  });
});
