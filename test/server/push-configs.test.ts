import { mkdtempSync, readFileSync, rmSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { LookupFunction } from 'node:net';
import { Writable } from 'node:stream';
import { pino, type Logger } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { MethodName, MethodTypes } from '../../generated/a2a/1.0/methods.js';
import type { StreamResponse, Task, TaskPushNotificationConfig } from '../../generated/a2a/1.0/types.js';
import type { HubOptions } from '../../src/hub.js';
import { WEBHOOK_SECRET_HEADER } from '../../src/protocol/push-headers.js';
// Through the public API, as a receiver written against the library would.
import { verifyWebhook } from '../../src/index.js';
import { rpc, stream, userMessage } from '../helpers/a2a-client.js';
import { controlAction, createInbound } from '../helpers/control.js';
import { expectNamedError, type ErrorName } from '../helpers/errors.js';
import { startTestHub, type TestHub } from '../helpers/hub.js';
import { expectRestErrorAnswer, restRpc, restStream } from '../helpers/rest-client.js';
import { sendTask, inputRequiredTask } from '../helpers/tasks.js';
import { until } from '../helpers/wait.js';
import { labelOf, startReceiver, TEST_PUSH, type Receiver } from '../push/delivery-helpers.js';

/**
 * The push-config methods and the inline config over real HTTP, on both bindings where the
 * case is the same on both: shapes, ids, replacement, the per-task cap, validation naming each
 * field, the destination policy at create time, tenant isolation, paging, restarts, and
 * secrets that go out once (the A2A-Hub-Webhook-Secret header) and never again.
 */

const RECEIVER = 'https://push.example.test/hook';

/** The fields of an error's BadRequest detail; none when it has no such detail. */
function fieldsOf(details: readonly unknown[] | undefined): string[] {
  const badRequest = (details ?? []).find((detail) => (detail as { '@type'?: string })['@type']?.endsWith('google.rpc.BadRequest')) as
    { fieldViolations: { field: string }[] } | undefined;
  return badRequest?.fieldViolations.map((violation) => violation.field) ?? [];
}

interface Answer<R> {
  readonly result?: R;
  readonly headers: Headers;
  /** Checks the answer is the error `name` in this binding's rendering; returns the violated fields as this binding names them. */
  expectError(name: ErrorName): string[];
}

interface Wire {
  readonly name: string;
  call<M extends MethodName>(
    url: string,
    method: M,
    params: Record<string, unknown>,
    tenant?: string,
  ): Promise<Answer<MethodTypes[M]['result']>>;
  /** Where this binding names a field given from the request message's root. */
  field(field: string): string;
}

const JSON_RPC: Wire = {
  name: 'JSON-RPC',
  async call(url, method, params, tenant) {
    const response = await rpc(url, method, tenant === undefined ? params : { ...params, tenant });
    return {
      ...(response.body.error === undefined ? { result: response.body.result } : {}),
      headers: response.headers,
      expectError(name) {
        expect(response.body.error, `expected ${name}`).toBeDefined();
        expectNamedError(response.body.error, name);
        return fieldsOf(response.body.error?.data);
      },
    };
  },
  field: (field) => `params.${field}`,
};

const HTTP_JSON: Wire = {
  name: 'HTTP+JSON',
  async call(url, method, params, tenant) {
    const response = await restRpc(url, method, params, tenant === undefined ? {} : { tenant });
    return {
      ...(response.error === undefined ? { result: response.result } : {}),
      headers: response.headers,
      expectError(name) {
        const error = expectRestErrorAnswer(response, name);
        return fieldsOf(error.details);
      },
    };
  },
  field: (field) => field,
};

const WIRES = [JSON_RPC, HTTP_JSON] as const;

let hub: TestHub;
let open: TestHub;

beforeAll(async () => {
  [hub, open] = await Promise.all([
    startTestHub({ store: 'memory', push: { maxConfigsPerTask: 3 } }),
    startTestHub({ store: 'memory', push: { destinations: { allowLoopback: true, allowedSchemes: ['http', 'https'] } } }),
  ]);
});

afterAll(async () => {
  await Promise.all([hub?.dispose(), open?.dispose()]);
});

async function completedTask(target: TestHub = hub, tenant?: string): Promise<Task> {
  return sendTask(target.endpoint, { message: userMessage('given'), ...(tenant === undefined ? {} : { tenant }) });
}

/** Every delivery queued for one config, oldest first, taken out of the outbox (nothing else reads it in these tests). */
async function drainOutbox(target: TestHub, taskId: string, configId: string): Promise<StreamResponse[]> {
  const frames: StreamResponse[] = [];
  for (;;) {
    const next = (await target.store.dueDeliveries(Date.now() + 3_600_000, 1000)).find(
      (d) => d.taskId === taskId && d.configId === configId,
    );
    if (next === undefined) return frames;
    frames.push(next.frame);
    await target.store.completeDelivery(next.id);
  }
}

describe.each(WIRES.map((wire) => [wire.name, wire] as const))('push configs over %s', (_name, wire) => {
  it('creates with a server-assigned id, returns the secret once, and reads back the same config without secrets', async () => {
    const task = await completedTask();
    const created = await wire.call(hub.endpoint, 'CreateTaskPushNotificationConfig', {
      taskId: task.id,
      url: RECEIVER,
      token: 'notification-token-1',
      authentication: { scheme: 'Bearer', credentials: 'receiver-credentials-1' },
    });
    const config = created.result as TaskPushNotificationConfig;
    expect(config.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
    expect(config).toEqual({ id: config.id, taskId: task.id, url: RECEIVER, authentication: { scheme: 'Bearer' } });
    expect(created.headers.get(WEBHOOK_SECRET_HEADER)).toMatch(/^whsec_[A-Za-z0-9+/]+=*$/);
    expect(created.headers.get('cache-control'), 'no cache keeps the one copy of the secret').toBe('no-store');

    const got = await wire.call(hub.endpoint, 'GetTaskPushNotificationConfig', { taskId: task.id, id: config.id });
    expect(got.result).toEqual(config);
    expect(got.headers.get(WEBHOOK_SECRET_HEADER), 'the secret goes out once').toBeNull();
    const listed = await wire.call(hub.endpoint, 'ListTaskPushNotificationConfigs', { taskId: task.id });
    expect(listed.result).toEqual({ configs: [config], nextPageToken: '' });
    expect(listed.headers.get(WEBHOOK_SECRET_HEADER)).toBeNull();
    for (const text of [JSON.stringify(created.result), JSON.stringify(got.result), JSON.stringify(listed.result)]) {
      expect(text).not.toContain('notification-token-1');
      expect(text).not.toContain('receiver-credentials-1');
      expect(text).not.toContain('whsec_');
    }
  });

  it('replaces a config created again under its id, and deletes permanently and idempotently', async () => {
    const task = await completedTask();
    const first = await wire.call(hub.endpoint, 'CreateTaskPushNotificationConfig', { taskId: task.id, id: 'mine', url: RECEIVER });
    expect(first.result).toEqual({ id: 'mine', taskId: task.id, url: RECEIVER });
    await wire.call(hub.endpoint, 'CreateTaskPushNotificationConfig', { taskId: task.id, id: 'mine', url: `${RECEIVER}/2` });
    const listed = await wire.call(hub.endpoint, 'ListTaskPushNotificationConfigs', { taskId: task.id });
    expect(listed.result?.configs).toEqual([{ id: 'mine', taskId: task.id, url: `${RECEIVER}/2` }]);

    const deleted = await wire.call(hub.endpoint, 'DeleteTaskPushNotificationConfig', { taskId: task.id, id: 'mine' });
    expect(deleted.result).toEqual({});
    (await wire.call(hub.endpoint, 'GetTaskPushNotificationConfig', { taskId: task.id, id: 'mine' })).expectError('TaskNotFoundError');
    const again = await wire.call(hub.endpoint, 'DeleteTaskPushNotificationConfig', { taskId: task.id, id: 'mine' });
    expect(again.result, 'deleting again succeeds').toEqual({});
    expect((await wire.call(hub.endpoint, 'ListTaskPushNotificationConfigs', { taskId: task.id })).result).toEqual({
      configs: [],
      nextPageToken: '',
    });
  });

  it('refuses one config more than push.maxConfigsPerTask, naming taskId; replacing takes no room', async () => {
    const task = await completedTask();
    for (const id of ['a', 'b', 'c'])
      expect(
        (await wire.call(hub.endpoint, 'CreateTaskPushNotificationConfig', { taskId: task.id, id, url: RECEIVER })).result,
      ).toBeDefined();
    const fourth = await wire.call(hub.endpoint, 'CreateTaskPushNotificationConfig', { taskId: task.id, id: 'd', url: RECEIVER });
    expect(fourth.expectError('InvalidParamsError')).toEqual([wire.field('taskId')]);
    const replaced = await wire.call(hub.endpoint, 'CreateTaskPushNotificationConfig', { taskId: task.id, id: 'c', url: `${RECEIVER}/c` });
    expect(replaced.result).toEqual({ id: 'c', taskId: task.id, url: `${RECEIVER}/c` });
  });

  it('pages the list with pageSize and an opaque pageToken, and refuses a token it did not give', async () => {
    const task = await completedTask();
    for (const id of ['p1', 'p2', 'p3'])
      await wire.call(hub.endpoint, 'CreateTaskPushNotificationConfig', { taskId: task.id, id, url: RECEIVER });
    const first = (await wire.call(hub.endpoint, 'ListTaskPushNotificationConfigs', { taskId: task.id, pageSize: 2 })).result;
    expect(first?.configs?.map((config) => config.id)).toEqual(['p1', 'p2']);
    expect(first?.nextPageToken).not.toBe('');
    const second = (
      await wire.call(hub.endpoint, 'ListTaskPushNotificationConfigs', { taskId: task.id, pageSize: 2, pageToken: first?.nextPageToken })
    ).result;
    expect(second).toEqual({ configs: [expect.objectContaining({ id: 'p3' })], nextPageToken: '' });

    const other = await completedTask();
    const foreign = await wire.call(hub.endpoint, 'ListTaskPushNotificationConfigs', { taskId: other.id, pageToken: first?.nextPageToken });
    expect(foreign.expectError('InvalidParamsError')).toEqual([wire.field('pageToken')]);
    const junk = await wire.call(hub.endpoint, 'ListTaskPushNotificationConfigs', { taskId: task.id, pageToken: 'not-a-token' });
    expect(junk.expectError('InvalidParamsError')).toEqual([wire.field('pageToken')]);
    for (const pageSize of [-1, 101]) {
      const bad = await wire.call(hub.endpoint, 'ListTaskPushNotificationConfigs', { taskId: task.id, pageSize });
      expect(bad.expectError('InvalidParamsError')).toEqual([wire.field('pageSize')]);
    }
  });

  it('answers TaskNotFoundError for an unknown task or config, and for another tenant’s task as for an unknown one', async () => {
    const calls: [MethodName, Record<string, unknown>][] = [
      ['CreateTaskPushNotificationConfig', { taskId: 'no-such-task', url: RECEIVER }],
      ['GetTaskPushNotificationConfig', { taskId: 'no-such-task', id: 'x' }],
      ['ListTaskPushNotificationConfigs', { taskId: 'no-such-task' }],
      ['DeleteTaskPushNotificationConfig', { taskId: 'no-such-task', id: 'x' }],
    ];
    for (const [method, params] of calls) (await wire.call(hub.endpoint, method, params)).expectError('TaskNotFoundError');
    const task = await completedTask();
    (await wire.call(hub.endpoint, 'GetTaskPushNotificationConfig', { taskId: task.id, id: 'none' })).expectError('TaskNotFoundError');

    const acme = await completedTask(hub, 'acme');
    await wire.call(hub.endpoint, 'CreateTaskPushNotificationConfig', { taskId: acme.id, id: 'acme-hook', url: RECEIVER }, 'acme');
    const unknown = await wire.call(hub.endpoint, 'GetTaskPushNotificationConfig', { taskId: 'no-such-task', id: 'acme-hook' }, 'globex');
    unknown.expectError('TaskNotFoundError');
    for (const [method, params] of [
      ['CreateTaskPushNotificationConfig', { taskId: acme.id, url: RECEIVER }],
      ['GetTaskPushNotificationConfig', { taskId: acme.id, id: 'acme-hook' }],
      ['ListTaskPushNotificationConfigs', { taskId: acme.id }],
      ['DeleteTaskPushNotificationConfig', { taskId: acme.id, id: 'acme-hook' }],
    ] as const) {
      (await wire.call(hub.endpoint, method, params, 'globex')).expectError('TaskNotFoundError');
      (await wire.call(hub.endpoint, method, params)).expectError('TaskNotFoundError');
    }
    const kept = await wire.call(hub.endpoint, 'GetTaskPushNotificationConfig', { taskId: acme.id, id: 'acme-hook' }, 'acme');
    expect(kept.result, 'another tenant’s delete did nothing').toMatchObject({ id: 'acme-hook' });
  });

  const INVALID: readonly [string, Record<string, unknown>, string][] = [
    ['a URL that is not absolute', { url: '/hook' }, 'url'],
    ['a URL of another scheme', { url: 'ftp://push.example.test/hook' }, 'url'],
    ['plain http under the default policy', { url: 'http://push.example.test/hook' }, 'url'],
    ['credentials in the URL', { url: 'https://user:pw@push.example.test/hook' }, 'url'],
    ['a loopback address', { url: 'https://127.0.0.1:8443/hook' }, 'url'],
    ['localhost', { url: 'https://localhost/hook' }, 'url'],
    ['a private address', { url: 'https://10.1.2.3/hook' }, 'url'],
    ['a scheme that is no token', { url: RECEIVER, authentication: { scheme: 'Bear er', credentials: 'x' } }, 'authentication.scheme'],
    [
      'CR LF in the credentials',
      { url: RECEIVER, authentication: { scheme: 'Bearer', credentials: 'x\r\nInjected: yes' } },
      'authentication.credentials',
    ],
    ['LF in the token', { url: RECEIVER, token: 'abc\ndef' }, 'token'],
    ['an id with a slash', { url: RECEIVER, id: 'a/b' }, 'id'],
    ['an absurdly long id', { url: RECEIVER, id: 'x'.repeat(500) }, 'id'],
    ['a URL over 2048 characters', { url: `${RECEIVER}?${'q'.repeat(2048)}` }, 'url'],
    ['a token over 4096 characters', { url: RECEIVER, token: 't'.repeat(4097) }, 'token'],
    ['a scheme over 4096 characters', { url: RECEIVER, authentication: { scheme: 'B'.repeat(4097) } }, 'authentication.scheme'],
    [
      'credentials over 4096 characters',
      { url: RECEIVER, authentication: { scheme: 'Bearer', credentials: 'c'.repeat(4097) } },
      'authentication.credentials',
    ],
  ];

  it.each(INVALID)('refuses %s with InvalidParams naming the field', async (_what, config, field) => {
    const task = await completedTask();
    const answer = await wire.call(hub.endpoint, 'CreateTaskPushNotificationConfig', { taskId: task.id, ...config });
    expect(answer.expectError('InvalidParamsError')).toEqual([wire.field(field)]);
    const listed = await wire.call(hub.endpoint, 'ListTaskPushNotificationConfigs', { taskId: task.id });
    expect(listed.result?.configs, 'nothing was stored').toEqual([]);
  });

  it('takes loopback and plain http when push.destinations allows them', async () => {
    const task = await completedTask(open);
    for (const url of ['http://127.0.0.1:9/hook', 'http://localhost:9/hook', 'https://[::1]:9/hook']) {
      const answer = await wire.call(open.endpoint, 'CreateTaskPushNotificationConfig', { taskId: task.id, url });
      expect(answer.result, url).toMatchObject({ url });
    }
    const privateAddress = await wire.call(open.endpoint, 'CreateTaskPushNotificationConfig', {
      taskId: task.id,
      url: 'http://192.168.1.1/hook',
    });
    expect(privateAddress.expectError('InvalidParamsError'), 'allowLoopback does not allow private ranges').toEqual([wire.field('url')]);
  });
});

describe('hostnames resolved at create time', () => {
  /** A resolver for names under example.test only; anything else does not exist. */
  const ANSWERS: Record<string, readonly string[]> = {
    'loopback.example.test': ['127.0.0.1'],
    'mixed.example.test': ['93.184.215.14', '10.0.0.5'],
    'public.example.test': ['93.184.215.14', '2606:2800:21f:cb07:6820:80da:af6b:8b2c'],
  };
  const lookup: LookupFunction = (hostname, _options, callback) => {
    const addresses = ANSWERS[hostname];
    if (addresses === undefined) {
      callback(Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' }), [], 4);
      return;
    }
    callback(
      null,
      addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 })),
      4,
    );
  };
  let resolving: TestHub;
  beforeAll(async () => {
    resolving = await startTestHub({ store: 'memory', lookup });
  });
  afterAll(async () => {
    await resolving?.dispose();
  });

  it.each(WIRES.map((wire) => [wire.name, wire] as const))(
    'over %s refuses a name with any refused address, naming url, and takes public or unresolvable ones',
    async (_name, wire) => {
      const task = await completedTask(resolving);
      for (const host of ['loopback.example.test', 'mixed.example.test']) {
        const answer = await wire.call(resolving.endpoint, 'CreateTaskPushNotificationConfig', {
          taskId: task.id,
          url: `https://${host}/hook`,
        });
        expect(answer.expectError('InvalidParamsError'), host).toEqual([wire.field('url')]);
      }
      for (const host of ['public.example.test', 'gone.example.test']) {
        const answer = await wire.call(resolving.endpoint, 'CreateTaskPushNotificationConfig', {
          taskId: task.id,
          url: `https://${host}/hook`,
        });
        expect(answer.result?.url, host).toBe(`https://${host}/hook`);
      }
      const listed = await wire.call(resolving.endpoint, 'ListTaskPushNotificationConfigs', { taskId: task.id });
      expect(listed.result?.configs?.map((config) => new URL(config.url).hostname)).toEqual(['public.example.test', 'gone.example.test']);
    },
  );

  it('refuses an inline config whose name resolves to a private address, and creates no task', async () => {
    const before = (await resolving.store.listTasks('default', { pageSize: 1 })).totalSize;
    const response = await rpc(resolving.endpoint, 'SendMessage', {
      message: userMessage('hello'),
      configuration: { taskPushNotificationConfig: { url: 'https://mixed.example.test/hook' } },
    });
    expectNamedError(response.body.error, 'InvalidParamsError');
    expect(fieldsOf(response.body.error?.data)).toEqual(['params.configuration.taskPushNotificationConfig.url']);
    expect(response.body.error?.message).toContain('resolves to an address in 10.0.0.0/8 private');
    expect(JSON.stringify(response.body.error), 'how the hub resolves names stays its own').not.toContain('10.0.0.5');
    expect((await resolving.store.listTasks('default', { pageSize: 1 })).totalSize).toBe(before);
  });
});

