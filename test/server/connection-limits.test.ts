import { connect, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { ERRORS } from '../../generated/a2a/1.0/errors.js';
import { testDirectiveMetadata } from '../../generated/hub/test-directives.js';
import type { HubOptions } from '../../src/hub.js';
import { ConfigError } from '../../src/config.js';
import { stream, userMessage } from '../helpers/a2a-client.js';
import { errorInfoOf } from '../helpers/errors.js';
import { startTestHub, type TestHub } from '../helpers/hub.js';

/**
 * What one client cannot take from the others: connections beyond its share (or beyond the
 * hub's) are answered at once with why and closed; a connection that sends nothing, a request
 * whose head or body crawls in, is cut in bounded time. Long answers (a blocking send, a stream)
 * are not requests arriving, and are never cut.
 */
let hub: TestHub | undefined;
const sockets: Socket[] = [];

afterEach(async () => {
  for (const socket of sockets.splice(0)) socket.destroy();
  await hub?.dispose();
  hub = undefined;
});

async function start(connections: HubOptions['connections']): Promise<TestHub> {
  hub = await startTestHub({ connections });
  return hub;
}

/** A raw connection from `localAddress` (127.0.0.x is a source of its own), collecting what it reads until it closes. */
function open(localAddress = '127.0.0.1'): Promise<{ socket: Socket; text: () => string; closed: Promise<void> }> {
  const { port } = new URL(hub?.url ?? '');
  return new Promise((resolve, reject) => {
    let text = '';
    const socket = connect({ port: Number(port), host: '127.0.0.1', localAddress });
    sockets.push(socket);
    socket.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
    const closed = new Promise<void>((done) => socket.once('close', () => done()));
    socket.once('error', reject);
    socket.once('connect', () => resolve({ socket, text: () => text, closed }));
  });
}

/** GETs `path` on an open connection (keep-alive), resolving with the status line and the body it got. */
async function get(connection: { socket: Socket; text: () => string }, path: string): Promise<{ status: string; body: string }> {
  const before = connection.text().length;
  connection.socket.write(`GET ${path} HTTP/1.1\r\nHost: x\r\n\r\n`);
  for (let waited = 0; waited < 5000; waited += 10) {
    const got = connection.text().slice(before);
    const end = got.indexOf('\r\n\r\n');
    const length = Number(/\r\ncontent-length: (\d+)/i.exec(got)?.[1] ?? -1);
    if (end !== -1 && length >= 0 && got.length >= end + 4 + length)
      return { status: got.split('\r\n')[0] ?? '', body: got.slice(end + 4, end + 4 + length) };
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error(`no answer to ${path}`);
}

/** Asks /livez on an open connection, resolving with the status line it got. */
async function livez(connection: { socket: Socket; text: () => string }): Promise<string> {
  return (await get(connection, '/livez')).status;
}

function refusalOf(text: string): { status: number; reason: string; retryAfter: string | undefined } {
  const [head = '', body = ''] = text.split('\r\n\r\n');
  const status = Number(head.split(' ')[1]);
  const retryAfter = /\r\nRetry-After: (\d+)/i.exec(head)?.[1];
  const error = (JSON.parse(body) as { error: { details: unknown[] } }).error;
  return { status, reason: errorInfoOf(error.details).reason, retryAfter };
}

describe('connection limits', () => {
  it('answers a source over its share RateLimitedError and closes it, while another source and a freed slot get in', async () => {
    await start({ perSource: 4 });
    const held = await Promise.all(Array.from({ length: 4 }, () => open()));
    for (const connection of held) expect(await livez(connection)).toBe('HTTP/1.1 200 OK');
    const refused = await open();
    await refused.closed;
    expect(refusalOf(refused.text())).toEqual({ status: 429, reason: ERRORS.RateLimitedError.reason, retryAfter: '1' });
    // Another address is not held to this one's share.
    expect(await livez(await open('127.0.0.2'))).toBe('HTTP/1.1 200 OK');
    const metrics = JSON.parse((await get(held[1]!, '/a2a/api/metrics?format=json')).body) as {
      connections: { open: number; refused: number };
    };
    expect(metrics.connections).toEqual({ open: 5, refused: 1 });
    held[0]?.socket.destroy();
    await held[0]?.closed;
    expect(await livez(await open())).toBe('HTTP/1.1 200 OK');
  });

  it('answers a connection over the hub’s limit OverloadedError (503) and closes it', async () => {
    await start({ max: 3, perSource: 0 });
    const held = await Promise.all([open(), open('127.0.0.2'), open('127.0.0.3')]);
    for (const connection of held) expect(await livez(connection)).toBe('HTTP/1.1 200 OK');
    const refused = await open('127.0.0.4');
    await refused.closed;
    expect(refusalOf(refused.text())).toEqual({ status: 503, reason: ERRORS.OverloadedError.reason, retryAfter: '1' });
  });

  it('holds a flood of idle connections from one source to its share, and serves others meanwhile', async () => {
    await start({ perSource: 50 });
    const flood = await Promise.all(Array.from({ length: 200 }, () => open()));
    await new Promise((resolve) => setTimeout(resolve, 200));
    const closedByHub = flood.filter((connection) => connection.socket.destroyed || connection.text() !== '').length;
    expect(closedByHub).toBe(150);
    expect(await livez(await open('127.0.0.2'))).toBe('HTTP/1.1 200 OK');
  });

  it('closes a connection that sends nothing once headersTimeoutMs has passed, with 408', async () => {
    await start({ headersTimeoutMs: 300, requestTimeoutMs: 600 });
    const idle = await open();
    await idle.closed;
    expect(idle.text()).toMatch(/^HTTP\/1\.1 408 /);
  });

  it('cuts a body that stalls after bodyIdleTimeoutMs with RequestTimeoutError, and one that crawls after requestTimeoutMs', async () => {
    await start({ bodyIdleTimeoutMs: 300, requestTimeoutMs: 1500, headersTimeoutMs: 1000 });
    const stalled = await open();
    stalled.socket.write(
      'POST /a2a/default HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nA2A-Version: 1.0\r\nContent-Length: 100\r\n\r\n{"jsonrpc"',
    );
    await stalled.closed;
    const [head = '', body = ''] = stalled.text().split('\r\n\r\n');
    expect(head).toMatch(/^HTTP\/1\.1 408 /);
    expect((JSON.parse(body) as { error: { data: unknown[] } }).error.data).toEqual([
      expect.objectContaining({ reason: ERRORS.RequestTimeoutError.reason }),
    ]);

    const crawling = await open();
    crawling.socket.write('POST /a2a/default HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n');
    const drip = setInterval(() => crawling.socket.write(' '), 100);
    const started = Date.now();
    await crawling.closed;
    clearInterval(drip);
    expect(crawling.text()).toMatch(/^HTTP\/1\.1 408 /);
    // Node checks once a second: cut between the limit and a check later.
    expect(Date.now() - started).toBeLessThan(1500 + 2500);
  });

  it('never cuts an answer that takes long: a blocking send and a stream longer than requestTimeoutMs', async () => {
    const started = await start({ requestTimeoutMs: 400, headersTimeoutMs: 300, bodyIdleTimeoutMs: 300 });
    const message = userMessage('slow', { metadata: testDirectiveMetadata({ steps: 6, stepMs: 200 }) });
    const response = await fetch(started.endpoint, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'a2a-version': '1.0' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'SendMessage', params: { message } }),
    });
    expect(((await response.json()) as { result: { task: { status: { state: string } } } }).result.task.status.state).toBe(
      'TASK_STATE_COMPLETED',
    );
    const streamed = await stream(started.endpoint, 'SendStreamingMessage', {
      message: userMessage('slow', { metadata: testDirectiveMetadata({ steps: 6, stepMs: 200 }) }),
    });
    expect(streamed.events.at(-1)?.frame.task?.status.state).toBe('TASK_STATE_COMPLETED');
  });

  it('refuses a requestTimeoutMs below headersTimeoutMs when the hub starts', async () => {
    await expect(startTestHub({ connections: { requestTimeoutMs: 1000, headersTimeoutMs: 2000 } })).rejects.toThrow(ConfigError);
  });
});
