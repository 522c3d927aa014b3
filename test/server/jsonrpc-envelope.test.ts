import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { JSONRPCError, JSONRPCErrorResponse, RestErrorResponse } from '../../generated/a2a/1.0/types.js';
import { A2A_1_0 } from '../../src/protocol/a2a-schema.js';
import { checkValue } from '../../src/protocol/validation.js';
import { call, expectErrorResponse, rpc, stream, userMessage, type RpcResponse } from '../helpers/a2a-client.js';
import { badRequestOf, type ErrorName } from '../helpers/errors.js';
import { startTestHub, type TestHub } from '../helpers/hub.js';
import { expectJsonRpcError, expectRestError, nodeRequest, post, send, type RawResponse } from '../helpers/raw-http.js';

/**
 * The JSON-RPC binding's envelope over real HTTP: parse errors, invalid requests, methods,
 * params, notifications, ids, content types, body limits, routes and A2A-Version
 * negotiation (docs/spec-policy.md 2.16, 2.17, 3, 4.1, 5.1, 5.9, 5.10, 5.14, 5.15).
 */

let hub: TestHub;
let endpoint: string;

beforeAll(async () => {
  hub = await startTestHub();
  endpoint = hub.endpoint;
});

afterAll(async () => {
  await hub?.dispose();
});

const JSON_HEADERS = { 'content-type': 'application/json', 'a2a-version': '1.0' };

/** Checks an error that came back through the strict client (already validated there), and its A2A-Version header. */
function expectClientError(response: RpcResponse<unknown>, name: ErrorName, expected: { id: string | number | null }): JSONRPCError {
  const error = expectErrorResponse(response, name, expected);
  expect(response.headers.get('a2a-version')).toBe('1.0');
  return error;
}

/** The field paths named by the BadRequest that must be `data[1]`. */
function violatedFields(error: { data?: unknown[] } | undefined): string[] {
  const detail = error?.data?.[1] as { '@type'?: string } | undefined;
  expect(detail?.['@type']).toBe('type.googleapis.com/google.rpc.BadRequest');
  return badRequestOf(error?.data).fieldViolations.map((violation) => violation.field);
}

describe('parse errors (JSONParseError)', () => {
  it.each([
    ['truncated JSON', '{"jsonrpc":"2.0","id":1,"method":"ListTasks"'],
    ['a bare word', 'hello'],
    ['trailing garbage', '{"jsonrpc":"2.0","id":1,"method":"ListTasks"} x'],
    ['an empty body', ''],
    ['a whitespace-only body', '  \n '],
  ])('%s → JSONParseError with id null, HTTP 200', async (_name, body) => {
    const response = await post(endpoint, body, JSON_HEADERS);
    const parsed = expectJsonRpcError(response, 'JSONParseError', { id: null });
    expect(parsed.error.message).not.toBe('');
    expect(response.headers.get('a2a-version')).toBe('1.0');
  });
});

describe('invalid requests (InvalidRequestError)', () => {
  const cases: [name: string, body: string, id: string | number | null, field: string | undefined][] = [
    ['jsonrpc "1.0"', '{"jsonrpc":"1.0","id":7,"method":"ListTasks"}', 7, 'jsonrpc'],
    ['jsonrpc 2 (a number)', '{"jsonrpc":2,"id":"n2","method":"ListTasks"}', 'n2', 'jsonrpc'],
    ['missing jsonrpc', '{"id":"abc","method":"ListTasks"}', 'abc', 'jsonrpc'],
    ['missing method', '{"jsonrpc":"2.0","id":9}', 9, 'method'],
    ['non-string method (42)', '{"jsonrpc":"2.0","id":10,"method":42}', 10, 'method'],
    ['id true', '{"jsonrpc":"2.0","id":true,"method":"ListTasks"}', null, 'id'],
    ['id {}', '{"jsonrpc":"2.0","id":{},"method":"ListTasks"}', null, 'id'],
    ['id 1.5', '{"jsonrpc":"2.0","id":1.5,"method":"ListTasks"}', null, 'id'],
    ['id null', '{"jsonrpc":"2.0","id":null,"method":"ListTasks"}', null, 'id'],
    ['a batch of one valid request', '[{"jsonrpc":"2.0","id":1,"method":"ListTasks"}]', null, undefined],
    ['an empty batch []', '[]', null, undefined],
    ['a top-level number', '42', null, undefined],
    ['a top-level string', '"x"', null, undefined],
    ['top-level true', 'true', null, undefined],
    ['top-level null', 'null', null, undefined],
  ];

  it.each(cases)('%s → InvalidRequestError, HTTP 200, id echoed when valid', async (_name, body, id, field) => {
    const response = await post(endpoint, body, JSON_HEADERS);
    const parsed = expectJsonRpcError(response, 'InvalidRequestError', { id });
    expect(response.headers.get('a2a-version')).toBe('1.0');
    if (field !== undefined) expect(badRequestOf(parsed.error.data).fieldViolations.map((violation) => violation.field)).toContain(field);
  });

  it('a batch gets one error object, not an array of responses', async () => {
    const response = await post(
      endpoint,
      '[{"jsonrpc":"2.0","id":1,"method":"ListTasks"},{"jsonrpc":"2.0","id":2,"method":"ListTasks"}]',
      JSON_HEADERS,
    );
    expect(Array.isArray(JSON.parse(response.text))).toBe(false);
    expectJsonRpcError(response, 'InvalidRequestError', { id: null });
  });
});