describe('binding-specific rules', () => {
  it('JSON-RPC requires taskId in the params', async () => {
    const answer = await JSON_RPC.call(hub.endpoint, 'CreateTaskPushNotificationConfig', { url: RECEIVER });
    expect(answer.expectError('InvalidParamsError')).toEqual(['params.taskId']);
  });

  it('HTTP+JSON refuses a body whose taskId disagrees with the path', async () => {
    const [task, other] = await Promise.all([completedTask(), completedTask()]);
    const response = await fetch(`${hub.endpoint}/tasks/${task.id}/pushNotificationConfigs`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'a2a-version': '1.0' },
      body: JSON.stringify({ taskId: other.id, url: RECEIVER }),
    });
    expect(response.status).toBe(400);
    const body = (await response.json()) as { error: { details: unknown[] } };
    expect(fieldsOf(body.error.details)).toEqual(['taskId']);
  });
});

describe('the inline config of SendMessage and SendStreamingMessage', () => {
  const inline = (extra: Record<string, unknown> = {}) => ({
    configuration: { taskPushNotificationConfig: { url: RECEIVER, token: 'inline-token', ...extra } },
  });

  it('registers it with the new task, queues the Task as created first and then every event, and sends the secret once', async () => {
    const response = await rpc(hub.endpoint, 'SendMessage', { message: userMessage('hello'), ...inline({ id: 'inline' }) });
    const task = response.body.result?.task as Task;
    expect(task.status.state).toBe('TASK_STATE_COMPLETED');
    expect(response.headers.get(WEBHOOK_SECRET_HEADER)).toMatch(/^whsec_/);
    expect(response.headers.get('cache-control')).toBe('no-store');
    const config = await JSON_RPC.call(hub.endpoint, 'GetTaskPushNotificationConfig', { taskId: task.id, id: 'inline' });
    expect(config.result).toEqual({ id: 'inline', taskId: task.id, url: RECEIVER });
    const frames = await drainOutbox(hub, task.id, 'inline');
    expect(frames[0]?.task?.status.state, 'the first delivery is the task as created').toBe('TASK_STATE_SUBMITTED');
    expect(frames[0]?.task?.id).toBe(task.id);
    const rest = frames.slice(1);
    expect(rest.length).toBeGreaterThan(0);
    expect(rest.every((frame) => frame.statusUpdate !== undefined || frame.artifactUpdate !== undefined)).toBe(true);
    expect(rest.at(-1)?.statusUpdate?.status.state).toBe('TASK_STATE_COMPLETED');
  });

  it.each(WIRES.map((wire) => [wire.name, wire] as const))('sends the secret on a stream over %s', async (name) => {
    const params = { message: userMessage('hi'), ...inline() };
    const headers =
      name === 'JSON-RPC'
        ? (await stream(hub.endpoint, 'SendStreamingMessage', params)).headers
        : (await restStream(hub.endpoint, 'SendStreamingMessage', params)).headers;
    expect(headers.get(WEBHOOK_SECRET_HEADER)).toMatch(/^whsec_/);
    expect(headers.get('cache-control')).toBe('no-store, no-transform');
  });

  it('registers it on the task a message continues, starting from that task', async () => {
    const task = await inputRequiredTask(hub.endpoint);
    const answer = await rpc(hub.endpoint, 'SendMessage', {
      message: userMessage('more', { taskId: task.id }),
      ...inline({ id: 'later' }),
    });
    expect(answer.body.result?.task?.status.state).toBe('TASK_STATE_COMPLETED');
    expect(answer.headers.get(WEBHOOK_SECRET_HEADER)).toMatch(/^whsec_/);
    const frames = await drainOutbox(hub, task.id, 'later');
    expect(frames[0]?.task?.status.state).toBe('TASK_STATE_INPUT_REQUIRED');
    expect(frames.at(-1)?.statusUpdate?.status.state).toBe('TASK_STATE_COMPLETED');
  });

  it.each(WIRES.map((wire) => [wire.name, wire] as const))(
    'fails the send over %s on a bad config, and creates no task',
    async (_name, wire) => {
      const before = await hub.store.countByState();
      const answer = await wire.call(hub.endpoint, 'SendMessage', {
        message: userMessage('hello'),
        ...inline({ url: 'https://127.0.0.1/hook' }),
      });
      expect(answer.expectError('InvalidParamsError')).toEqual([wire.field('configuration.taskPushNotificationConfig.url')]);
      expect(await hub.store.countByState()).toEqual(before);
    },
  );

  it('refuses a continued task that has no room, and an inline taskId of another task, before anything is written', async () => {
    const task = await inputRequiredTask(hub.endpoint);
    for (const id of ['x1', 'x2', 'x3'])
      await JSON_RPC.call(hub.endpoint, 'CreateTaskPushNotificationConfig', { taskId: task.id, id, url: RECEIVER });
    const full = await JSON_RPC.call(hub.endpoint, 'SendMessage', {
      message: userMessage('more', { taskId: task.id }),
      ...inline({ id: 'x4' }),
    });
    expect(full.expectError('InvalidParamsError')).toEqual(['params.message.taskId']);
    const other = await JSON_RPC.call(hub.endpoint, 'SendMessage', {
      message: userMessage('more', { taskId: task.id }),
      ...inline({ taskId: 'another-task' }),
    });
    expect(other.expectError('InvalidParamsError')).toEqual(['params.configuration.taskPushNotificationConfig.taskId']);
    const after = await JSON_RPC.call(hub.endpoint, 'GetTask', { id: task.id });
    expect(after.result?.status.state, 'the refused messages did not continue the task').toBe('TASK_STATE_INPUT_REQUIRED');
    expect(after.result?.history?.length).toBe(task.history?.length);
  });

  it('registers nothing and sends no secret when the agent answers with a direct Message', async () => {
    const response = await rpc(hub.endpoint, 'SendMessage', { message: userMessage('hi\n::message'), ...inline() });
    expect(response.body.result?.message).toBeDefined();
    expect(response.headers.get(WEBHOOK_SECRET_HEADER)).toBeNull();
  });
});

