import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { MethodName, MethodTypes } from '../../generated/a2a/1.0/methods.js';
import type { AgentCard, StreamResponse, Task } from '../../generated/a2a/1.0/types.js';
import { validateAgentCard } from '../../generated/a2a/1.0/validators.js';
import { PresetRegistry, type AgentExecutor } from '../../src/index.js';
import { userMessage } from '../helpers/a2a-client.js';
import { BINDING_DRIVERS, type BindingAnswer, type BindingDriver, type WireError } from '../helpers/bindings.js';
import { createInbound, inboundRow } from '../helpers/control.js';
import type { ErrorName } from '../helpers/errors.js';
import { startTestHub, type TestHub } from '../helpers/hub.js';
import { send } from '../helpers/raw-http.js';

/**
 * Tenants over the wire, every case over both bindings through the shared drivers
 * (test/helpers/bindings.ts): JSON-RPC carries the tenant in `params.tenant`, HTTP+JSON in the
 * `/{tenant}/` route prefix, and a violated field is written here once, from the request
 * message's root, and placed by the driver.
 */

type Params<M extends MethodName> = Omit<MethodTypes[M]['params'], 'tenant'> | Record<string, unknown>;

/** A driver's answer, its result typed by the method called. */
type Answer<M extends MethodName> = BindingAnswer & { readonly result?: MethodTypes[M]['result'] };

/** A driver bound to an interface URL, called per tenant (undefined: the request names none). */
interface TenantBinding {
  call<M extends MethodName>(
    tenant: string | undefined,
    method: M,
    params: Params<M>,
    headers?: Record<string, string>,
  ): Promise<Answer<M>>;
  stream(
    tenant: string | undefined,
    method: 'SendStreamingMessage' | 'SubscribeToTask',
    params: Record<string, unknown>,
    headers?: Record<string, string>,
  ): Promise<StreamResponse[]>;
  /** Where the binding names the root-relative field `field`. */
  field(field: string): string;
}

function bind(driver: BindingDriver, url: () => string): TenantBinding {
  return {
    call: async <M extends MethodName>(tenant: string | undefined, method: M, params: Params<M>, headers: Record<string, string> = {}) =>
      (await driver.call({ url: url(), method, params, headers, tenant })) as Answer<M>,
    stream: (tenant, method, params, headers = {}) => driver.stream({ url: url(), method, params, headers, tenant }),
    field: driver.wireField,
  };
}

function expectError(answer: BindingAnswer, name: ErrorName): WireError {
  return answer.expectError(name);
}

function resultOf<M extends MethodName>(answer: Answer<M>): MethodTypes[M]['result'] {
  expect(answer.error, 'expected a result').toBeUndefined();
  return answer.result as MethodTypes[M]['result'];
}

async function taskUnder(
  binding: TenantBinding,
  tenant: string | undefined,
  text: string,
  extra: Record<string, unknown> = {},
): Promise<Task> {
  const result = resultOf(await binding.call(tenant, 'SendMessage', { message: userMessage(text, extra) }));
  expect(result.task).toBeDefined();
  return result.task as Task;
}

/** The error an id that never existed gets, with the id replaced by `asId`: what a hidden task must get too. */
async function neverExisted(
  binding: TenantBinding,
  tenant: string | undefined,
  method: 'GetTask' | 'CancelTask' | 'SubscribeToTask',
  asId: string,
): Promise<WireError> {
  const unknown = `never-${randomUUID()}`;
  const error = expectError(await binding.call(tenant, method, { id: unknown }), 'TaskNotFoundError');
  return JSON.parse(JSON.stringify(error).replaceAll(unknown, asId)) as WireError;
}

/** Answers with the ids of the tasks its message references, as the executor was handed them. */
const references: AgentExecutor = {
  execute(request, events) {
    events.complete(JSON.stringify(request.referenceTasks.map((task) => task.id)));
    return Promise.resolve();
  },
};

/** An instance's interface URLs, as its snapshot row gives them. */
interface Urls {
  readonly cardUrl: string;
  readonly jsonRpcUrl: string;
  readonly restUrl: string;
}

