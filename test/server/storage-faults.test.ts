import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pino } from 'pino';
import { testDirectiveMetadata } from '../../generated/hub/test-directives.js';
import type { Task } from '../../generated/a2a/1.0/types.js';
import { SqliteTaskStore } from '../../src/store/sqlite-store.js';
import { userMessage } from '../helpers/a2a-client.js';
import { BINDING_DRIVERS, type BindingDriver } from '../helpers/bindings.js';
import { faultyStore, type FaultyStore } from '../helpers/faulty-store.js';
import { startTestHub, type TestHub } from '../helpers/hub.js';
import { until, waitFor } from '../helpers/wait.js';

/**
 * A task store whose writes fail as a full disk fails them (SQLITE_FULL from inside the store's
 * transaction): no answer may name a task that was not stored, every refused request says why
 * (StorageFullError, -32603 / HTTP 507 with its ErrorInfo), the hub reports not ready while it
 * lasts and logs the cause once, and takes writes again, unprompted, once space is back.
 * The real thing, a data dir on a full filesystem, is in disk-full.test.ts.
 */

interface LogLine {
  readonly level: number;
  readonly msg: string;
  readonly [key: string]: unknown;
}

const SENDS = ['blocking', 'returnImmediately', 'streaming'] as const;
type SendKind = (typeof SENDS)[number];

