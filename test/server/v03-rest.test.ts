import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ERRORS as ERRORS_03 } from '../../generated/a2a/0.3/errors.js';
import { ERRORS, type ErrorName } from '../../generated/a2a/1.0/errors.js';
import { A2A_0_3, A2A_0_3_REST, type A2A03RestDefs } from '../../src/protocol/a2a-schema.js';
import { checkValue } from '../../src/protocol/validation.js';
import { startTestHub, type TestHub } from '../helpers/hub.js';
import { send } from '../helpers/raw-http.js';

/**
 * The hub's A2A 0.3 HTTP+JSON binding from raw HTTP: the routes below `/v1` of the REST base,
 * the 0.3 proto's JSON in and out (held to spec/a2a/0.3/rest), how the version is chosen when
 * the two route tables meet, and every refusal as a 0.3 error object with the HTTP status of
 * errors.json. The official 0.3 client's view is test/interop/a2a-js-03-client.test.ts.
 */

const TOKEN = 'rest-03-token';
let hub: TestHub;
let lockedBase: string;

beforeAll(async () => {
  hub = await startTestHub({ store: 'memory' });
  const locked = await hub.inbounds.create({ name: 'locked', description: 'wants a token', version: '1.0.0', preset: 'echo' });
  await hub.inbounds.setAuth(locked.id, TOKEN);
  lockedBase = `${hub.url}${locked.endpointPath}`;
});

afterAll(() => hub?.dispose());

interface Answer {
  readonly status: number;
  readonly headers: Headers;
  readonly body: unknown;
}

async function rest(
  verb: string,
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
  base = hub.endpoint,
): Promise<Answer> {
  const response = await send(`${base}${path}`, {
    method: verb,
    headers: body === undefined ? headers : { 'content-type': 'application/json', ...headers },
    ...(body === undefined ? {} : { body: typeof body === 'string' ? body : JSON.stringify(body) }),
  });
  return { status: response.status, headers: response.headers, body: response.text === '' ? undefined : JSON.parse(response.text) };
}

/** A 2xx answer that is exactly the 0.3 response message `def`. */
function expectAnswer<D extends keyof A2A03RestDefs>(answer: Answer, def: D): A2A03RestDefs[D] {
  expect(answer.status, JSON.stringify(answer.body)).toBe(200);
  expect(answer.headers.get('content-type')).toMatch(/^application\/json/);
  expect(answer.headers.get('a2a-version')).toBe('0.3');
  const verdict = checkValue(A2A_0_3_REST, def, answer.body, { flavour: 'exact' });
  expect(verdict.ok ? [] : verdict.violations, def).toEqual([]);
  return answer.body as A2A03RestDefs[D];
}

interface Error03 {
  readonly code: number;
  readonly message: string;
  readonly data: { reason: string; domain: string; metadata?: Record<string, string>; fieldViolations?: { field: string }[] };
}

/** The HTTP status 0.3's table gives a spec error (409 for TaskNotCancelable), else the hub's. */
const statusIn03 = (name: ErrorName): number =>
  Object.hasOwn(ERRORS_03, name) ? ERRORS_03[name as keyof typeof ERRORS_03].httpStatus : ERRORS[name].httpStatus;

/** A refusal as @a2a-js/sdk 0.3 reads one: `{code, message, data}`, the code and status of `name`. */
function expectError(answer: Answer, name: ErrorName): Error03 {
  const verdict = checkValue(A2A_0_3, 'JSONRPCError', answer.body, { flavour: 'exact' });
  expect(verdict.ok ? [] : verdict.violations, 'a 0.3 error object').toEqual([]);
  const error = answer.body as Error03;
  expect([answer.status, error.code, error.data.reason], error.message).toEqual([statusIn03(name), ERRORS[name].code, ERRORS[name].reason]);
  expect(answer.headers.get('content-type')).toMatch(/^application\/json/);
  return error;
}

const userMessage = (text: string, extra: Record<string, unknown> = {}) => ({
  messageId: randomUUID(),
  role: 'ROLE_USER',
  content: [{ text }],
  ...extra,
});

