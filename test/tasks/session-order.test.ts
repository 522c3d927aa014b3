import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { AgentExecutor } from '../../src/executors/executor.js';
import { PresetRegistry } from '../../src/executors/presets.js';
import { call, userMessage } from '../helpers/a2a-client.js';
import { startTestHub, type TestHub } from '../helpers/hub.js';
import { until } from '../helpers/wait.js';

/**
 * Sessions and limits: fifo sessions run one task at a time in arrival order (seed 002 §8),
 * concurrent ones side by side, and the execution timeout stops a task that runs too long,
 * even one whose executor ignores its signal.
 */

/** What the probe executor did, in order: `start <text>`, `end <text>`, `aborted <text>`. */
const trace: string[] = [];

/** Sleeps for the number of milliseconds its text names; `ignore` in the text makes it ignore its signal. */
const probe: AgentExecutor = {
  async execute(request, events, signal) {
    const [ms = '0', mode] = request.text.split(' ');
    trace.push(`start ${request.text}`);
    events.working();
    if (mode === 'ignore') {
      signal.addEventListener('abort', () => trace.push(`aborted ${request.text}`));
      await sleep(Number(ms));
    } else {
      await sleep(Number(ms), undefined, { signal }).catch(() => trace.push(`aborted ${request.text}`));
    }
    trace.push(`end ${request.text}`);
    events.artifact({ name: 'done', parts: `slept ${ms}` });
  },
};

let hub: TestHub;
const endpoint = (id: string): string => `${hub.url}/a2a/${id}`;

beforeAll(async () => {
  const presets = new PresetRegistry();
  presets.register({
    id: 'probe',
    name: 'Probe',
    description: 'Sleeps as told and records the order.',
    executor: probe,
    skills: [{ id: 'chat', name: 'chat', description: 'sleeps', tags: ['test'] }],
    inputModes: ['text/plain'],
    outputModes: ['text/plain'],
    extensions: [],
  });
  hub = await startTestHub({ presets });
  await hub.inbounds.create({ id: 'fifo', name: 'fifo', description: 'in order', version: '1', preset: 'probe', sessionOrder: 'fifo' });
  await hub.inbounds.create({ id: 'side', name: 'side', description: 'side by side', version: '1', preset: 'probe' });
  await hub.inbounds.create({
    id: 'bounded',
    name: 'bounded',
    description: 'times out',
    version: '1',
    preset: 'probe',
    sessionOrder: 'fifo',
    executionTimeoutMs: 200,
  });
});
afterAll(async () => {
  await hub.dispose();
});
beforeEach(() => {
  trace.length = 0;
});

describe('fifo sessions', () => {
  it('processes the messages of one context one at a time, in arrival order', async () => {
    const first = await call(endpoint('fifo'), 'SendMessage', {
      message: userMessage('150 a'),
      configuration: { returnImmediately: true },
    });
    const contextId = first.task?.contextId ?? '';
    // One after the other, so the arrival order is known; all of them while the first still runs.
    const later = [];
    for (const text of ['20 b', '20 c', '20 d']) {
      later.push(
        await call(endpoint('fifo'), 'SendMessage', {
          message: userMessage(text, { contextId }),
          configuration: { returnImmediately: true },
        }),
      );
    }
    // The waiting ones exist and say so.
    for (const { task } of later) expect(task?.status.state).toBe('TASK_STATE_SUBMITTED');
    await until(() => trace.filter((line) => line.startsWith('end')).length === 4, 'all four to end');
    expect(trace).toEqual(['start 150 a', 'end 150 a', 'start 20 b', 'end 20 b', 'start 20 c', 'end 20 c', 'start 20 d', 'end 20 d']);
    for (const { task } of later) {
      const stored = await call(endpoint('fifo'), 'GetTask', { id: task?.id ?? '' });
      expect(stored.status.state).toBe('TASK_STATE_COMPLETED');
    }
  });

  it('never runs two tasks of one context at once, however many blocking sends arrive together', async () => {
    const first = await call(endpoint('fifo'), 'SendMessage', {
      message: userMessage('30 head'),
      configuration: { returnImmediately: true },
    });
    const contextId = first.task?.contextId ?? '';
    const texts = Array.from({ length: 8 }, (_, index) => `10 burst-${index}`);
    const answers = await Promise.all(
      texts.map((text) => call(endpoint('fifo'), 'SendMessage', { message: userMessage(text, { contextId }) })),
    );
    for (const { task } of answers) expect(task?.status.state).toBe('TASK_STATE_COMPLETED');
    // Every start is followed by its own end before anything else starts.
    expect(trace).toHaveLength(18);
    for (let index = 0; index < trace.length; index += 2) {
      expect(trace[index]?.replace(/^start /, 'end ')).toBe(trace[index + 1]);
    }
  });

  it('a blocking send in a busy session waits its turn and then answers', async () => {
    const first = await call(endpoint('fifo'), 'SendMessage', {
      message: userMessage('100 first'),
      configuration: { returnImmediately: true },
    });
    const second = await call(endpoint('fifo'), 'SendMessage', { message: userMessage('10 second', { contextId: first.task?.contextId }) });
    expect(second.task?.status.state).toBe('TASK_STATE_COMPLETED');
    expect(trace.indexOf('end 100 first')).toBeLessThan(trace.indexOf('start 10 second'));
  });

  it('other contexts do not wait', async () => {
    await call(endpoint('fifo'), 'SendMessage', { message: userMessage('300 long'), configuration: { returnImmediately: true } });
    const other = await call(endpoint('fifo'), 'SendMessage', { message: userMessage('1 quick') });
    expect(other.task?.status.state).toBe('TASK_STATE_COMPLETED');
    expect(trace.indexOf('end 1 quick')).toBeLessThan(trace.indexOf('end 300 long') === -1 ? Infinity : trace.indexOf('end 300 long'));
  });

  it('a waiting task that is canceled never runs, and the queue goes on', async () => {
    const first = await call(endpoint('fifo'), 'SendMessage', {
      message: userMessage('150 head'),
      configuration: { returnImmediately: true },
    });
    const contextId = first.task?.contextId ?? '';
    const waiting = await call(endpoint('fifo'), 'SendMessage', {
      message: userMessage('10 canceled', { contextId }),
      configuration: { returnImmediately: true },
    });
    const canceled = await call(endpoint('fifo'), 'CancelTask', { id: waiting.task?.id ?? '' });
    expect(canceled.status.state).toBe('TASK_STATE_CANCELED');
    const last = await call(endpoint('fifo'), 'SendMessage', { message: userMessage('10 last', { contextId }) });
    expect(last.task?.status.state).toBe('TASK_STATE_COMPLETED');
    expect(trace).not.toContain('start 10 canceled');
    expect(trace.indexOf('end 150 head')).toBeLessThan(trace.indexOf('start 10 last'));
  });
});