describe('an instance that turns push off', () => {
  let path: string;
  beforeAll(async () => {
    const created = await hub.inbounds.create({
      name: 'quiet',
      description: 'no push',
      version: '1.0.0',
      preset: 'echo',
      pushNotifications: false,
    });
    path = `${hub.url}${created.endpointPath}`;
  });

  it('declares it on its card, and the default instance declares push', async () => {
    const card = (await (await fetch(`${path}/agent-card.json`)).json()) as { capabilities: Record<string, unknown> };
    expect(card.capabilities.pushNotifications).toBe(false);
    const defaultCard = (await (await fetch(`${hub.endpoint}/agent-card.json`)).json()) as { capabilities: Record<string, unknown> };
    expect(defaultCard.capabilities.pushNotifications).toBe(true);
  });

  it.each(WIRES.map((wire) => [wire.name, wire] as const))(
    'answers PushNotificationNotSupportedError over %s to the four methods and an inline config',
    async (_name, wire) => {
      const task = await completedTask({ ...hub, endpoint: path });
      for (const [method, params] of [
        ['CreateTaskPushNotificationConfig', { taskId: task.id, url: RECEIVER }],
        ['GetTaskPushNotificationConfig', { taskId: task.id, id: 'x' }],
        ['ListTaskPushNotificationConfigs', { taskId: task.id }],
        ['DeleteTaskPushNotificationConfig', { taskId: task.id, id: 'x' }],
        // Digest ambiguity 19: an inline config while push is off fails the send rather than being ignored.
        ['SendMessage', { message: userMessage('hi'), configuration: { taskPushNotificationConfig: { url: RECEIVER } } }],
      ] as const)
        (await wire.call(path, method, params)).expectError('PushNotificationNotSupportedError');
    },
  );

  it('serves push again once turned back on', async () => {
    const id = hub.inbounds.list().find((config) => config.name === 'quiet')?.id ?? '';
    await hub.inbounds.update(id, { pushNotifications: true });
    const task = await completedTask({ ...hub, endpoint: path });
    const answer = await JSON_RPC.call(path, 'CreateTaskPushNotificationConfig', { taskId: task.id, url: RECEIVER });
    expect(answer.result).toMatchObject({ taskId: task.id });
  });
});

