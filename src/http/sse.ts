import { PassThrough } from 'node:stream';
import type { Context } from 'koa';
import { MEDIA_TYPES } from '../../generated/a2a/1.0/protocol.js';

export interface SseStream {
  /** Writes one event (of type `event`, default `message`); resolves when the client has taken it (backpressure) or is gone. */
  send(data: string, id?: number, event?: string): Promise<void>;
  end(): void;
  readonly closed: boolean;
  /** Called once when the stream ends for any reason: finished, client gone or server shutdown. */
  onClose(listener: () => void): void;
}

/**
 * Turns a Koa response into a Server-Sent Events stream. Headers go out at once, heartbeats
 * keep proxies from timing out, writes wait for `drain` so a slow reader does not buffer the
 * whole stream in memory, and a client disconnect is reported without cancelling anything.
 */
export function openSse(ctx: Context, heartbeatMs: number, headers: Record<string, string> = {}): SseStream {
  const body = new PassThrough();
  const listeners: (() => void)[] = [];
  let closed = false;
  ctx.status = 200;
  // A Cache-Control already set (no-store on an answer carrying a secret) replaces no-cache, but
  // a stream must never be transformed (compressed, buffered) by a proxy, so no-transform stays.
  const { 'Cache-Control': given = ctx.response.get('Cache-Control') || 'no-cache', ...rest } = headers;
  ctx.set({
    'Content-Type': `${MEDIA_TYPES.eventStream}; charset=utf-8`,
    'Cache-Control': `${given}, no-transform`,
    Connection: 'keep-alive',
    'X-Accel-Buffering': 'no',
    ...rest,
  });
  ctx.body = body;
  ctx.req.socket.setTimeout(0);
  ctx.req.socket.setNoDelay(true);
  ctx.req.socket.setKeepAlive(true);
  ctx.flushHeaders();
  const heartbeat = setInterval(() => {
    if (!closed) body.write(': keep-alive\n\n');
  }, heartbeatMs);
  heartbeat.unref();
  const close = (): void => {
    if (closed) return;
    closed = true;
    clearInterval(heartbeat);
    for (const listener of listeners.splice(0)) listener();
  };
  // The response closing before it finished writing means the client went away.
  ctx.res.once('close', close);
  body.once('close', close);
  const socket = ctx.req.socket;
  let corked = false;
  return {
    get closed() {
      return closed;
    },
    async send(data: string, id?: number, event?: string): Promise<void> {
      if (closed) return;
      // The frames of one commit arrive together (a whole echo reply, say): hold them until the
      // turn ends so they leave in one write, not one packet each (Nagle is off for SSE).
      if (!corked) {
        corked = true;
        socket.cork();
        setImmediate(() => {
          corked = false;
          socket.uncork();
        });
      }
      const lines = data
        .split('\n')
        .map((line) => `data: ${line}`)
        .join('\n');
      const ok = body.write(`${event === undefined ? '' : `event: ${event}\n`}${id === undefined ? '' : `id: ${id}\n`}${lines}\n\n`);
      if (ok) return;
      await new Promise<void>((resolve) => {
        const done = (): void => {
          body.off('drain', done);
          listeners.splice(listeners.indexOf(done) >>> 0, 1);
          resolve();
        };
        body.once('drain', done);
        listeners.push(done);
      });
    },
    end(): void {
      if (closed) return;
      body.end();
      close();
    },
    onClose(listener: () => void): void {
      if (closed) listener();
      else listeners.push(listener);
    },
  };
}