let hub: TestHub;
let defaultUrls: Urls;
let referencesUrls: Urls;
beforeAll(async () => {
  const presets = new PresetRegistry();
  presets.register({
    id: 'references',
    name: 'References',
    description: 'Names the tasks it was handed.',
    executor: references,
    skills: [{ id: 'chat', name: 'chat', description: 'Names referenced tasks.', tags: ['test'] }],
    inputModes: ['text/plain'],
    outputModes: ['text/plain'],
    extensions: [],
  });
  hub = await startTestHub({ presets });
  defaultUrls = (await inboundRow(hub.url, 'default')) as Urls;
  referencesUrls = (await inboundRow(hub.url, await createInbound(hub.url, 'references', { preset: 'references' }))) as Urls;
});
afterAll(async () => {
  await hub.dispose();
});

describe.each(BINDING_DRIVERS)('tenants over $name', (driver) => {
  const binding = bind(driver, () => driver.urlOf(defaultUrls));

  it("a task of tenant a is found under a, and under b, no tenant and '' is an id that never existed", async () => {
    const task = await taskUnder(binding, 'tenant-a', 'hello\n::input-required');
    expect(resultOf(await binding.call('tenant-a', 'GetTask', { id: task.id })).id).toBe(task.id);
    for (const other of ['tenant-b', undefined, '']) {
      for (const method of ['GetTask', 'CancelTask', 'SubscribeToTask'] as const) {
        const error = expectError(await binding.call(other, method, { id: task.id }), 'TaskNotFoundError');
        expect(error, `${method} under ${String(other)}`).toEqual(await neverExisted(binding, other, method, task.id));
      }
    }
    // Nothing above touched it: still waiting for input under its own tenant.
    expect(resultOf(await binding.call('tenant-a', 'GetTask', { id: task.id })).status.state).toBe('TASK_STATE_INPUT_REQUIRED');
  });

  it('no tenant and the empty tenant are one: a task made under either is found under the other, and under no tenant name', async () => {
    const none = await taskUnder(binding, undefined, 'hello');
    const empty = await taskUnder(binding, '', 'hello');
    expect(resultOf(await binding.call('', 'GetTask', { id: none.id })).id).toBe(none.id);
    expect(resultOf(await binding.call(undefined, 'GetTask', { id: empty.id })).id).toBe(empty.id);
    expectError(await binding.call('tenant-a', 'GetTask', { id: none.id }), 'TaskNotFoundError');
  });

  it('continues a task by taskId only under its own tenant', async () => {
    const task = await taskUnder(binding, 'tenant-a', 'hello\n::input-required');
    const elsewhere = await binding.call('tenant-b', 'SendMessage', { message: userMessage('answer', { taskId: task.id }) });
    expectError(elsewhere, 'TaskNotFoundError');
    expectError(await binding.call(undefined, 'SendMessage', { message: userMessage('answer', { taskId: task.id }) }), 'TaskNotFoundError');
    const continued = resultOf(await binding.call('tenant-a', 'SendMessage', { message: userMessage('answer', { taskId: task.id }) }));
    expect(continued.task?.id).toBe(task.id);
    expect(continued.task?.status.state).toBe('TASK_STATE_COMPLETED');
  });

  it('cancels a task only under its own tenant', async () => {
    const task = await taskUnder(binding, 'tenant-a', 'hello\n::input-required');
    expectError(await binding.call('tenant-b', 'CancelTask', { id: task.id }), 'TaskNotFoundError');
    expect(resultOf(await binding.call('tenant-a', 'CancelTask', { id: task.id })).status.state).toBe('TASK_STATE_CANCELED');
  });

  it('lists only the tasks of the tenant asked about; a page token is good for that tenant only', async () => {
    const contextId = `ctx-${randomUUID()}`;
    const a1 = await taskUnder(binding, 'tenant-a', 'one', { contextId });
    const a2 = await taskUnder(binding, 'tenant-a', 'two', { contextId });
    const b1 = await taskUnder(binding, 'tenant-b', 'three', { contextId });
    const inA = resultOf(await binding.call('tenant-a', 'ListTasks', { contextId }));
    expect(inA.tasks.map((task) => task.id).sort()).toEqual([a1.id, a2.id].sort());
    expect(inA.totalSize).toBe(2);
    expect(resultOf(await binding.call('tenant-b', 'ListTasks', { contextId })).tasks.map((task) => task.id)).toEqual([b1.id]);
    expect(resultOf(await binding.call(undefined, 'ListTasks', { contextId })).totalSize).toBe(0);
    const first = resultOf(await binding.call('tenant-a', 'ListTasks', { contextId, pageSize: 1 }));
    expect(first.nextPageToken).not.toBe('');
    const next = resultOf(await binding.call('tenant-a', 'ListTasks', { contextId, pageSize: 1, pageToken: first.nextPageToken }));
    expect([...first.tasks, ...next.tasks].map((task) => task.id).sort()).toEqual([a1.id, a2.id].sort());
    const replayed = expectError(
      await binding.call('tenant-b', 'ListTasks', { contextId, pageSize: 1, pageToken: first.nextPageToken }),
      'InvalidParamsError',
    );
    expect(replayed.violations.map((violation) => violation.field)).toEqual([binding.field('pageToken')]);
  });

  it('a contextId reused under another tenant is another conversation, and joins none of the first', async () => {
    const contextId = `ctx-${randomUUID()}`;
    const inA = await taskUnder(binding, 'tenant-a', 'hello', { contextId });
    const inB = await taskUnder(binding, 'tenant-b', 'hello', { contextId });
    expect(inB.contextId).toBe(contextId);
    expect(inA.contextId).toBe(contextId);
    expect(resultOf(await binding.call('tenant-b', 'ListTasks', { contextId })).tasks.map((task) => task.id)).toEqual([inB.id]);
    const [sessionA, sessionB] = ['tenant-a', 'tenant-b'].map((tenant) => hub.sessions.get('default', contextId, tenant));
    expect(sessionA?.tenant).toBe('tenant-a');
    expect(sessionB?.tenant).toBe('tenant-b');
    expect(hub.sessions.get('default', contextId)).toBeUndefined();
    expect((await hub.store.getContext('default', contextId, 'tenant-a'))?.contextId).toBe(contextId);
    expect(await hub.store.getContext('default', contextId)).toBeUndefined();
  });

  it('answers a resent message under its tenant with the first task; the same messageId under another tenant is a new message', async () => {
    const message = userMessage('hello');
    const first = resultOf(await binding.call('tenant-a', 'SendMessage', { message })).task;
    const resent = resultOf(await binding.call('tenant-a', 'SendMessage', { message })).task;
    const other = resultOf(await binding.call('tenant-b', 'SendMessage', { message })).task;
    const none = resultOf(await binding.call(undefined, 'SendMessage', { message })).task;
    expect(resent?.id).toBe(first?.id);
    expect(new Set([first?.id, other?.id, none?.id]).size).toBe(3);
  });
});