describe('A2A 0.3 over HTTP+JSON', () => {
  it('POST /v1/message:send without A2A-Version answers the proto SendMessageResponse; the task is the one 1.0 reads', async () => {
    const sent = expectAnswer(await rest('POST', '/v1/message:send', { message: userMessage('over 0.3 rest') }), 'SendMessageResponse');
    const task = sent.task;
    expect(task?.status?.state).toBe('TASK_STATE_COMPLETED');
    expect(task?.artifacts?.[0]?.parts?.[0]).toEqual({ text: 'echo: over 0.3 rest' });
    const as10 = await rest('GET', `/tasks/${task?.id}`, undefined, { 'a2a-version': '1.0' });
    expect(as10.body).toMatchObject({ id: task?.id, contextId: task?.contextId, status: { state: 'TASK_STATE_COMPLETED' } });
    const read = expectAnswer(await rest('GET', `/v1/tasks/${task?.id}?historyLength=1`), 'Task');
    expect(read).toMatchObject({ id: task?.id, contextId: task?.contextId });
    expect(read.history).toHaveLength(1);
  });

  it('proto field names are read as well as the JSON names, in the body (json_name fields too) and the query', async () => {
    const sent = expectAnswer(
      await rest('POST', '/v1/message:send', {
        request: { message_id: randomUUID(), context_id: 'ctx-snake', role: 'ROLE_USER', content: [{ text: 'snake' }] },
      }),
      'SendMessageResponse',
    );
    const read = expectAnswer(await rest('GET', `/v1/tasks/${sent.task?.id}?history_length=0`), 'Task');
    expect([read.id, read.contextId]).toEqual([sent.task?.id, 'ctx-snake']);
  });

  it('a direct Message answer is SendMessageResponse.message', async () => {
    const sent = expectAnswer(await rest('POST', '/v1/message:send', { message: userMessage('::message') }), 'SendMessageResponse');
    expect(sent.message).toMatchObject({ role: 'ROLE_AGENT' });
    expect(sent.task).toBeUndefined();
  });

  it('configuration.blocking false returns the task before it ends; :cancel cancels it; :cancel again is TaskNotCancelable', async () => {
    const sent = expectAnswer(
      await rest('POST', '/v1/message:send', { message: userMessage('::slow 50'), configuration: { blocking: false } }),
      'SendMessageResponse',
    );
    expect(['TASK_STATE_SUBMITTED', 'TASK_STATE_WORKING']).toContain(sent.task?.status?.state);
    const canceled = expectAnswer(await rest('POST', `/v1/tasks/${sent.task?.id}:cancel`), 'Task');
    expect(canceled.status?.state).toBe('TASK_STATE_CANCELLED');
    expect(expectError(await rest('POST', `/v1/tasks/${sent.task?.id}:cancel`, {}), 'TaskNotCancelableError')).toBeDefined();
    expect(statusIn03('TaskNotCancelableError')).toBe(409);
  });

  it('POST /v1/message:stream is SSE of StreamResponse frames, application/json-free, the last status final', async () => {
    const response = await fetch(`${hub.endpoint}/v1/message:stream`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'text/event-stream' },
      body: JSON.stringify({ message: userMessage('::chunks 2\nstreamed') }),
    });
    expect(response.headers.get('content-type')).toMatch(/^text\/event-stream/);
    expect(response.headers.get('a2a-version')).toBe('0.3');
    const frames = (await response.text())
      .split('\n')
      .filter((line) => line.startsWith('data:'))
      .map((line) => JSON.parse(line.slice(5)) as Record<string, unknown>);
    for (const frame of frames) {
      const verdict = checkValue(A2A_0_3_REST, 'StreamResponse', frame, { flavour: 'exact' });
      expect(verdict.ok ? [] : verdict.violations).toEqual([]);
    }
    expect(frames[0]).toHaveProperty('task');
    expect(frames.at(-1)).toMatchObject({ statusUpdate: { final: true, status: { state: 'TASK_STATE_COMPLETED' } } });
    expect(frames.filter((frame) => (frame['statusUpdate'] as { final?: boolean } | undefined)?.final)).toHaveLength(1);
  });

  it('push configs: POST the config, GET it and the list, DELETE answers Empty; the token never comes back', async () => {
    const sent = expectAnswer(
      await rest('POST', '/v1/message:send', { message: userMessage('::slow 50'), configuration: { blocking: false } }),
      'SendMessageResponse',
    );
    const id = sent.task?.id ?? '';
    const config = {
      name: `tasks/${id}/pushNotificationConfigs/h1`,
      pushNotificationConfig: { url: 'https://hooks.example.test/a', token: 'secret-token' },
    };
    const set = expectAnswer(await rest('POST', `/v1/tasks/${id}/pushNotificationConfigs`, config), 'TaskPushNotificationConfig');
    expect(set).toEqual({
      name: `tasks/${id}/pushNotificationConfigs/h1`,
      pushNotificationConfig: { id: 'h1', url: 'https://hooks.example.test/a' },
    });
    expect(expectAnswer(await rest('GET', `/v1/tasks/${id}/pushNotificationConfigs/h1`), 'TaskPushNotificationConfig')).toEqual(set);
    expect(expectAnswer(await rest('GET', `/v1/tasks/${id}/pushNotificationConfigs`), 'ListTaskPushNotificationConfigResponse')).toEqual({
      configs: [set],
    });
    const deleted = await rest('DELETE', `/v1/tasks/${id}/pushNotificationConfigs/h1`);
    expect([deleted.status, deleted.body]).toEqual([200, {}]);
    expectError(await rest('GET', `/v1/tasks/${id}/pushNotificationConfigs/h1`), 'TaskNotFoundError');
    await rest('POST', `/v1/tasks/${id}:cancel`);
  });

  it('a push config whose configId, id or name disagree is refused, naming the field', async () => {
    const sent = expectAnswer(
      await rest('POST', '/v1/message:send', { message: userMessage('::slow 50'), configuration: { blocking: false } }),
      'SendMessageResponse',
    );
    const id = sent.task?.id ?? '';
    const fieldsOf = (answer: Answer) =>
      expectError(answer, 'InvalidParamsError').data.fieldViolations?.map((violation) => violation.field);
    const hook = { url: 'https://hooks.example.test/a' };
    expect(
      fieldsOf(await rest('POST', `/v1/tasks/${id}/pushNotificationConfigs?configId=a`, { pushNotificationConfig: { ...hook, id: 'b' } })),
    ).toEqual(['configId']);
    expect(
      fieldsOf(
        await rest('POST', `/v1/tasks/${id}/pushNotificationConfigs`, {
          name: 'tasks/other/pushNotificationConfigs/x',
          pushNotificationConfig: hook,
        }),
      ),
    ).toEqual(['config.name']);
    // A name naming another config than the config's own id is refused too, not decided for one of them.
    expect(
      fieldsOf(
        await rest('POST', `/v1/tasks/${id}/pushNotificationConfigs`, {
          name: `tasks/${id}/pushNotificationConfigs/c`,
          pushNotificationConfig: { ...hook, id: 'd' },
        }),
      ),
    ).toEqual(['config.name']);
    expect(fieldsOf(await rest('POST', `/v1/tasks/${id}/pushNotificationConfigs`, { pushNotificationConfig: {} }))).toEqual([
      'config.pushNotificationConfig.url',
    ]);
    // The configId of the query names a config that has no id of its own.
    const named = expectAnswer(
      await rest('POST', `/v1/tasks/${id}/pushNotificationConfigs?configId=q1`, { pushNotificationConfig: hook }),
      'TaskPushNotificationConfig',
    );
    expect(named.pushNotificationConfig?.id).toBe('q1');
    await rest('POST', `/v1/tasks/${id}:cancel`);
  });

  it('GET /v1/card is the extended card as the 0.3 proto AgentCard', async () => {
    const card = expectAnswer(await rest('GET', '/v1/card'), 'AgentCard');
    expect(card).toMatchObject({ protocolVersion: '0.3.0', url: hub.endpoint, preferredTransport: 'JSONRPC' });
  });

  it('bad input is a 0.3 InvalidParams naming the proto field; nothing is created', async () => {
    const cases: [string, string, unknown, string[]][] = [
      ['POST', '/v1/message:send', { message: { messageId: 1, role: 'ROLE_USER', content: [] } }, ['message.messageId']],
      ['POST', '/v1/message:send', { message: { ...userMessage('x'), role: 'user' } }, ['message.role']],
      ['POST', '/v1/message:send', { message: userMessage('x'), configuration: { blocking: 'yes' } }, ['configuration.blocking']],
      ['POST', '/v1/message:send', [1], ['body']],
      ['GET', `/v1/tasks/${randomUUID()}?historyLength=many`, undefined, ['historyLength']],
      ['GET', `/v1/tasks/${randomUUID()}?pageSize=3`, undefined, ['pageSize']],
      // A `body: "*"` route takes nothing from the query: refused, not ignored.
      ['POST', '/v1/message:send?configuration.blocking=false', { message: userMessage('x') }, ['configuration.blocking']],
      ['POST', '/v1/message:send?foo=bar', { message: userMessage('x') }, ['foo']],
    ];
    for (const [verb, path, body, fields] of cases) {
      const error = expectError(await rest(verb, path, body), 'InvalidParamsError');
      expect(
        error.data.fieldViolations?.map((violation) => violation.field),
        `${verb} ${path}`,
      ).toEqual(fields);
    }
    expectError(await rest('POST', '/v1/message:send', '{"request":'), 'JSONParseError');
  });

  it('an unknown task is TaskNotFound; a wrong verb is 405 with Allow; a path of no route is 404', async () => {
    const missing = randomUUID();
    expect(expectError(await rest('GET', `/v1/tasks/${missing}`), 'TaskNotFoundError').data.metadata).toMatchObject({ taskId: missing });
    const wrongVerb = await rest('DELETE', '/v1/message:send');
    expectError(wrongVerb, 'MethodNotAllowedError');
    expect(wrongVerb.headers.get('allow')).toBe('POST');
    expect(expectError(await rest('GET', '/v1/nowhere'), 'NotFoundError').message).toMatch(/\/v1\/message:send/);
  });

  it('the two route tables meet: a 1.0 route named 0.3, or a 0.3 route named 1.0, is VersionNotSupported saying which; a header-less 1.0 route is 1.0', async () => {
    const id = randomUUID();
    const on10Path = expectError(await rest('GET', `/tasks/${id}`, undefined, { 'a2a-version': '0.3' }), 'VersionNotSupportedError');
    expect(on10Path.message).toMatch(/A2A 1\.0 route.*below .*\/v1/);
    // A 1.0 caller hears it as 1.0 errors are written. (1.0 reads /v1/tasks/{id} as the task of a
    // tenant named v1, so /v1/card, which 1.0 has no route for, shows it.)
    const on03Path = await rest('GET', '/v1/card', undefined, { 'a2a-version': '1.0' });
    expect(on03Path.status).toBe(400);
    const on03Status = (on03Path.body as { error: { status: string; message: string } }).error;
    expect(on03Status.status).toBe('FAILED_PRECONDITION');
    expect(on03Status.message).toMatch(/A2A 0\.3 route/);
    const tenantV1 = await rest('GET', `/v1/tasks/${id}`, undefined, { 'a2a-version': '1.0' });
    const tenantV1Status = (tenantV1.body as { error: { status: string; message: string } }).error;
    expect(tenantV1Status.status).toBe('NOT_FOUND');
    expect(tenantV1Status.message).toContain(id);
    // Without a version, a route only 1.0 has can only mean 1.0, and is served as 1.0 (docs/spec-policy.md 5.1).
    const bare = await rest('GET', `/tasks/${id}`);
    expect(bare.status).toBe(404);
    expect(bare.body).toMatchObject({ error: { status: 'NOT_FOUND', details: [expect.objectContaining({ reason: 'TASK_NOT_FOUND' })] } });
    expect(bare.headers.get('a2a-version')).toBe('1.0');
    const sent = await rest('POST', '/message:send', {
      message: { messageId: randomUUID(), role: 'ROLE_USER', parts: [{ text: 'no header' }] },
    });
    expect(sent.status).toBe(200);
    expect(sent.body).toMatchObject({ task: { status: { state: 'TASK_STATE_COMPLETED' } } });
    // The query parameter names a version as the header does.
    expectAnswer(await rest('GET', `/v1/card?A2A-Version=0.3`), 'AgentCard');
  });

  it('a path of neither table is 404 written as its client reads it: 0.3 below /v1, 1.0 elsewhere', async () => {
    const below = expectError(await rest('GET', '/v1/no-such-route'), 'NotFoundError');
    expect(below.message).toMatch(/no HTTP\+JSON route of this agent in A2A 0\.3; .*\/v1\/message:send/);
    const elsewhere = await rest('GET', '/no-such-route');
    expect([elsewhere.status, (elsewhere.body as { error: { status: string } }).error.status]).toEqual([404, 'NOT_FOUND']);
  });

  it('a token-guarded instance: 401 as a 0.3 error without the token, the answer with it', async () => {
    const refused = await rest('POST', '/v1/message:send', { message: userMessage('locked') }, {}, lockedBase);
    expectError(refused, 'UnauthenticatedError');
    expect(refused.headers.get('www-authenticate')).toMatch(/^Bearer/);
    expect(JSON.stringify(refused.body)).not.toContain(TOKEN);
    const answered = await rest(
      'POST',
      '/v1/message:send',
      { message: userMessage('locked') },
      { authorization: `Bearer ${TOKEN}` },
      lockedBase,
    );
    expectAnswer(answered, 'SendMessageResponse');
  });
});
