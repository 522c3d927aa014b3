import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ERRORS } from '../../generated/a2a/1.0/errors.js';
import type { Task } from '../../generated/a2a/1.0/types.js';
import { TEST_DIRECTIVES_EXTENSION, testDirectiveMetadata } from '../../generated/hub/test-directives.js';
import { REST_ROUTES, fillRoute, routeOf } from '../../src/protocol/rest-routes.js';
import { userMessage } from '../helpers/a2a-client.js';
import { badRequestOf, type ErrorName } from '../helpers/errors.js';
import { startTestHub, type TestHub } from '../helpers/hub.js';
import {
  as10,
  expectRestError,
  nodeRequest as rawNodeRequest,
  send as rawSend,
  type RawInit,
  type RawResponse,
} from '../helpers/raw-http.js';
import { expectRestErrorAnswer, restCall, restRpc, restStream } from '../helpers/rest-client.js';

/**
 * What only the HTTP+JSON binding has (docs/server.md "HTTP+JSON binding"): its routes (each
 * with a `/{tenant}/` variant), §11.5 query parameters, its renderings of 404/405/415/413/401/
 * 429, media types, GET and POST subscribe and Last-Event-ID on its streams. What both bindings
 * share is in the case table (bindings.case.ts).
 */

let hub: TestHub;
let base: string;

// A 1.0 client names its version; without it a request is 0.3 (spec §3.6.2), which these routes do not serve.
const send = (url: string, init: RawInit = {}) => rawSend(url, as10(url, init));
const nodeRequest = (url: string, options: Parameters<typeof rawNodeRequest>[1] = {}) => rawNodeRequest(url, as10(url, options));

beforeAll(async () => {
  hub = await startTestHub({ bodyLimitBytes: 4096 });
  base = hub.endpoint;
});

afterAll(async () => {
  await hub?.dispose();
});

async function completedTask(tenant?: string): Promise<Task> {
  const result = await restCall(base, 'SendMessage', { message: userMessage('hello') }, tenant === undefined ? {} : { tenant });
  expect(result.task?.status.state).toBe('TASK_STATE_COMPLETED');
  return result.task as Task;
}

/** The BadRequest fields of an error answer. */
function fieldsOf(response: { error?: { details?: readonly unknown[] } }): string[] {
  return badRequestOf(response.error?.details).fieldViolations.map((violation) => violation.field);
}

function expectError(response: RawResponse, name: ErrorName) {
  return expectRestError(response, name);
}

const REFUSED_ON_A_COMPLETED_TASK: Partial<Record<string, ErrorName>> = {
  CancelTask: 'TaskNotCancelableError',
  SubscribeToTask: 'UnsupportedOperationError',
  // The task has no config config-1 (Delete is idempotent, so it succeeds).
  GetTaskPushNotificationConfig: 'TaskNotFoundError',
};