describe.each(BINDING_DRIVERS)('referenceTaskIds over $name', (driver) => {
  it("hand the executor the referenced tasks of the message's own tenant only; another tenant's read as unknown", async () => {
    const binding = bind(driver, () => driver.urlOf(referencesUrls));
    const inA = await taskUnder(binding, 'tenant-a', 'first');
    const alsoInA = await taskUnder(binding, 'tenant-a', 'second');
    const inB = await taskUnder(binding, 'tenant-b', 'third');
    const referencing = (tenant: string | undefined) =>
      taskUnder(binding, tenant, 'which?', { referenceTaskIds: [inB.id, inA.id, 'never-existed', alsoInA.id] });
    const seen = async (tenant: string | undefined) =>
      JSON.parse((await referencing(tenant)).status.message?.parts[0]?.text ?? '') as unknown;
    expect(await seen('tenant-a')).toEqual([inA.id, alsoInA.id]);
    expect(await seen('tenant-b')).toEqual([inB.id]);
    expect(await seen(undefined)).toEqual([]);
  });
});

describe.each(BINDING_DRIVERS)('an instance configured with the tenants it serves, over $name', (driver) => {
  const served = ['acme', 'globex'];
  let urls: Urls;
  const binding = bind(driver, () => driver.urlOf(urls));

  beforeAll(async () => {
    urls = (await inboundRow(hub.url, await createInbound(hub.url, `served ${driver.name}`, { tenants: served }))) as Urls;
  });

  it('refuses any other tenant, and a request under none, with InvalidParams naming the tenant and the tenants it serves', async () => {
    for (const tenant of ['initech', undefined, '']) {
      for (const [method, params] of [
        ['ListTasks', {}],
        ['GetTask', { id: 'any' }],
        ['SendMessage', { message: userMessage('hello') }],
      ] as const) {
        const error = expectError(await binding.call(tenant, method, params), 'InvalidParamsError');
        expect(error.violations, `${method} under ${String(tenant)}`).toEqual([
          { field: binding.field('tenant'), description: 'must be one of "acme", "globex"', reason: 'INVALID_VALUE' },
        ]);
        expect(error.message).toContain('"acme", "globex"');
      }
    }
  });

  it('lists each binding once per tenant it serves, with the tenant set; each such interface is served', async () => {
    const answer = await send(urls.cardUrl);
    const card = JSON.parse(answer.text) as AgentCard;
    expect(validateAgentCard(card) ? [] : validateAgentCard.errors, 'AgentCard').toEqual([]);
    const entries = card.supportedInterfaces.map((entry) => [entry.protocolBinding, entry.tenant]);
    expect(entries).toEqual(
      served.flatMap((tenant) => [
        ['JSONRPC', tenant],
        ['HTTP+JSON', tenant],
      ]),
    );
    for (const entry of card.supportedInterfaces.filter((candidate) => candidate.url === driver.urlOf(urls))) {
      const ofCard = bind(driver, () => entry.url);
      expect(resultOf(await ofCard.call(entry.tenant, 'ListTasks', {})).tasks, `${entry.protocolBinding} ${String(entry.tenant)}`).toEqual(
        [],
      );
    }
  });

  it('serves the tenants it names', async () => {
    const task = await taskUnder(binding, 'acme', 'hello');
    expect(resultOf(await binding.call('acme', 'GetTask', { id: task.id })).id).toBe(task.id);
    expectError(await binding.call('globex', 'GetTask', { id: task.id }), 'TaskNotFoundError');
  });
});

