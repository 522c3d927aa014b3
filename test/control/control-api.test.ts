import { randomBytes, randomUUID } from 'node:crypto';
import type { ReadableStreamDefaultReader } from 'node:stream/web';
import { createParser } from 'eventsource-parser';
import { pino } from 'pino';
import { Agent, request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ERRORS } from '../../generated/a2a/1.0/errors.js';
import type { StreamResponse, Task, TaskState } from '../../generated/a2a/1.0/types.js';
import type { ActionFailure, ActionSuccess, ReadError } from '../../generated/control/types.js';
import { testDirectiveMetadata } from '../../generated/hub/test-directives.js';
import { A2A_1_0 } from '../../src/protocol/a2a-schema.js';
import type { ControlDefs } from '../../src/protocol/control-schema.js';
import { checkValue } from '../../src/protocol/validation.js';
import { call, expectRpcError, rpc, userMessage } from '../helpers/a2a-client.js';
import { controlAction, controlSnapshot, createInbound, expectControl, inboundRow } from '../helpers/control.js';
import { startTestHub, type TestHub } from '../helpers/hub.js';
import { listTasksStatus, nodeRequest, send, statusOf } from '../helpers/raw-http.js';
import { artifactText } from '../helpers/tasks.js';
import { until } from '../helpers/wait.js';

/**
 * The loopback control API over real HTTP: every read endpoint, every action, each success
 * and each failure status. Every body is checked against the exact control-API validators,
 * so a test that merely reads something also proves its shape.
 */

// ---------------------------------------------------------------------------------------------
// Helpers
// ---------------------------------------------------------------------------------------------

type ControlDef = Extract<keyof ControlDefs, string>;

interface Answer {
  readonly status: number;
  readonly headers: Headers;
  readonly text: string;
  readonly body: unknown;
}

const valid = expectControl;

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

async function http(base: string, path: string, init: RequestInit = {}): Promise<Answer> {
  const response = await send(`${base}${path}`, init);
  return { ...response, body: parseJson(response.text) };
}

/** GET a read endpoint, expect 200 JSON and a body valid as `def`. */
async function read<K extends ControlDef>(base: string, path: string, def: K): Promise<ControlDefs[K]> {
  const answer = await http(base, path);
  expect(answer.status, `${path}: ${answer.text}`).toBe(200);
  expect(answer.headers.get('content-type')).toMatch(/^application\/json/);
  return valid(def, answer.body);
}

/** Any answer that is not 200 on a read: the status and a ReadError body. */
async function readFailure(base: string, path: string, status: number, init: RequestInit = {}): Promise<ReadError & { headers: Headers }> {
  const answer = await http(base, path, init);
  expect(answer.status, `${init.method ?? 'GET'} ${path}: ${answer.text}`).toBe(status);
  expect(answer.headers.get('content-type')).toMatch(/^application\/json/);
  return { ...valid('ReadError', answer.body), headers: answer.headers };
}

/**
 * A 400 on a read for a bad query parameter: `{ok: false, message, violations}`. The shape is
 * checked member by member here; whether it is a valid ReadError is one test of its own.
 */
async function badQuery(base: string, path: string): Promise<{ message: string; violations: { field: string; description: string }[] }> {
  const answer = await http(base, path);
  expect(answer.status, `${path}: ${answer.text}`).toBe(400);
  expect(answer.headers.get('content-type')).toMatch(/^application\/json/);
  const body = answer.body as { ok: unknown; message: unknown; violations: unknown };
  expect(body.ok).toBe(false);
  expect(typeof body.message).toBe('string');
  expect(Array.isArray(body.violations)).toBe(true);
  return body as { message: string; violations: { field: string; description: string }[] };
}

async function post(base: string, body: string, headers: Record<string, string> = { 'content-type': 'application/json' }): Promise<Answer> {
  return http(base, '/a2a/api', { method: 'POST', headers, body });
}

const ok = controlAction;

/** Runs an action and expects `status` (409 by default) with a valid ActionFailure. */
async function fails(base: string, action: Record<string, unknown> | string, status = 409): Promise<ActionFailure & { text: string }> {
  const answer = await post(base, typeof action === 'string' ? action : JSON.stringify(action));
  expect(answer.status, answer.text).toBe(status);
  expect(answer.headers.get('content-type')).toMatch(/^application\/json/);
  const body = valid('ActionFailure', answer.body);
  expect(body.ok).toBe(false);
  if (status === 409) expect(body.violations).toBeUndefined();
  if (status === 400 && typeof action !== 'string') expect(body.violations?.length ?? 0).toBeGreaterThan(0);
  return { ...body, text: answer.text };
}

const snapshot = controlSnapshot;

/** GET /a2a/api/task: a full A2A Task (valid as one once `serverId` and `tenant` are set aside) plus serverId and, if any, tenant. */
async function taskOf(base: string, id: string): Promise<Task & { serverId: string; tenant?: string }> {
  const body = (await read(base, `/a2a/api/task?id=${encodeURIComponent(id)}`, 'TaskJson')) as unknown as Task & {
    serverId: string;
    tenant?: string;
  };
  const { serverId, tenant: _tenant, ...task } = body;
  void _tenant;
  const verdict = checkValue(A2A_1_0, 'Task', task, { flavour: 'exact' });
  expect(verdict.ok ? [] : verdict.violations, 'GET /a2a/api/task is an A2A Task').toEqual([]);
  expect(typeof serverId).toBe('string');
  return body;
}

async function stateOf(base: string, id: string): Promise<TaskState | undefined> {
  return (await taskOf(base, id)).status.state;
}

/** A test-directive message that works in `steps` cancellable steps of `stepMs`. */
function slowMessage(steps: number, stepMs: number, extra: Record<string, unknown> = {}) {
  return userMessage('slow work', { metadata: testDirectiveMetadata({ steps, stepMs }), ...extra });
}

/** Starts a slow task with returnImmediately and returns its id once it runs. */
async function startSlowTask(
  base: string,
  endpoint: string,
  extra: Record<string, unknown> = {},
  steps = 50,
  stepMs = 100,
): Promise<{ id: string; contextId: string }> {
  const result = await call(endpoint, 'SendMessage', {
    message: slowMessage(steps, stepMs, extra),
    configuration: { returnImmediately: true },
  });
  const task = result.task;
  expect(task, 'SendMessage returned a task').toBeDefined();
  expect(['TASK_STATE_SUBMITTED', 'TASK_STATE_WORKING']).toContain(task?.status.state);
  const id = task?.id ?? '';
  await until(async () => (await stateOf(base, id)) === 'TASK_STATE_WORKING', `task ${id} WORKING`);
  return { id, contextId: task?.contextId ?? '' };
}

interface OpenStream {
  readonly frames: StreamResponse[];
  /** Resolves once the server side of the stream has ended, by a last frame or a closed connection. */
  readonly ended: Promise<'done' | 'error'>;
  abort(): void;
}

/** Opens an SSE method with fetch and keeps reading in the background. */
async function openStream(
  url: string,
  method: 'SendStreamingMessage' | 'SubscribeToTask',
  params: Record<string, unknown>,
  headers: Record<string, string> = {},
): Promise<OpenStream> {
  const controller = new AbortController();
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'text/event-stream', 'a2a-version': '1.0', ...headers },
    body: JSON.stringify({ jsonrpc: '2.0', id: `s-${randomUUID()}`, method, params }),
    signal: controller.signal,
  });
  expect(response.status).toBe(200);
  expect(response.headers.get('content-type')).toMatch(/^text\/event-stream/);
  const frames: StreamResponse[] = [];
  const parser = createParser({
    onEvent(message) {
      const envelope = JSON.parse(message.data) as { result: StreamResponse };
      const verdict = checkValue(A2A_1_0, 'StreamResponse', envelope.result, { flavour: 'exact' });
      expect(verdict.ok ? [] : verdict.violations, 'stream frame').toEqual([]);
      frames.push(envelope.result);
    },
  });
  const reader = response.body?.getReader() as ReadableStreamDefaultReader<Uint8Array>;
  const decoder = new TextDecoder();
  const ended = (async (): Promise<'done' | 'error'> => {
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) return 'done';
        parser.feed(decoder.decode(value, { stream: true }));
      }
    } catch {
      return 'error';
    }
  })();
  return { frames, ended, abort: () => controller.abort() };
}

const ENV_TOKEN_VAR = 'CONTROL_TEST_TOKEN';
const ENV_TOKEN = `env-token-${randomUUID()}`;
/** Random from the first character, so that even a prefix of it in a body is a leak. */
const SECRET = randomBytes(16).toString('hex');
const logLines: string[] = [];