describe('params by position', () => {
  it('an array params → InvalidParamsError naming params, with the id echoed', async () => {
    const response = await post(endpoint, '{"jsonrpc":"2.0","id":11,"method":"GetTask","params":["task-1"]}', JSON_HEADERS);
    const parsed = expectJsonRpcError(response, 'InvalidParamsError', { id: 11 });
    expect(violatedFields(parsed.error)).toContain('params');
  });

  it('an empty array params → InvalidParamsError as well', async () => {
    const response = await post(endpoint, '{"jsonrpc":"2.0","id":"p0","method":"ListTasks","params":[]}', JSON_HEADERS);
    const parsed = expectJsonRpcError(response, 'InvalidParamsError', { id: 'p0' });
    expect(violatedFields(parsed.error)).toContain('params');
  });
});

describe('unknown methods (MethodNotFoundError)', () => {
  it.each([
    ['message/send', 'SendMessage'],
    ['tasks/get', 'GetTask'],
    ['message/stream', 'SendStreamingMessage'],
    ['tasks/cancel', 'CancelTask'],
  ])('the 0.3 name %s → MethodNotFoundError whose message names %s', async (method, modern) => {
    const response = await rpc(endpoint, method as 'SendMessage', { message: userMessage('hi') }, { id: `legacy-${method}` });
    const error = expectClientError(response, 'MethodNotFoundError', { id: `legacy-${method}` });
    expect(error.message).toContain(modern);
    expect(error.message).toContain(method);
  });

  it.each(['sendMessage', 'SENDMESSAGE', 'SendMessages', 'GetAgentCard', 'SetTaskPushNotificationConfig', 'tasks/list'])(
    '%s → MethodNotFoundError',
    async (method) => {
      const response = await rpc(endpoint, method as 'SendMessage', { message: userMessage('hi') }, { id: 99 });
      expectClientError(response, 'MethodNotFoundError', { id: 99 });
    },
  );

  // Method names come off the wire: one that Object.prototype has must not be looked up there.
  it.each(['toString', 'constructor', '__proto__', 'hasOwnProperty'])(
    '%s → MethodNotFoundError that names no 1.0 method',
    async (method) => {
      const response = await rpc(endpoint, method as 'SendMessage', {}, { id: 7 });
      const error = expectClientError(response, 'MethodNotFoundError', { id: 7 });
      expect(error.message).toBe(`method ${JSON.stringify(method)} does not exist`);
    },
  );
});

