import { IncomingMessage, ServerResponse } from 'node:http';
import { Socket } from 'node:net';
import Koa from 'koa';
import { expect } from 'vitest';

export interface FakeRequest {
  readonly method?: string;
  readonly path?: string;
  readonly headers?: Record<string, string>;
  readonly body?: string;
  readonly trustProxy?: boolean;
}

export interface FakeAnswer {
  readonly status: number;
  readonly headers: Readonly<Record<string, unknown>>;
  /** Parsed when the answer is JSON, else as sent. */
  readonly body: unknown;
}

/**
 * Runs one request through `middleware` as if it came from `remoteAddress`: an in-process
 * IncomingMessage over a `net.Socket` whose remoteAddress is stubbed, so a peer that is not
 * loopback can be simulated without sending traffic to any interface.
 */
export async function askAs(remoteAddress: string, middleware: Koa.Middleware, options: FakeRequest = {}): Promise<FakeAnswer> {
  const app = new Koa();
  app.proxy = options.trustProxy ?? false;
  const socket = new Socket();
  Object.defineProperty(socket, 'remoteAddress', { get: () => remoteAddress, configurable: true });
  try {
    const request = new IncomingMessage(socket);
    request.method = options.method ?? 'GET';
    request.url = options.path ?? '/';
    request.headers = { host: 'hub.test', ...options.headers };
    if (options.body !== undefined) {
      request.headers['content-type'] = 'application/json';
      request.headers['content-length'] = String(Buffer.byteLength(options.body));
      request.push(options.body);
    }
    request.push(null);
    const response = new ServerResponse(request);
    const ctx = app.createContext(request, response);
    expect(ctx.socket.remoteAddress).toBe(remoteAddress);
    await middleware(ctx, () => Promise.resolve());
    const json = typeof ctx.body === 'string' && ctx.response.is('json') !== false;
    return { status: ctx.status, headers: ctx.response.headers, body: json ? (JSON.parse(ctx.body as string) as unknown) : ctx.body };
  } finally {
    socket.destroy();
  }
}