let hub: TestHub;
let base: string;
beforeAll(async () => {
  hub = await startTestHub({
    logger: pino({ level: 'trace' }, { write: (line: string) => void logLines.push(line) }),
    env: { [ENV_TOKEN_VAR]: ENV_TOKEN },
  });
  base = hub.url;
});
afterAll(() => hub.dispose());

const create = (name: string, extra: Record<string, unknown> = {}): Promise<string> => createInbound(base, name, extra);

// ---------------------------------------------------------------------------------------------
// Read endpoints
// ---------------------------------------------------------------------------------------------

describe('GET /a2a/api: the snapshot', () => {
  it('answers { inbounds, outbounds, tasks, peers, sessions, taskPage, push, retention } and lists the default instance without a token', async () => {
    const body = await snapshot(base);
    expect(Object.keys(body).sort()).toEqual(['inbounds', 'outbounds', 'peers', 'push', 'retention', 'sessions', 'taskPage', 'tasks']);
    expect(body.retention).toEqual({ sweepEveryMs: 60_000, lastPruned: 0, prunedTotal: 0 });
    expect(body.outbounds).toEqual([]);
    expect(body.taskPage).toMatchObject({ limit: 50, offset: 0 });
    const row = body.inbounds.find((inbound) => inbound.id === 'default');
    expect(row).toEqual({
      id: 'default',
      name: 'a2a-hub echo',
      description: expect.any(String) as string,
      version: '1.0.0',
      endpointPath: '/a2a/default',
      jsonRpcPath: '/a2a/default',
      restPath: '/a2a/default',
      preset: 'echo',
      cardPath: '/a2a/default/agent-card.json',
      cardUrl: `${base}/a2a/default/agent-card.json`,
      endpointUrl: `${base}/a2a/default`,
      jsonRpcUrl: `${base}/a2a/default`,
      restUrl: `${base}/a2a/default`,
      enabled: true,
      authEnabled: false,
      skills: [{ id: 'chat', name: 'chat', description: expect.any(String) as string, tags: ['echo', 'test'] }],
      status: 'available',
    });
  });

  describe('the task page', () => {
    let serverId: string;
    const completedContext = `ctx-page-ok-${randomUUID()}`;
    const failedContext = `ctx-page-fail-${randomUUID()}`;
    beforeAll(async () => {
      serverId = await create('Pager');
      const endpoint = `${base}/a2a/${serverId}`;
      for (const text of ['one', 'two', 'three'])
        await call(endpoint, 'SendMessage', { message: userMessage(text, { contextId: completedContext }) });
      for (let i = 0; i < 2; i += 1) await call(endpoint, 'SendMessage', { message: userMessage('::fail', { contextId: failedContext }) });
    });

    it('taskServerId selects one instance, newest first, with the filtered total', async () => {
      const body = await snapshot(base, `?taskServerId=${serverId}`);
      expect(body.taskPage).toEqual({ limit: 50, offset: 0, total: 5 });
      expect(body.tasks).toHaveLength(5);
      expect(body.tasks.every((task) => task.serverId === serverId)).toBe(true);
      const updated = body.tasks.map((task) => task.updatedAt);
      expect(updated).toEqual([...updated].sort().reverse());
      expect(body.tasks.map((task) => task.state)).toEqual([
        'TASK_STATE_FAILED',
        'TASK_STATE_FAILED',
        'TASK_STATE_COMPLETED',
        'TASK_STATE_COMPLETED',
        'TASK_STATE_COMPLETED',
      ]);
    });

    it('taskLimit and taskOffset page through the same list', async () => {
      const all = (await snapshot(base, `?taskServerId=${serverId}`)).tasks.map((task) => task.id);
      const pages: string[] = [];
      for (const offset of [0, 2, 4]) {
        const page = await snapshot(base, `?taskServerId=${serverId}&taskLimit=2&taskOffset=${offset}`);
        expect(page.taskPage).toEqual({ limit: 2, offset, total: 5 });
        expect(page.tasks.length).toBe(offset === 4 ? 1 : 2);
        pages.push(...page.tasks.map((task) => task.id));
      }
      expect(pages).toEqual(all);
      const beyond = await snapshot(base, `?taskServerId=${serverId}&taskOffset=5`);
      expect(beyond.tasks).toEqual([]);
      expect(beyond.taskPage).toEqual({ limit: 50, offset: 5, total: 5 });
      expect((await snapshot(base, '?taskLimit=500')).taskPage.limit).toBe(500);
      expect((await snapshot(base, '?taskLimit=1')).tasks).toHaveLength(1);
    });

    it('taskState and taskContextId filter, alone and together', async () => {
      const failed = await snapshot(base, `?taskServerId=${serverId}&taskState=TASK_STATE_FAILED`);
      expect(failed.taskPage.total).toBe(2);
      expect(failed.tasks.every((task) => task.state === 'TASK_STATE_FAILED' && task.contextId === failedContext)).toBe(true);
      const byContext = await snapshot(base, `?taskContextId=${completedContext}`);
      expect(byContext.taskPage.total).toBe(3);
      expect(
        byContext.tasks.every(
          (task) => task.contextId === completedContext && task.serverId === serverId && task.state === 'TASK_STATE_COMPLETED',
        ),
      ).toBe(true);
      expect((await snapshot(base, `?taskContextId=${completedContext}&taskState=TASK_STATE_FAILED`)).taskPage.total).toBe(0);
      expect((await snapshot(base, `?taskServerId=no-such-instance`)).taskPage.total).toBe(0);
    });

    it('rejects bad values with 400 and a violation naming the parameter', async () => {
      const cases: [string, string, RegExp][] = [
        ['?taskLimit=0', 'taskLimit', />= 1/],
        ['?taskLimit=abc', 'taskLimit', /whole number/],
        ['?taskLimit=501', 'taskLimit', /<= 500/],
        ['?taskLimit=1.5', 'taskLimit', /whole number/],
        ['?taskOffset=-1', 'taskOffset', />= 0/],
        ['?taskState=done', 'taskState', /one of TASK_STATE_SUBMITTED/],
        ['?taskState=completed', 'taskState', /one of/],
      ];
      for (const [query, field, description] of cases) {
        const body = await badQuery(base, `/a2a/api${query}`);
        expect(body.violations, query).toHaveLength(1);
        expect(body.violations[0]?.field, query).toBe(field);
        expect(body.violations[0]?.description, query).toMatch(description);
        expect(body.message, query).toContain(field);
      }
    });
  });
});

describe('GET /a2a/api/presets', () => {
  it('lists the roster with the default marked', async () => {
    const presets = await read(base, '/a2a/api/presets', 'PresetList');
    expect(presets).toEqual([
      { id: 'echo', name: 'Echo', description: expect.any(String) as string, isDefault: true },
      { id: 'relay', name: 'Relay', description: expect.any(String) as string, isDefault: false },
      { id: 'standard', name: 'Standard', description: expect.any(String) as string, isDefault: false },
      { id: 'worker', name: 'Worker', description: expect.any(String) as string, isDefault: false },
    ]);
  });
});

describe('GET /a2a/api/card', () => {
  it('answers the card the instance publishes', async () => {
    const card = await read(base, '/a2a/api/card?id=default', 'AgentCardJson');
    const verdict = checkValue(A2A_1_0, 'AgentCard', card, { flavour: 'exact' });
    expect(verdict.ok ? [] : verdict.violations).toEqual([]);
    const published = (await http(base, '/a2a/default/agent-card.json', { headers: { 'a2a-version': '1.0' } })).body;
    expect(card).toEqual(published);
  });

  it('answers 404 for an unknown id and 400 without one', async () => {
    expect((await readFailure(base, '/a2a/api/card?id=no-such-instance', 404)).message).toMatch(
      /no inbound instance has id "no-such-instance"/,
    );
    expect((await badQuery(base, '/a2a/api/card')).violations).toEqual([{ field: 'id', description: 'is required' }]);
    expect((await badQuery(base, '/a2a/api/card?id=')).violations).toEqual([{ field: 'id', description: 'is required' }]);
  });
});

describe('GET /a2a/api/task', () => {
  it('answers the full A2A task with its serverId, 404 for an unknown id and 400 without one', async () => {
    const result = await call(hub.endpoint, 'SendMessage', { message: userMessage('task read') });
    const id = result.task?.id ?? '';
    const task = await taskOf(base, id);
    expect(task.id).toBe(id);
    expect(task.serverId).toBe('default');
    expect(task.status.state).toBe('TASK_STATE_COMPLETED');
    expect(artifactText(task)).toBe('echo: task read');
    expect((await readFailure(base, '/a2a/api/task?id=no-such-task', 404)).message).toMatch(/no task has id "no-such-task"/);
    expect((await badQuery(base, '/a2a/api/task')).violations).toEqual([{ field: 'id', description: 'is required' }]);
  });
});