describe('registrations reach the receiver', () => {
  let delivering: TestHub;
  let receiver: Receiver;
  beforeAll(async () => {
    [delivering, receiver] = await Promise.all([startTestHub({ store: 'memory', push: TEST_PUSH }), startReceiver()]);
  });
  afterAll(async () => {
    await Promise.all([delivering?.dispose(), receiver?.close()]);
  });

  it('an inline config gets the task as created, then every event, signed with the secret its send returned', async () => {
    const response = await rpc(delivering.endpoint, 'SendMessage', {
      message: userMessage('hello'),
      configuration: {
        taskPushNotificationConfig: {
          url: `${receiver.url}/inline`,
          token: 'tok-1',
          authentication: { scheme: 'Bearer', credentials: 'cred-1' },
        },
      },
    });
    const secret = response.headers.get(WEBHOOK_SECRET_HEADER) ?? '';
    const mine = () => receiver.delivered().filter((webhook) => webhook.path.endsWith('/inline'));
    await until(() => mine().at(-1)?.frame.statusUpdate?.status.state === 'TASK_STATE_COMPLETED', 'the final status delivered');
    const labels = mine().map((webhook) => labelOf(webhook.frame));
    expect(labels[0]).toBe('task:submitted');
    expect(labels.at(-1)).toBe('status:completed');
    for (const webhook of mine()) {
      expect(webhook.headers['authorization']).toBe('Bearer cred-1');
      expect(webhook.headers['a2a-notification-token']).toBe('tok-1');
      expect(verifyWebhook({ secret, body: webhook.body, headers: webhook.headers }).ok).toBe(true);
    }
  });

  it('a created config gets the task as it is now', async () => {
    const task = await completedTask(delivering);
    await JSON_RPC.call(delivering.endpoint, 'CreateTaskPushNotificationConfig', { taskId: task.id, url: `${receiver.url}/created` });
    await until(() => receiver.delivered().some((webhook) => webhook.path.endsWith('/created')), 'the snapshot delivered');
    const first = receiver.delivered().find((webhook) => webhook.path.endsWith('/created'));
    expect(first?.frame.task?.id).toBe(task.id);
    expect(first?.frame.task?.status.state).toBe('TASK_STATE_COMPLETED');
  });
});