describe('concurrent sessions (the default of presets other than standard)', () => {
  it('run the messages of one context side by side', async () => {
    const first = await call(endpoint('side'), 'SendMessage', {
      message: userMessage('150 x'),
      configuration: { returnImmediately: true },
    });
    const second = await call(endpoint('side'), 'SendMessage', { message: userMessage('10 y', { contextId: first.task?.contextId }) });
    expect(second.task?.status.state).toBe('TASK_STATE_COMPLETED');
    expect(trace.slice(0, 3)).toEqual(['start 150 x', 'start 10 y', 'end 10 y']);
  });
});

describe('the execution timeout', () => {
  it('fails a task that runs too long, returns the blocking send, and frees the session even if the executor ignores its signal', async () => {
    const started = Date.now();
    const slow = await call(endpoint('bounded'), 'SendMessage', { message: userMessage('3000 ignore') });
    expect(Date.now() - started).toBeLessThan(2500);
    expect(slow.task?.status.state).toBe('TASK_STATE_FAILED');
    expect(slow.task?.status.message?.parts[0]?.text).toMatch(/ran longer than this agent's execution timeout of 200 ms and was stopped/);
    expect(trace).toContain('aborted 3000 ignore');
    const next = await call(endpoint('bounded'), 'SendMessage', { message: userMessage('10 next', { contextId: slow.task?.contextId }) });
    expect(next.task?.status.state).toBe('TASK_STATE_COMPLETED');
    // What the stopped executor does afterwards changes nothing.
    await until(() => trace.includes('end 3000 ignore'), 'the ignoring executor to end', 5000);
    const after = await call(endpoint('bounded'), 'GetTask', { id: slow.task?.id ?? '' });
    expect(after.status.state).toBe('TASK_STATE_FAILED');
    expect(after.artifacts ?? []).toEqual([]);
  });

  it('time spent waiting in the queue does not count', async () => {
    const first = await call(endpoint('bounded'), 'SendMessage', {
      message: userMessage('150 one'),
      configuration: { returnImmediately: true },
    });
    const second = await call(endpoint('bounded'), 'SendMessage', {
      message: userMessage('150 two', { contextId: first.task?.contextId }),
    });
    expect(second.task?.status.state).toBe('TASK_STATE_COMPLETED');
  });

  it('defaults to 10 minutes, and 0 means none', async () => {
    expect(hub.inbounds.agent('side')?.executionTimeoutMs).toBe(600_000);
    await hub.inbounds.update('side', { executionTimeoutMs: 0 });
    expect(hub.inbounds.agent('side')?.executionTimeoutMs).toBe(0);
    expect(hub.inbounds.agent('side')?.sessionOrder).toBe('concurrent');
    expect(hub.inbounds.agent('fifo')?.sessionOrder).toBe('fifo');
  });
});
