import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ERRORS } from '../../generated/a2a/1.0/errors.js';
import type { AgentCard, Message, StreamResponse } from '../../generated/a2a/1.0/types.js';
import { A2AClient, assembleArtifacts, textOf } from '../../src/client/a2a-client.js';
import { CLIENT_BINDINGS } from '../../src/client/card-resolver.js';
import { A2AError, a2aError } from '../../src/protocol/a2a-error.js';
import { storeOnMissingPreset } from '../helpers/missing-preset.js';
import { startTestHub, type TestHub } from '../helpers/hub.js';

function userMessage(text: string, extra: Partial<Message> = {}): Message {
  return { messageId: randomUUID(), role: 'ROLE_USER', parts: [{ text }], ...extra };
}

let hub: TestHub;
beforeAll(async () => {
  hub = await startTestHub();
});
afterAll(async () => {
  await hub.dispose();
});

// Every binding the hub serves: the same calls must behave the same over each.
describe.each(CLIENT_BINDINGS.map((binding) => ({ binding })))('A2AClient against the hub over $binding', ({ binding }) => {
  const connect = (url: string): Promise<A2AClient> => A2AClient.connect(url, { binding });

  it('connects via the base URL and via a card URL', async () => {
    const viaBase = await connect(hub.url);
    expect(viaBase.endpoint).toBe(hub.endpoint);
    expect(viaBase.protocolBinding).toBe(binding);
    const viaCard = await connect(`${hub.endpoint}/agent-card.json`);
    expect(viaCard.endpoint).toBe(hub.endpoint);
    expect(viaCard.card.name).toBeTruthy();
  });

  it('sends a message and gets the completed echo task', async () => {
    const client = await connect(hub.url);
    const response = await client.sendMessage({ message: userMessage('hello') });
    expect(response.task?.status.state).toBe('TASK_STATE_COMPLETED');
    expect(textOf(response.task?.artifacts?.[0])).toBe('echo: hello');
  });

  it('streams frames that assemble to the echo text', async () => {
    const client = await connect(hub.url);
    const frames: StreamResponse[] = [];
    for await (const frame of client.sendStreamingMessage({ message: userMessage('hello stream\n::chunks 3') })) frames.push(frame);
    expect(frames.some((frame) => frame.artifactUpdate?.append === true)).toBe(true);
    const artifacts = assembleArtifacts(frames);
    expect(artifacts).toHaveLength(1);
    expect(textOf(artifacts[0])).toBe('echo: hello stream');
    expect(frames.at(-2)?.statusUpdate?.status.state).toBe('TASK_STATE_COMPLETED');
    expect(frames.at(-1)?.task?.status.state).toBe('TASK_STATE_COMPLETED');
  });

  it('gets, lists and cancels tasks', async () => {
    const client = await connect(hub.url);
    const sent = await client.sendMessage({ message: userMessage('::slow 50'), configuration: { returnImmediately: true } });
    const taskId = sent.task?.id;
    expect(taskId).toBeDefined();
    const got = await client.getTask({ id: taskId ?? '' });
    expect(got.id).toBe(taskId);
    const listed = await client.listTasks({ contextId: got.contextId ?? '' });
    expect(listed.tasks.map((task) => task.id)).toContain(taskId);
    const canceled = await client.cancelTask({ id: taskId ?? '' });
    expect(canceled.status.state).toBe('TASK_STATE_CANCELED');
  });

  it('subscribes to a running task', async () => {
    const client = await connect(hub.url);
    const sent = await client.sendMessage({ message: userMessage('sub\n::slow 3'), configuration: { returnImmediately: true } });
    const taskId = sent.task?.id ?? '';
    const events = [];
    for await (const event of client.subscribeToTask({ id: taskId })) events.push(event);
    expect(events[0]?.frame.task?.id).toBe(taskId);
    expect(textOf(assembleArtifacts(events)[0])).toBe('echo: sub');
    expect(events.at(-2)?.frame.statusUpdate?.status.state).toBe('TASK_STATE_COMPLETED');
    expect(events.at(-1)?.frame.task?.status.state).toBe('TASK_STATE_COMPLETED');
  });

  it('turns an error answer into the matching A2AError', async () => {
    const client = await connect(hub.url);
    const error = await client.getTask({ id: 'no-such-task' }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(A2AError);
    expect((error as A2AError).code).toBe(ERRORS.TaskNotFoundError.code);
    expect((error as A2AError).name).toBe('TaskNotFoundError');
    expect((error as A2AError).metadata).toMatchObject({ taskId: 'no-such-task' });
  });
});

type Handler = (body: string, res: ServerResponse) => void;

interface Fake {
  readonly url: string;
  readonly rpcRequests: () => number;
  close(): Promise<void>;
}

/** A fake agent: serves a valid card and answers JSON-RPC POSTs with `handlers[n]` (the last one repeats). */
async function fakeAgent(handlers: Handler[]): Promise<Fake> {
  let count = 0;
  let base = '';
  const server: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
    if (req.method === 'GET') {
      const card: AgentCard = {
        name: 'fake',
        description: 'a fake agent',
        supportedInterfaces: [{ url: `${base}/rpc`, protocolBinding: 'JSONRPC', protocolVersion: '1.0' }],
        version: '1',
        capabilities: {},
        defaultInputModes: ['text/plain'],
        defaultOutputModes: ['text/plain'],
        skills: [{ id: 's', name: 's', description: 's', tags: ['s'] }],
      };
      // A member 1.0 removed, as seed 003's card still carries it, and one a vendor added.
      const sent = { ...card, capabilities: { stateTransitionHistory: false }, 'x-vendor': { tier: 'gold' } };
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(sent));
      return;
    }
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    req.on('end', () => {
      const handler = handlers[Math.min(count, handlers.length - 1)];
      count += 1;
      handler?.(body, res);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url: base,
    rpcRequests: () => count,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

function idOf(body: string): unknown {
  return (JSON.parse(body) as { id: unknown }).id;
}

const validTask = { id: 't1', contextId: 'c1', status: { state: 'TASK_STATE_COMPLETED' } };

const answer =
  (result: unknown): Handler =>
  (body, res) => {
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ jsonrpc: '2.0', id: idOf(body), result }));
  };