describe('notifications (no id)', () => {
  it('a SendMessage notification answers 204 with an empty body, and is executed', async () => {
    const message = userMessage('notified once');
    const response = await post(endpoint, JSON.stringify({ jsonrpc: '2.0', method: 'SendMessage', params: { message } }), JSON_HEADERS);
    expect(response.status).toBe(204);
    expect(response.text).toBe('');
    expect(response.headers.get('a2a-version')).toBe('1.0');

    // The same messageId again: idempotency returns the task the notification created,
    // whose first message is the notification's own (the text proves it was not this call's).
    const result = await call(endpoint, 'SendMessage', { message: { ...message, parts: [{ text: 'the second send' }] } });
    expect(result.task).toBeDefined();
    expect(result.task?.history?.[0]?.messageId).toBe(message.messageId);
    expect(result.task?.history?.[0]?.parts).toEqual([{ text: 'notified once' }]);
  });

  it('a ListTasks notification answers 204 with an empty body', async () => {
    const response = await post(endpoint, '{"jsonrpc":"2.0","method":"ListTasks"}', JSON_HEADERS);
    expect(response.status).toBe(204);
    expect(response.text).toBe('');
  });

  // docs/spec-policy.md 5.10: "HTTP 204 with no body, whatever the outcome; errors are logged, not returned".
  it.each([
    ['an unknown method', '{"jsonrpc":"2.0","method":"NoSuchMethod","params":{}}'],
    ['invalid params', '{"jsonrpc":"2.0","method":"GetTask","params":{"id":"t","historyLength":-1}}'],
    ['a task that does not exist', '{"jsonrpc":"2.0","method":"GetTask","params":{"id":"no-such-task"}}'],
  ])('a notification with %s still answers 204 with an empty body (policy 5.10)', async (_name, body) => {
    const response = await post(endpoint, body, JSON_HEADERS);
    expect(response.status).toBe(204);
    expect(response.text).toBe('');
  });
});

describe('omitted params', () => {
  it('ListTasks without params succeeds', async () => {
    const response = await rpc(endpoint, 'ListTasks', undefined, { id: 'lt' });
    expect(response.status).toBe(200);
    expect(response.body.error).toBeUndefined();
    expect(response.body.id).toBe('lt');
    expect(response.body.result?.pageSize).toBe(50);
  });

  it('GetExtendedAgentCard without params succeeds', async () => {
    const response = await rpc(endpoint, 'GetExtendedAgentCard', undefined, { id: 'card' });
    expect(response.status).toBe(200);
    expect(response.body.error).toBeUndefined();
    expect(response.body.result?.supportedInterfaces[0]?.url).toBe(endpoint);
  });

  it.each(['GetTask', 'SendMessage'] as const)('%s without params → InvalidParamsError with a violation on params', async (method) => {
    const response = await rpc(endpoint, method, undefined, { id: `np-${method}` });
    const error = expectClientError(response, 'InvalidParamsError', { id: `np-${method}` });
    expect(violatedFields(error)).toEqual(['params']);
  });
});

describe('id echo', () => {
  it.each<string | number>(['req-1', 'with spaces and ünïcode', 0, -1, -42, 42, 9007199254740991])(
    'id %j comes back exactly',
    async (id) => {
      const response = await rpc(endpoint, 'ListTasks', {}, { id });
      expect(response.body.error).toBeUndefined();
      expect(response.body.id).toBe(id);
      expect(typeof response.body.id).toBe(typeof id);
    },
  );

  it('ids are echoed on errors too', async () => {
    const response = await rpc(endpoint, 'GetTask', { id: 'no-such-task' }, { id: -3 });
    expectClientError(response, 'TaskNotFoundError', { id: -3 });
  });
});

describe('invalid params (InvalidParamsError) name the field in a BadRequest at data[1]', () => {
  it('a part with no content → params.message.parts[0]', async () => {
    const response = await rpc(
      endpoint,
      'SendMessage',
      { message: { messageId: 'bad-part', role: 'ROLE_USER', parts: [{}] } },
      { id: 'p1' },
    );
    const error = expectClientError(response, 'InvalidParamsError', { id: 'p1' });
    expect(violatedFields(error)).toContain('params.message.parts[0]');
  });

  it('role "user" (0.3 style) → params.message.role', async () => {
    const response = await rpc(
      endpoint,
      'SendMessage',
      { message: { messageId: 'bad-role', role: 'user', parts: [{ text: 'hi' }] } },
      { id: 'p2' },
    );
    const error = expectClientError(response, 'InvalidParamsError', { id: 'p2' });
    expect(violatedFields(error)).toContain('params.message.role');
  });

  it('GetTask historyLength -1 → params.historyLength', async () => {
    const response = await rpc(endpoint, 'GetTask', { id: 'any', historyLength: -1 }, { id: 'p3' });
    const error = expectClientError(response, 'InvalidParamsError', { id: 'p3' });
    expect(violatedFields(error)).toContain('params.historyLength');
  });

  it.each([0, 101])('ListTasks pageSize %i → params.pageSize', async (pageSize) => {
    const response = await rpc(endpoint, 'ListTasks', { pageSize }, { id: `p-${pageSize}` });
    const error = expectClientError(response, 'InvalidParamsError', { id: `p-${pageSize}` });
    expect(violatedFields(error)).toContain('params.pageSize');
  });

  it('ListTasks pageSize 1 and 100 are accepted', async () => {
    expect((await call(endpoint, 'ListTasks', { pageSize: 1 })).pageSize).toBe(1);
    expect((await call(endpoint, 'ListTasks', { pageSize: 100 })).pageSize).toBe(100);
  });
});

