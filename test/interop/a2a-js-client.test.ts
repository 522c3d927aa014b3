import { AgentCard as SdkAgentCard, Role, TaskState, type AgentCard } from '@a2a-js/sdk';
import { ClientFactory, ClientFactoryOptions, DefaultAgentCardResolver, JsonRpcTransportFactory, type Client } from '@a2a-js/sdk/client';
import {
  A2A_ERROR_CODE,
  isJsonRpcError,
  JsonRpcTaskNotFoundError,
  TaskNotCancelableError,
  TaskNotFoundError,
  UnsupportedOperationError,
} from '@a2a-js/sdk/errors';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestHub, type TestHub } from '../helpers/hub.js';
import { createWireLog, showWireOnFailure, type WireLog } from './wire-log.js';
import {
  asTask,
  collect,
  describeEvents,
  expectLifecycle,
  isMessage,
  pushConfigRoundTrip,
  sendRequest,
  stateName,
  textOf,
  continueRequest,
} from './sdk-client-helpers.js';

/**
 * Interop: the official @a2a-js/sdk client (1.3.0, A2A 1.0) drives the hub's JSON-RPC
 * endpoint unmodified, over real HTTP. The client is built the way the SDK's README tells a
 * user to build one (ClientFactory + createFromUrl, transport chosen from the card); the only
 * addition is a logging fetch, so that a failure shows exactly what went over the wire.
 */

let hub: TestHub;
let wire: WireLog;
let factory: ClientFactory;
let client: Client;

beforeAll(async () => {
  hub = await startTestHub();
  wire = createWireLog();
  factory = new ClientFactory(
    ClientFactoryOptions.createFrom(ClientFactoryOptions.default, {
      transports: [new JsonRpcTransportFactory({ fetchImpl: wire.fetch })],
      cardResolver: new DefaultAgentCardResolver({ fetchImpl: wire.fetch }),
    }),
  );
  client = await factory.createFromUrl(hub.url);
});

afterAll(async () => {
  await hub?.dispose();
});

showWireOnFailure(() => wire);

describe('@a2a-js/sdk client reading the card without A2A-Version (as the official TCK reads it)', () => {
  it('finds the extended card and the bearer scheme of the 1.0 card in the card a header-less fetch gets', async () => {
    const headerless = createWireLog();
    const withoutVersion: typeof fetch = (input, init) => {
      const headers = new Headers(init?.headers);
      headers.delete('a2a-version');
      return headerless.fetch(input, { ...init, headers });
    };
    await hub.inbounds.setAuth('default', 'sdk-headerless-token');
    try {
      const resolved = await new DefaultAgentCardResolver({ fetchImpl: withoutVersion }).resolve(hub.url);
      expect(headerless.exchanges[0]?.requestHeaders['a2a-version']).toBeUndefined();
      expect(resolved.capabilities?.extendedAgentCard).toBe(true);
      // The resolver hands the JSON over as it came; the SDK's own ProtoJSON codec reads it as its AgentCard.
      const card = SdkAgentCard.fromJSON(resolved);
      expect(card.capabilities?.extendedAgentCard).toBe(true);
      const schemes = Object.values(card.securitySchemes);
      expect(schemes.map((scheme) => scheme.scheme?.$case)).toEqual(['httpAuthSecurityScheme']);
      expect(JSON.stringify(schemes[0])).toMatch(/"scheme":"[Bb]earer"/);
      expect(card.securityRequirements?.length).toBeGreaterThan(0);
      // The client built from that card asks for the extended card with the token, as the capability says it may.
      const authed = await new ClientFactory(
        ClientFactoryOptions.createFrom(ClientFactoryOptions.default, {
          transports: [new JsonRpcTransportFactory({ fetchImpl: withBearer(headerless.fetch, 'sdk-headerless-token') })],
          cardResolver: new DefaultAgentCardResolver({ fetchImpl: withoutVersion }),
        }),
      ).createFromUrl(hub.url);
      headerless.clear();
      expect((await authed.getAgentCard()).name).toBe('a2a-hub echo');
      expect(headerless.rpcRequests().map((request) => request.method)).toEqual(['GetExtendedAgentCard']);
    } finally {
      await hub.inbounds.setAuth('default', undefined);
    }
  });
});

