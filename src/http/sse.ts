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
 * Turns a Koa response into a Server-Sent Events stream. Headers go out with the first
 * frames, at the latest when the current turn of the event loop ends; heartbeats
 * keep proxies from timing out, writes wait for `drain` so a slow reader does not buffer the
 * whole stream in memory, and a client disconnect is reported without cancelling anything.
 *
 * Events are written to node's response itself (Koa is told not to respond): a stream body
 * would go through Koa's pipeline, whose abort signal builds a DOMException, stack trace and
 * all, every time a stream ends (3 % of a streaming hub's time, docs/performance.md).
 */
export function openSse(ctx: Context, heartbeatMs: number, headers: Record<string, string> = {}): SseStream {
  const body = ctx.res;
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
  ctx.respond = false;
  ctx.req.socket.setTimeout(0);
  ctx.req.socket.setNoDelay(true);
  ctx.req.socket.setKeepAlive(true);
  const socket = ctx.req.socket;
  let corked = false;
  // The frames of one commit arrive together (a whole echo reply, say): hold them until the
  // turn ends so they leave in one write, not one packet each (Nagle is off for SSE). The
  // headers wait with them: a write of their own cost 8 % of a streaming hub's time.
  const holdUntilTurnEnds = (): void => {
    if (corked) return;
    corked = true;
    socket.cork();
    setImmediate(() => {
      corked = false;
      socket.uncork();
    });
  };
  holdUntilTurnEnds();
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
  // The response closes once it has ended, or when the client went away before.
  body.once('close', close);
  return {
    get closed() {
      return closed;
    },
    async send(data: string, id?: number, event?: string): Promise<void> {
      if (closed) return;
      holdUntilTurnEnds();
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