describe('HTTP+JSON routes', () => {
  it.each(REST_ROUTES.map((route) => [`${route.verb} ${route.template}`, route] as const))(
    '%s reaches its method',
    async (_label, route) => {
      const tenant = route.tenant ? 'acme' : undefined;
      const task = await completedTask(tenant);
      const values = { tenant, id: route.pathFields.includes('taskId') ? 'config-1' : task.id, taskId: task.id };
      const path = fillRoute(route, values);
      const body: Record<string, unknown> =
        {
          SendMessage: { message: userMessage('again') },
          SendStreamingMessage: { message: userMessage('again') },
          CreateTaskPushNotificationConfig: { url: 'https://push.example.test/hook' },
        }[route.method as string] ?? {};
      const response = await send(`${base}${path}`, {
        method: route.verb,
        headers: { 'a2a-version': '1.0', ...(route.body ? { 'content-type': 'application/json' } : {}) },
        ...(route.body ? { body: JSON.stringify(body) } : {}),
      });
      // Neither of the binding's own refusals: the request reached the handler of its method, which
      // refuses only what a completed task (or one without config-1) must refuse.
      const refusal = REFUSED_ON_A_COMPLETED_TASK[route.method];
      if (refusal !== undefined) {
        expectError(response, refusal);
        return;
      }
      expect(response.status).toBe(200);
      const streaming = route.method === 'SendStreamingMessage' || route.method === 'SubscribeToTask';
      expect(response.headers.get('content-type')).toMatch(streaming ? /^text\/event-stream/ : /^application\/a2a\+json/);
    },
  );

  it('SubscribeToTask answers GET and POST alike, with bare StreamResponse frames', async () => {
    for (const route of REST_ROUTES.filter((candidate) => candidate.method === 'SubscribeToTask' && !candidate.tenant)) {
      const waiting = await restCall(base, 'SendMessage', {
        message: userMessage('slow', { metadata: testDirectiveMetadata({ steps: 3, stepMs: 20 }) }),
        configuration: { returnImmediately: true },
      });
      const result = await restStream(base, 'SubscribeToTask', { id: waiting.task?.id ?? '' }, { route });
      expect(result.events[0]?.frame.task?.id, route.verb).toBe(waiting.task?.id);
      expect(result.events.at(-1)?.frame.task?.status.state, route.verb).toBe('TASK_STATE_COMPLETED');
      expect(result.errors).toEqual([]);
    }
  });

  it('GET /extendedAgentCard is the card, with both interfaces', async () => {
    const card = await restCall(base, 'GetExtendedAgentCard', {});
    expect(card.supportedInterfaces.map((entry) => [entry.protocolBinding, entry.protocolVersion, entry.url])).toEqual([
      ['JSONRPC', '1.0', base],
      ['HTTP+JSON', '1.0', base],
      ['JSONRPC', '0.3', base],
      ['HTTP+JSON', '0.3', base],
    ]);
  });

  it('A2A-Extensions names the activated extensions on the answer, as on JSON-RPC', async () => {
    const response = await restRpc(
      base,
      'ListTasks',
      { pageSize: 1 },
      { headers: { 'a2a-extensions': `urn:unknown, ${TEST_DIRECTIVES_EXTENSION}` } },
    );
    expect(response.headers.get('a2a-extensions')).toBe(TEST_DIRECTIVES_EXTENSION);
    expect(response.headers.get('a2a-version')).toBe('1.0');
  });

  it('a task id holding / and : travels percent-encoded in one segment', async () => {
    const response = await restRpc(base, 'GetTask', { id: 'a/b:c' });
    expect(expectRestErrorAnswer(response, 'TaskNotFoundError').details?.[0]).toMatchObject({ metadata: { taskId: 'a/b:c' } });
  });

  it('the path wins no conflict: a body giving another id is a 400 naming the field', async () => {
    const task = await completedTask();
    const response = await restRpc(base, 'CancelTask', { id: task.id }, { rawBody: JSON.stringify({ id: 'other' }) });
    expectRestErrorAnswer(response, 'InvalidParamsError');
    expect(fieldsOf(response)).toEqual(['id']);
  });

  it('POST :cancel needs no body', async () => {
    const response = await send(`${base}${fillRoute(routeOf('CancelTask', false), { id: 'no-such-task' })}`, { method: 'POST' });
    expectError(response, 'TaskNotFoundError');
  });
});

describe('bodies on routes without one', () => {
  const JSON_TYPE = { 'content-type': 'application/json' };

  it('GET and DELETE ignore a body: it is neither merged nor read for its media type', async () => {
    await completedTask();
    await completedTask();
    // node:http sends a GET or DELETE body only with its length given.
    const withBody = (verb: string, type: string, body: string) =>
      ({ method: verb, headers: { 'content-type': type, 'content-length': String(Buffer.byteLength(body)) }, body }) as const;
    const listed = await nodeRequest(`${base}/tasks`, withBody('GET', 'application/json', JSON.stringify({ pageSize: 1 })));
    expect(listed.status).toBe(200);
    expect((JSON.parse(listed.text) as { tasks: Task[] }).tasks.length).toBeGreaterThan(1);
    expect((await nodeRequest(`${base}/tasks`, withBody('GET', 'text/plain', 'x'))).status).toBe(200);
    const configPath = fillRoute(routeOf('DeleteTaskPushNotificationConfig', false), { taskId: 't1', id: 'c1' });
    expectError(await nodeRequest(`${base}${configPath}`, withBody('DELETE', 'text/plain', 'x')), 'TaskNotFoundError');
  });

  it("POST :subscribe takes no body, {} or the path's own id; anything else is a 400 naming body", async () => {
    const post = REST_ROUTES.find((route) => route.method === 'SubscribeToTask' && route.verb === 'POST' && !route.tenant);
    const task = await completedTask();
    const path = `${base}${fillRoute(post!, { id: task.id })}`;
    for (const body of [undefined, '{}', JSON.stringify({ id: task.id })]) {
      const response = await nodeRequest(path, { method: 'POST', headers: JSON_TYPE, ...(body === undefined ? {} : { body }) });
      expectError(response, 'UnsupportedOperationError');
    }
    for (const body of [JSON.stringify({ historyLength: 1 }), '[]', JSON.stringify({ id: 'other' })]) {
      const response = await nodeRequest(path, { method: 'POST', headers: JSON_TYPE, body });
      expect(fieldsOf(expectError(response, 'InvalidParamsError')), body).toEqual(['body']);
    }
  });
});