describe('Content-Type', () => {
  it('text/plain → HTTP 415 with a JSON-RPC error body (UNSUPPORTED_MEDIA_TYPE, a2a-hub.dev)', async () => {
    const response = await post(endpoint, '{"jsonrpc":"2.0","id":1,"method":"ListTasks"}', {
      'content-type': 'text/plain',
      'a2a-version': '1.0',
    });
    expectJsonRpcError(response, 'UnsupportedMediaTypeError', { httpStatus: 415, id: null });
    expect(response.headers.get('a2a-version')).toBe('1.0');
  });

  it.each(['application/x-www-form-urlencoded', 'multipart/form-data; boundary=x', 'application/jsonx'])('%s → HTTP 415', async (type) => {
    const response = await post(endpoint, '{"jsonrpc":"2.0","id":1,"method":"ListTasks"}', { 'content-type': type, 'a2a-version': '1.0' });
    expectJsonRpcError(response, 'UnsupportedMediaTypeError', { httpStatus: 415, id: null });
  });

  it.each(['application/a2a+json', 'application/json; charset=utf-8', 'application/a2a+json; charset=utf-8', 'Application/JSON'])(
    '%s is accepted',
    async (type) => {
      const response = await rpc(endpoint, 'ListTasks', {}, { id: 'ct', headers: { 'content-type': type } });
      expect(response.status).toBe(200);
      expect(response.body.error).toBeUndefined();
      expect(response.body.id).toBe('ct');
    },
  );

  // docs/spec-policy.md 5.14: "A body with a missing Content-Type is parsed as JSON."
  it('a body without Content-Type is parsed as JSON (policy 5.14)', async () => {
    const response = await send(endpoint, {
      method: 'POST',
      headers: { 'a2a-version': '1.0' },
      body: new TextEncoder().encode('{"jsonrpc":"2.0","id":"no-ct","method":"ListTasks"}'),
    });
    expect(response.headers.get('content-type')).toMatch(/^application\/json/);
    const body = JSON.parse(response.text) as { id: unknown; result?: unknown; error?: unknown };
    expect(body.error).toBeUndefined();
    expect(response.status).toBe(200);
    expect(body.id).toBe('no-ct');
  });

  it('a UTF-8 body is decoded whole, multi-byte characters and a leading byte order mark included', async () => {
    const text = 'héllo → 世界 🎉';
    const response = await send(endpoint, {
      method: 'POST',
      headers: JSON_HEADERS,
      body: new TextEncoder().encode(
        `\uFEFF{"jsonrpc":"2.0","id":"utf8","method":"SendMessage","params":{"message":{"messageId":"utf8-${Date.now()}","role":"ROLE_USER","parts":[{"text":"${text}"}]}}}`,
      ),
    });
    const body = JSON.parse(response.text) as {
      id: unknown;
      result?: { task?: { history?: { parts: { text?: string }[] }[] } };
      error?: unknown;
    };
    expect(body.error).toBeUndefined();
    expect(body.id).toBe('utf8');
    expect(body.result?.task?.history?.[0]?.parts[0]?.text).toBe(text);
  });
});

