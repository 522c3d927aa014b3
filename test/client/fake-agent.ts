import { createServer, type IncomingHttpHeaders, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { AgentCard, StreamResponse, Task, TaskState } from '../../generated/a2a/1.0/types.js';

/** Scripted A2A agents on 127.0.0.1 for fault tests: a valid card, then `handler` for every JSON-RPC POST (fakeAgent) or HTTP+JSON request (fakeRestAgent). */

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

/** `card` may change the card of the JSON-RPC interface at `<url>/rpc`, e.g. to add a tenant. */
export async function fakeAgent(handler: RpcHandler, card: (rpcUrl: string) => AgentCard = fakeCard): Promise<FakeAgent> {
  const calls: RpcCall[] = [];
  const listening = await listenFake(
    (base) => card(`${base}/rpc`),
    (req, res, body) => {
      const envelope = JSON.parse(body) as { id: unknown; method: string; params: Record<string, unknown> };
      const call: RpcCall = { method: envelope.method, params: envelope.params, id: envelope.id, headers: req.headers };
      calls.push(call);
      void handler(call, res, calls.length - 1);
    },
  );
  return { ...listening, calls, methods: () => calls.map((call) => call.method) };
}

/** One request to the fake HTTP+JSON agent, below its interface URL. */
export interface RestCall {
  readonly verb: string;
  /** The path below the interface URL (any other path as it is), still percent-encoded, without the query. */
  readonly path: string;
  readonly query: URLSearchParams;
  /** The parsed body, undefined when there was none. */
  readonly body: unknown;
  readonly headers: IncomingHttpHeaders;
}

export type RestHandler = (call: RestCall, res: ServerResponse, index: number) => void | Promise<void>;

export interface FakeRestAgent {
  readonly url: string;
  /** The HTTP+JSON interface URL its card declares. */
  readonly interfaceUrl: string;
  readonly calls: RestCall[];
  close(): Promise<void>;
}

export const FAKE_REST_PATH = '/rest';

/**
 * The HTTP+JSON sibling of fakeAgent: a card whose only interface is HTTP+JSON at
 * `<url>/rest` (`card` may change it, e.g. to add a tenant), then `handler` for every request below it.
 */
export async function fakeRestAgent(
  handler: RestHandler,
  card: (interfaceUrl: string) => AgentCard = fakeRestCard,
): Promise<FakeRestAgent> {
  const calls: RestCall[] = [];
  const listening = await listenFake(
    (base) => card(`${base}${FAKE_REST_PATH}`),
    (req, res, body) => {
      const url = new URL(req.url ?? '/', 'http://fake');
      const call: RestCall = {
        verb: req.method ?? '',
        path: url.pathname.startsWith(`${FAKE_REST_PATH}/`) ? url.pathname.slice(FAKE_REST_PATH.length) : url.pathname,
        query: url.searchParams,
        body: body === '' ? undefined : (JSON.parse(body) as unknown),
        headers: req.headers,
      };
      calls.push(call);
      void handler(call, res, calls.length - 1);
    },
  );
  return { ...listening, interfaceUrl: `${listening.url}${FAKE_REST_PATH}`, calls };
}

/** A valid card whose one interface is HTTP+JSON at `interfaceUrl` (an Awaken-style REST-only agent). */
export function fakeRestCard(interfaceUrl: string): AgentCard {
  return { ...fakeCard(interfaceUrl), supportedInterfaces: [{ url: interfaceUrl, protocolBinding: 'HTTP+JSON', protocolVersion: '1.0' }] };
}

/** A JSON answer of the HTTP+JSON binding. */
export function replyRest(res: ServerResponse, body: unknown, status = 200): void {
  res.writeHead(status, { 'content-type': 'application/a2a+json' }).end(JSON.stringify(body));
}

/** Opens an event stream of bare StreamResponse frames (the HTTP+JSON binding's SSE). */
export function openRestSse(
  res: ServerResponse,
  frames: readonly { readonly id?: string; readonly frame: unknown; readonly event?: string }[],
): void {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  for (const { id, frame, event } of frames) {
    res.write(
      `${id === undefined ? '' : `id: ${id}\n`}${event === undefined ? '' : `event: ${event}\n`}data: ${JSON.stringify(frame)}\n\n`,
    );
  }
}

/** A card served on every GET outside the interface, `onRequest` for everything else. */
async function listenFake(
  card: (base: string) => AgentCard,
  onRequest: (req: IncomingMessage, res: ServerResponse, body: string) => void,
): Promise<{ readonly url: string; close(): Promise<void> }> {
  let base = '';
  const server: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const served = card(base);
    const isCall = served.supportedInterfaces.some(
      (entry) => entry.protocolBinding !== 'JSONRPC' && (req.url ?? '').startsWith(new URL(entry.url).pathname),
    );
    if (req.method === 'GET' && !isCall) {
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(served));
      return;
    }
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    req.on('end', () => onRequest(req, res, body));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url: base,
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