describe('query parameters (spec §11.5)', () => {
  let task: Task;
  beforeAll(async () => {
    task = await completedTask();
  });

  const list = (query: string) => send(`${base}/tasks?${query}`);

  it('reads integers, booleans, enum names and RFC 3339 timestamps by the schema type', async () => {
    const response = await list(
      `contextId=${task.contextId}&pageSize=1&historyLength=0&includeArtifacts=true&status=TASK_STATE_COMPLETED&statusTimestampAfter=2000-01-01T00:00:00Z`,
    );
    expect(response.status).toBe(200);
    const body = JSON.parse(response.text) as { tasks: Task[]; pageSize: number };
    expect(body.pageSize).toBe(1);
    expect(body.tasks.map((entry) => entry.id)).toEqual([task.id]);
    expect(body.tasks[0]?.artifacts?.length).toBeGreaterThan(0);
    expect(body.tasks[0]?.history ?? []).toEqual([]);
  });

  it('accepts the proto field names (page_size, history_length, include_artifacts, context_id)', async () => {
    const camel = JSON.parse((await list(`contextId=${task.contextId}&pageSize=1&historyLength=1&includeArtifacts=false`)).text) as unknown;
    const proto = await list(`context_id=${task.contextId}&page_size=1&history_length=1&include_artifacts=false`);
    expect(proto.status).toBe(200);
    expect(JSON.parse(proto.text)).toEqual(camel);
    const got = await restRpc(base, 'GetTask', { id: task.id }, {});
    const byProtoName = await send(`${base}/tasks/${task.id}?history_length=0`);
    expect((JSON.parse(byProtoName.text) as Task).history ?? []).toEqual([]);
    expect(got.result?.history?.length).toBeGreaterThan(0);
  });

  it('accepts proto field names in a body, and refuses the two spellings of one field with different values', async () => {
    const path = `${base}${fillRoute(routeOf('SendMessage', false), {})}`;
    const post = (body: unknown) =>
      send(path, { method: 'POST', headers: { 'content-type': 'application/a2a+json', 'a2a-version': '1.0' }, body: JSON.stringify(body) });
    const message = { message_id: `m-${Date.now()}`, role: 'ROLE_USER', parts: [{ text: 'snake' }] };
    const first = await post({ message, configuration: { return_immediately: false, history_length: 0 } });
    expect(first.status).toBe(200);
    const task = (JSON.parse(first.text) as { task: Task }).task;
    expect(task.status.state).toBe('TASK_STATE_COMPLETED');
    expect(task.history ?? []).toEqual([]);
    // context_id continues the conversation, as contextId would.
    const next = await post({ message: { ...message, message_id: `${message.message_id}-2`, context_id: task.contextId } });
    expect((JSON.parse(next.text) as { task: Task }).task.contextId).toBe(task.contextId);
    const twice = await post({ message: { ...message, message_id: `${message.message_id}-3`, context_id: 'a', contextId: 'b' } });
    const body = expectError(twice, 'InvalidParamsError');
    expect(fieldsOf(body)).toEqual(['message.contextId']);
  });

  it.each([
    ['pageSize=abc', 'pageSize'],
    ['pageSize=1.5', 'pageSize'],
    ['historyLength=-1', 'historyLength'],
    ['includeArtifacts=yes', 'includeArtifacts'],
    ['status=DONE', 'status'],
    ['statusTimestampAfter=yesterday', 'statusTimestampAfter'],
    ['pageSize=1&pageSize=2', 'pageSize'],
    ['bogus=1', 'bogus'],
    ['page_size=x', 'pageSize'],
  ])('?%s is 400 INVALID_ARGUMENT with a BadRequest violation naming %s', async (query, field) => {
    const response = await list(query);
    const body = expectError(response, 'InvalidParamsError');
    expect(badRequestOf(body.error.details).fieldViolations.map((violation) => violation.field)).toEqual([field]);
  });

  it('an error lists at most 20 violations and one more counting the rest, and names the accepted parameters once', async () => {
    const query = Array.from({ length: 1500 }, (_, index) => `u${index}=1`).join('&');
    const response = await list(query);
    const violations = badRequestOf(expectError(response, 'InvalidParamsError').error.details).fieldViolations;
    expect(violations.length).toBe(21);
    expect(violations.slice(0, 20).map((violation) => violation.field)).toEqual(Array.from({ length: 20 }, (_, index) => `u${index}`));
    expect(violations[20]?.description).toContain('1480 more');
    expect(violations.filter((violation) => violation.description.includes('pageSize'))).toHaveLength(1);
    expect(response.text.length).toBeLessThan(query.length);
  });

  it('a path field given again in the query is refused, not overridden', async () => {
    const body = expectError(await send(`${base}/tasks/${task.id}?id=other`), 'InvalidParamsError');
    expect(badRequestOf(body.error.details).fieldViolations.map((violation) => violation.field)).toEqual(['id']);
  });

  it('a body route takes no query parameters but A2A-Version', async () => {
    const sendPath = fillRoute(routeOf('SendMessage', false), {});
    const json = { 'content-type': 'application/json' };
    const body = JSON.stringify({ message: userMessage('hi') });
    expect((await send(`${base}${sendPath}?A2A-Version=1.0`, { method: 'POST', headers: json, body })).status).toBe(200);
    // Naming 0.3 picks 0.3's route table, and the refusal is written as 0.3 writes errors.
    const as03 = await send(`${base}${sendPath}?A2A-Version=0.3`, { method: 'POST', headers: json, body });
    expect([as03.status, as03.headers.get('a2a-version'), (JSON.parse(as03.text) as { code: number }).code]).toEqual([
      ERRORS.VersionNotSupportedError.httpStatus,
      '0.3',
      ERRORS.VersionNotSupportedError.code,
    ]);
    expectError(await send(`${base}${sendPath}?pageSize=1`, { method: 'POST', headers: json, body }), 'InvalidParamsError');
  });
});

