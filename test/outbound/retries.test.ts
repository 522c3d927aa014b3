import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AgentCard, Task } from '../../generated/a2a/1.0/types.js';
import { ToolError } from '../../src/outbound/tool-registry.js';
import type { TestHub } from '../helpers/hub.js';
import { createOutbound, ok, startLocalHub } from './helpers.js';

/**
 * Transport failures of a tool call, against a scripted node:http agent that does not stream
 * (so the call is SendMessage plus GetTask polling): a 503 is retried, a 4xx is not.
 */

interface Received {
  readonly method: string;
  readonly params: { message?: { contextId?: string; taskId?: string; metadata?: Record<string, unknown> } };
  readonly authorization: string | undefined;
}

type Answer = { status: number; body: string } | { result: unknown };

interface ScriptedAgent {
  readonly url: string;
  readonly received: Received[];
  /** What the next SendMessage calls get, in order; once used up, a COMPLETED task. */
  script: Answer[];
  /** What GetTask answers per task id; TaskNotFound for the others. */
  readonly tasks: Map<string, Task>;
  close(): Promise<void>;
}

function completedTask(id: string, contextId: string, text: string): Task {
  return {
    id,
    contextId,
    status: { state: 'TASK_STATE_COMPLETED', timestamp: new Date().toISOString() },
    artifacts: [{ artifactId: `${id}-a`, parts: [{ text }] }],
  };
}