describe('GET /a2a/api/session', () => {
  it('answers a live session with its tasks; 404 for an unknown context or instance; 400 without either parameter', async () => {
    const contextId = `ctx-session-read-${randomUUID()}`;
    await call(hub.endpoint, 'SendMessage', { message: userMessage('first', { contextId }) });
    await call(hub.endpoint, 'SendMessage', { message: userMessage('second', { contextId }) });
    const view = await read(base, `/a2a/api/session?contextId=${contextId}&serverId=default`, 'SessionView');
    const { tasks, live, ...rest } = view as { tasks: unknown[]; live: boolean; [member: string]: unknown };
    expect(live).toBe(true);
    expect(tasks).toHaveLength(2);
    for (const row of tasks) valid('TaskRow', row);
    // SessionView carries at least the SessionRow members.
    const row = valid('SessionRow', {
      contextId: rest['contextId'],
      serverId: rest['serverId'],
      activeTasks: rest['activeTasks'],
      taskCount: rest['taskCount'],
      createdAt: rest['createdAt'],
      lastActiveAt: rest['lastActiveAt'],
    });
    expect(row).toMatchObject({ contextId, serverId: 'default', activeTasks: 0, taskCount: 2 });
    expect((await snapshot(base)).sessions).toContainEqual(expect.objectContaining({ contextId, serverId: 'default', taskCount: 2 }));

    expect((await readFailure(base, `/a2a/api/session?contextId=no-such-context&serverId=default`, 404)).message).toMatch(
      /no session has context id "no-such-context"/,
    );
    await readFailure(base, `/a2a/api/session?contextId=${contextId}&serverId=no-such-instance`, 404);
    expect((await badQuery(base, '/a2a/api/session')).violations.map((v) => v.field)).toEqual(['contextId', 'serverId']);
    expect((await badQuery(base, `/a2a/api/session?contextId=${contextId}`)).violations).toEqual([
      { field: 'serverId', description: 'is required' },
    ]);
    expect((await badQuery(base, '/a2a/api/session?serverId=default')).violations).toEqual([
      { field: 'contextId', description: 'is required' },
    ]);
  });
});

describe('the 400 answers of the read endpoints', () => {
  it('are valid ReadError bodies (GET endpoints declare ReadError as their failure body)', async () => {
    for (const path of [
      '/a2a/api?taskLimit=0',
      '/a2a/api?taskState=done',
      '/a2a/api/card',
      '/a2a/api/task',
      '/a2a/api/session?contextId=x',
      '/a2a/api/metrics?format=xml',
      '/a2a/api/push',
    ]) {
      const answer = await http(base, path);
      expect(answer.status, path).toBe(400);
      valid('ReadError', answer.body);
    }
  });
});

describe('GET /a2a/api/metrics', () => {
  let metricsHub: TestHub;
  let stream: OpenStream | undefined;
  beforeAll(async () => {
    // Six requests from 127.0.0.1 pass; the bucket refills far slower than the test runs.
    metricsHub = await startTestHub({ rateLimit: { perSecond: 0.001, burst: 6 } });
  });
  afterAll(async () => {
    stream?.abort();
    await metricsHub.dispose();
  });

  it('counts requests by method and outcome, latency, tasks by state, open streams, sessions and rate-limit rejections, as JSON and as Prometheus text', async () => {
    const url = metricsHub.url;
    for (const text of ['a', 'b', 'c']) await call(metricsHub.endpoint, 'SendMessage', { message: userMessage(text) });
    await call(metricsHub.endpoint, 'SendMessage', { message: userMessage('::fail') });
    await expectRpcError(metricsHub.endpoint, 'GetTask', { id: 'no-such-task' }, 'TaskNotFoundError');
    stream = await openStream(metricsHub.endpoint, 'SendStreamingMessage', { message: slowMessage(100, 100) });
    await until(
      () => stream?.frames.some((frame) => frame.statusUpdate?.status.state === 'TASK_STATE_WORKING') ?? false,
      'the streamed task to work',
    );
    for (let i = 0; i < 2; i += 1) expect((await rpc(metricsHub.endpoint, 'ListTasks', {})).status).toBe(429);

    const json = await read(url, '/a2a/api/metrics', 'Metrics');
    expect(json.requests).toEqual({
      SendMessage: { ok: 4 },
      GetTask: { [String(ERRORS.TaskNotFoundError.code)]: 1 },
      SendStreamingMessage: { ok: 1 },
      '-': { 'http-429': 2 },
    });
    expect(json.tasksByState).toMatchObject({ TASK_STATE_COMPLETED: 3, TASK_STATE_FAILED: 1, TASK_STATE_WORKING: 1 });
    expect(json.openStreams).toBe(1);
    expect(json.rateLimitRejections).toBe(2);
    const sessions = (await snapshot(url)).sessions.length;
    expect(sessions).toBeGreaterThan(0);
    expect(json.sessions).toBe(sessions);
    const latency = (json as { latencySeconds?: Record<string, { count: number; sum: number; buckets: Record<string, number> }> })
      .latencySeconds;
    expect(latency?.['SendMessage']?.count).toBe(4);
    expect(json, 'the JSON never asks for Accept').toEqual(await read(url, '/a2a/api/metrics?format=json', 'Metrics'));

    const byAccept = await send(`${url}/a2a/api/metrics`, { headers: { accept: 'text/plain' } });
    const byQuery = await send(`${url}/a2a/api/metrics?format=prometheus`);
    for (const answer of [byAccept, byQuery]) {
      expect(answer.status).toBe(200);
      expect(answer.headers.get('content-type')).toBe('text/plain; version=0.0.4; charset=utf-8');
    }
    // ?format=json wins over Accept.
    const jsonDespiteAccept = await send(`${url}/a2a/api/metrics?format=json`, { headers: { accept: 'text/plain' } });
    expect(jsonDespiteAccept.headers.get('content-type')).toMatch(/^application\/json/);
    valid('Metrics', JSON.parse(jsonDespiteAccept.text));

    const text = byQuery.text;
    expect(text.endsWith('\n')).toBe(true);
    const lines = text.trimEnd().split('\n');
    for (const line of lines) {
      expect(line, 'every line is a comment or a sample').toMatch(
        /^(?:# (?:HELP|TYPE) [a-z_:][a-z0-9_:]* .+|[a-z_:][a-z0-9_:]*(?:\{(?:[a-z_]+="(?:[^"\\]|\\.)*",?)*\})? -?[0-9.e+-]+)$/,
      );
    }
    const types = Object.fromEntries(
      lines.filter((line) => line.startsWith('# TYPE ')).map((line) => line.split(' ').slice(2, 4) as [string, string]),
    );
    expect(types).toEqual({
      a2a_hub_requests_total: 'counter',
      a2a_hub_request_duration_seconds: 'histogram',
      a2a_hub_tasks: 'gauge',
      a2a_hub_open_streams: 'gauge',
      a2a_hub_sessions: 'gauge',
      a2a_hub_rate_limit_rejections_total: 'counter',
      a2a_hub_push_attempts_total: 'counter',
      a2a_hub_push_attempt_duration_seconds: 'histogram',
      a2a_hub_push_pending: 'gauge',
      a2a_hub_connections_open: 'gauge',
      a2a_hub_connections_refused_total: 'counter',
      a2a_hub_store_writable: 'gauge',
      a2a_hub_store_write_failures_total: 'counter',
    });
    expect(lines).toContain('a2a_hub_store_writable 1');
    expect(lines).toContain('a2a_hub_requests_total{method="SendMessage",outcome="ok"} 4');
    expect(lines).toContain(`a2a_hub_requests_total{method="GetTask",outcome="${ERRORS.TaskNotFoundError.code}"} 1`);
    expect(lines).toContain('a2a_hub_requests_total{method="SendStreamingMessage",outcome="ok"} 1');
    expect(lines).toContain('a2a_hub_requests_total{method="-",outcome="http-429"} 2');
    const buckets = lines.filter((line) => line.startsWith('a2a_hub_request_duration_seconds_bucket{method="SendMessage",'));
    expect(buckets.map((line) => /le="([^"]+)"/.exec(line)?.[1])).toEqual([
      '0.005',
      '0.01',
      '0.025',
      '0.05',
      '0.1',
      '0.25',
      '0.5',
      '1',
      '2.5',
      '5',
      '10',
      '+Inf',
    ]);
    const counts = buckets.map((line) => Number(line.split(' ')[1]));
    expect(counts).toEqual([...counts].sort((a, b) => a - b));
    expect(counts.at(-1)).toBe(4);
    expect(lines).toContain('a2a_hub_request_duration_seconds_count{method="SendMessage"} 4');
    expect(lines.some((line) => /^a2a_hub_request_duration_seconds_sum\{method="SendMessage"\} [0-9.e-]+$/.test(line))).toBe(true);
    expect(lines).toContain('a2a_hub_tasks{state="TASK_STATE_COMPLETED"} 3');
    expect(lines).toContain('a2a_hub_tasks{state="TASK_STATE_FAILED"} 1');
    expect(lines).toContain('a2a_hub_tasks{state="TASK_STATE_WORKING"} 1');
    expect(lines).toContain('a2a_hub_open_streams 1');
    expect(lines).toContain(`a2a_hub_sessions ${sessions}`);
    expect(lines).toContain('a2a_hub_rate_limit_rejections_total 2');

    stream.abort();
    await stream.ended;
    await until(async () => (await read(url, '/a2a/api/metrics', 'Metrics')).openStreams === 0, 'the stream gauge to drop');
  });

  it('rejects an unknown format with 400', async () => {
    const body = await badQuery(hub.url, '/a2a/api/metrics?format=xml');
    expect(body.violations).toEqual([{ field: 'format', description: expect.stringMatching(/json, prometheus/) as string }]);
  });
});

