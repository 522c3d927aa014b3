import { HEADERS, PROTOCOL_VERSION } from '../../generated/a2a/1.0/protocol.js';
import { setOwn } from '../support/own-property.js';
import type { TransportOptions } from './http-transport.js';

/**
 * What every request of the client shares, whichever module sends it (card resolver or a
 * binding): credentials, extra headers, timeout and retries. Kept apart from ConnectOptions so
 * that those modules need not import the client that uses them.
 */

export interface RequestOptions extends TransportOptions {
  /** Sent as `Authorization: Bearer <token>` on every request (card fetch included). */
  readonly token?: string | undefined;
  /** Extra headers sent on every request. */
  readonly headers?: Readonly<Record<string, string>>;
  /** Per-call timeout in ms (for streams: until the response headers arrive). Default 30000. */
  readonly timeoutMs?: number;
  /** Retries after a transport error or HTTP 5xx without an A2A error body (never after 4xx or A2A error answers). Default 2. */
  readonly retries?: number;
  /** Base of the jittered exponential backoff in ms. Default 250. */
  readonly retryBaseMs?: number;
}

export const DEFAULT_TIMEOUT_MS = 30_000;
export const DEFAULT_RETRIES = 2;
export const DEFAULT_RETRY_BASE_MS = 250;

/**
 * The version header, then the caller's headers and token, which may override it. Names are
 * lowercased: HTTP compares them case-insensitively, and an override spelled `A2A-Version` must
 * replace the default rather than travel beside it.
 */
export function requestHeaders(options: RequestOptions): Record<string, string> {
  const headers: Record<string, string> = { [HEADERS.version.toLowerCase()]: PROTOCOL_VERSION };
  for (const [name, value] of Object.entries(options.headers ?? {})) setOwn(headers, name.toLowerCase(), value);
  if (options.token !== undefined) headers['authorization'] = `Bearer ${options.token}`;
  return headers;
}
