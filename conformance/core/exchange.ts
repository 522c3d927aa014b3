import { HEADERS } from '../../generated/a2a/1.0/protocol.js';

/** One HTTP request the suite sent and what came back: the evidence behind a finding. */
export interface Exchange {
  readonly request: {
    readonly method: string;
    readonly url: string;
    readonly headers: Readonly<Record<string, string>>;
    readonly body?: string;
  };
  /** 0 when no response arrived (connection refused, reset or timed out). */
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  readonly bodyText: string;
  /** The body parsed as JSON, when it was JSON. */
  readonly json?: unknown;
  /** Why no response arrived, when none did. */
  readonly transportError?: string;
  readonly durationMs: number;
}

/** A copy-pasteable curl command that sends the same request. */
export function curlOf(exchange: Pick<Exchange, 'request'>): string {
  const { method, url, headers, body } = exchange.request;
  const parts = ['curl', '-sS', '-N'];
  if (method !== 'GET') parts.push('-X', method);
  parts.push(shellQuote(url));
  for (const [name, value] of Object.entries(headers)) {
    const shown = /^authorization$/i.test(name) ? maskedCredentials(value) : value;
    parts.push('-H', shellQuote(`${name}: ${shown}`));
  }
  if (body !== undefined) parts.push('--data-raw', shellQuote(body));
  return parts.join(' ');
}

function shellQuote(text: string): string {
  return `'${text.replaceAll("'", `'\\''`)}'`;
}

export function headersOf(headers: Headers): Record<string, string> {
  const record: Record<string, string> = {};
  headers.forEach((value, name) => (record[name.toLowerCase()] = value));
  return record;
}

/** The A2A service-parameter headers as the suite sends them: lowercase, so that a check's own spelling of one replaces the default instead of joining it. */
export const VERSION_HEADER = HEADERS.version.toLowerCase();
export const EXTENSIONS_HEADER = HEADERS.extensions.toLowerCase();

/** `Bearer abc…` → `Bearer <token>`: the scheme kept, the credentials never shown. */
function maskedCredentials(value: string): string {
  const space = value.search(/\s/);
  return space === -1 ? value : `${value.slice(0, space)} <token>`;
}