// ---------------------------------------------------------------------------------------------
// Actions
// ---------------------------------------------------------------------------------------------

describe('inbound.create', () => {
  it('returns <slug>-<8 hex>; the card and the endpoint answer at once; the snapshot lists it', async () => {
    const created = await ok(base, {
      action: 'inbound.create',
      name: 'Quarterly Reports!',
      description: 'Reporting agent',
      version: '0.1.0',
    });
    expect(created.id).toMatch(/^quarterly-reports-[0-9a-f]{8}$/);
    expect(created.message).toBe('inbound server "Quarterly Reports!" created');
    const id = created.id ?? '';
    const card = (await http(base, `/a2a/${id}/agent-card.json`)).body as {
      name: string;
      description: string;
      version: string;
      supportedInterfaces: { url: string }[];
    };
    expect(card).toMatchObject({ name: 'Quarterly Reports!', description: 'Reporting agent', version: '0.1.0' });
    expect(card.supportedInterfaces[0]?.url).toBe(`${base}/a2a/${id}`);
    expect((await call(`${base}/a2a/${id}`, 'SendMessage', { message: userMessage('hello reports') })).task?.status.state).toBe(
      'TASK_STATE_COMPLETED',
    );
    expect(await inboundRow(base, id)).toMatchObject({
      id,
      endpointPath: `/a2a/${id}`,
      cardPath: `/a2a/${id}/agent-card.json`,
      cardUrl: `${base}/a2a/${id}/agent-card.json`,
      endpointUrl: `${base}/a2a/${id}`,
      preset: 'echo',
      enabled: true,
      authEnabled: false,
    });
  });

  it('takes endpointPath, preset, authTokenEnv and enabled', async () => {
    const path = `/agents/custom-${randomUUID().slice(0, 8)}`;
    const id = await create('Custom', { endpointPath: path, preset: 'echo', authTokenEnv: ENV_TOKEN_VAR, enabled: false });
    expect(await inboundRow(base, id)).toMatchObject({
      endpointPath: path,
      cardPath: `${path}/agent-card.json`,
      enabled: false,
      authEnabled: true,
      authTokenEnv: ENV_TOKEN_VAR,
    });
    expect(await statusOf(`${base}${path}/agent-card.json`)).toBe(404);
    expect(await listTasksStatus(`${base}${path}`)).toBe(404);
    // The control API reads the card of a disabled instance too.
    await read(base, `/a2a/api/card?id=${id}`, 'AgentCardJson');
    await ok(base, { action: 'inbound.enable', id });
    expect(await listTasksStatus(`${base}${path}`)).toBe(401);
    expect(await listTasksStatus(`${base}${path}`, { authorization: `Bearer ${ENV_TOKEN}` })).toBe(200);
  });

  it('fails with 409 and an actionable message on an endpointPath in use, a reserved path or an unknown preset', async () => {
    expect(
      (await fails(base, { action: 'inbound.create', name: 'x', description: 'd', version: '1', endpointPath: '/a2a/default' })).message,
    ).toMatch(/endpointPath \/a2a\/default is already used by instance "default"/);
    expect(
      (await fails(base, { action: 'inbound.create', name: 'x', description: 'd', version: '1', endpointPath: '/a2a/panel' })).message,
    ).toMatch(/not usable/);
    expect((await fails(base, { action: 'inbound.create', name: 'x', description: 'd', version: '1', preset: 'oracle' })).message).toMatch(
      /unknown preset "oracle"; available: echo/,
    );
    expect((await snapshot(base)).inbounds.some((row) => row.name === 'x')).toBe(false);
  });

  it('takes jsonRpcPath, restPath and tenants: JSON-RPC moves there, the card stays below endpointPath, the row shows each URL', async () => {
    const root = `/data-${randomUUID().slice(0, 8)}`;
    const paths = { endpointPath: root, jsonRpcPath: `${root}/jsonrpc`, restPath: `${root}/rest` };
    const id = await create('Data Agent', { ...paths, tenants: ['research', 'ops'] });
    expect(await inboundRow(base, id)).toMatchObject({
      ...paths,
      tenants: ['research', 'ops'],
      cardUrl: `${base}${root}/agent-card.json`,
      endpointUrl: `${base}${root}`,
      jsonRpcUrl: `${base}${root}/jsonrpc`,
      restUrl: `${base}${root}/rest`,
    });
    const card = valid('AgentCardJson', (await http(base, `${root}/agent-card.json`)).body) as {
      supportedInterfaces: { url: string; protocolBinding: string }[];
    };
    expect(card.supportedInterfaces.find((entry) => entry.protocolBinding === 'JSONRPC')?.url).toBe(`${base}${root}/jsonrpc`);
    expect(await listTasksStatus(`${base}${root}/jsonrpc`)).toBe(200);
    expect(await listTasksStatus(`${base}${root}`)).toBe(404);
  });

  it('refuses a path that clashes with another instance (409) and a malformed path or tenant (400), naming the member', async () => {
    expect(
      (await fails(base, { action: 'inbound.create', name: 'x', description: 'd', version: '1', jsonRpcPath: '/a2a/default' })).message,
    ).toBe('jsonRpcPath /a2a/default is already used by instance "default"');
    expect(
      (await fails(base, { action: 'inbound.create', name: 'x', description: 'd', version: '1', endpointPath: '/a2a/default/x' })).message,
    ).toMatch(/^endpointPath \/a2a\/default\/x lies below the restPath \/a2a\/default of instance "default"/);
    expect(
      (await fails(base, { action: 'inbound.create', name: 'x', description: 'd', version: '1', endpointPath: '/x', restPath: '/a2a' }))
        .message,
    ).toMatch(/^restPath \/a2a lies above the hub's own \/a2a\/api/);
    const badPath = await fails(base, { action: 'inbound.create', name: 'x', description: 'd', version: '1', restPath: 'rest' }, 400);
    expect(badPath.violations?.map((violation) => violation.field)).toEqual(['restPath']);
    const badTenant = await fails(
      base,
      { action: 'inbound.create', name: 'x', description: 'd', version: '1', tenants: ['a/b', 'a/b'] },
      400,
    );
    expect(badTenant.violations?.map((violation) => violation.field)).toEqual(['tenants[0]', 'tenants[1]', 'tenants']);
    expect(badTenant.message).toContain('must be a tenant name such as research');
    expect((await snapshot(base)).inbounds.some((row) => row.name === 'x')).toBe(false);
  });
});

describe('inbound.update', () => {
  it('moves JSON-RPC and the REST base, and an empty jsonRpcPath, restPath or tenants list goes back to the default', async () => {
    const id = await create('Paths');
    await ok(base, { action: 'inbound.update', id, jsonRpcPath: `/rpc/${id}`, restPath: `/v1/${id}`, tenants: ['t1'] });
    expect(await inboundRow(base, id)).toMatchObject({
      jsonRpcPath: `/rpc/${id}`,
      restPath: `/v1/${id}`,
      tenants: ['t1'],
      jsonRpcUrl: `${base}/rpc/${id}`,
      restUrl: `${base}/v1/${id}`,
    });
    expect(await listTasksStatus(`${base}/rpc/${id}`)).toBe(200);
    expect(await listTasksStatus(`${base}/a2a/${id}`)).toBe(404);
    expect((await fails(base, { action: 'inbound.update', id, restPath: '/a2a/default' })).message).toBe(
      'restPath /a2a/default is already used by instance "default"',
    );
    await ok(base, { action: 'inbound.update', id, jsonRpcPath: '', restPath: '', tenants: [] });
    const row = await inboundRow(base, id);
    expect(row).toMatchObject({ jsonRpcPath: `/a2a/${id}`, restPath: `/a2a/${id}`, restUrl: `${base}/a2a/${id}` });
    expect(row).not.toHaveProperty('tenants');
    expect(await listTasksStatus(`${base}/a2a/${id}`)).toBe(200);
  });

  it('changes members; a new endpointPath moves both routes; the card reflects it at once', async () => {
    const id = await create('Mover');
    const updated = await ok(base, {
      action: 'inbound.update',
      id,
      name: 'Moved',
      description: 'moved agent',
      version: '2.0.0',
      endpointPath: `/agents/moved-${id}`,
    });
    expect(updated.id).toBe(id);
    expect(await statusOf(`${base}/a2a/${id}/agent-card.json`)).toBe(404);
    expect(await listTasksStatus(`${base}/a2a/${id}`)).toBe(404);
    const card = (await http(base, `/agents/moved-${id}/agent-card.json`)).body as {
      name: string;
      version: string;
      supportedInterfaces: { url: string }[];
    };
    expect(card).toMatchObject({ name: 'Moved', version: '2.0.0' });
    expect(card.supportedInterfaces[0]?.url).toBe(`${base}/agents/moved-${id}`);
    expect(await listTasksStatus(`${base}/agents/moved-${id}`)).toBe(200);
    expect(await inboundRow(base, id)).toMatchObject({
      name: 'Moved',
      description: 'moved agent',
      version: '2.0.0',
      endpointPath: `/agents/moved-${id}`,
      cardUrl: `${base}/agents/moved-${id}/agent-card.json`,
      endpointUrl: `${base}/agents/moved-${id}`,
    });
  });

  it('fails with 409 on an unknown id, an endpointPath in use and an unknown preset, changing nothing', async () => {
    const id = await create('Stayer');
    expect((await fails(base, { action: 'inbound.update', id: 'no-such-instance', name: 'y' })).message).toMatch(
      /no inbound instance has id "no-such-instance"/,
    );
    expect((await fails(base, { action: 'inbound.update', id, endpointPath: '/a2a/default' })).message).toMatch(
      /already used by instance "default"/,
    );
    expect((await fails(base, { action: 'inbound.update', id, preset: 'oracle' })).message).toMatch(/unknown preset "oracle"/);
    expect(await inboundRow(base, id)).toMatchObject({ name: 'Stayer', endpointPath: `/a2a/${id}`, preset: 'echo' });
  });

  it('authTokenEnv "" stops reading the token from the environment', async () => {
    const id = await create('Env Auth', { authTokenEnv: ENV_TOKEN_VAR });
    expect(await listTasksStatus(`${base}/a2a/${id}`)).toBe(401);
    await ok(base, { action: 'inbound.update', id, authTokenEnv: '' });
    const row = await inboundRow(base, id);
    expect(row?.authEnabled).toBe(false);
    expect(row?.authTokenEnv).toBeUndefined();
    expect(await listTasksStatus(`${base}/a2a/${id}`)).toBe(200);
  });
});

describe('inbound.remove', () => {
  it('unregisters the routes and deletes the instance; its stored tasks stay; a second remove is 409', async () => {
    const id = await create('Temporary');
    const task = await call(`${base}/a2a/${id}`, 'SendMessage', { message: userMessage('keep me') });
    const removed = await ok(base, { action: 'inbound.remove', id });
    // The test's own keep-alive connection to the instance counts as a connected peer and is closed too.
    expect(removed.message).toMatch(/^inbound server "Temporary" removed(; \d+ connected peers? disconnected)?$/);
    expect(await statusOf(`${base}/a2a/${id}/agent-card.json`)).toBe(404);
    expect(await listTasksStatus(`${base}/a2a/${id}`)).toBe(404);
    expect(await inboundRow(base, id)).toBeUndefined();
    await readFailure(base, `/a2a/api/card?id=${id}`, 404);
    expect((await taskOf(base, task.task?.id ?? '')).serverId).toBe(id);
    expect((await fails(base, { action: 'inbound.remove', id })).message).toMatch(/no inbound instance has id/);
  });

  it('closes the peers connected to the removed instance', async () => {
    const id = await create('Removed With Peer');
    const open = await openStream(`${base}/a2a/${id}`, 'SendStreamingMessage', { message: slowMessage(50, 100) });
    try {
      await until(
        async () => (await snapshot(base)).peers.some((peer) => peer.serverId === id && peer.openStreams >= 1),
        'the peer to be listed',
      );
      await ok(base, { action: 'inbound.remove', id });
      const outcome = await Promise.race([
        open.ended,
        new Promise<'still open'>((resolve) => setTimeout(() => resolve('still open'), 3000)),
      ]);
      expect(outcome).not.toBe('still open');
      expect((await snapshot(base)).peers.some((peer) => peer.serverId === id)).toBe(false);
    } finally {
      open.abort();
    }
  });
});

describe('actions sent on the connection of a peer they disconnect (a keep-alive pool)', () => {
  // One connection per origin: every request below travels on the same socket, which the
  // instance's endpoint has seen, so it is the very peer the action closes.
  let pool: Agent;
  beforeAll(() => {
    pool = new Agent({ connections: 1, pipelining: 1, keepAliveTimeout: 60_000 });
  });
  afterAll(() => pool.close());

  const pooled = async (path: string, body: unknown, headers: Record<string, string> = {}): Promise<{ status: number; text: string }> => {
    const response = await request(`${base}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body: JSON.stringify(body),
      dispatcher: pool,
    });
    return { status: response.statusCode, text: await response.body.text() };
  };
  const pooledAction = async (action: Record<string, unknown>): Promise<ActionSuccess> => {
    const answer = await pooled('/a2a/api', action);
    expect(answer.status, answer.text).toBe(200);
    return valid('ActionSuccess', parseJson(answer.text));
  };
  /** Creates an instance and talks to its endpoint over the pool, making the pool's connection its peer. */
  const createAndTalk = async (name: string): Promise<string> => {
    const id = (await pooledAction({ action: 'inbound.create', name, description: 'pooled', version: '1' })).id ?? '';
    const listed = await pooled(`/a2a/${id}`, { jsonrpc: '2.0', id: 1, method: 'ListTasks', params: {} }, { 'a2a-version': '1.0' });
    expect(listed.status, listed.text).toBe(200);
    return id;
  };

  it('inbound.remove answers every one of 10 removes in a row, closing that connection after the answer', async () => {
    for (let round = 0; round < 10; round += 1) {
      const id = await createAndTalk(`Pooled ${round}`);
      const removed = await pooledAction({ action: 'inbound.remove', id });
      expect(removed.message).toBe(`inbound server "Pooled ${round}" removed; 1 connected peer disconnected`);
      expect((await snapshot(base)).peers.some((peer) => peer.serverId === id)).toBe(false);
    }
  });

  it('inbound.close answers on the connection it closes', async () => {
    const id = await createAndTalk('Pooled close');
    const peer = (await snapshot(base)).peers.find((candidate) => candidate.serverId === id);
    expect(peer).toBeDefined();
    expect((await pooledAction({ action: 'inbound.close', id: peer?.id ?? '' })).message).toBe(`peer ${peer?.id ?? ''} disconnected`);
    expect((await snapshot(base)).peers.some((candidate) => candidate.id === peer?.id)).toBe(false);
    await pooledAction({ action: 'inbound.remove', id });
  });
});

describe('inbound.enable and inbound.disable', () => {
  it('a disabled instance answers 404 on card and endpoint until it is enabled again', async () => {
    const id = await create('Toggle');
    expect((await ok(base, { action: 'inbound.disable', id })).message).toBe('inbound server "Toggle" disabled');
    expect(await statusOf(`${base}/a2a/${id}/agent-card.json`)).toBe(404);
    expect(await listTasksStatus(`${base}/a2a/${id}`)).toBe(404);
    expect((await inboundRow(base, id))?.enabled).toBe(false);
    expect((await ok(base, { action: 'inbound.enable', id })).message).toBe('inbound server "Toggle" enabled');
    expect(await statusOf(`${base}/a2a/${id}/agent-card.json`)).toBe(200);
    expect(await listTasksStatus(`${base}/a2a/${id}`)).toBe(200);
    expect((await inboundRow(base, id))?.enabled).toBe(true);
  });

  it('fails with 409 on an unknown id', async () => {
    for (const action of ['inbound.enable', 'inbound.disable']) {
      expect((await fails(base, { action, id: 'no-such-instance' })).message).toMatch(/no inbound instance has id "no-such-instance"/);
    }
  });
});

describe('inbound.setAuth', () => {
  it('a token turns on bearer auth at the endpoint; empty or absent clears it; the snapshot shows only authEnabled', async () => {
    const id = await create('Guarded');
    const endpoint = `${base}/a2a/${id}`;
    const set = await ok(base, { action: 'inbound.setAuth', id, token: SECRET });
    expect(set.message).toBe('bearer auth enabled for inbound server "Guarded"');
    const refused = await send(endpoint, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'a2a-version': '1.0' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ListTasks', params: {} }),
    });
    expect(refused.status).toBe(401);
    expect(refused.headers.get('www-authenticate')).toMatch(/^Bearer/);
    expect(await listTasksStatus(endpoint, { authorization: 'Bearer wrong-token' })).toBe(401);
    expect(await listTasksStatus(endpoint, { authorization: `Bearer ${SECRET}` })).toBe(200);
    const card = (await http(base, `/a2a/${id}/agent-card.json`)).body as { securitySchemes?: Record<string, unknown> };
    expect(Object.keys(card.securitySchemes ?? {})).toEqual(['bearer']);
    const row = await inboundRow(base, id);
    expect(row?.authEnabled).toBe(true);
    expect(row).not.toHaveProperty('authTokenEnv');

    expect((await ok(base, { action: 'inbound.setAuth', id, token: '' })).message).toBe('bearer auth cleared for inbound server "Guarded"');
    expect(await listTasksStatus(endpoint)).toBe(200);
    expect((await inboundRow(base, id))?.authEnabled).toBe(false);

    await ok(base, { action: 'inbound.setAuth', id, token: SECRET });
    expect(await listTasksStatus(endpoint)).toBe(401);
    await ok(base, { action: 'inbound.setAuth', id });
    expect(await listTasksStatus(endpoint)).toBe(200);
    expect((await inboundRow(base, id))?.authEnabled).toBe(false);
    expect((await http(base, `/a2a/${id}/agent-card.json`)).body).not.toHaveProperty('securitySchemes');

    // Leave it on for the secrecy test below.
    await ok(base, { action: 'inbound.setAuth', id, token: SECRET });
  });

  it('fails with 409 on an unknown id', async () => {
    expect((await fails(base, { action: 'inbound.setAuth', id: 'no-such-instance', token: SECRET })).message).toMatch(
      /no inbound instance has id "no-such-instance"/,
    );
  });
});

describe('inbound.sendTest', () => {
  it('returns the taskId, the final state TASK_STATE_COMPLETED and the contextId', async () => {
    const answer = await ok(base, { action: 'inbound.sendTest', id: 'default', text: 'hello from the panel' });
    expect(answer.state).toBe('TASK_STATE_COMPLETED');
    expect(answer.taskId).toMatch(/.+/);
    expect(answer.contextId).toMatch(/.+/);
    const task = await taskOf(base, answer.taskId ?? '');
    expect(task).toMatchObject({
      id: answer.taskId,
      contextId: answer.contextId,
      serverId: 'default',
      status: { state: 'TASK_STATE_COMPLETED' },
    });
    expect(artifactText(task)).toBe('echo: hello from the panel');
  });

  it('`::fail` ends FAILED; a given contextId and skill are used', async () => {
    expect((await ok(base, { action: 'inbound.sendTest', id: 'default', text: '::fail' })).state).toBe('TASK_STATE_FAILED');
    const contextId = `ctx-send-test-${randomUUID()}`;
    const answer = await ok(base, { action: 'inbound.sendTest', id: 'default', text: 'in context', contextId, skill: 'chat' });
    expect(answer).toMatchObject({ state: 'TASK_STATE_COMPLETED', contextId });
    expect((await taskOf(base, answer.taskId ?? '')).contextId).toBe(contextId);
  });

  it('fails with 409 on an unknown id', async () => {
    expect((await fails(base, { action: 'inbound.sendTest', id: 'no-such-instance', text: 'hi' })).message).toMatch(
      /no inbound instance has id "no-such-instance"/,
    );
  });

  it('fails with 409 on a skill the instance does not advertise', async () => {
    const failure = await fails(base, { action: 'inbound.sendTest', id: 'default', text: 'hi', skill: 'no-such-skill' });
    expect(failure.message).toMatch(/no-such-skill/);
  });
});

describe('task.cancel', () => {
  it('cancels a running task: the answer and GET /task say CANCELED; a second cancel is 409', async () => {
    const { id } = await startSlowTask(base, hub.endpoint);
    const canceled = await ok(base, { action: 'task.cancel', id });
    expect(canceled).toMatchObject({ taskId: id, state: 'TASK_STATE_CANCELED' });
    expect(await stateOf(base, id)).toBe('TASK_STATE_CANCELED');
    expect((await call(hub.endpoint, 'GetTask', { id })).status.state).toBe('TASK_STATE_CANCELED');
    expect((await fails(base, { action: 'task.cancel', id })).message).toMatch(/already canceled and cannot be canceled/);
  });

  it('fails with 409 on a completed task and on an unknown id', async () => {
    const done = await ok(base, { action: 'inbound.sendTest', id: 'default', text: 'done already' });
    expect((await fails(base, { action: 'task.cancel', id: done.taskId })).message).toMatch(/cannot be canceled/);
    expect(await stateOf(base, done.taskId ?? '')).toBe('TASK_STATE_COMPLETED');
    expect((await fails(base, { action: 'task.cancel', id: 'no-such-task' })).message).toMatch(/no task has id "no-such-task"/);
  });
});

describe('session.cancel', () => {
  it('cancels the active tasks of a context, scoped to serverId when given; the live session stays', async () => {
    const other = await create('Scoped');
    const contextId = `ctx-cancel-${randomUUID()}`;
    const onDefault = await startSlowTask(base, hub.endpoint, { contextId });
    const onOther = await startSlowTask(base, `${base}/a2a/${other}`, { contextId });
    const scoped = await ok(base, { action: 'session.cancel', id: contextId, serverId: other });
    expect(scoped.message).toBe(`canceled 1 active task of context ${contextId}`);
    expect(scoped.contextId).toBe(contextId);
    expect(await stateOf(base, onOther.id)).toBe('TASK_STATE_CANCELED');
    expect(await stateOf(base, onDefault.id)).toBe('TASK_STATE_WORKING');

    const second = await startSlowTask(base, hub.endpoint, { contextId });
    const everywhere = await ok(base, { action: 'session.cancel', id: contextId });
    expect(everywhere.message).toBe(`canceled 2 active tasks of context ${contextId}`);
    expect(await stateOf(base, onDefault.id)).toBe('TASK_STATE_CANCELED');
    expect(await stateOf(base, second.id)).toBe('TASK_STATE_CANCELED');
    expect((await snapshot(base)).sessions).toContainEqual(expect.objectContaining({ contextId, serverId: 'default' }));
    expect((await ok(base, { action: 'session.cancel', id: contextId })).message).toBe(`canceled 0 active tasks of context ${contextId}`);
  });

  it('fails with 409 on an unknown context and on an unknown serverId', async () => {
    expect((await fails(base, { action: 'session.cancel', id: 'no-such-context' })).message).toMatch(
      /no session has context id "no-such-context"/,
    );
    const contextId = `ctx-known-${randomUUID()}`;
    await call(hub.endpoint, 'SendMessage', { message: userMessage('known', { contextId }) });
    expect((await fails(base, { action: 'session.cancel', id: contextId, serverId: 'no-such-instance' })).message).toMatch(
      /no inbound instance has id "no-such-instance"/,
    );
  });
});

describe('session.close', () => {
  it('cancels the active tasks and releases the live session: it leaves snapshot.sessions', async () => {
    const contextId = `ctx-close-${randomUUID()}`;
    const running = await startSlowTask(base, hub.endpoint, { contextId });
    expect((await snapshot(base)).sessions).toContainEqual(expect.objectContaining({ contextId, serverId: 'default', activeTasks: 1 }));
    const closed = await ok(base, { action: 'session.close', id: contextId, serverId: 'default' });
    expect(closed.message).toBe(`canceled 1 active task and released 1 live session of context ${contextId}`);
    expect(await stateOf(base, running.id)).toBe('TASK_STATE_CANCELED');
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect((await snapshot(base)).sessions.some((session) => session.contextId === contextId)).toBe(false);
    const view = (await read(base, `/a2a/api/session?contextId=${contextId}&serverId=default`, 'SessionView')) as { live: boolean };
    expect(view.live).toBe(false);
  });

  it('releases an idle session without serverId', async () => {
    const contextId = `ctx-close-idle-${randomUUID()}`;
    await call(hub.endpoint, 'SendMessage', { message: userMessage('idle', { contextId }) });
    expect((await snapshot(base)).sessions.some((session) => session.contextId === contextId)).toBe(true);
    expect((await ok(base, { action: 'session.close', id: contextId })).message).toBe(
      `canceled 0 active tasks and released 1 live session of context ${contextId}`,
    );
    expect((await snapshot(base)).sessions.some((session) => session.contextId === contextId)).toBe(false);
  });

  it('fails with 409 on an unknown context', async () => {
    expect((await fails(base, { action: 'session.close', id: 'no-such-context' })).message).toMatch(
      /no session has context id "no-such-context"/,
    );
    expect((await fails(base, { action: 'session.close', id: 'no-such-context', serverId: 'default' })).message).toMatch(
      /no session has context id "no-such-context" on instance "default"/,
    );
  });
});

describe('inbound.close', () => {
  for (const method of ['SendStreamingMessage', 'SubscribeToTask'] as const) {
    it(`ends a peer's open ${method} stream; the task keeps running`, async () => {
      let taskId: string;
      let open: OpenStream;
      if (method === 'SendStreamingMessage') {
        open = await openStream(hub.endpoint, method, { message: slowMessage(20, 100) });
        await until(() => open.frames.length > 0, 'the first frame');
        taskId = open.frames[0]?.task?.id ?? '';
      } else {
        taskId = (await startSlowTask(base, hub.endpoint, {}, 20, 100)).id;
        open = await openStream(hub.endpoint, method, { id: taskId });
        await until(() => open.frames.length > 0, 'the first frame');
      }
      try {
        expect(taskId).not.toBe('');
        let peerId = '';
        await until(async () => {
          const peer = (await snapshot(base)).peers.find((candidate) => candidate.serverId === 'default' && candidate.openStreams >= 1);
          peerId = peer?.id ?? '';
          return peer !== undefined;
        }, 'a peer with an open stream');
        expect((await snapshot(base)).peers.find((peer) => peer.id === peerId)?.address).toMatch(/^(?:::ffff:)?127\.0\.0\.1:\d+$/);
        const closed = await ok(base, { action: 'inbound.close', id: peerId });
        expect(closed.message).toBe(`peer ${peerId} disconnected`);
        const outcome = await Promise.race([
          open.ended,
          new Promise<'still open'>((resolve) => setTimeout(() => resolve('still open'), 3000)),
        ]);
        expect(outcome).not.toBe('still open');
        expect((await snapshot(base)).peers.some((peer) => peer.id === peerId)).toBe(false);
        expect(await stateOf(base, taskId)).toBe('TASK_STATE_WORKING');
        await until(
          async () => (await stateOf(base, taskId)) === 'TASK_STATE_COMPLETED',
          'the task to complete after its peer left',
          15_000,
        );
        expect((await fails(base, { action: 'inbound.close', id: peerId })).message).toMatch(/no connected peer has id/);
      } finally {
        open.abort();
      }
    });
  }

  it('fails with 409 on an unknown peer id', async () => {
    expect((await fails(base, { action: 'inbound.close', id: 'peer-0' })).message).toBe(
      'no connected peer has id "peer-0"; GET /a2a/api lists the peers',
    );
  });
});

