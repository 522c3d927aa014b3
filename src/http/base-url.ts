import type { Socket } from 'node:net';
import { trimTrailing } from '../support/trim.js';

/** What a base URL is read from: Koa's context, or node's request on the card fast path (card-fast-path.ts). */
export interface RequestOrigin {
  /** A request header, '' when absent. */
  get(name: string): string;
  readonly socket: Pick<Socket, 'localAddress' | 'localPort'> & { readonly encrypted?: boolean };
}

export interface BaseUrlOptions {
  /** Honour X-Forwarded-Proto and X-Forwarded-Host (only behind a proxy you control). */
  readonly trustProxy: boolean;
  /** A fixed public URL, e.g. https://agents.example.com, overriding what the request says. */
  readonly publicUrl?: string;
}

/** Scheme, host and port the client used to reach us: the base of the URLs in agent cards. */
export function baseUrlOf(ctx: RequestOrigin, options: BaseUrlOptions): string {
  return originOf(ctx, options).baseUrl;
}

/**
 * The base URL, and whether forwarded headers shaped it: a card built from them must not be
 * cached as public, since a shared cache keys by the URL asked, not by those headers.
 */
export function originOf(ctx: RequestOrigin, options: BaseUrlOptions): { readonly baseUrl: string; readonly forwarded: boolean } {
  if (options.publicUrl) return { baseUrl: trimTrailing(options.publicUrl, '/'), forwarded: false };
  const forwardedProto = options.trustProxy ? first(ctx.get('x-forwarded-proto')) : '';
  const forwardedHost = options.trustProxy ? first(ctx.get('x-forwarded-host')) : '';
  // A forwarded scheme other than http or https is ignored, as an untrusted one is.
  const protoForwarded = /^https?$/i.test(forwardedProto);
  const hostForwarded = forwardedHost !== '' && isHost(forwardedHost);
  const proto = protoForwarded ? forwardedProto.toLowerCase() : ctx.socket.encrypted === true ? 'https' : 'http';
  const host = hostForwarded ? forwardedHost : ctx.get('host');
  const fallback = `${ctx.socket.localAddress?.includes(':') ? `[${ctx.socket.localAddress}]` : (ctx.socket.localAddress ?? '127.0.0.1')}:${ctx.socket.localPort ?? ''}`;
  return { baseUrl: `${proto}://${isHost(host) ? host : fallback}`, forwarded: protoForwarded || hostForwarded };
}

function first(header: string): string {
  return (header.split(',')[0] ?? '').trim();
}

/** A Host header value we are willing to put into a URL: host or [v6], optional port. */
function isHost(value: string): boolean {
  return /^(?:[A-Za-z0-9.-]+|\[[0-9A-Fa-f:.]+\])(?::\d{1,5})?$/.test(value);
}
