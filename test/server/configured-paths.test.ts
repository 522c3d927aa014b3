import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AgentCard, Task } from '../../generated/a2a/1.0/types.js';
import { validateAgentCard } from '../../generated/a2a/1.0/validators.js';
import type { InboundRow } from '../../generated/control/types.js';
import { call, userMessage } from '../helpers/a2a-client.js';
import { controlAction, createInbound, inboundRow } from '../helpers/control.js';
import { startTestHub, type TestHub } from '../helpers/hub.js';
import { expectRestError, listTasksStatus, post, send } from '../helpers/raw-http.js';
import { restCall, restRpc } from '../helpers/rest-client.js';

/**
 * Instances whose bindings live away from their endpointPath, configured through the control
 * API and called over real HTTP at the URLs the card and the snapshot row name: the layouts of
 * seed 002 (JSON-RPC at /a2a/jsonrpc, REST below /a2a/rest) and seed 003 (REST below /v1/a2a,
 * tenants below it).
 */

let hub: TestHub;
beforeAll(async () => {
  hub = await startTestHub();
});
afterAll(() => hub.dispose());

/** The card of the instance `row` describes, valid as an AgentCard. */
async function cardOf(row: InboundRow): Promise<AgentCard> {
  // A 1.0 caller's card (one without A2A-Version gets the 0.3 form, dual-stack-card.test.ts).
  const answer = await send(row.cardUrl, { headers: { 'a2a-version': '1.0' } });
  expect(answer.status, answer.text).toBe(200);
  const card = JSON.parse(answer.text) as unknown;
  expect(validateAgentCard(card) ? [] : validateAgentCard.errors, 'AgentCard').toEqual([]);
  return card as AgentCard;
}

async function rowOf(id: string): Promise<InboundRow> {
  const row = await inboundRow(hub.url, id);
  expect(row, `the snapshot row of ${id}`).toBeDefined();
  return row as InboundRow;
}

/** The URL per binding the card advertises. */
function interfaces(card: AgentCard): Record<string, string> {
  return Object.fromEntries(card.supportedInterfaces.map((entry) => [entry.protocolBinding, entry.url]));
}

/** What a path no instance serves answers over HTTP+JSON: NotFound as a Status body. */
async function expectNoRestRoute(url: string): Promise<void> {
  expectRestError(await send(url, { headers: { 'a2a-version': '1.0' } }), 'NotFoundError');
}

describe("seed 002's layout: card base /a2a/data, JSON-RPC at /a2a/jsonrpc, REST below /a2a/rest", () => {
  const paths = { endpointPath: '/a2a/data', jsonRpcPath: '/a2a/jsonrpc', restPath: '/a2a/rest' };
  let id: string;
  beforeAll(async () => {
    id = await createInbound(hub.url, 'DataAgent', paths);
  });

  it('the card and the snapshot row name the configured URLs, and those are the ones that answer', async () => {
    const row = await rowOf(id);
    expect(row).toMatchObject({ ...paths, jsonRpcUrl: `${hub.url}/a2a/jsonrpc`, restUrl: `${hub.url}/a2a/rest` });
    expect(interfaces(await cardOf(row))).toEqual({ JSONRPC: row.jsonRpcUrl, 'HTTP+JSON': row.restUrl });
    expect((await call(row.jsonRpcUrl, 'SendMessage', { message: userMessage('hello') })).task?.status.state).toBe('TASK_STATE_COMPLETED');
    expect((await restCall(row.restUrl, 'SendMessage', { message: userMessage('hello') })).task?.status.state).toBe('TASK_STATE_COMPLETED');
  });

  it("serves the seed's REST routes: message:send, tasks/{id}, tasks, tasks/{id}:cancel", async () => {
    const rest = `${hub.url}/a2a/rest`;
    // The seed's own curl, byte for byte as it documents it.
    const sent = await post(
      `${rest}/message:send`,
      JSON.stringify({ message: { messageId: `m-${id}`, role: 'ROLE_USER', parts: [{ text: 'hi\n::input-required' }] } }),
      { 'content-type': 'application/json', 'a2a-version': '1.0' },
    );
    expect(sent.status, sent.text).toBe(200);
    const task = (JSON.parse(sent.text) as { task: Task }).task;
    expect(task.status.state).toBe('TASK_STATE_INPUT_REQUIRED');
    expect((await restCall(rest, 'GetTask', { id: task.id, historyLength: 10 })).id).toBe(task.id);
    const listed = await restCall(rest, 'ListTasks', { contextId: task.contextId, pageSize: 20 });
    expect(listed.tasks.map((listedTask) => listedTask.id)).toEqual([task.id]);
    expect((await restCall(rest, 'CancelTask', { id: task.id })).status.state).toBe('TASK_STATE_CANCELED');
  });

  it('answers nothing at the default paths: neither binding below endpointPath nor at /a2a/<id>', async () => {
    for (const base of [`${hub.url}/a2a/data`, `${hub.url}/a2a/${id}`]) {
      expect(await listTasksStatus(base), base).toBe(404);
      await expectNoRestRoute(`${base}/tasks`);
    }
    expect(await listTasksStatus(`${hub.url}/a2a/rest`)).toBe(404);
  });
});