const status =
  (code: number): Handler =>
  (_body, res) => {
    res.writeHead(code, { 'content-type': 'text/plain' }).end('nope');
  };

describe('A2AClient against fake agents', () => {
  it('rejects a 0.3-style bare Task with InvalidAgentResponse naming the path', async () => {
    const fake = await fakeAgent([answer({ kind: 'task', id: 't1', contextId: 'c1', status: { state: 'completed' } })]);
    try {
      const client = await A2AClient.connect(fake.url, { retries: 0 });
      const error = await client.sendMessage({ message: userMessage('hi') }).catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(A2AError);
      expect((error as A2AError).name).toBe('InvalidAgentResponseError');
      expect((error as A2AError).message).toMatch(/result/);
      expect((error as A2AError).violations.length).toBeGreaterThan(0);
      expect((error as A2AError).violations[0]?.field).toMatch(/^result/);
    } finally {
      await fake.close();
    }
  });

  it('ignores members it does not know in cards and answers (spec §5.7) and drops them', async () => {
    const fake = await fakeAgent([answer({ task: { ...validTask, 'x-vendor': 1, status: { ...validTask.status, progress: 0.5 } } })]);
    try {
      const client = await A2AClient.connect(fake.url, { retries: 0 });
      expect(client.card.capabilities).toEqual({});
      expect(client.card).not.toHaveProperty('x-vendor');
      const response = await client.sendMessage({ message: userMessage('hi') });
      expect(response.task).toEqual(validTask);
    } finally {
      await fake.close();
    }
  });

  it('retries HTTP 5xx and succeeds on the third request', async () => {
    const fake = await fakeAgent([status(503), status(503), answer({ task: validTask })]);
    try {
      const client = await A2AClient.connect(fake.url, { retries: 2, retryBaseMs: 10 });
      const response = await client.sendMessage({ message: userMessage('hi') });
      expect(response.task?.id).toBe('t1');
      expect(fake.rpcRequests()).toBe(3);
    } finally {
      await fake.close();
    }
  });

  it('does not retry HTTP 4xx', async () => {
    const fake = await fakeAgent([status(400), answer({ task: validTask })]);
    try {
      const client = await A2AClient.connect(fake.url, { retries: 2, retryBaseMs: 10 });
      await expect(client.getTask({ id: 't1' })).rejects.toThrow(/HTTP 400/);
      expect(fake.rpcRequests()).toBe(1);
    } finally {
      await fake.close();
    }
  });

  it('does not retry a JSON-RPC error and keeps the remote message', async () => {
    const fake = await fakeAgent([
      (body, res) => {
        res
          .writeHead(200, { 'content-type': 'application/json' })
          .end(JSON.stringify({ jsonrpc: '2.0', id: idOf(body), error: { code: -32602, message: 'bad params from fake' } }));
      },
      answer(validTask),
    ]);
    try {
      const client = await A2AClient.connect(fake.url, { retries: 2, retryBaseMs: 10 });
      const error = await client.getTask({ id: 't1' }).catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(A2AError);
      expect((error as A2AError).code).toBe(-32602);
      expect((error as A2AError).message).toBe('bad params from fake');
      expect(fake.rpcRequests()).toBe(1);
    } finally {
      await fake.close();
    }
  });

  it('maps HTTP 401 to UnauthenticatedError, with or without a JSON-RPC body', async () => {
    const fake = await fakeAgent([
      status(401),
      (body, res) => {
        res
          .writeHead(401, { 'content-type': 'application/json', 'www-authenticate': 'Bearer' })
          .end(JSON.stringify({ jsonrpc: '2.0', id: idOf(body), error: { code: -32000, message: 'a bearer token is required' } }));
      },
    ]);
    try {
      const client = await A2AClient.connect(fake.url, { retries: 0 });
      const bare = await client.getTask({ id: 't1' }).catch((caught: unknown) => caught);
      expect(bare).toBeInstanceOf(A2AError);
      expect((bare as A2AError).name).toBe('UnauthenticatedError');
      expect((bare as A2AError).message).toMatch(/HTTP 401/);
      const rpc = await client.getTask({ id: 't1' }).catch((caught: unknown) => caught);
      expect((rpc as A2AError).name).toBe('UnauthenticatedError');
      expect((rpc as A2AError).message).toBe('a bearer token is required');
    } finally {
      await fake.close();
    }
  });

  it('maps an unknown error code to InternalError with the remote message', async () => {
    const fake = await fakeAgent([
      (body, res) => {
        res
          .writeHead(200, { 'content-type': 'application/json' })
          .end(JSON.stringify({ jsonrpc: '2.0', id: idOf(body), error: { code: -31999, message: 'odd' } }));
      },
    ]);
    try {
      const client = await A2AClient.connect(fake.url);
      const error = await client.getTask({ id: 't1' }).catch((caught: unknown) => caught);
      expect((error as A2AError).name).toBe('InternalError');
      expect((error as A2AError).message).toMatch(/odd/);
    } finally {
      await fake.close();
    }
  });

  it('names a hub error by its ErrorInfo reason and domain, not by the JSON-RPC code hub errors share', async () => {
    const failWith =
      (error: A2AError): Handler =>
      (body, res) => {
        res
          .writeHead(error.definition.httpStatus, { 'content-type': 'application/json' })
          .end(JSON.stringify({ jsonrpc: '2.0', id: idOf(body), error: error.toJsonRpcError() }));
      };
    const unavailable = a2aError('AgentUnavailableError', 'agent "x" is unavailable', { metadata: { instance: 'x' } });
    const tooLarge = a2aError('PayloadTooLargeError', 'body over the limit');
    // Another domain's reason says nothing about our registry: the code decides.
    const foreign = {
      code: ERRORS.InvalidParamsError.code,
      message: 'foreign',
      data: [{ ...unavailable.details()[0], domain: 'x.example' }],
    };
    const fake = await fakeAgent([
      failWith(unavailable),
      failWith(tooLarge),
      (body, res) =>
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ jsonrpc: '2.0', id: idOf(body), error: foreign })),
    ]);
    try {
      const client = await A2AClient.connect(fake.url, { retries: 0 });
      const caught = async (): Promise<A2AError> => (await client.getTask({ id: 't1' }).catch((error: unknown) => error)) as A2AError;
      const first = await caught();
      expect(first).toBeInstanceOf(A2AError);
      expect(first.name).toBe('AgentUnavailableError');
      expect(first.message).toBe('agent "x" is unavailable');
      expect(first.metadata).toEqual({ instance: 'x' });
      expect((await caught()).name).toBe('PayloadTooLargeError');
      expect((await caught()).name).toBe('InvalidParamsError');
    } finally {
      await fake.close();
    }
  });
});

describe('A2AClient.connect to an instance this hub cannot run', () => {
  it('reports the instance as unavailable, not the well-known card as the one to use', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'a2a-hub-client-unavailable-'));
    const [stored] = await storeOnMissingPreset(dataDir, ['shouter']);
    const unavailableHub = await startTestHub({ dataDir });
    try {
      const endpoint = `${unavailableHub.url}${stored?.endpointPath ?? ''}`;
      const answered = (await (await fetch(`${endpoint}/agent-card.json`)).json()) as { error: { message: string } };
      const error = await A2AClient.connect(endpoint).catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(A2AError);
      expect((error as A2AError).name).toBe('AgentUnavailableError');
      expect((error as A2AError).message).toContain(answered.error.message);
      expect((error as A2AError).message).not.toMatch(/has one, so use that URL/);
    } finally {
      await unavailableHub.dispose();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