describe.each(BINDING_DRIVERS.map((driver) => [driver.name, driver] as const))('storage faults over %s', (_name, driver: BindingDriver) => {
  let hub: TestHub;
  let faulty: FaultyStore<SqliteTaskStore>;
  const logged: LogLine[] = [];

  beforeAll(async () => {
    faulty = faultyStore(SqliteTaskStore.open(':memory:'));
    const logger = pino({ level: 'info' }, { write: (line: string) => void logged.push(JSON.parse(line) as LogLine) });
    hub = await startTestHub({ taskStore: faulty.store, logger });
  });

  afterAll(async () => {
    faulty.heal();
    await hub.dispose();
    faulty.store.close();
  });

  const url = (): string => hub.endpoint;

  function send(kind: SendKind, text = 'hello', metadata?: Record<string, unknown>) {
    const message = userMessage(text, metadata === undefined ? {} : { metadata });
    if (kind === 'streaming') return driver.call({ url: url(), method: 'SendStreamingMessage', params: { message } });
    return driver.call({
      url: url(),
      method: 'SendMessage',
      params: { message, ...(kind === 'returnImmediately' ? { configuration: { returnImmediately: true } } : {}) },
    });
  }

  async function storedTaskCount(): Promise<number> {
    const answer = await driver.call({ url: url(), method: 'ListTasks', params: { pageSize: 100 } });
    return (answer.result as { totalSize: number }).totalSize;
  }

  async function readiness(): Promise<{ status: number; body: { status: string; reason?: string } }> {
    const response = await fetch(`${hub.url}/readyz`);
    return { status: response.status, body: (await response.json()) as { status: string; reason?: string } };
  }

  it.each(SENDS)('refuses a %s send with StorageFullError while writes fail, and stores nothing of it', async (kind) => {
    const before = await storedTaskCount();
    faulty.fail();
    try {
      const answer = await send(kind);
      const error = answer.expectError('StorageFullError');
      expect(error.message).toMatch(/out of space/);
      // Nothing that names the data dir or the database goes to the client.
      expect(error.message).not.toMatch(/sqlite|SQLITE|\/tmp|memory/);
      expect(await storedTaskCount()).toBe(before);
    } finally {
      faulty.heal();
    }
  });

  it('reports not ready while writes fail, logs the cause once, counts the failures, and is ready again once a probe write succeeds', async () => {
    // What the cases before left: writes work, and the hub knows it.
    await waitFor(readiness, (answer) => answer.status === 200, 'readiness before the disk fills', 5000, 100);
    const logsBefore = logged.filter((line) => line.msg.includes('out of space')).length;
    faulty.fail();
    try {
      for (let index = 0; index < 5; index += 1) (await send('blocking')).expectError('StorageFullError');
      const notReady = await readiness();
      expect(notReady.status).toBe(503);
      expect(notReady.body.reason).toMatch(/refuses writes: it is out of space \(SQLITE_FULL\)/);
      expect(logged.filter((line) => line.msg.includes('out of space')).length).toBe(logsBefore + 1);
      const metrics = (await (await fetch(`${hub.url}/a2a/api/metrics?format=json`)).json()) as {
        storage: { writable: boolean; writeFailures: Record<string, number> };
        requests: Record<string, Record<string, number>>;
      };
      expect(metrics.storage.writable).toBe(false);
      expect(metrics.storage.writeFailures['full:SQLITE_FULL']).toBeGreaterThanOrEqual(5);
      expect(metrics.requests['SendMessage']?.['http-507']).toBeGreaterThanOrEqual(5);
      const text = await (await fetch(`${hub.url}/a2a/api/metrics?format=prometheus`)).text();
      expect(text).toContain('a2a_hub_store_writable 0');
    } finally {
      faulty.heal();
    }
    // No request needed: the readiness check's probe write finds space back.
    await waitFor(readiness, (answer) => answer.status === 200, 'readiness after the disk has space again', 5000, 100);
    const task = (await send('blocking')).result as { task: Task };
    expect(task.task.status.state).toBe('TASK_STATE_COMPLETED');
    expect(logged.some((line) => line.msg.startsWith('the task store takes writes again'))).toBe(true);
  });

  it('fails a blocking send whose task cannot store its progress mid-run, and settles the task FAILED once writes work again', async () => {
    const answer = send('blocking', 'slow', testDirectiveMetadata({ steps: 8, stepMs: 60 }));
    const taskId = await runningTaskId();
    faulty.fail();
    try {
      (await answer).expectError('StorageFullError');
    } finally {
      faulty.heal();
    }
    const settled = await waitFor(
      async () => (await driver.call({ url: url(), method: 'GetTask', params: { id: taskId } })).result as Task,
      (task) => task.status.state === 'TASK_STATE_FAILED',
      'the task settled FAILED after writes came back',
      10_000,
      100,
    );
    expect(settled.status.message?.parts[0]?.text).toMatch(/could not store this task's progress/);
  });

  it('ends a stream whose task cannot store its progress with a StorageFullError event after the frames that were stored', async () => {
    const message = userMessage('slow', { metadata: testDirectiveMetadata({ steps: 8, stepMs: 60 }) });
    const ending = driver.streamEnding({ url: url(), method: 'SendStreamingMessage', params: { message } });
    await runningTaskId();
    faulty.fail();
    let result: Awaited<typeof ending>;
    try {
      result = await ending;
    } finally {
      faulty.heal();
    }
    expect(result.frames[0]?.task?.status.state).toBe('TASK_STATE_SUBMITTED');
    expect(result.frames.some((frame) => frame.statusUpdate?.status.state === 'TASK_STATE_COMPLETED')).toBe(false);
    expect(result.error?.reason).toBe('STORAGE_FULL');
  });

  it('never answers with a task it did not store, with writes failing and recovering at random under load', async () => {
    const answered: { taskId: string; state: string }[] = [];
    let refused = 0;
    const toggler = setInterval(() => (Math.random() < 0.5 ? faulty.fail() : faulty.heal()), 7);
    try {
      await Promise.all(
        Array.from({ length: 6 }, async (_, worker) => {
          for (let index = 0; index < 12; index += 1) {
            const kind = SENDS[(worker + index) % 2] ?? 'blocking';
            const answer = await send(kind);
            if (answer.error !== undefined) {
              expect(answer.error.reason).toBe('STORAGE_FULL');
              refused += 1;
              continue;
            }
            const task = (answer.result as { task: Task }).task;
            answered.push({ taskId: task.id, state: task.status.state });
          }
        }),
      );
    } finally {
      clearInterval(toggler);
      faulty.heal();
    }
    expect(answered.length).toBeGreaterThan(0);
    expect(refused).toBeGreaterThan(0);
    for (const { taskId, state } of answered) {
      const stored = (await driver.call({ url: url(), method: 'GetTask', params: { id: taskId } })).result as Task;
      expect(stored.id).toBe(taskId);
      // What a blocking send answered is what the store holds; a task answered at once may have moved on.
      if (state === 'TASK_STATE_COMPLETED') expect(stored.status.state).toBe(state);
    }
  });

  /** The id of the newest task, once the store holds it WORKING. */
  async function runningTaskId(): Promise<string> {
    let taskId = '';
    await until(async () => {
      const answer = await driver.call({ url: url(), method: 'ListTasks', params: { pageSize: 1, status: 'TASK_STATE_WORKING' } });
      taskId = (answer.result as { tasks: Task[] }).tasks[0]?.id ?? '';
      return taskId !== '';
    }, 'a running task');
    return taskId;
  }
});