describe('body size limit', () => {
  let small: TestHub;
  const big = JSON.stringify({ jsonrpc: '2.0', id: 'big', method: 'SendMessage', params: { message: userMessage('x'.repeat(4096)) } });

  beforeAll(async () => {
    small = await startTestHub({ bodyLimitBytes: 2048 });
  });

  afterAll(async () => {
    await small?.dispose();
  });

  it('a body under the cap is served', async () => {
    const response = await rpc(small.endpoint, 'ListTasks', {}, { id: 'small' });
    expect(response.status).toBe(200);
    expect(response.body.error).toBeUndefined();
  });

  it('4 KB with Content-Length → HTTP 413 with a JSON-RPC error body', async () => {
    expect(Buffer.byteLength(big)).toBeGreaterThan(4096);
    const response = await post(small.endpoint, big, JSON_HEADERS);
    const body = expectJsonRpcError(response, 'PayloadTooLargeError', { httpStatus: 413, id: null });
    expect(body.error.data?.[0]).toMatchObject({ metadata: { limitBytes: '2048' } });
    expect(response.headers.get('a2a-version')).toBe('1.0');
  });

  it('4 KB chunked (no Content-Length) → HTTP 413 with a JSON-RPC error body', async () => {
    const bytes = new TextEncoder().encode(big);
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        for (let offset = 0; offset < bytes.length; offset += 1024) controller.enqueue(bytes.subarray(offset, offset + 1024));
        controller.close();
      },
    });
    const response = await send(small.endpoint, { method: 'POST', headers: JSON_HEADERS, body, duplex: 'half' });
    expectJsonRpcError(response, 'PayloadTooLargeError', { httpStatus: 413, id: null });
  });

  it('the hub keeps serving after refusing a large body', async () => {
    const response = await rpc(small.endpoint, 'ListTasks', {}, { id: 'after' });
    expect(response.body.error).toBeUndefined();
  });
});

describe('routes and verbs', () => {
  it.each([
    ['GET', '/nope'],
    ['GET', '/'],
    ['POST', '/a2a/unknown'],
    ['GET', '/a2a/default/extra'],
    ['GET', '/.well-known/agent.json'],
    ['GET', '/a2a/unknown/agent-card.json'],
    ['DELETE', '/a2a'],
  ])('%s %s → HTTP 404 with a JSON google.rpc.Status body', async (method, path) => {
    const response = await send(`${hub.url}${path}`, { method, ...(method === 'POST' ? { headers: JSON_HEADERS, body: '{}' } : {}) });
    const body: RestErrorResponse = expectRestError(response, 'NotFoundError');
    expect(body.error.message).not.toBe('');
  });

  it.each(['GET', 'PUT', 'DELETE', 'PATCH'])('%s on the JSON-RPC endpoint → 405 with Allow: POST and a JSON body', async (method) => {
    const response = await send(endpoint, { method });
    expect(response.headers.get('allow')).toBe('POST');
    expectRestError(response, 'MethodNotAllowedError');
  });

  it.each(['POST', 'PUT', 'DELETE'])('%s on /a2a/default/agent-card.json → 405 with Allow: GET and a JSON body', async (method) => {
    const response = await send(`${endpoint}/agent-card.json`, { method, headers: JSON_HEADERS, body: '{}' });
    expect(response.headers.get('allow')).toBe('GET');
    expectRestError(response, 'MethodNotAllowedError');
  });

  it('POST on /.well-known/agent-card.json → 405 allowing GET, with a JSON body', async () => {
    const response = await send(`${hub.url}/.well-known/agent-card.json`, { method: 'POST', headers: JSON_HEADERS, body: '{}' });
    expect(response.headers.get('allow')?.split(/,\s*/)).toContain('GET');
    expect(response.headers.get('allow')?.split(/,\s*/)).not.toContain('POST');
    expectRestError(response, 'MethodNotAllowedError');
  });

  it('odd requests never get HTML or a stack trace, and their bodies validate', async () => {
    const requests: [
      method: string,
      path: string,
      body: string | undefined,
      schema: 'RestErrorResponse' | 'JSONRPCErrorResponse' | undefined,
    ][] = [
      ['OPTIONS', '/a2a/default', undefined, 'RestErrorResponse'],
      ['HEAD', '/nope', undefined, undefined],
      ['GET', '/%E0%A4%A', undefined, 'RestErrorResponse'],
      ['GET', '/a2a/default/%ZZ/agent-card.json', undefined, 'RestErrorResponse'],
      ['GET', '/../../etc/passwd', undefined, 'RestErrorResponse'],
      [
        'POST',
        '/a2a/default',
        '{"jsonrpc":"2.0","id":1,"method":"ListTasks","params":{"pageToken":"\\u0000garbage"}}',
        'JSONRPCErrorResponse',
      ],
      ['POST', '/a2a/default', `{"jsonrpc":"2.0","id":1,"method":"GetTask","params":{"id":"${'x'.repeat(5000)}"}}`, 'JSONRPCErrorResponse'],
    ];
    for (const [method, path, body, schema] of requests) {
      // expectClean (no HTML, no stack trace) runs inside nodeRequest for every response.
      const response = await nodeRequest(`${hub.url}${path}`, {
        method,
        headers: { 'content-type': 'application/json', 'a2a-version': '1.0' },
        ...(body === undefined ? {} : { body }),
      });
      expect(response.status, `${method} ${path}`).toBeLessThan(500);
      // Paths below an agent's REST base are HTTP+JSON's, answered as application/a2a+json.
      expect(response.headers.get('content-type'), `${method} ${path}`).toMatch(/^application\/(a2a\+)?json/);
      if (schema === undefined) continue;
      const verdict = checkValue(A2A_1_0, schema, JSON.parse(response.text), { flavour: 'exact' });
      expect(verdict.ok ? [] : verdict.violations, `${method} ${path}`).toEqual([]);
    }
  });
});

