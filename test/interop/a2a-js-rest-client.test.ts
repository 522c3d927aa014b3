import { Role, TaskState } from '@a2a-js/sdk';
import { ClientFactory, ClientFactoryOptions, DefaultAgentCardResolver, RestTransportFactory, type Client } from '@a2a-js/sdk/client';
import { TaskNotCancelableError, TaskNotFoundError, UnsupportedOperationError } from '@a2a-js/sdk/errors';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createInbound, inboundRow } from '../helpers/control.js';
import { startTestHub, type TestHub } from '../helpers/hub.js';
import { restCall } from '../helpers/rest-client.js';
import {
  asTask,
  collect,
  expectLifecycle,
  pushConfigRoundTrip,
  sendRequest,
  stateName,
  textOf,
  continueRequest,
} from './sdk-client-helpers.js';
import { createWireLog, showWireOnFailure, type WireLog } from './wire-log.js';

/**
 * Interop over HTTP+JSON: the official @a2a-js/sdk client (1.3.0), told to prefer its REST
 * transport, drives the hub unmodified. The card lists JSON-RPC first, so the preference is what
 * makes the SDK choose the hub's HTTP+JSON interface; the wire log proves no JSON-RPC is sent.
 */

let hub: TestHub;
let wire: WireLog;
let client: Client;

/** The SDK's client preferring HTTP+JSON, from the card at `cardUrl` (the hub's well-known card by default). */
function restClient(cardUrl?: string): Promise<Client> {
  const factory = new ClientFactory(
    ClientFactoryOptions.createFrom(ClientFactoryOptions.default, {
      transports: [new RestTransportFactory({ fetchImpl: wire.fetch })],
      cardResolver: new DefaultAgentCardResolver({ fetchImpl: wire.fetch }),
      preferredTransports: ['HTTP+JSON'],
    }),
  );
  return factory.createFromUrl(hub.url, cardUrl);
}

beforeAll(async () => {
  hub = await startTestHub();
  wire = createWireLog();
  client = await restClient();
});

afterAll(async () => {
  await hub?.dispose();
});

showWireOnFailure(() => wire);

/** Every request after the card went to an HTTP+JSON route below the interface URL, none was a JSON-RPC POST. */
function expectRestOnly(below = hub.endpoint): void {
  const calls = wire.exchanges.filter((exchange) => !exchange.url.endsWith('agent-card.json'));
  expect(calls.length).toBeGreaterThan(0);
  for (const exchange of calls) {
    expect(exchange.url.startsWith(`${below}/`), exchange.url).toBe(true);
    expect(exchange.requestBody ?? '').not.toContain('"jsonrpc"');
  }
}