/** `inner` with an Authorization header on every request. */
function withBearer(inner: typeof fetch, token: string): typeof fetch {
  return (input, init) => {
    const headers = new Headers(init?.headers);
    headers.set('authorization', `Bearer ${token}`);
    return inner(input, { ...init, headers });
  };
}

describe('@a2a-js/sdk client against the hub (JSON-RPC, A2A 1.0)', () => {
  it('resolves the agent card and picks our JSON-RPC interface', async () => {
    const endpoint = `${hub.url}/a2a/default`;
    const cardUrl = `${hub.url}/.well-known/agent-card.json`;

    // From the base URL (the default well-known path) ...
    const resolver = new DefaultAgentCardResolver({ fetchImpl: wire.fetch });
    wire.clear();
    const card: AgentCard = await resolver.resolve(hub.url);
    expect(card.name).toBe('a2a-hub echo');
    expect(card.capabilities?.streaming).toBe(true);
    expect(card.supportedInterfaces).toEqual([
      expect.objectContaining({ url: endpoint, protocolBinding: 'JSONRPC', protocolVersion: '1.0' }),
      expect.objectContaining({ url: endpoint, protocolBinding: 'HTTP+JSON', protocolVersion: '1.0' }),
      expect.objectContaining({ url: endpoint, protocolBinding: 'JSONRPC', protocolVersion: '0.3' }),
      expect.objectContaining({ url: endpoint, protocolBinding: 'HTTP+JSON', protocolVersion: '0.3' }),
    ]);
    const [cardFetch] = wire.exchanges;
    expect(cardFetch?.url).toBe(cardUrl);
    expect(cardFetch?.requestHeaders['a2a-version']).toBe('1.0');
    expect(cardFetch?.status).toBe(200);

    // ... and from the card URL itself, as the factory documents ('' path = use the URL as is).
    const fromCardUrl = await factory.createFromUrl(cardUrl, '');
    expect(fromCardUrl.transport.protocolName).toBe('JSONRPC');
    expect(fromCardUrl.protocolVersion).toBe('1.0');
    expect(client.transport.protocolName).toBe('JSONRPC');
    expect(client.protocolVersion).toBe('1.0');

    // The interface actually used: the first call goes to the card's JSON-RPC URL, with A2A-Version 1.0.
    wire.clear();
    await expect(fromCardUrl.getTask({ tenant: '', id: 'no-such-task' })).rejects.toBeInstanceOf(TaskNotFoundError);
    const [call] = wire.exchanges;
    expect(call?.url).toBe(endpoint);
    expect(call?.method).toBe('POST');
    expect(call?.requestHeaders['a2a-version']).toBe('1.0');
    expect(call?.requestHeaders['content-type']).toMatch(/^application\/json/);

    // The card declares capabilities.extendedAgentCard, so getAgentCard() calls GetExtendedAgentCard.
    wire.clear();
    const extended = await fromCardUrl.getAgentCard();
    expect(wire.rpcRequests().map((request) => request.method)).toEqual(['GetExtendedAgentCard']);
    expect(extended.name).toBe('a2a-hub echo');
    expect(extended.supportedInterfaces.map((iface) => iface.url)).toEqual([endpoint, endpoint, endpoint, endpoint]);
  });

  it('sendMessage (blocking) returns a COMPLETED task whose artifact assembles to the echo', async () => {
    wire.clear();
    const result = await client.sendMessage(sendRequest('hello'));
    const task = asTask(result);
    expect(stateName(task.status?.state)).toBe('TASK_STATE_COMPLETED');
    expect(task.id).not.toBe('');
    expect(task.contextId).not.toBe('');
    expect(task.artifacts).toHaveLength(1);
    expect(textOf(task.artifacts[0]?.parts ?? [])).toBe('echo: hello');
    const [request] = wire.rpcRequests();
    expect(request?.method).toBe('SendMessage');
  });

  it('sendMessageStream yields the task, then status and artifact updates in order, ending COMPLETED', async () => {
    wire.clear();
    const events = await collect(client.sendMessageStream(sendRequest('hello stream')));
    const { text } = expectLifecycle(events, TaskState.TASK_STATE_COMPLETED);
    expect(text).toBe('echo: hello stream');
    const kinds = describeEvents(events);
    expect(kinds.indexOf('statusUpdate:TASK_STATE_WORKING'), kinds.join(', ')).toBeGreaterThan(0);
    expect(kinds.indexOf('statusUpdate:TASK_STATE_WORKING')).toBeLessThan(kinds.indexOf('artifactUpdate'));
    expect(kinds.filter((kind) => kind === 'artifactUpdate').length).toBeGreaterThan(1);
    expect(wire.rpcRequests().map((request) => request.method)).toEqual(['SendStreamingMessage']);
  });

  it('getTask honours historyLength, and listTasks finds the task', async () => {
    const task = asTask(await client.sendMessage(sendRequest('remember me')));

    const full = await client.getTask({ tenant: '', id: task.id });
    expect(full.id).toBe(task.id);
    expect(stateName(full.status?.state)).toBe('TASK_STATE_COMPLETED');
    expect(textOf(full.artifacts[0]?.parts ?? [])).toBe('echo: remember me');
    expect(full.history.length).toBeGreaterThanOrEqual(1);
    expect(full.history.some((message) => message.role === Role.ROLE_USER && textOf(message.parts) === 'remember me')).toBe(true);

    const one = await client.getTask({ tenant: '', id: task.id, historyLength: 1 });
    expect(one.history.length).toBeLessThanOrEqual(1);
    const none = await client.getTask({ tenant: '', id: task.id, historyLength: 0 });
    expect(none.history).toEqual([]);
    const sentGetTask = wire
      .rpcRequests()
      .filter((request) => request.method === 'GetTask')
      .at(-1);
    expect(sentGetTask?.params).toEqual({ id: task.id, historyLength: 0 });

    const page = await client.listTasks({
      tenant: '',
      contextId: task.contextId,
      status: TaskState.TASK_STATE_UNSPECIFIED,
      pageSize: 10,
      pageToken: '',
      statusTimestampAfter: undefined,
      includeArtifacts: true,
    });
    expect(page.tasks.map((listed) => listed.id)).toContain(task.id);
    expect(page.totalSize).toBeGreaterThanOrEqual(1);
    expect(page.nextPageToken).toBe('');
    const listed = page.tasks.find((candidate) => candidate.id === task.id);
    expect(textOf(listed?.artifacts[0]?.parts ?? [])).toBe('echo: remember me');

    const completed = await client.listTasks({
      tenant: '',
      contextId: '',
      status: TaskState.TASK_STATE_COMPLETED,
      pageToken: '',
      statusTimestampAfter: undefined,
    });
    expect(completed.tasks.map((candidate) => candidate.id)).toContain(task.id);
    expect(completed.tasks.every((candidate) => candidate.status?.state === TaskState.TASK_STATE_COMPLETED)).toBe(true);
  });

  it('cancelTask on a slow task sent with returnImmediately ends it CANCELED', async () => {
    const started = asTask(await client.sendMessage(sendRequest('::slow 50\nplease take your time', { returnImmediately: true })));
    expect(['TASK_STATE_SUBMITTED', 'TASK_STATE_WORKING']).toContain(stateName(started.status?.state));
    const sentSend = wire
      .rpcRequests()
      .filter((request) => request.method === 'SendMessage')
      .at(-1);
    expect(sentSend?.params).toMatchObject({ configuration: { returnImmediately: true } });

    const canceled = await client.cancelTask({ tenant: '', id: started.id, metadata: undefined });
    expect(canceled.id).toBe(started.id);
    expect(stateName(canceled.status?.state)).toBe('TASK_STATE_CANCELED');
    const after = await client.getTask({ tenant: '', id: started.id });
    expect(stateName(after.status?.state)).toBe('TASK_STATE_CANCELED');

    // Canceling again: the task is terminal, so the SDK surfaces TaskNotCancelableError (-32002).
    const again = await client.cancelTask({ tenant: '', id: started.id, metadata: undefined }).catch((error: unknown) => error);
    expect(again).toBeInstanceOf(TaskNotCancelableError);
    expect(isJsonRpcError(again) && again.envelopeCode).toBe(A2A_ERROR_CODE.TASK_NOT_CANCELABLE);
  });

  it('resubscribeTask (SubscribeToTask) follows a slow task until COMPLETED', async () => {
    const started = asTask(await client.sendMessage(sendRequest('::slow 5\nfollow me', { returnImmediately: true })));
    wire.clear();
    const events = await collect(client.resubscribeTask({ tenant: '', id: started.id }));
    expect(wire.rpcRequests().map((request) => request.method)).toEqual(['SubscribeToTask']);
    const { task, text } = expectLifecycle(events, TaskState.TASK_STATE_COMPLETED);
    expect(task.id).toBe(started.id);
    expect(['TASK_STATE_SUBMITTED', 'TASK_STATE_WORKING']).toContain(stateName(task.status?.state));
    expect(text).toBe('echo: follow me');
    expect(describeEvents(events).filter((kind) => kind === 'statusUpdate:TASK_STATE_WORKING').length).toBeGreaterThan(0);
  });

  it('getTask of an unknown id surfaces as TaskNotFoundError (-32001)', async () => {
    wire.clear();
    const error = await client.getTask({ tenant: '', id: 'does-not-exist' }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(TaskNotFoundError);
    expect(error).toBeInstanceOf(JsonRpcTaskNotFoundError);
    expect(isJsonRpcError(error)).toBe(true);
    if (!isJsonRpcError(error)) return;
    expect(error.envelopeCode).toBe(A2A_ERROR_CODE.TASK_NOT_FOUND);
    expect(error.envelopeCode).toBe(-32001);
    expect(error.reason).toBe('TASK_NOT_FOUND');
    expect(error.data).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          '@type': 'type.googleapis.com/google.rpc.ErrorInfo',
          reason: 'TASK_NOT_FOUND',
          domain: 'a2a-protocol.org',
        }),
      ]),
    );
    expect(wire.exchanges[0]?.status).toBe(200);

    // The same error before a stream starts (a JSON-RPC error body instead of SSE) is also typed.
    const streamError = await collect(client.resubscribeTask({ tenant: '', id: 'does-not-exist' })).catch((caught: unknown) => caught);
    expect(streamError).toBeInstanceOf(TaskNotFoundError);
    expect(isJsonRpcError(streamError) && streamError.envelopeCode).toBe(-32001);

    // Subscribing to a terminal task is UnsupportedOperationError (-32004), spec §3.1.6.
    const done = asTask(await client.sendMessage(sendRequest('already done')));
    const terminalError = await collect(client.resubscribeTask({ tenant: '', id: done.id })).catch((caught: unknown) => caught);
    expect(terminalError).toBeInstanceOf(UnsupportedOperationError);
    expect(isJsonRpcError(terminalError) && terminalError.envelopeCode).toBe(A2A_ERROR_CODE.UNSUPPORTED_OPERATION);
  });

  it('creates, gets, lists and deletes push configs over JSON-RPC', async () => {
    const task = asTask(await client.sendMessage(sendRequest('push me')));
    await pushConfigRoundTrip(client, task.id);
  });

  it('a `::message` directive makes the SDK return a Message, not a Task', async () => {
    const result = await client.sendMessage(sendRequest('::message\nhi there'));
    if (!isMessage(result)) throw new Error(`expected a Message, got a Task in ${stateName(result.status?.state)}`);
    expect(result.role).toBe(Role.ROLE_AGENT);
    expect(textOf(result.parts)).toBe('echo: hi there');
    expect(result.contextId).not.toBe('');
    expect(result.messageId).not.toBe('');

    // Streaming: a message-only stream is exactly one message event.
    const events = await collect(client.sendMessageStream(sendRequest('::message\nhi stream')));
    expect(describeEvents(events)).toEqual(['message']);
    const only = events[0]?.payload;
    expect(only?.$case === 'message' ? textOf(only.value.parts) : undefined).toBe('echo: hi stream');
  });

  // Beyond the list: the multi-turn and failure lifecycles, which make the SDK send
  // taskId/contextId on a follow-up message and parse agent status messages.
  it('multi-turn (blocking): INPUT_REQUIRED, then a follow-up on the same taskId completes', async () => {
    const first = asTask(await client.sendMessage(sendRequest('::input-required\nfirst turn')));
    expect(stateName(first.status?.state)).toBe('TASK_STATE_INPUT_REQUIRED');
    expect(first.status?.message?.role).toBe(Role.ROLE_AGENT);
    expect(textOf(first.status?.message?.parts ?? [])).toMatch(/more input/);

    const second = asTask(await client.sendMessage(continueRequest(first, 'second turn')));
    expect(second.id).toBe(first.id);
    expect(stateName(second.status?.state)).toBe('TASK_STATE_COMPLETED');
    expect(textOf(second.artifacts.at(-1)?.parts ?? [])).toBe('echo: second turn');
    expect(wire.rpcRequests().at(-1)).toMatchObject({
      method: 'SendMessage',
      params: { message: { taskId: first.id, contextId: first.contextId } },
    });
  });

  // Spec §3.1.2: a task-lifecycle stream starts with the Task and closes when the task is
  // terminal. The hub's first frame shows the task WORKING on the follow-up, so a client that
  // stops at an interrupted state (allowed by §11.7) does not stop before the run begins.
  it('multi-turn (streaming): a follow-up on an INPUT_REQUIRED task streams the resumed run to COMPLETED', async () => {
    const first = asTask(await client.sendMessage(sendRequest('::input-required\nfirst turn')));
    expect(stateName(first.status?.state)).toBe('TASK_STATE_INPUT_REQUIRED');

    const events = await collect(client.sendMessageStream(continueRequest(first, 'second turn')));
    expect(wire.rpcRequests().at(-1)).toMatchObject({
      method: 'SendStreamingMessage',
      params: { message: { taskId: first.id, contextId: first.contextId } },
    });
    const { task, text } = expectLifecycle(events, TaskState.TASK_STATE_COMPLETED);
    expect(task.id).toBe(first.id);
    expect(text).toBe('echo: second turn');
  });

  it('::fail ends the task FAILED with an agent status message', async () => {
    const failed = asTask(await client.sendMessage(sendRequest('::fail')));
    expect(stateName(failed.status?.state)).toBe('TASK_STATE_FAILED');
    expect(failed.status?.message?.role).toBe(Role.ROLE_AGENT);
    expect(textOf(failed.status?.message?.parts ?? [])).not.toBe('');
    const events = await collect(client.sendMessageStream(sendRequest('::fail')));
    expectLifecycle(events, TaskState.TASK_STATE_FAILED);
  });

  it('works unchanged against a hub that serves a request without A2A-Version as 1.0 (absentVersion)', async () => {
    const strict = await startTestHub({ absentVersion: '1.0' });
    try {
      const strictClient = await factory.createFromUrl(strict.url);
      const task = asTask(await strictClient.sendMessage(sendRequest('strict hello')));
      expect(textOf(task.artifacts[0]?.parts ?? [])).toBe('echo: strict hello');
      const events = await collect(strictClient.sendMessageStream(sendRequest('strict stream')));
      expect(expectLifecycle(events, TaskState.TASK_STATE_COMPLETED).text).toBe('echo: strict stream');
    } finally {
      await strict.dispose();
    }
  });
});