async function scriptedAgent(): Promise<ScriptedAgent> {
  const received: Received[] = [];
  let url = '';
  let sent = 0;
  const agent: ScriptedAgent = { url: '', received, script: [], tasks: new Map(), close: () => Promise.resolve() };
  const card = (): AgentCard => ({
    name: 'scripted',
    description: 'answers as the test scripts it',
    supportedInterfaces: [{ url: `${url}/rpc`, protocolBinding: 'JSONRPC', protocolVersion: '1.0' }],
    version: '1.0.0',
    capabilities: { streaming: false },
    defaultInputModes: ['text/plain'],
    defaultOutputModes: ['text/plain'],
    skills: [{ id: 'answer', name: 'answer', description: 'Answers.', tags: ['test'] }],
  });
  const server: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
    if (req.method === 'GET') {
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(card()));
      return;
    }
    let text = '';
    req.on('data', (chunk: Buffer) => (text += chunk.toString()));
    req.on('end', () => {
      const envelope = JSON.parse(text) as { id: unknown; method: string; params: Received['params'] };
      const authorization = req.headers.authorization;
      received.push({ method: envelope.method, params: envelope.params, authorization });
      const json = (body: unknown): void =>
        void res
          .writeHead(200, { 'content-type': 'application/json' })
          .end(JSON.stringify({ jsonrpc: '2.0', id: envelope.id, ...(body as object) }));
      if (envelope.method !== 'SendMessage') {
        const known = agent.tasks.get(String((envelope.params as { id?: unknown }).id));
        json(known === undefined ? { error: { code: -32001, message: 'no such task' } } : { result: known });
        return;
      }
      const answer = agent.script.shift();
      if (answer !== undefined && 'status' in answer) {
        res.writeHead(answer.status, { 'content-type': 'text/plain' }).end(answer.body);
        return;
      }
      sent += 1;
      const contextId = envelope.params.message?.contextId ?? `ctx-${sent}`;
      json({ result: answer?.result ?? { task: completedTask(`task-${sent}`, contextId, `answer ${sent}`) } });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return Object.assign(agent, {
    url,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  });
}

let agent: ScriptedAgent;
let hub: TestHub;
beforeAll(async () => {
  agent = await scriptedAgent();
  hub = await startLocalHub();
  await createOutbound(hub.url, 'scripted', `${agent.url}/agent-card.json`);
});
afterAll(async () => {
  await hub.dispose();
  await agent.close();
});

const sendMessages = (): Received[] => agent.received.filter((entry) => entry.method === 'SendMessage');

describe('a tool call to an agent that does not stream', () => {
  it('checked the endpoint when connecting, without a token', () => {
    expect(agent.received[0]).toMatchObject({ method: 'GetTask', authorization: undefined });
  });

  it('retries a 503 and then succeeds', async () => {
    const before = sendMessages().length;
    agent.script = [{ status: 503, body: 'busy, come back later' }];
    const result = await hub.tools.call('a2a__scripted__answer', { prompt: 'please' });
    expect(result).toMatchObject({ state: 'TASK_STATE_COMPLETED', text: expect.stringMatching(/^answer \d+$/) as unknown });
    expect(sendMessages().length - before).toBe(2);
  });

  it('does not retry a 400: the call fails with the status', async () => {
    const before = sendMessages().length;
    agent.script = [{ status: 400, body: 'no' }];
    const error: unknown = await hub.tools.call('a2a__scripted__answer', { prompt: 'please' }).catch((reason: unknown) => reason);
    expect(error).toBeInstanceOf(ToolError);
    expect(error).toMatchObject({ kind: 'remote-error' });
    expect((error as ToolError).message).toMatch(/^the remote agent of tool a2a__scripted__answer could not be used: .*HTTP 400/);
    expect(sendMessages().length - before).toBe(1);
  });

  it('sends the prompt with metadata.skill, and the contextId of the first answer on later calls of the same caller', async () => {
    const before = sendMessages().length;
    const first = await hub.tools.call('a2a__scripted__answer', { prompt: 'one' }, { callerId: 'dora' });
    await hub.tools.call('a2a__scripted__answer', { prompt: 'two' }, { callerId: 'dora' });
    await hub.tools.call('a2a__scripted__answer', { prompt: 'three' }, { callerId: 'eve' });
    const [one, two, three] = sendMessages().slice(before);
    expect(one?.params.message).toMatchObject({ metadata: { skill: 'answer' }, parts: [{ text: 'one' }] });
    expect(one?.params.message?.contextId).toBeUndefined();
    expect(two?.params.message?.contextId).toBe(first.contextId);
    expect(three?.params.message?.contextId).toBeUndefined();
  });

  it('a remote that answers with a task still WORKING is polled to its end', async () => {
    const working: Task = { id: 'task-polled', contextId: 'ctx-polled', status: { state: 'TASK_STATE_WORKING' } };
    agent.script = [{ result: { task: working } }];
    // GetTask answers TaskNotFound: the poll fails, and says so.
    const error: unknown = await hub.tools.call('a2a__scripted__answer', { prompt: 'slow' }).catch((reason: unknown) => reason);
    expect(error).toMatchObject({ kind: 'remote-error', message: expect.stringMatching(/no such task/) as unknown });
    expect(agent.received.at(-1)).toMatchObject({ method: 'GetTask', params: { id: 'task-polled' } });
  });

  it('a continuation answered with the status the caller already saw is followed to the new one', async () => {
    const question: Task = {
      id: 'task-continued',
      contextId: 'ctx-continued',
      status: {
        state: 'TASK_STATE_INPUT_REQUIRED',
        timestamp: '2026-01-01T00:00:00.000Z',
        message: { messageId: 'q', role: 'ROLE_AGENT', parts: [{ text: 'Which city?' }] },
      },
    };
    agent.script = [{ result: { task: question } }, { result: { task: question } }];
    const asked = await hub.tools.call('a2a__scripted__answer', { prompt: 'weather' });
    expect(asked).toMatchObject({ state: 'TASK_STATE_INPUT_REQUIRED', taskId: 'task-continued' });
    expect(asked.text).toContain('It says: "Which city?"');
    // The second SendMessage answers with the old snapshot; only GetTask shows the answer was taken.
    agent.tasks.set('task-continued', completedTask('task-continued', 'ctx-continued', 'sunny in Lisbon'));
    const continued = await hub.tools.call('a2a__scripted__answer', { prompt: 'Lisbon', taskId: 'task-continued' });
    expect(continued).toMatchObject({ state: 'TASK_STATE_COMPLETED', taskId: 'task-continued', text: 'sunny in Lisbon' });
    expect(agent.received.at(-2)?.params.message).toMatchObject({ taskId: 'task-continued', parts: [{ text: 'Lisbon' }] });
    expect(agent.received.at(-1)).toMatchObject({ method: 'GetTask', params: { id: 'task-continued' } });
  });

  it('removing the connection removes its tool', async () => {
    const id = hub.tools.get('a2a__scripted__answer')?.connectionId ?? '';
    await ok(hub.url, { action: 'outbound.remove', id });
    expect(hub.tools.get('a2a__scripted__answer')).toBeUndefined();
  });
});
