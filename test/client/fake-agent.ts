import { createServer, type IncomingHttpHeaders, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { AgentCard, StreamResponse, Task, TaskState } from '../../generated/a2a/1.0/types.js';

/** A scripted A2A agent on 127.0.0.1 for fault tests: a valid card, then `handler` for every JSON-RPC POST. */

export interface RpcCall {
  readonly method: string;
  readonly params: Record<string, unknown>;
  readonly id: unknown;
  readonly headers: IncomingHttpHeaders;
}

export type RpcHandler = (call: RpcCall, res: ServerResponse, index: number) => void | Promise<void>;

export interface FakeAgent {
  readonly url: string;
  readonly calls: RpcCall[];
  methods(): string[];
  close(): Promise<void>;
}

export async function fakeAgent(handler: RpcHandler): Promise<FakeAgent> {
  const calls: RpcCall[] = [];
  let base = '';
  const server: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
    if (req.method === 'GET') {
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(fakeCard(`${base}/rpc`)));
      return;
    }
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    req.on('end', () => {
      const envelope = JSON.parse(body) as { id: unknown; method: string; params: Record<string, unknown> };
      const call: RpcCall = { method: envelope.method, params: envelope.params, id: envelope.id, headers: req.headers };
      calls.push(call);
      void handler(call, res, calls.length - 1);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url: base,
    calls,
    methods: () => calls.map((call) => call.method),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A valid card whose one JSONRPC interface is `rpcUrl`. */
export function fakeCard(rpcUrl: string): AgentCard {
  return {
    name: 'fake',
    description: 'a scripted agent',
    supportedInterfaces: [{ url: rpcUrl, protocolBinding: 'JSONRPC', protocolVersion: '1.0' }],
    version: '1',
    capabilities: { streaming: true },
    defaultInputModes: ['text/plain'],
    defaultOutputModes: ['text/plain'],
    skills: [{ id: 's', name: 's', description: 's', tags: ['s'] }],
  };
}

export function reply(res: ServerResponse, call: RpcCall, result: unknown): void {
  res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ jsonrpc: '2.0', id: call.id, result }));
}

export function replyError(res: ServerResponse, call: RpcCall, code: number, message: string): void {
  res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ jsonrpc: '2.0', id: call.id, error: { code, message } }));
}

export interface SseFrame {
  readonly id?: string;
  readonly result: StreamResponse | Record<string, unknown>;
}

/** Opens an event stream and writes `frames`. */
export function openSse(res: ServerResponse, call: RpcCall, frames: readonly SseFrame[]): void {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  for (const frame of frames) {
    res.write(
      `${frame.id === undefined ? '' : `id: ${frame.id}\n`}data: ${JSON.stringify({ jsonrpc: '2.0', id: call.id, result: frame.result })}\n\n`,
    );
  }
}

/** Breaks the connection mid-stream, after what was written has had time to reach the client. */
export function dropLater(res: ServerResponse, ms = 50): void {
  setTimeout(() => res.socket?.destroy(), ms);
}

export const TASK_ID = 't1';
export const CONTEXT_ID = 'c1';

export function taskFrame(state: TaskState, artifactText?: string): StreamResponse {
  const task: Task = { id: TASK_ID, contextId: CONTEXT_ID, status: { state } };
  if (artifactText !== undefined) task.artifacts = [{ artifactId: 'a1', parts: [{ text: artifactText }] }];
  return { task };
}

export function statusFrame(state: TaskState): StreamResponse {
  return { statusUpdate: { taskId: TASK_ID, contextId: CONTEXT_ID, status: { state } } };
}

export function chunkFrame(text: string, append: boolean, lastChunk = false): StreamResponse {
  return {
    artifactUpdate: { taskId: TASK_ID, contextId: CONTEXT_ID, artifact: { artifactId: 'a1', parts: [{ text }] }, append, lastChunk },
  };
}

/** Runs `body` against a fake agent and closes it afterwards, whatever happens. */
export async function withFake(handler: RpcHandler, body: (fake: FakeAgent) => Promise<void>): Promise<void> {
  const fake = await fakeAgent(handler);
  try {
    await body(fake);
  } finally {
    await fake.close();
  }
}