describe('pushNotifications through the control API', () => {
  it('inbound.create with pushNotifications false turns push off on the card, inbound.update turns it on again', async () => {
    const cardOf = async (id: string) => {
      const row = hub.inbounds.get(id);
      const card = (await (await fetch(`${hub.url}${row?.endpointPath ?? ''}/agent-card.json`)).json()) as {
        capabilities: Record<string, unknown>;
      };
      return card.capabilities.pushNotifications;
    };
    const id = await createInbound(hub.url, 'controlled', { preset: 'echo', pushNotifications: false });
    expect(await cardOf(id)).toBe(false);
    await controlAction(hub.url, { action: 'inbound.update', id, pushNotifications: true });
    expect(await cardOf(id)).toBe(true);
  });
});

describe('durability and secrets', () => {
  const KEY = 'ab'.repeat(32);
  const TOKEN = 'durable-token-7f3a';
  const CREDENTIALS = 'durable-credentials-91c2';

  /** A logger that keeps every line, at the most verbose level. */
  function capturedLog(): { logger: Logger; text: () => string } {
    const chunks: string[] = [];
    const sink = new Writable({
      write(chunk: Buffer, _encoding, done) {
        chunks.push(chunk.toString('utf8'));
        done();
      },
    });
    return { logger: pino({ level: 'trace' }, sink), text: () => chunks.join('') };
  }

  async function withHub<T>(options: HubOptions, work: (target: TestHub) => Promise<T>): Promise<T> {
    const target = await startTestHub(options);
    try {
      return await work(target);
    } finally {
      await target.dispose();
    }
  }

  function dbBytes(dataDir: string): string {
    return ['a2a-hub.sqlite', 'a2a-hub.sqlite-wal']
      .map((name) => join(dataDir, name))
      .filter((file) => existsSync(file))
      .map((file) => readFileSync(file).toString('latin1'))
      .join('');
  }

  it('keeps configs across a restart on the same data dir, encrypted at rest with a key, and never logs a secret', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'a2a-hub-push-'));
    const env = { PUSH_KEY: KEY };
    const push = { secretKeyEnv: 'PUSH_KEY' };
    const log = capturedLog();
    try {
      const { task, secret } = await withHub({ dataDir, env, push, logger: log.logger }, async (first) => {
        const given = await completedTask(first);
        const created = await JSON_RPC.call(first.endpoint, 'CreateTaskPushNotificationConfig', {
          taskId: given.id,
          id: 'kept',
          url: RECEIVER,
          token: TOKEN,
          authentication: { scheme: 'Basic', credentials: CREDENTIALS },
        });
        // A refused one goes through the error path, which must not log the secrets either.
        await JSON_RPC.call(first.endpoint, 'CreateTaskPushNotificationConfig', {
          taskId: given.id,
          url: 'https://127.0.0.1/x',
          token: TOKEN,
          authentication: { scheme: 'Basic', credentials: CREDENTIALS },
        });
        // Something the hub does log, so that the sink is shown to capture.
        await first.inbounds.create({
          name: 'logged',
          description: 'warns',
          version: '1',
          preset: 'echo',
          authTokenEnv: 'A2A_HUB_UNSET_TOKEN',
        });
        return { task: given, secret: created.headers.get(WEBHOOK_SECRET_HEADER) ?? 'no secret' };
      });
      const bytes = dbBytes(dataDir);
      expect(bytes).toContain('kept');
      for (const value of [TOKEN, CREDENTIALS, secret]) expect(bytes, 'sealed at rest').not.toContain(value);

      await withHub({ dataDir, env, push, logger: log.logger }, async (second) => {
        const got = await JSON_RPC.call(second.endpoint, 'GetTaskPushNotificationConfig', { taskId: task.id, id: 'kept' });
        expect(got.result).toEqual({ id: 'kept', taskId: task.id, url: RECEIVER, authentication: { scheme: 'Basic' } });
        const record = await second.store.getPushConfig(task.id, 'kept');
        expect(record?.secrets).toMatch(/^aes256gcm:/);
      });
      expect(log.text()).toContain('A2A_HUB_UNSET_TOKEN');
      for (const value of [TOKEN, CREDENTIALS, secret]) expect(log.text()).not.toContain(value);
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  it('refuses to start with a key variable that is unset or holds no key, naming it', async () => {
    await expect(startTestHub({ store: 'memory', env: {}, push: { secretKeyEnv: 'PUSH_KEY' } })).rejects.toThrow(/PUSH_KEY.*not set/);
    await expect(startTestHub({ store: 'memory', env: { PUSH_KEY: 'short' }, push: { secretKeyEnv: 'PUSH_KEY' } })).rejects.toThrow(
      /PUSH_KEY.*32 bytes/,
    );
  });
});