describe('outbound actions', () => {
  // Their behaviour is covered in test/outbound/; here: unknown ids and unreachable remotes are 409s that leak no token.
  const unreachable = 'http://127.0.0.1:1/a2a/x/agent-card.json';
  const bodies: Record<string, unknown>[] = [
    { action: 'outbound.create', name: 'remote', agentCardUrl: unreachable, timeoutMs: 60000 },
    { action: 'outbound.update', id: 'out-1', name: 'renamed' },
    { action: 'outbound.remove', id: 'out-1' },
    { action: 'outbound.enable', id: 'out-1' },
    { action: 'outbound.disable', id: 'out-1' },
    { action: 'outbound.refresh', id: 'out-1' },
    { action: 'outbound.setAuth', id: 'out-1', token: SECRET },
    { action: 'outbound.discover', agentCardUrl: unreachable, token: SECRET },
  ];
  it.each(bodies.map((body) => [body['action'], body] as const))('%s answers 409 with what went wrong', async (_name, body) => {
    const failure = await fails(base, body);
    expect(failure.message).toMatch(
      /^no outbound connection has id "out-1"|^could not connect to http:\/\/127\.0\.0\.1:1\/|^could not read an agent card from http:\/\/127\.0\.0\.1:1\//,
    );
    expect(failure.text).not.toContain(SECRET);
  });

  it('are still checked against their schema first (400)', async () => {
    const failure = await fails(base, { action: 'outbound.create', name: 'remote' }, 400);
    expect(failure.violations).toEqual([{ field: 'agentCardUrl', description: 'is required' }]);
    expect((await snapshot(base)).outbounds).toEqual([]);
  });
});

