import { randomUUID } from 'node:crypto';
import { createParser } from 'eventsource-parser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { METHODS as METHODS_03, type MethodName as Method03 } from '../../generated/a2a/0.3/methods.js';
import type * as V03 from '../../generated/a2a/0.3/types.js';
import { A2A_0_3 } from '../../src/protocol/a2a-schema.js';
import { checkValue } from '../../src/protocol/validation.js';
import { call } from '../helpers/a2a-client.js';
import { startTestHub, type TestHub } from '../helpers/hub.js';

/**
 * The hub serving A2A 0.3 callers on its JSON-RPC endpoints: chosen per request by
 * `A2A-Version: 0.3`, a 0.3 method name, or no version at all (spec §3.6.2); answered with
 * 0.3 shapes (bare results with `kind`, kebab-case states, `final`), 0.3 error objects, and the
 * same tasks 1.0 callers see. Every result is checked with the generated 0.3 validators.
 */

let hub: TestHub;
let lenient: TestHub;

beforeAll(async () => {
  [hub, lenient] = await Promise.all([startTestHub({ store: 'memory' }), startTestHub({ store: 'memory', absentVersion: '1.0' })]);
});

afterAll(async () => {
  await Promise.all([hub?.dispose(), lenient?.dispose()]);
});

interface Answer03 {
  readonly status: number;
  readonly headers: Headers;
  readonly result?: unknown;
  readonly error?: { code: number; message: string; data?: Record<string, unknown> };
}

async function rpc03(endpoint: string, method: string, params: unknown, headers: Record<string, string> = {}): Promise<Answer03> {
  const response = await fetch(endpoint, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify({ jsonrpc: '2.0', id: 7, method, params }),
  });
  const text = await response.text();
  const body = JSON.parse(text) as { id?: unknown; result?: unknown; error?: Answer03['error'] };
  expect(body.id, text).toBe(7);
  return { status: response.status, headers: response.headers, result: body.result, error: body.error };
}

/** A 0.3 result, checked with the exact 0.3 validator of its method. */
async function result03<M extends Method03>(
  endpoint: string,
  method: M,
  params: unknown,
  headers: Record<string, string> = {},
): Promise<unknown> {
  const answer = await rpc03(endpoint, method, params, headers);
  expect(answer.error, JSON.stringify(answer.error)).toBeUndefined();
  const checked = checkValue(A2A_0_3, METHODS_03[method].resultType as never, answer.result, { flavour: 'exact' });
  expect(checked.ok ? [] : checked.violations).toEqual([]);
  expect(answer.headers.get('a2a-version')).toBe('0.3');
  return answer.result;
}

function message03(text: string, extra: Partial<V03.Message> = {}): V03.Message {
  return { kind: 'message', messageId: randomUUID(), role: 'user', parts: [{ kind: 'text', text }], ...extra };
}

const echoOf = (task: V03.Task) =>
  (task.artifacts ?? [])
    .flatMap((artifact) => artifact.parts)
    .map((part) => (part.kind === 'text' ? part.text : ''))
    .join('');