describe("seed 003's layout: REST below /v1/a2a, each tenant's routes below /v1/a2a/{tenant}", () => {
  let row: InboundRow;
  beforeAll(async () => {
    row = await rowOf(await createInbound(hub.url, 'Awaken', { endpointPath: '/v1/awaken', restPath: '/v1/a2a' }));
  });

  it('the card advertises /v1/a2a for HTTP+JSON, the row too', async () => {
    expect(row.restUrl).toBe(`${hub.url}/v1/a2a`);
    expect(interfaces(await cardOf(row))['HTTP+JSON']).toBe(row.restUrl);
  });

  it('POST /v1/a2a/acme/message:send makes a task of tenant acme, read at /v1/a2a/acme/tasks/{id} and not at /v1/a2a/tasks/{id}', async () => {
    const sent = await post(
      `${hub.url}/v1/a2a/acme/message:send`,
      JSON.stringify({ message: { messageId: `m-${row.id}`, role: 'ROLE_USER', parts: [{ text: 'hello' }] } }),
      { 'content-type': 'application/json', 'a2a-version': '1.0' },
    );
    expect(sent.status, sent.text).toBe(200);
    const task = (JSON.parse(sent.text) as { task: Task }).task;
    expect((await restCall(row.restUrl, 'GetTask', { id: task.id }, { tenant: 'acme' })).status.state).toBe('TASK_STATE_COMPLETED');
    expect((await restRpc(row.restUrl, 'GetTask', { id: task.id })).error?.status).toBe('NOT_FOUND');
    const listed = await restCall(row.restUrl, 'ListTasks', { contextId: task.contextId }, { tenant: 'acme' });
    expect(listed.tasks.map((listedTask) => listedTask.id)).toEqual([task.id]);
  });
});

describe('inbound.update moving the paths', () => {
  it('takes effect on the next request: the old URLs answer 404, the new ones (in the card and the row) answer', async () => {
    const id = await createInbound(hub.url, 'Mover', { jsonRpcPath: '/rpc/mover-one', restPath: '/rest/mover-one' });
    const before = await rowOf(id);
    expect((await restCall(before.restUrl, 'ListTasks', {})).tasks).toEqual([]);
    await controlAction(hub.url, { action: 'inbound.update', id, jsonRpcPath: '/rpc/mover-two', restPath: '/rest/mover-two' });
    const after = await rowOf(id);
    expect(after).toMatchObject({ jsonRpcUrl: `${hub.url}/rpc/mover-two`, restUrl: `${hub.url}/rest/mover-two` });
    expect(interfaces(await cardOf(after))).toEqual({ JSONRPC: after.jsonRpcUrl, 'HTTP+JSON': after.restUrl });
    expect(await listTasksStatus(before.jsonRpcUrl)).toBe(404);
    await expectNoRestRoute(`${before.restUrl}/tasks`);
    expect(await listTasksStatus(after.jsonRpcUrl)).toBe(200);
    expect((await restCall(after.restUrl, 'ListTasks', {})).tasks).toEqual([]);
  });
});