// ---------------------------------------------------------------------------------------------
// Status codes of POST /a2a/api and the other paths
// ---------------------------------------------------------------------------------------------

describe('POST /a2a/api: 400', () => {
  it('invalid JSON is 400 without violations', async () => {
    for (const body of ['{"action": "inbound.create",', 'not json', '']) {
      const failure = await fails(base, body, 400);
      expect(failure.message).toMatch(/^the body is not valid JSON/);
      expect(failure.violations).toBeUndefined();
    }
  });

  it('a missing required member, an unknown member, an unknown action name and a wrong type are 400 with violations', async () => {
    expect((await fails(base, { action: 'inbound.create', name: 'x', description: 'd' }, 400)).violations).toEqual([
      { field: 'version', description: 'is required' },
    ]);
    const unknownMember = await fails(base, { action: 'inbound.create', name: 'x', description: 'd', version: '1', timeout: 5 }, 400);
    expect(unknownMember.violations).toEqual([
      { field: 'timeout', description: expect.stringMatching(/^is not a member of this object/) as string },
    ]);
    const unknownAction = await fails(base, { action: 'inbound.frobnicate', id: 'x' }, 400);
    expect(unknownAction.violations).toHaveLength(1);
    expect(unknownAction.violations?.[0]).toMatchObject({
      field: 'action',
      description: expect.stringMatching(/must be one of "inbound.create".*got "inbound.frobnicate"/) as string,
    });
    expect((await fails(base, { action: 'inbound.create', name: 5, description: 'd', version: '1' }, 400)).violations).toEqual([
      { field: 'name', description: 'must be a string, got a number' },
    ]);
    expect((await fails(base, { action: 'task.cancel' }, 400)).violations).toEqual([{ field: 'id', description: 'is required' }]);
    expect((await fails(base, { id: 'x' }, 400)).violations?.every((violation) => violation.field === 'action')).toBe(true);
    expect(
      (await fails(base, { action: 'inbound.create', name: 'x', description: 'd', version: '1', endpointPath: '/a2a/api/x' }, 400))
        .violations?.[0]?.field,
    ).toBe('endpointPath');
    expect((await fails(base, { action: 'inbound.sendTest', id: 'default', text: '' }, 400)).violations?.[0]?.field).toBe('text');
    for (const body of ['[]', '"inbound.create"', 'null', '42']) {
      const failure = await fails(base, body, 400);
      expect(failure.violations, body).toEqual([{ field: '', description: expect.stringMatching(/^must be an object/) as string }]);
    }
    expect((await snapshot(base)).inbounds.some((row) => row.name === 'x')).toBe(false);
  });
});