describe('0.3 requests on the JSON-RPC endpoint', () => {
  it('message/send with kind parts and role "user" (seed 004) answers a bare 0.3 Task, without any version header', async () => {
    const task = (await result03(hub.endpoint, 'message/send', { message: message03('hello 0.3') })) as V03.Task;
    expect(task).toMatchObject({ kind: 'task', status: { state: 'completed' } });
    expect(echoOf(task)).toBe('echo: hello 0.3');
    expect(task.history?.[0]).toMatchObject({ kind: 'message', role: 'user', parts: [{ kind: 'text', text: 'hello 0.3' }] });
  });

  it('A2A-Version: 0.3 with the PascalCase names (seed 004 aliases) takes 0.3 shapes too', async () => {
    const sent = await rpc03(hub.endpoint, 'SendMessage', { message: message03('alias') }, { 'A2A-Version': '0.3' });
    expect(sent.result).toMatchObject({ kind: 'task', status: { state: 'completed' } });
    const id = (sent.result as V03.Task).id;
    expect(await rpc03(hub.endpoint, 'GetTask', { id }, { 'A2A-Version': '0.3.0' })).toMatchObject({ result: { kind: 'task', id } });
  });

  it('serves the same tasks to both versions: created by 0.3, read by 1.0, and the other way round', async () => {
    const old = (await result03(hub.endpoint, 'message/send', { message: message03('from 0.3') })) as V03.Task;
    const current = await call(hub.endpoint, 'GetTask', { id: old.id });
    expect(current).toMatchObject({ id: old.id, contextId: old.contextId, status: { state: 'TASK_STATE_COMPLETED' } });
    const made = await call(hub.endpoint, 'SendMessage', {
      message: { messageId: randomUUID(), role: 'ROLE_USER', parts: [{ text: 'from 1.0' }] },
    });
    const id = made.task?.id ?? '';
    const read = (await result03(hub.endpoint, 'tasks/get', { id, historyLength: 1 })) as V03.Task;
    expect(read).toMatchObject({ kind: 'task', id, status: { state: 'completed' } });
    expect(read.history).toHaveLength(1);
  });

  it('message/stream sends bare 0.3 events, the last status event final, each valid 0.3', async () => {
    const response = await fetch(hub.endpoint, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 3, method: 'message/stream', params: { message: message03('streamed') } }),
    });
    expect(response.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const data: string[] = [];
    const parser = createParser({ onEvent: (event) => data.push(event.data) });
    parser.feed(await response.text());
    const results = data.map((frame) => (JSON.parse(frame) as { id: number; result: V03.SendStreamingMessageResult }).result);
    expect(results.length).toBeGreaterThan(2);
    for (const result of results) {
      const checked = checkValue(A2A_0_3, 'SendStreamingMessageResult', result, { flavour: 'exact' });
      expect(checked.ok ? [] : checked.violations).toEqual([]);
    }
    expect(results[0]?.kind).toBe('task');
    const statuses = results.filter((result): result is V03.TaskStatusUpdateEvent => result.kind === 'status-update');
    expect(statuses.at(-1)).toMatchObject({ final: true, status: { state: 'completed' } });
    expect(statuses.slice(0, -1).every((event) => !event.final)).toBe(true);
    const text = results
      .filter((result): result is V03.TaskArtifactUpdateEvent => result.kind === 'artifact-update')
      .flatMap((event) => event.artifact.parts)
      .map((part) => (part.kind === 'text' ? part.text : ''))
      .join('');
    expect(text).toBe('echo: streamed');
  });

  it('errors are 0.3 error objects: the spec code, the message, and data as an object with the reason', async () => {
    const missing = await rpc03(hub.endpoint, 'tasks/get', { id: 'no-such-task' });
    expect(missing.status).toBe(200);
    expect(missing.error).toMatchObject({ code: -32001, data: { reason: 'TASK_NOT_FOUND', domain: 'a2a-protocol.org' } });
    expect(missing.headers.get('a2a-version')).toBe('0.3');
    const done = (await result03(hub.endpoint, 'message/send', { message: message03('finished') })) as V03.Task;
    const cancel = await rpc03(hub.endpoint, 'tasks/cancel', { id: done.id });
    expect(cancel.error).toMatchObject({ code: -32002, data: { reason: 'TASK_NOT_CANCELABLE' } });
    const checked = checkValue(A2A_0_3, 'JSONRPCError', cancel.error, { flavour: 'exact' });
    expect(checked.ok).toBe(true);
  });

  it('refuses 1.0 shapes in a 0.3 request with -32602 naming the 0.3 field, and 0.3 methods it lacks with -32601', async () => {
    const wrong = await rpc03(hub.endpoint, 'message/send', { message: { messageId: 'm', role: 'ROLE_USER', parts: [{ text: 'x' }] } });
    expect(wrong.error?.code).toBe(-32602);
    const fields = (wrong.error?.data?.['fieldViolations'] as { field: string }[]).map((violation) => violation.field);
    expect(fields).toEqual(expect.arrayContaining(['params.message.role']));
    // tasks/list is seed 004's (gateway-worker.test.ts); a name neither version nor the gateway has:
    const unknown = await rpc03(hub.endpoint, 'tasks/frobnicate', {}, { 'A2A-Version': '0.3' });
    expect(unknown.error).toMatchObject({ code: -32601, data: { reason: 'METHOD_NOT_FOUND' } });
    // 1.0 constrains what 0.3 leaves free: an empty messageId is refused as it would be in 1.0.
    const empty = await rpc03(hub.endpoint, 'message/send', { message: message03('x', { messageId: '' }) });
    expect(empty.error).toMatchObject({ code: -32602, data: { reason: 'INVALID_PARAMS' } });
  });

  it('push notification configs: set, get (by config id and by task alone), list and delete, in 0.3 shapes', async () => {
    const task = (await result03(hub.endpoint, 'message/send', { message: message03('push me') })) as V03.Task;
    const set = (await result03(hub.endpoint, 'tasks/pushNotificationConfig/set', {
      taskId: task.id,
      pushNotificationConfig: { url: 'https://push.example.test/hook', authentication: { schemes: ['Bearer'], credentials: 'secret-0.3' } },
    })) as V03.TaskPushNotificationConfig;
    expect(set).toMatchObject({ taskId: task.id, pushNotificationConfig: { url: 'https://push.example.test/hook' } });
    const configId = set.pushNotificationConfig.id ?? '';
    expect(configId).not.toBe('');
    const byId = await result03(hub.endpoint, 'tasks/pushNotificationConfig/get', { id: task.id, pushNotificationConfigId: configId });
    expect(byId).toMatchObject({ taskId: task.id, pushNotificationConfig: { id: configId } });
    expect(await result03(hub.endpoint, 'tasks/pushNotificationConfig/get', { id: task.id })).toEqual(byId);
    expect(await result03(hub.endpoint, 'tasks/pushNotificationConfig/list', { id: task.id })).toEqual([byId]);
    expect(
      await result03(hub.endpoint, 'tasks/pushNotificationConfig/delete', { id: task.id, pushNotificationConfigId: configId }),
    ).toBeNull();
    expect(await result03(hub.endpoint, 'tasks/pushNotificationConfig/list', { id: task.id })).toEqual([]);
    const none = await rpc03(hub.endpoint, 'tasks/pushNotificationConfig/get', { id: task.id });
    expect(none.error).toMatchObject({ code: -32602, data: { fieldViolations: [{ field: 'params.id' }] } });
    expect(none.error?.message).toMatch(new RegExp(`^task ${task.id} has no push notification config`));
  });

  it('without a version header a PascalCase request is 0.3 (spec §3.6.2), unless its params only 1.0 accepts', async () => {
    const shaped10 = await rpc03(hub.endpoint, 'SendMessage', {
      message: { messageId: randomUUID(), role: 'ROLE_USER', parts: [{ text: 'x' }] },
    });
    expect(shaped10.result).toMatchObject({ task: { status: { state: 'TASK_STATE_COMPLETED' } } });
    expect(shaped10.headers.get('a2a-version')).toBe('1.0');
    const shaped03 = await rpc03(hub.endpoint, 'SendMessage', { message: message03('absent') });
    expect(shaped03.result).toMatchObject({ kind: 'task', status: { state: 'completed' } });
    expect(shaped03.headers.get('a2a-version')).toBe('0.3');
    // {id} is a GetTask of either version: the absent header decides.
    const id = (shaped03.result as V03.Task).id;
    const either = await rpc03(hub.endpoint, 'GetTask', { id });
    expect(either.result).toMatchObject({ kind: 'task', id, status: { state: 'completed' } });
    expect(either.headers.get('a2a-version')).toBe('0.3');
  });

  it('absentVersion "1.0": a request both versions could mean is 1.0; one only 0.3 accepts is still 0.3', async () => {
    const sent = await rpc03(lenient.endpoint, 'SendMessage', { message: message03('lenient') });
    expect(sent.result).toMatchObject({ kind: 'task', status: { state: 'completed' } });
    const id = (sent.result as V03.Task).id;
    const either = await rpc03(lenient.endpoint, 'GetTask', { id });
    expect(either.result).toMatchObject({ id, status: { state: 'TASK_STATE_COMPLETED' } });
    expect(either.result).not.toHaveProperty('kind');
    expect(either.headers.get('a2a-version')).toBe('1.0');
  });

  it('an instance that serves named tenants only serves 1.0 alone: 0.3 has no tenants', async () => {
    const created = await hub.inbounds.create({ name: 'Tenants only', description: 'acme', version: '1.0.0', tenants: ['acme'] });
    try {
      const endpoint = `${hub.url}${created.endpointPath}`;
      for (const [method, headers] of [
        ['message/send', {}],
        ['SendMessage', { 'A2A-Version': '0.3' }],
        ['SendMessage', {}],
      ] as const) {
        const answer = await rpc03(endpoint, method, { message: message03('tenant') }, headers);
        expect(answer.error, `${method} ${JSON.stringify(headers)}`).toMatchObject({ code: -32009 });
        expect(answer.error?.message).toMatch(/serves 1\.0/);
      }
    } finally {
      await hub.inbounds.remove(created.id);
    }
  });
});