describe('A2A-Version negotiation', () => {
  let lenient: TestHub;

  beforeAll(async () => {
    lenient = await startTestHub({ absentVersion: '1.0' });
  });

  afterAll(async () => {
    await lenient?.dispose();
  });

  const listTasks = '{"jsonrpc":"2.0","id":"v","method":"ListTasks"}';

  function expectServed(response: RawResponse): void {
    expect(response.status).toBe(200);
    const body = JSON.parse(response.text) as { id: unknown; error?: JSONRPCErrorResponse['error']; result?: unknown };
    expect(body.error).toBeUndefined();
    expect(body.id).toBe('v');
    expect(response.headers.get('a2a-version')).toBe('1.0');
  }

  /** A 0.3 error object (data an object with the reason, not a list of details), labelled 0.3. */
  function expectIn03(response: RawResponse, code: number): void {
    expect(response.status).toBe(200);
    const body = JSON.parse(response.text) as { error?: { code?: number; data?: unknown } };
    expect(body.error?.code).toBe(code);
    expect(body.error?.data).toMatchObject({ reason: expect.any(String) as unknown, domain: 'a2a-protocol.org' });
    expect(response.headers.get('a2a-version')).toBe('0.3');
  }

  function expectRefused(response: RawResponse, id: string | number | null = 'v'): void {
    expectJsonRpcError(response, 'VersionNotSupportedError', { id });
    expect(response.headers.get('a2a-version')).toBe('1.0');
  }

  it.each(['1.0', '1.0.1', '1.0.0'])('A2A-Version: %s is accepted', async (version) => {
    expectServed(await post(endpoint, listTasks, { 'content-type': 'application/json', 'A2A-Version': version }));
  });

  it.each(['0.5', '2.0', '1.1', 'abc', '1', 'v1.0', '1.0, 0.3'])('A2A-Version: %s → VersionNotSupportedError', async (version) => {
    expectRefused(await post(endpoint, listTasks, { 'content-type': 'application/json', 'A2A-Version': version }));
  });

  const getTask = '{"jsonrpc":"2.0","id":"v","method":"GetTask","params":{"id":"no-such-task"}}';

  it('an absent or empty A2A-Version is 0.3 (spec §3.6.2): a request both versions could mean is answered in 0.3', async () => {
    expectIn03(await post(endpoint, getTask, { 'content-type': 'application/json' }), -32001);
    expectIn03(await post(endpoint, getTask, { 'content-type': 'application/json', 'A2A-Version': '' }), -32001);
  });

  it('absentVersion "1.0" serves a request without A2A-Version as 1.0', async () => {
    const response = await post(lenient.endpoint, getTask, { 'content-type': 'application/json' });
    expectJsonRpcError(response, 'TaskNotFoundError', { id: 'v' });
    expect(response.headers.get('a2a-version')).toBe('1.0');
    expectServed(await post(lenient.endpoint, listTasks, { 'content-type': 'application/json' }));
  });

  it('?A2A-Version=1.0 is accepted, ?A2A-Version=0.5 refused, and ?A2A-Version=0.3 selects 0.3', async () => {
    expectServed(await post(`${endpoint}?A2A-Version=1.0`, listTasks, { 'content-type': 'application/json' }));
    expectRefused(await post(`${endpoint}?A2A-Version=0.5`, listTasks, { 'content-type': 'application/json' }));
    expectIn03(await post(`${endpoint}?A2A-Version=0.3`, getTask, { 'content-type': 'application/json' }), -32001);
  });

  it('A2A-Version: 0.3 selects 0.3: answered with a 0.3 error object and A2A-Version: 0.3', async () => {
    expectIn03(await post(endpoint, getTask, { 'content-type': 'application/json', 'A2A-Version': '0.3' }), -32001);
    expectIn03(await post(endpoint, '{', { 'content-type': 'application/json', 'A2A-Version': '0.3' }), -32700);
  });

  it('the header wins over the query parameter', async () => {
    expectServed(await post(`${endpoint}?A2A-Version=0.3`, listTasks, { 'content-type': 'application/json', 'A2A-Version': '1.0' }));
  });

  it('by default 1.0 (header or query) is still accepted', async () => {
    expectServed(await post(endpoint, listTasks, { 'content-type': 'application/json', 'A2A-Version': '1.0' }));
    expectServed(await post(`${endpoint}?A2A-Version=1.0`, listTasks, { 'content-type': 'application/json' }));
  });

  it('the header name is case-insensitive', async () => {
    for (const name of ['a2a-version', 'A2A-VERSION', 'A2a-VeRsIoN']) {
      expectServed(
        await nodeRequest(endpoint, {
          method: 'POST',
          headers: { 'Content-Type': 'application/json', [name]: '1.0' },
          body: listTasks,
        }),
      );
      expectRefused(
        await nodeRequest(endpoint, { method: 'POST', headers: { 'Content-Type': 'application/json', [name]: '2.0' }, body: listTasks }),
      );
    }
  });

  // docs/spec-policy.md 5.15 (and the comment on serveJsonRpc): the version is checked before the method and the params.
  it('the version is checked before the method and the params (policy 5.15)', async () => {
    expectRefused(
      await post(endpoint, '{"jsonrpc":"2.0","id":"v","method":"message/send","params":{}}', {
        'content-type': 'application/json',
        'A2A-Version': '0.5',
      }),
    );
    expectRefused(
      await post(endpoint, '{"jsonrpc":"2.0","id":"v","method":"GetTask","params":{"historyLength":-1}}', {
        'content-type': 'application/json',
        'A2A-Version': '2.0',
      }),
    );
  });

  it('every response carries A2A-Version: 1.0: success, errors and SSE', async () => {
    const success = await rpc(endpoint, 'ListTasks', {});
    expect(success.headers.get('a2a-version')).toBe('1.0');
    const failure = await rpc(endpoint, 'GetTask', { id: 'missing' });
    expectErrorResponse(failure, 'TaskNotFoundError');
    expect(failure.headers.get('a2a-version')).toBe('1.0');
    const refused = await post(endpoint, listTasks, { 'content-type': 'application/json', 'A2A-Version': '0.5' });
    expect(refused.headers.get('a2a-version')).toBe('1.0');
    const parseError = await post(endpoint, '{', JSON_HEADERS);
    expect(parseError.headers.get('a2a-version')).toBe('1.0');
    const unsupported = await post(endpoint, listTasks, { 'content-type': 'text/plain' });
    expect(unsupported.headers.get('a2a-version')).toBe('1.0');
    const streamed = await stream(endpoint, 'SendStreamingMessage', { message: userMessage('versioned stream') });
    expect(streamed.headers.get('content-type')).toMatch(/^text\/event-stream/);
    expect(streamed.headers.get('a2a-version')).toBe('1.0');
    expect(streamed.events.length).toBeGreaterThan(0);
  });
});
