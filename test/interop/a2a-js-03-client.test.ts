import { randomUUID } from 'node:crypto';
import type { Message, MessageSendParams, Task, TaskStatusUpdateEvent } from 'a2a-sdk-03';
import {
  A2AClient,
  ClientFactory,
  ClientFactoryOptions,
  JsonRpcTransportFactory,
  RestTransportFactory,
  TaskNotCancelableError,
  TaskNotFoundError,
  type Client,
  type TransportFactory,
} from 'a2a-sdk-03/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { METHODS as METHODS_03, type MethodName as Method03 } from '../../generated/a2a/0.3/methods.js';
import { A2A_0_3, A2A_0_3_REST, type A2A03Defs, type A2A03RestDefs } from '../../src/protocol/a2a-schema.js';
import { matchRest03Route } from '../../src/protocol/v03/rest-routes.js';
import { checkValue } from '../../src/protocol/validation.js';
import { startTestHub, type TestHub } from '../helpers/hub.js';
import { createWireLog, type WireExchange, type WireLog } from './wire-log.js';

/**
 * The official @a2a-js/sdk of the old generation (0.3.14, the last 0.3 release, installed as
 * `a2a-sdk-03`), unmodified, against the hub, on each of its transports in turn: its Client
 * picks the card's interface of that binding (the 0.3 form of the card a caller without
 * A2A-Version gets, with the 1.0 interfaces beside it), sends no A2A-Version, and sends, streams,
 * gets, cancels, resubscribes and manages push configs in 0.3. Every answer the hub sent is held
 * to spec/a2a/0.3 as well (over HTTP+JSON to its route's response message in spec/a2a/0.3/rest),
 * so a translation the SDK's lenient reading would paper over still fails here.
 */