describe('405 with Allow, and 404 for unknown paths', () => {
  it('PUT, PATCH and DELETE /a2a/api answer 405 with Allow: GET, POST', async () => {
    for (const method of ['PUT', 'PATCH', 'DELETE']) {
      const failure = await readFailure(base, '/a2a/api', 405, {
        method,
        headers: { 'content-type': 'application/json' },
        body: method === 'DELETE' ? null : '{}',
      });
      expect(failure.headers.get('allow')).toBe('GET, POST');
      expect(failure.message).toMatch(new RegExp(`${method} is not allowed on /a2a/api`));
    }
  });

  it('the read paths answer 405 with Allow: GET to other methods', async () => {
    for (const path of ['/a2a/api/presets', '/a2a/api/card', '/a2a/api/task', '/a2a/api/session', '/a2a/api/metrics', '/a2a/api/push']) {
      for (const method of ['POST', 'DELETE', 'PUT']) {
        const failure = await readFailure(base, path, 405, { method });
        expect(failure.headers.get('allow'), `${method} ${path}`).toBe('GET');
      }
    }
    expect((await readFailure(base, '/a2a/panel', 405, { method: 'POST' })).headers.get('allow')).toBe('GET');
  });

  it('unknown paths under /a2a/api answer 404', async () => {
    expect((await readFailure(base, '/a2a/api/nothing-here', 404)).message).toBe('nothing is served at /a2a/api/nothing-here');
    await readFailure(base, '/a2a/api/presets/extra', 404, { method: 'POST' });
  });
});

