import { randomUUID } from 'node:crypto';
import type { Message, MessageSendParams, Task, TaskStatusUpdateEvent } from 'a2a-sdk-03';
import { A2AClient, ClientFactory, type Client } from 'a2a-sdk-03/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { METHODS as METHODS_03, type MethodName as Method03 } from '../../generated/a2a/0.3/methods.js';
import { A2A_0_3 } from '../../src/protocol/a2a-schema.js';
import { checkValue } from '../../src/protocol/validation.js';
import { startTestHub, type TestHub } from '../helpers/hub.js';
import { createWireLog, type WireLog } from './wire-log.js';

/**
 * The official @a2a-js/sdk of the old generation (0.3.14, the last 0.3 release, installed as
 * `a2a-sdk-03`), unmodified, against the hub: both of its card resolvers read the hub's card
 * (the 0.3 form a caller without A2A-Version gets, with the 1.0 interfaces beside it), and its
 * clients send, stream, get, cancel, resubscribe and set and get push configs in 0.3. Every
 * answer the hub sent is checked against the generated 0.3 validators as well.
 */

let hub: TestHub;
let wire: WireLog;
let legacy: A2AClient;
let client: Client;

beforeAll(async () => {
  hub = await startTestHub({ store: 'memory' });
  wire = createWireLog();
  legacy = await A2AClient.fromCardUrl(`${hub.url}/.well-known/agent-card.json`, { fetchImpl: wire.fetch });
  client = await new ClientFactory().createFromUrl(hub.url);
});

afterAll(() => hub.dispose());

function message(text: string, extra: Partial<Message> = {}): MessageSendParams {
  return { message: { kind: 'message', messageId: randomUUID(), role: 'user', parts: [{ kind: 'text', text }], ...extra } };
}

function echoOf(task: Task): string {
  return (task.artifacts ?? [])
    .flatMap((artifact) => artifact.parts)
    .map((part) => (part.kind === 'text' ? part.text : ''))
    .join('');
}

/** Every JSON-RPC answer the hub sent on the wire, held to the 0.3 result def of its method. */
function expectWireConforms03(): void {
  for (const exchange of wire.exchanges.filter((entry) => entry.method === 'POST')) {
    const request = JSON.parse(exchange.requestBody ?? '{}') as { method: Method03 };
    const def = METHODS_03[request.method].resultType;
    const bodies = exchange.responseHeaders?.['content-type']?.startsWith('text/event-stream')
      ? exchange.responseBody
          .split('\n')
          .filter((line) => line.startsWith('data:'))
          .map((line) => line.slice(5).trim())
      : [exchange.responseBody];
    for (const body of bodies) {
      const envelope = JSON.parse(body) as { result?: unknown; error?: unknown };
      if (envelope.error !== undefined) continue;
      const verdict = checkValue(A2A_0_3, def as never, envelope.result, { flavour: 'exact' });
      expect(verdict.ok ? [] : verdict.violations, `${request.method}: ${body.slice(0, 200)}`).toEqual([]);
    }
  }
}

describe('@a2a-js/sdk 0.3 clients against the hub', () => {
  it('both card resolvers read the card and take the JSON-RPC endpoint; neither sends A2A-Version', async () => {
    const card = await legacy.getAgentCard();
    expect(card).toMatchObject({ protocolVersion: '0.3.0', url: hub.endpoint, preferredTransport: 'JSONRPC' });
    const [cardFetch] = wire.exchanges;
    expect(cardFetch?.requestHeaders['a2a-version']).toBeUndefined();
    expect(cardFetch?.responseHeaders?.['vary']).toMatch(/A2A-Version/);
    expect((await client.getAgentCard()).url).toBe(hub.endpoint);
  });

  it('message/send, tasks/get and tasks/cancel (A2AClient), answered in 0.3', async () => {
    wire.clear();
    const sent = await legacy.sendMessage(message('hello from 0.3'));
    expect('error' in sent).toBe(false);
    const task = (sent as { result: Task }).result;
    expect(task).toMatchObject({ kind: 'task', status: { state: 'completed' } });
    expect(echoOf(task)).toBe('echo: hello from 0.3');
    const got = await legacy.getTask({ id: task.id, historyLength: 1 });
    expect((got as { result: Task }).result).toMatchObject({ kind: 'task', id: task.id, status: { state: 'completed' } });
    // A terminal task cannot be canceled: the 0.3 code, -32002.
    const canceled = await legacy.cancelTask({ id: task.id });
    expect((canceled as { error?: { code: number } }).error?.code).toBe(-32002);
    expectWireConforms03();
  });

  it('message/stream (Client): the task, status updates with final on the last, artifact chunks', async () => {
    const events = [];
    for await (const event of client.sendMessageStream(message('streamed to 0.3'))) events.push(event);
    expect(events[0]).toMatchObject({ kind: 'task' });
    const last = events.at(-1) as TaskStatusUpdateEvent;
    expect(last).toMatchObject({ kind: 'status-update', final: true, status: { state: 'completed' } });
    expect(events.filter((event) => event.kind === 'status-update' && event.final)).toHaveLength(1);
    const text = events
      .flatMap((event) => (event.kind === 'artifact-update' ? event.artifact.parts : []))
      .map((part) => (part.kind === 'text' ? part.text : ''));
    expect(text.join('')).toBe('echo: streamed to 0.3');
  });

  it('tasks/cancel of a running task and tasks/resubscribe of another until completed', async () => {
    const slow = await client.sendMessage({ ...message('::slow 50'), configuration: { blocking: false } });
    expect(slow).toMatchObject({ kind: 'task' });
    const canceled = await client.cancelTask({ id: (slow as Task).id });
    expect(canceled.status.state).toBe('canceled');

    const running = (await client.sendMessage({ ...message('::slow 3'), configuration: { blocking: false } })) as Task;
    const events = [];
    for await (const event of client.resubscribeTask({ id: running.id })) events.push(event);
    expect(events.at(-1)).toMatchObject({ kind: 'status-update', final: true, status: { state: 'completed' } });
  });

  it('tasks/pushNotificationConfig/set and get, the config in 0.3 shape; the task is the same for a 1.0 caller', async () => {
    const running = (await client.sendMessage({ ...message('::slow 50'), configuration: { blocking: false } })) as Task;
    const set = await client.setTaskPushNotificationConfig({
      taskId: running.id,
      pushNotificationConfig: { id: 'hook-03', url: 'https://hooks.example.test/a2a', token: 'tok' },
    });
    // The token is a secret: the hub stores it and never answers it (docs/push.md).
    expect(set).toEqual({ taskId: running.id, pushNotificationConfig: { id: 'hook-03', url: 'https://hooks.example.test/a2a' } });
    expect(await client.getTaskPushNotificationConfig({ id: running.id })).toEqual(set);
    expect(await client.listTaskPushNotificationConfig({ id: running.id })).toEqual([set]);
    const as10 = await fetch(hub.endpoint, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'a2a-version': '1.0' },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'GetTaskPushNotificationConfig',
        params: { taskId: running.id, id: 'hook-03' },
      }),
    });
    expect(((await as10.json()) as { result: unknown }).result).toMatchObject({
      taskId: running.id,
      id: 'hook-03',
      url: 'https://hooks.example.test/a2a',
    });
    await client.cancelTask({ id: running.id });
  });
});
