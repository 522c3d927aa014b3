import type { Context } from 'koa';

export interface BaseUrlOptions {
  /** Honour X-Forwarded-Proto and X-Forwarded-Host (only behind a proxy you control). */
  readonly trustProxy: boolean;
  /** A fixed public URL, e.g. https://agents.example.com, overriding what the request says. */
  readonly publicUrl?: string;
}

/** Scheme, host and port the client used to reach us: the base of the URLs in agent cards. */
export function baseUrlOf(ctx: Context, options: BaseUrlOptions): string {
  if (options.publicUrl) return options.publicUrl.replace(/\/+$/, '');
  const forwardedProto = options.trustProxy ? first(ctx.get('x-forwarded-proto')) : '';
  const forwardedHost = options.trustProxy ? first(ctx.get('x-forwarded-host')) : '';
  const proto = /^https?$/i.test(forwardedProto) ? forwardedProto.toLowerCase() : ctx.protocol;
  const host = forwardedHost !== '' && isHost(forwardedHost) ? forwardedHost : ctx.get('host');
  const fallback = `${ctx.socket.localAddress?.includes(':') ? `[${ctx.socket.localAddress}]` : (ctx.socket.localAddress ?? '127.0.0.1')}:${ctx.socket.localPort ?? ''}`;
  return `${proto}://${isHost(host) ? host : fallback}`;
}

function first(header: string): string {
  return (header.split(',')[0] ?? '').trim();
}

/** A Host header value we are willing to put into a URL: host or [v6], optional port. */
function isHost(value: string): boolean {
  return /^(?:[A-Za-z0-9.-]+|\[[0-9A-Fa-f:.]+\])(?::\d{1,5})?$/.test(value);
}