describe('413: the control API caps bodies at min(bodyLimitBytes, 1 MiB)', () => {
  it('a hub with bodyLimitBytes 4096 refuses 10 KB, with and without Content-Length, and takes a body under the cap', async () => {
    const small = await startTestHub({ bodyLimitBytes: 4096 });
    try {
      const big = JSON.stringify({ action: 'inbound.create', name: 'big', description: 'x'.repeat(10 * 1024), version: '1' });
      const failure = await fails(small.url, big, 413);
      expect(failure.message).toBe('the body exceeds the limit of 4096 bytes');
      const chunked = await nodeRequest(`${small.url}/a2a/api`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'transfer-encoding': 'chunked' },
        body: big,
      });
      expect(chunked.status).toBe(413);
      valid('ActionFailure', JSON.parse(chunked.text));
      const under = await ok(small.url, { action: 'inbound.create', name: 'fits', description: 'x'.repeat(3500), version: '1' });
      expect(under.id).toMatch(/^fits-[0-9a-f]{8}$/);
      expect((await snapshot(small.url)).inbounds.some((row) => row.name === 'big')).toBe(false);
    } finally {
      await small.dispose();
    }
  });

  it('a hub with the default 10 MiB body limit caps the control API at 1 MiB', async () => {
    const body = JSON.stringify({ action: 'inbound.create', name: 'huge', description: 'x'.repeat(1024 * 1024), version: '1' });
    expect((await fails(base, body, 413)).message).toBe(`the body exceeds the limit of ${1024 * 1024} bytes`);
  });
});

// ---------------------------------------------------------------------------------------------
// Secrets
// ---------------------------------------------------------------------------------------------

describe('a bearer token never leaves the hub', () => {
  const secrets = [SECRET, ENV_TOKEN];
  const expectNoSecret = (answer: Answer, what: string): void => {
    for (const secret of secrets) {
      expect(answer.text, `${what} (status ${answer.status})`).not.toContain(secret);
      for (const [name, value] of answer.headers) expect(value, `${what}: header ${name}`).not.toContain(secret);
    }
  };
  let id: string;
  beforeAll(async () => {
    id = await create('Secret Keeper');
    const set = await post(base, JSON.stringify({ action: 'inbound.setAuth', id, token: SECRET }));
    expect(set.status).toBe(200);
    expectNoSecret(set, 'the setAuth answer');
    // An instance whose token variable is unset makes the hub log a warning, so the capture is known to work.
    await create('Unset Env', { authTokenEnv: 'CONTROL_TEST_UNSET_VARIABLE' });
  });

  it('appears in no read endpoint body: snapshot, presets, card, metrics', async () => {
    for (const path of [
      '/a2a/api',
      '/a2a/api?taskLimit=500',
      '/a2a/api/presets',
      `/a2a/api/card?id=${id}`,
      '/a2a/api/metrics',
      '/a2a/api/metrics?format=prometheus',
      `/a2a/${id}/agent-card.json`,
      '/.well-known/agent-card.json',
    ]) {
      expectNoSecret(await http(base, path), path);
    }
    const row = await inboundRow(base, id);
    expect(row?.authEnabled).toBe(true);
    expect(row).not.toHaveProperty('authTokenEnv');
  });

  it('appears in no error body of the endpoint or of a failed or rejected action', async () => {
    for (const authorization of [undefined, 'Bearer nope', `Bearer ${SECRET}x`, `Bearer x${ENV_TOKEN}`]) {
      const answer = await http(base, `/a2a/${id}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'a2a-version': '1.0', ...(authorization ? { authorization } : {}) },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ListTasks', params: {} }),
      });
      expect(answer.status).toBe(401);
      expectNoSecret(answer, `the endpoint with ${authorization === undefined ? 'no' : 'a wrong'} token`);
    }
    const actions: [Record<string, unknown>, number][] = [
      [{ action: 'inbound.setAuth', id: 'no-such-instance', token: SECRET }, 409],
      [{ action: 'inbound.setAuth', id, token: SECRET, comment: 'x' }, 400],
      [{ action: 'inbound.setauth', id, token: SECRET }, 400],
      [{ action: 'inbound.setAuth', token: SECRET }, 400],
      [{ action: 'inbound.setAuth', id, token: [SECRET] }, 400],
      [{ action: 'outbound.setAuth', id: 'out-1', token: SECRET }, 409],
    ];
    for (const [action, expected] of actions) {
      const answer = await post(base, JSON.stringify(action));
      expect(answer.status, JSON.stringify(action)).toBe(expected);
      expectNoSecret(answer, JSON.stringify(action));
    }
  });

  it('appears in no error body for a setAuth body that is not valid JSON, not even in part', async () => {
    // The seed's own example token is six characters; a short token fits whole into a JSON parser's excerpt.
    const short = randomBytes(3).toString('hex');
    const cases: [string, string][] = [];
    for (const token of [short, SECRET]) {
      cases.push(
        [token, `{"action":"inbound.setAuth","id":"${id}","token":"${token}"`],
        [token, `{"action":"inbound.setAuth","id":"${id}","token":'${token}'}`],
        [token, `{"action":"inbound.setAuth","id":"${id}","token":${token}}`],
        [token, `{"action":"inbound.setAuth","id":"${id}","token":"${token}"}}`],
        [token, `{"token":'${token}'}`],
      );
    }
    for (const [token, body] of cases) {
      const answer = await post(base, body);
      expect(answer.status).toBe(400);
      valid('ActionFailure', answer.body);
      expect(answer.text, body).not.toContain(token.slice(0, 6));
    }
  });

  it('appears in no log line (pino at trace, captured in memory)', () => {
    const logText = logLines.join('');
    expect(logText).toContain('the token variable of an inbound instance is empty');
    for (const secret of secrets) expect(logText).not.toContain(secret);
  });
});

// ---------------------------------------------------------------------------------------------
// Tenants
// ---------------------------------------------------------------------------------------------

describe('tasks and sessions of a tenant', () => {
  it('show their tenant in the snapshot, GET /a2a/api/task and GET /a2a/api/session?tenant=, and none for no tenant', async () => {
    const contextId = `ctx-tenant-${randomUUID()}`;
    const inTenant = await call(hub.endpoint, 'SendMessage', { tenant: 'tenant-a', message: userMessage('hello', { contextId }) });
    const plain = await call(hub.endpoint, 'SendMessage', { message: userMessage('hello') });
    const taskId = inTenant.task?.id ?? '';
    const rows = (await snapshot(base, '?taskLimit=500')).tasks;
    expect(rows.find((row) => row.id === taskId)?.tenant).toBe('tenant-a');
    expect(rows.find((row) => row.id === plain.task?.id)).not.toHaveProperty('tenant');
    expect(await taskOf(base, taskId)).toMatchObject({ id: taskId, serverId: 'default', tenant: 'tenant-a' });
    expect(await taskOf(base, plain.task?.id ?? '')).not.toHaveProperty('tenant');
    expect((await snapshot(base)).sessions).toContainEqual(expect.objectContaining({ contextId, serverId: 'default', tenant: 'tenant-a' }));
    const view = await read(base, `/a2a/api/session?contextId=${contextId}&serverId=default&tenant=tenant-a`, 'SessionView');
    expect(view).toMatchObject({ contextId, serverId: 'default', tenant: 'tenant-a', live: true, taskCount: 1 });
    // Under no tenant, that contextId is a conversation that never took place.
    expect((await readFailure(base, `/a2a/api/session?contextId=${contextId}&serverId=default`, 404)).message).toMatch(
      /no session has context id/,
    );
  });

  it('task.cancel cancels a task whatever its tenant; session.cancel and session.close reach the context under every tenant', async () => {
    const asked = await call(hub.endpoint, 'SendMessage', { tenant: 'tenant-a', message: userMessage('hello\n::input-required') });
    const taskId = asked.task?.id ?? '';
    expect((await ok(base, { action: 'task.cancel', id: taskId })).state).toBe('TASK_STATE_CANCELED');
    const contextId = `ctx-tenant-${randomUUID()}`;
    const waiting = await Promise.all(
      ['tenant-a', 'tenant-b'].map((tenant) =>
        call(hub.endpoint, 'SendMessage', { tenant, message: userMessage('hello\n::input-required', { contextId }) }),
      ),
    );
    expect((await ok(base, { action: 'session.cancel', id: contextId, serverId: 'default' })).message).toMatch(/canceled 2 active tasks/);
    for (const answer of waiting) expect(await stateOf(base, answer.task?.id ?? '')).toBe('TASK_STATE_CANCELED');
    expect((await ok(base, { action: 'session.close', id: contextId, serverId: 'default' })).message).toMatch(/released 2 live sessions/);
    expect((await snapshot(base)).sessions.filter((session) => session.contextId === contextId)).toEqual([]);
  });
});