describe.each(BINDING_DRIVERS)('tenants of streams over $name', (driver) => {
  const binding = bind(driver, () => driver.urlOf(defaultUrls));

  it('resumes a stream (Last-Event-ID) only under the tenant of its task', async () => {
    const started = await binding.stream('tenant-a', 'SendStreamingMessage', { message: userMessage('hello\n::input-required') });
    const taskId = started[0]?.task?.id ?? '';
    expect(taskId).not.toBe('');
    const resume = { 'last-event-id': '1' };
    expectError(await binding.call('tenant-b', 'SubscribeToTask', { id: taskId }, resume), 'TaskNotFoundError');
    const resumed = await binding.stream('tenant-a', 'SubscribeToTask', { id: taskId }, resume);
    expect(resumed[0]?.task?.id).toBe(taskId);
  });
});

describe.each(BINDING_DRIVERS)('a restart, over $name', (driver) => {
  it('keeps each task under its tenant', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'a2a-hub-tenants-'));
    try {
      const first = await startTestHub({ dataDir });
      const task = await taskUnder(
        bind(driver, () => first.endpoint),
        'tenant-a',
        'hello\n::input-required',
      );
      await first.close();
      const second = await startTestHub({ dataDir });
      try {
        const binding = bind(driver, () => second.endpoint);
        expect(resultOf(await binding.call('tenant-a', 'GetTask', { id: task.id })).status.state).toBe('TASK_STATE_INPUT_REQUIRED');
        expectError(await binding.call(undefined, 'GetTask', { id: task.id }), 'TaskNotFoundError');
        const listed = resultOf(await binding.call('tenant-a', 'ListTasks', { contextId: task.contextId }));
        expect(listed.tasks.map((listedTask) => listedTask.id)).toEqual([task.id]);
      } finally {
        await second.close();
      }
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
