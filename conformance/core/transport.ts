import type { MethodName, MethodTypes, StreamingMethodName } from '../../generated/a2a/1.0/methods.js';
import type { StreamResponse } from '../../generated/a2a/1.0/types.js';
import type { Exchange } from './exchange.js';

/** An SSE event as it arrived, before any interpretation. */
export interface SseEvent {
  readonly id?: string;
  readonly event?: string;
  readonly data: string;
  /** The data parsed as JSON, when it was JSON. */
  readonly json?: unknown;
  /** The StreamResponse carried by the event (JSON-RPC: `result`; HTTP+JSON: the body). */
  readonly frame?: StreamResponse;
  /** A JSON-RPC error sent in the stream instead of a frame. */
  readonly error?: { code: number; message: string; data?: unknown };
  readonly receivedAtMs: number;
}

export interface StreamExchange extends Exchange {
  readonly events: readonly SseEvent[];
  /** Comment lines (keep-alives) seen. */
  readonly comments: number;
  /** How the stream ended: the server closed it, the suite stopped reading, or the timeout hit. */
  readonly ending: 'closed' | 'stopped' | 'timeout' | 'not-a-stream' | 'transport-error';
}

export interface CallOptions {
  readonly headers?: Readonly<Record<string, string>>;
  /** JSON-RPC id; `null` sends `"id": null`, `undefined` picks a fresh one. */
  readonly id?: string | number | null;
  /** Send no id member (a notification). */
  readonly notification?: boolean;
  /** Leave `params` out of the envelope. */
  readonly omitParams?: boolean;
  readonly timeoutMs?: number;
  /** Do not send the A2A-Version header. */
  readonly noVersionHeader?: boolean;
  /** Query string to append, e.g. `A2A-Version=1.0`. */
  readonly query?: string;
}

export interface StreamOptions extends CallOptions {
  /** Stop reading (and close the connection) once this returns true. */
  readonly until?: (event: SseEvent, events: readonly SseEvent[]) => boolean;
}

/** A JSON-RPC call and its outcome. */
export interface RpcExchange extends Exchange {
  readonly id: string | number | null | undefined;
  readonly result?: unknown;
  readonly error?: { code: number; message: string; data?: unknown };
}

/** The methods that answer with a stream. */
export type { StreamingMethodName };

/** The params of a method, as generated/a2a/1.0/methods.ts types them. */
export type ParamsOf<M extends MethodName> = MethodTypes[M]['params'];

/** A method and well-formed params for it, for lists of calls to make. */
export type MethodCall = { readonly [M in MethodName]: readonly [method: M, params: ParamsOf<M>] }[MethodName];

/**
 * One protocol binding as the checks see it. Checks are written against this interface only,
 * so each requirement can run on every binding a card declares.
 *
 * `call` and `stream` take a method and params of its request type; `callRaw` and `streamRaw`
 * send anything (unknown or 0.3 method names, invalid or mutated params), for the checks that
 * send garbage on purpose.
 */
export interface Transport {
  readonly binding: 'JSONRPC' | 'HTTP+JSON';
  readonly endpoint: string;
  call<M extends MethodName>(method: M, params: ParamsOf<M>, options?: CallOptions): Promise<RpcExchange>;
  stream<M extends StreamingMethodName>(method: M, params: ParamsOf<M>, options?: StreamOptions): Promise<StreamExchange>;
  callRaw(method: string, params: unknown, options?: CallOptions): Promise<RpcExchange>;
  streamRaw(method: string, params: unknown, options?: StreamOptions): Promise<StreamExchange>;
  /** Sends an arbitrary body to the endpoint (malformed JSON, wrong content types…). */
  raw(
    body: string | undefined,
    options?: { method?: string; headers?: Readonly<Record<string, string>>; url?: string; timeoutMs?: number },
  ): Promise<Exchange>;
  /** Requests sent so far, and how many were answered 401 or 404. */
  readonly stats: { requests: number; denied: number };
}