let hub: TestHub;
beforeAll(async () => {
  hub = await startTestHub({ store: 'memory' });
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

/** The bodies of an answer: each SSE frame's data, or the body. */
function bodiesOf(exchange: WireExchange): string[] {
  return exchange.responseHeaders?.['content-type']?.startsWith('text/event-stream')
    ? exchange.responseBody
        .split('\n')
        .filter((line) => line.startsWith('data:'))
        .map((line) => line.slice(5).trim())
    : [exchange.responseBody];
}

interface Row {
  readonly binding: 'JSONRPC' | 'HTTP+JSON';
  readonly transport: (fetchImpl: typeof fetch) => TransportFactory;
  /** Where a send goes, below the interface URL. */
  readonly sendPath: string;
  /** Holds every successful answer on the wire to spec/a2a/0.3; how many bodies it checked. */
  readonly conforms: (wire: WireLog) => number;
}

const ROWS: readonly Row[] = [
  {
    binding: 'JSONRPC',
    transport: (fetchImpl) => new JsonRpcTransportFactory({ fetchImpl }),
    sendPath: '',
    conforms(wire) {
      let checked = 0;
      for (const exchange of wire.exchanges.filter((entry) => entry.method === 'POST' && entry.done)) {
        const request = JSON.parse(exchange.requestBody ?? '{}') as { method: Method03 };
        const def = METHODS_03[request.method].resultType as keyof A2A03Defs;
        for (const body of bodiesOf(exchange)) {
          const envelope = JSON.parse(body) as { result?: unknown; error?: unknown };
          if (envelope.error !== undefined) continue;
          const verdict = checkValue(A2A_0_3, def, envelope.result, { flavour: 'exact' });
          expect(verdict.ok ? [] : verdict.violations, `${request.method}: ${body.slice(0, 200)}`).toEqual([]);
          checked += 1;
        }
      }
      return checked;
    },
  },
  {
    binding: 'HTTP+JSON',
    transport: (fetchImpl) => new RestTransportFactory({ fetchImpl }),
    sendPath: '/v1/message:send',
    conforms(wire) {
      let checked = 0;
      for (const exchange of wire.exchanges) {
        const url = new URL(exchange.url);
        const match = matchRest03Route(exchange.method, url.pathname.slice(new URL(hub.endpoint).pathname.length));
        expect(match.kind, `${exchange.method} ${url.pathname}`).toBe('route');
        // A body the client never read (DELETE's Empty) was not recorded: test/server/v03-rest.test.ts checks it.
        if (match.kind !== 'route' || exchange.status === undefined || exchange.status >= 300 || !exchange.done) continue;
        const response = METHODS_03[match.route.method].restMessages?.response as keyof A2A03RestDefs;
        for (const body of bodiesOf(exchange)) {
          const verdict = checkValue(A2A_0_3_REST, response, JSON.parse(body), { flavour: 'exact' });
          expect(verdict.ok ? [] : verdict.violations, `${exchange.method} ${url.pathname}: ${body.slice(0, 200)}`).toEqual([]);
          checked += 1;
        }
      }
      return checked;
    },
  },
];

describe.each(ROWS)('@a2a-js/sdk 0.3 Client over $binding against the hub', (row) => {
  let wire: WireLog;
  let client: Client;
  beforeAll(async () => {
    wire = createWireLog();
    const options = ClientFactoryOptions.createFrom(ClientFactoryOptions.default, {
      transports: [row.transport(wire.fetch)],
      preferredTransports: [row.binding],
    });
    client = await new ClientFactory(options).createFromUrl(hub.url);
  });

  it("takes the card's interface of its binding, sends no A2A-Version, and is answered in 0.3", async () => {
    wire.clear();
    const sent = (await client.sendMessage(message('hello from 0.3'))) as Task;
    expect(sent).toMatchObject({ kind: 'task', status: { state: 'completed' } });
    expect(echoOf(sent)).toBe('echo: hello from 0.3');
    const [exchange] = wire.exchanges;
    expect(exchange?.url).toBe(`${hub.endpoint}${row.sendPath}`);
    expect(exchange?.requestHeaders['a2a-version']).toBeUndefined();
    expect(exchange?.responseHeaders?.['content-type']).toMatch(/^application\/json/);
    expect(row.conforms(wire)).toBe(1);
  });

  it('message/send answers a direct Message as one', async () => {
    expect(await client.sendMessage(message('::message'))).toMatchObject({ kind: 'message', role: 'agent' });
  });

  it('tasks/get with historyLength; tasks/cancel of a terminal task is TaskNotCancelable, an unknown task TaskNotFound', async () => {
    wire.clear();
    const sent = (await client.sendMessage(message('to read back'))) as Task;
    const got = await client.getTask({ id: sent.id, historyLength: 1 });
    expect(got).toMatchObject({ kind: 'task', id: sent.id, contextId: sent.contextId, status: { state: 'completed' } });
    expect(got.history).toHaveLength(1);
    await expect(client.cancelTask({ id: sent.id })).rejects.toBeInstanceOf(TaskNotCancelableError);
    await expect(client.getTask({ id: randomUUID() })).rejects.toBeInstanceOf(TaskNotFoundError);
    expect(row.conforms(wire)).toBe(2);
  });

  it('message/stream: the task, status updates with final on the last, artifact chunks', async () => {
    wire.clear();
    const events = [];
    for await (const event of client.sendMessageStream(message('::chunks 3\nstreamed to 0.3'))) events.push(event);
    expect(events[0]).toMatchObject({ kind: 'task' });
    const last = events.at(-1) as TaskStatusUpdateEvent;
    expect(last).toMatchObject({ kind: 'status-update', final: true, status: { state: 'completed' } });
    expect(events.filter((event) => event.kind === 'status-update' && event.final)).toHaveLength(1);
    const text = events
      .flatMap((event) => (event.kind === 'artifact-update' ? event.artifact.parts : []))
      .map((part) => (part.kind === 'text' ? part.text : ''));
    expect(text.join('')).toContain('streamed to 0.3');
    expect(row.conforms(wire)).toBe(events.length);
  });

  it('tasks/cancel of a running task, and tasks/resubscribe of another until completed', async () => {
    wire.clear();
    const slow = (await client.sendMessage({ ...message('::slow 50'), configuration: { blocking: false } })) as Task;
    expect(slow.status.state).not.toBe('completed');
    const canceled = await client.cancelTask({ id: slow.id });
    expect(canceled.status.state).toBe('canceled');

    const running = (await client.sendMessage({ ...message('::slow 3'), configuration: { blocking: false } })) as Task;
    const events = [];
    for await (const event of client.resubscribeTask({ id: running.id })) events.push(event);
    expect(events.at(-1)).toMatchObject({ kind: 'status-update', final: true, status: { state: 'completed' } });
    row.conforms(wire);
  });

  it('push configs: set, get, list and delete, the token never answered; the same config a 1.0 caller reads', async () => {
    wire.clear();
    const running = (await client.sendMessage({ ...message('::slow 50'), configuration: { blocking: false } })) as Task;
    const id = `hook-${row.binding}`;
    const set = await client.setTaskPushNotificationConfig({
      taskId: running.id,
      pushNotificationConfig: { id, url: 'https://hooks.example.test/a2a', token: 'tok' },
    });
    // The token is a secret: stored, never answered (docs/push.md).
    expect(set).toEqual({ taskId: running.id, pushNotificationConfig: { id, url: 'https://hooks.example.test/a2a' } });
    // Client types the argument as TaskIdParams; its REST transport needs the config id as well.
    const byId = { id: running.id, pushNotificationConfigId: id } as { id: string };
    expect(await client.getTaskPushNotificationConfig(byId)).toEqual(set);
    expect(await client.listTaskPushNotificationConfig({ id: running.id })).toEqual([set]);
    const as10 = await fetch(`${hub.endpoint}/tasks/${running.id}/pushNotificationConfigs/${id}`, { headers: { 'a2a-version': '1.0' } });
    expect(await as10.json()).toMatchObject({ taskId: running.id, id, url: 'https://hooks.example.test/a2a' });
    await client.deleteTaskPushNotificationConfig({ id: running.id, pushNotificationConfigId: id });
    expect(await client.listTaskPushNotificationConfig({ id: running.id })).toEqual([]);
    await client.cancelTask({ id: running.id });
    row.conforms(wire);
  });
});

describe('@a2a-js/sdk 0.3 card resolution', () => {
  it('reads the security schemes of a card with a bearer token in their 0.3 shape, beside the 1.0 one', async () => {
    await hub.inbounds.setAuth('default', 'sdk03-card-token');
    try {
      const card = await (await A2AClient.fromCardUrl(`${hub.url}/.well-known/agent-card.json`)).getAgentCard();
      const schemes = Object.values(card.securitySchemes ?? {});
      expect(schemes.map((scheme) => scheme.type)).toEqual(['http']);
      expect(JSON.stringify(schemes[0])).toMatch(/"scheme":"[Bb]earer"/);
      expect(card.security?.length).toBeGreaterThan(0);
      expect(card.supportsAuthenticatedExtendedCard).toBe(true);
      const as03 = checkValue(A2A_0_3, 'AgentCard', card);
      expect(as03.ok ? [] : as03.violations).toEqual([]);
    } finally {
      await hub.inbounds.setAuth('default', undefined);
    }
  });

  it('the legacy A2AClient reads the card without A2A-Version and takes the JSON-RPC endpoint; the Client factory its preferred one', async () => {
    const wire = createWireLog();
    const legacy = await A2AClient.fromCardUrl(`${hub.url}/.well-known/agent-card.json`, { fetchImpl: wire.fetch });
    const card = await legacy.getAgentCard();
    expect(card).toMatchObject({ protocolVersion: '0.3.0', url: hub.endpoint, preferredTransport: 'JSONRPC' });
    expect(card.additionalInterfaces?.map((entry) => entry.transport)).toEqual(expect.arrayContaining(['JSONRPC', 'HTTP+JSON']));
    const [cardFetch] = wire.exchanges;
    expect(cardFetch?.requestHeaders['a2a-version']).toBeUndefined();
    expect(cardFetch?.responseHeaders?.['vary']).toMatch(/A2A-Version/);
    expect((await new ClientFactory().createFromUrl(hub.url).then((client) => client.getAgentCard())).url).toBe(hub.endpoint);
    // The legacy client answers JSON-RPC shapes: a terminal task's cancel is the 0.3 code -32002.
    const sent = (await legacy.sendMessage(message('legacy'))) as { result: Task };
    const canceled = await legacy.cancelTask({ id: sent.result.id });
    expect((canceled as { error?: { code: number } }).error?.code).toBe(-32002);
  });
});
