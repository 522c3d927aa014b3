import type { MethodName, MethodTypes, StreamingMethodName } from '../../generated/a2a/1.0/methods.js';
import type { StreamResponse } from '../../generated/a2a/1.0/types.js';
import type { ProtocolVersion } from '../../generated/conformance/requirements.js';
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
  /** An error sent in the stream instead of a frame, as JSON-RPC shapes it (HTTP+JSON: read from its `event: error` Status, see RpcExchange.error). */
  readonly error?: { code: number; message: string; data?: unknown };
  /** HTTP+JSON: the google.rpc.Status of an `event: error` frame, as sent. */
  readonly restError?: unknown;
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
  /** Send none of the run's own headers (`--header`, `--token`), only `headers`: for requests that must go without credentials. */
  readonly withoutRunHeaders?: boolean;
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

/** A call and its outcome, as JSON-RPC shapes it, so that checks judge every binding alike. */
export interface RpcExchange extends Exchange {
  /** The JSON-RPC id; undefined on HTTP+JSON. */
  readonly id: string | number | null | undefined;
  /** The result (HTTP+JSON: the body of a 2xx answer). */
  readonly result?: unknown;
  /**
   * The error. HTTP+JSON: the `{"error": Status}` body read as the registered error its ErrorInfo
   * reason names (`code` that error's JSON-RPC code, `data` the Status details), so `isError` and
   * `expectError` judge both bindings alike; a Status without a known reason keeps its HTTP code,
   * which matches no JSON-RPC code.
   */
  readonly error?: { code: number; message: string; data?: unknown };
  /** HTTP+JSON: the `error` member of the body (a google.rpc.Status) as sent, for the REST checks. */
  readonly restError?: unknown;
  /**
   * HTTP+JSON in 0.3: why a 2xx body could not be read as the route's response message (the
   * first violation), when it could not; `result` is then the body as sent.
   */
  readonly unreadable?: string;
}

/** How `Transport.raw` sends its body. */
export interface RawOptions {
  readonly method?: string;
  readonly headers?: Readonly<Record<string, string>>;
  /** As CallOptions.withoutRunHeaders. */
  readonly withoutRunHeaders?: boolean;
  /** Default: the JSON-RPC endpoint; on HTTP+JSON the SendMessage route. */
  readonly url?: string;
  readonly timeoutMs?: number;
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
export type Binding = 'JSONRPC' | 'HTTP+JSON';

export interface Transport {
  readonly binding: Binding;
  /** The protocol version spoken: a check runs only on transports of its own version (Check.protocol). */
  readonly protocolVersion: ProtocolVersion;
  readonly endpoint: string;
  /** The tenant of the card's interface, which every call whose params name none is sent under (spec §8.3.2). */
  readonly tenant: string | undefined;
  call<M extends MethodName>(method: M, params: ParamsOf<M>, options?: CallOptions): Promise<RpcExchange>;
  stream<M extends StreamingMethodName>(method: M, params: ParamsOf<M>, options?: StreamOptions): Promise<StreamExchange>;
  callRaw(method: string, params: unknown, options?: CallOptions): Promise<RpcExchange>;
  streamRaw(method: string, params: unknown, options?: StreamOptions): Promise<StreamExchange>;
  /**
   * Why this binding cannot carry `params` of `method` as they are, or undefined when it can:
   * HTTP+JSON carries ids and the tenant in path segments, where `.` and `..` resolve away
   * (RFC 3986 §5.2.4) however they are encoded. Checks that draw values exclude those (with
   * this reason) rather than send them elsewhere and blame the agent.
   */
  unsendable(method: string, params: unknown): string | undefined;
  /** Sends an arbitrary body to the endpoint (malformed JSON, wrong content types…). */
  raw(body: string | undefined, options?: RawOptions): Promise<Exchange>;
  /** Requests sent so far, how many were refused (401, 403, or a 404 that is no A2A answer), and how many 429s were waited out. */
  readonly stats: { requests: number; denied: number; rateLimited: number };
}