describe('HTTP renderings', () => {
  it('an unknown route is 404 NOT_FOUND with a Status body', async () => {
    expectError(await send(`${base}/tasks/x/y/z`), 'NotFoundError');
    expectError(await send(`${base}/message:frobnicate`, { method: 'POST', body: '{}' }), 'NotFoundError');
  });

  it.each([
    ['DELETE', '/tasks', 'GET, HEAD'],
    ['GET', '/message:send', 'POST'],
    ['PUT', '/tasks/t1:subscribe', 'GET, HEAD, POST'],
    ['POST', '/extendedAgentCard', 'GET, HEAD'],
  ])('%s %s is 405 with Allow: %s', async (verb, path, allow) => {
    const response = await send(`${base}${path}`, { method: verb });
    expectError(response, 'MethodNotAllowedError');
    expect(response.headers.get('allow')).toBe(allow);
  });

  it('HEAD is GET without the body on every GET route, and Allow lists it wherever GET is allowed', async () => {
    const task = await completedTask();
    const head = await send(`${base}${fillRoute(routeOf('GetTask', false), { id: task.id })}`, { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(head.text).toBe('');
    expect(head.headers.get('content-type')).toMatch(/^application\/a2a\+json/);
    expect((await send(`${base}/tasks`, { method: 'HEAD' })).status).toBe(200);
    const wrong = await send(`${base}${fillRoute(routeOf('SendMessage', false), {})}`, { method: 'HEAD' });
    expect(wrong.status).toBe(ERRORS.MethodNotAllowedError.httpStatus);
    expect(wrong.headers.get('allow')).toBe('POST');
  });

  it('a path variable with malformed percent-encoding is 400 naming its field', async () => {
    const body = expectError(await send(`${base}/tasks/%E0%A4%A`), 'InvalidParamsError');
    expect(badRequestOf(body.error.details).fieldViolations.map((violation) => violation.field)).toEqual(['id']);
    const tenant = expectError(await send(`${base}/%E0%A4%A/tasks`), 'InvalidParamsError');
    expect(badRequestOf(tenant.error.details).fieldViolations.map((violation) => violation.field)).toEqual(['tenant']);
  });

  it('a body that is not JSON by its media type is 415; application/a2a+json and a charset are accepted', async () => {
    const body = JSON.stringify({ message: userMessage('hi') });
    const path = `${base}${fillRoute(routeOf('SendMessage', false), {})}`;
    expectError(await send(path, { method: 'POST', headers: { 'content-type': 'text/plain' }, body }), 'UnsupportedMediaTypeError');
    expectError(
      await send(path, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body }),
      'UnsupportedMediaTypeError',
    );
    for (const type of ['application/a2a+json', 'application/json; charset=utf-8', 'Application/A2A+JSON; charset=UTF-8']) {
      const response = await send(path, { method: 'POST', headers: { 'content-type': type }, body });
      expect(response.status, type).toBe(200);
      expect(response.headers.get('content-type'), type).toMatch(/^application\/a2a\+json/);
    }
    // A bodiless GET needs no media type, whatever Content-Type it names.
    expect((await send(`${base}/tasks`, { headers: { 'content-type': 'text/plain' } })).status).toBe(200);
  });

  it('a body over the cap is 413, and broken JSON 400', async () => {
    const path = `${base}${fillRoute(routeOf('SendMessage', false), {})}`;
    const json = { 'content-type': 'application/json' };
    expectError(
      await send(path, { method: 'POST', headers: json, body: JSON.stringify({ message: userMessage('x'.repeat(5000)) }) }),
      'PayloadTooLargeError',
    );
    expectError(await send(path, { method: 'POST', headers: json, body: '{"message":' }), 'JSONParseError');
    const notObject = expectError(await send(path, { method: 'POST', headers: json, body: '[]' }), 'InvalidParamsError');
    expect(badRequestOf(notObject.error.details).fieldViolations[0]?.field).toBe('body');
  });
});

describe('authentication and rate limits', () => {
  const TOKEN = 'rest-token';
  let locked: TestHub;
  let limited: TestHub;

  beforeAll(async () => {
    [locked, limited] = await Promise.all([startTestHub(), startTestHub({ rateLimit: { perSecond: 0.001, burst: 1 } })]);
    await locked.inbounds.setAuth('default', TOKEN);
  });

  afterAll(async () => {
    await Promise.all([locked?.dispose(), limited?.dispose()]);
  });

  it('401 with WWW-Authenticate: Bearer, decided before any SSE header', async () => {
    const path = `${locked.endpoint}${fillRoute(routeOf('SendStreamingMessage', false), {})}`;
    const body = JSON.stringify({ message: userMessage('hi') });
    const response = await send(path, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'text/event-stream' },
      body,
    });
    expectError(response, 'UnauthenticatedError');
    expect(response.headers.get('www-authenticate')).toBe('Bearer realm="default"');
    const allowed = await restStream(
      locked.endpoint,
      'SendStreamingMessage',
      { message: userMessage('hi') },
      { headers: { authorization: `Bearer ${TOKEN}` } },
    );
    expect(allowed.events.at(-1)?.frame.task?.status.state).toBe('TASK_STATE_COMPLETED');
  });

  it('429 with Retry-After once the bucket is spent', async () => {
    await send(`${limited.endpoint}/tasks`);
    const response = await send(`${limited.endpoint}/tasks`);
    expectError(response, 'RateLimitedError');
    expect(Number(response.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
  });
});

describe('HTTP+JSON streams', () => {
  it('frames carry the same ids as the event log, and Last-Event-ID replays the missed status frames', async () => {
    const waiting = await restCall(base, 'SendMessage', {
      message: userMessage('resume me', { metadata: testDirectiveMetadata({ outcome: 'input-required', steps: 2, stepMs: 5 }) }),
    });
    const taskId = waiting.task?.id ?? '';
    const resumed = await restStream(base, 'SubscribeToTask', { id: taskId }, { headers: { 'last-event-id': '1' } });
    expect(resumed.events.map((event) => event.frame.task?.status.state ?? event.frame.statusUpdate?.status.state)).toEqual([
      'TASK_STATE_INPUT_REQUIRED',
      'TASK_STATE_WORKING',
      'TASK_STATE_WORKING',
      'TASK_STATE_INPUT_REQUIRED',
    ]);
    const ids = resumed.events.slice(1).map((event) => Number(event.id));
    expect(ids.every((id) => id > 1)).toBe(true);
    expect([...ids].sort((a, b) => a - b)).toEqual(ids);
  });

  it('Last-Event-ID replays after a restart', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'a2a-hub-rest-restart-'));
    try {
      const first = await startTestHub({ dataDir });
      const waiting = await restCall(first.endpoint, 'SendMessage', {
        message: userMessage('before restart', { metadata: testDirectiveMetadata({ outcome: 'input-required', steps: 1, stepMs: 5 }) }),
      });
      await first.close();
      const second = await startTestHub({ dataDir });
      try {
        const replay = await restStream(
          second.endpoint,
          'SubscribeToTask',
          { id: waiting.task?.id ?? '' },
          { headers: { 'last-event-id': '0' } },
        );
        const states = replay.events.map((event) => event.frame.task?.status.state ?? event.frame.statusUpdate?.status.state);
        expect(states[0]).toBe('TASK_STATE_INPUT_REQUIRED');
        expect(states.slice(1).filter((state) => state !== undefined)).toEqual([
          'TASK_STATE_WORKING',
          'TASK_STATE_WORKING',
          'TASK_STATE_INPUT_REQUIRED',
        ]);
      } finally {
        await second.close();
      }
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  it('heartbeats keep a waiting subscription open, and shutdown ends it cleanly', async () => {
    const quiet = await startTestHub({ sseHeartbeatMs: 20, store: 'memory' });
    let disposed = false;
    try {
      const waiting = await restCall(quiet.endpoint, 'SendMessage', { message: userMessage('::input-required') });
      let heartbeat: () => void = () => undefined;
      const heartbeatSeen = new Promise<void>((resolve) => (heartbeat = resolve));
      const subscription = restStream(quiet.endpoint, 'SubscribeToTask', { id: waiting.task?.id ?? '' }, { onComment: () => heartbeat() });
      await heartbeatSeen;
      await quiet.dispose();
      disposed = true;
      const result = await subscription;
      expect(result.events.map((event) => event.frame.task?.status.state)).toEqual(['TASK_STATE_INPUT_REQUIRED']);
      expect(result.comments).toBeGreaterThanOrEqual(1);
    } finally {
      if (!disposed) await quiet.dispose();
    }
  });

  it('a stream that ends with the task repeats it as a final Task snapshot', async () => {
    const result = await restStream(base, 'SendStreamingMessage', {
      message: userMessage('hi', { metadata: testDirectiveMetadata({ chunks: 2 }) }),
    });
    expect(result.events[0]?.frame.task).toBeDefined();
    expect(result.events.some((event) => event.frame.artifactUpdate !== undefined)).toBe(true);
    const last = result.events.at(-1)?.frame.task;
    expect(last?.status.state).toBe('TASK_STATE_COMPLETED');
    expect(last?.artifacts?.[0]?.parts.map((part) => part.text).join('')).toBe('echo: hi');
  });
});

describe('metrics', () => {
  it('count HTTP+JSON requests by method and outcome, with the labels JSON-RPC uses', async () => {
    const counted = await startTestHub();
    try {
      await restCall(counted.endpoint, 'SendMessage', { message: userMessage('count me') });
      expectRestErrorAnswer(await restRpc(counted.endpoint, 'GetTask', { id: 'no-such-task' }), 'TaskNotFoundError');
      expectError(await send(`${counted.endpoint}/no/such/route`), 'NotFoundError');
      const metrics = JSON.parse((await send(`${counted.url}/a2a/api/metrics?format=json`)).text) as {
        requests: Record<string, Record<string, number>>;
      };
      expect(metrics.requests['SendMessage']?.['ok']).toBe(1);
      expect(metrics.requests['GetTask']?.[String(ERRORS.TaskNotFoundError.code)]).toBe(1);
      expect(metrics.requests['-']?.[`http-${ERRORS.NotFoundError.httpStatus}`]).toBe(1);
    } finally {
      await counted.dispose();
    }
  });
});