describe('@a2a-js/sdk client against the hub (HTTP+JSON, A2A 1.0)', () => {
  it('resolves the card and picks the HTTP+JSON interface', () => {
    expect(client.transport.protocolName).toBe('HTTP+JSON');
    expect(client.protocolVersion).toBe('1.0');
  });

  it('sendMessage (blocking) returns a COMPLETED task with the echo', async () => {
    const task = asTask(await client.sendMessage(sendRequest('hello rest')));
    expect(stateName(task.status?.state)).toBe('TASK_STATE_COMPLETED');
    expect(textOf(task.artifacts.flatMap((artifact) => artifact.parts))).toBe('echo: hello rest');
    expectRestOnly();
  });

  it('sendMessageStream yields the lifecycle to COMPLETED and the final Task', async () => {
    const events = await collect(client.sendMessageStream(sendRequest('hello stream')));
    expect(expectLifecycle(events, TaskState.TASK_STATE_COMPLETED).text).toBe('echo: hello stream');
    expectRestOnly();
  });

  it('getTask and listTasks find the task, with history as asked', async () => {
    const task = asTask(await client.sendMessage(sendRequest('remember me')));
    const none = await client.getTask({ tenant: '', id: task.id, historyLength: 0 });
    expect(none.history).toEqual([]);
    const full = await client.getTask({ tenant: '', id: task.id });
    expect(full.history.length).toBeGreaterThan(0);
    const page = await client.listTasks({
      tenant: '',
      contextId: task.contextId,
      status: TaskState.TASK_STATE_COMPLETED,
      pageSize: 10,
      pageToken: '',
      historyLength: 0,
      statusTimestampAfter: undefined,
      includeArtifacts: true,
    });
    expect(page.tasks.map((listed) => listed.id)).toEqual([task.id]);
    expect(page.tasks[0]?.artifacts.length).toBeGreaterThan(0);
    expectRestOnly();
  });

  it('cancelTask ends a slow task CANCELED, and a second cancel is TaskNotCancelableError', async () => {
    const started = asTask(await client.sendMessage(sendRequest('::slow 50\ntake your time', { returnImmediately: true })));
    const canceled = await client.cancelTask({ tenant: '', id: started.id, metadata: undefined });
    expect(stateName(canceled.status?.state)).toBe('TASK_STATE_CANCELED');
    const again = await client.cancelTask({ tenant: '', id: started.id, metadata: undefined }).catch((error: unknown) => error);
    expect(again).toBeInstanceOf(TaskNotCancelableError);
    expectRestOnly();
  });

  it('resubscribeTask follows a slow task until COMPLETED', async () => {
    const started = asTask(await client.sendMessage(sendRequest('::slow 5\nfollow me', { returnImmediately: true })));
    const events = await collect(client.resubscribeTask({ tenant: '', id: started.id }));
    const last = events.at(-1)?.payload;
    expect(last?.$case === 'task' ? stateName(last.value.status?.state) : last?.$case).toBe('TASK_STATE_COMPLETED');
    expectRestOnly();
  });

  it('errors come back typed: TaskNotFound, and UnsupportedOperation for a terminal subscribe', async () => {
    await expect(client.getTask({ tenant: '', id: 'does-not-exist' })).rejects.toBeInstanceOf(TaskNotFoundError);
    const done = asTask(await client.sendMessage(sendRequest('already done')));
    const terminal = await collect(client.resubscribeTask({ tenant: '', id: done.id })).catch((error: unknown) => error);
    expect(terminal).toBeInstanceOf(UnsupportedOperationError);
  });

  it('creates, gets, lists and deletes push configs over HTTP+JSON', async () => {
    const task = asTask(await client.sendMessage(sendRequest('push me')));
    wire.clear();
    await pushConfigRoundTrip(client, task.id);
    expectRestOnly();
  });

  it('multi-turn: INPUT_REQUIRED, then a follow-up on the same task completes (blocking and streaming)', async () => {
    const first = asTask(await client.sendMessage(sendRequest('::input-required\nfirst turn')));
    expect(stateName(first.status?.state)).toBe('TASK_STATE_INPUT_REQUIRED');
    expect(first.status?.message?.role).toBe(Role.ROLE_AGENT);
    const second = asTask(await client.sendMessage(continueRequest(first, 'second turn')));
    expect(second.id).toBe(first.id);
    expect(stateName(second.status?.state)).toBe('TASK_STATE_COMPLETED');

    const waiting = asTask(await client.sendMessage(sendRequest('::input-required\nagain')));
    const events = await collect(client.sendMessageStream(continueRequest(waiting, 'streamed turn')));
    const { task, text } = expectLifecycle(events, TaskState.TASK_STATE_COMPLETED);
    expect(task.id).toBe(waiting.id);
    expect(text).toBe('echo: streamed turn');
    expectRestOnly();
  });

  it('getAgentCard fetches GET /extendedAgentCard', async () => {
    const card = await client.getAgentCard();
    expect(card.supportedInterfaces.map((entry) => entry.protocolBinding)).toEqual(['JSONRPC', 'HTTP+JSON', 'JSONRPC', 'HTTP+JSON']);
    expect(wire.exchanges.some((exchange) => exchange.method === 'GET' && exchange.url.endsWith('/extendedAgentCard'))).toBe(true);
  });
});

describe('@a2a-js/sdk client against an instance with its own restPath that serves one tenant', () => {
  it("takes the tenant from the card's interface: every request goes below /v1/a2a/acme, and the task is acme's", async () => {
    const id = await createInbound(hub.url, 'Awaken', { endpointPath: '/v1/awaken', restPath: '/v1/a2a', tenants: ['acme'] });
    const row = await inboundRow(hub.url, id);
    const awaken = await restClient(row?.cardUrl);
    expect(awaken.transport.protocolName).toBe('HTTP+JSON');
    wire.clear();
    const task = asTask(await awaken.sendMessage(sendRequest('hello acme')));
    expect(textOf(task.artifacts.flatMap((artifact) => artifact.parts))).toBe('echo: hello acme');
    expect((await awaken.getTask({ tenant: '', id: task.id })).id).toBe(task.id);
    expectRestOnly(`${hub.url}/v1/a2a/acme`);
    expect((await restCall(`${hub.url}/v1/a2a`, 'GetTask', { id: task.id }, { tenant: 'acme' })).id).toBe(task.id);
  });
});
