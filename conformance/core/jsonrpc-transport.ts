import type { MethodName } from '../../generated/a2a/1.0/methods.js';
import type { ProtocolVersion } from '../../generated/conformance/requirements.js';
import { MEDIA_TYPES, PROTOCOL_VERSION } from '../../generated/a2a/1.0/protocol.js';
import type { StreamResponse } from '../../generated/a2a/1.0/types.js';
import { interfaceTenant, withInterfaceTenant } from '../../src/protocol/interface-tenant.js';
import { VERSION_HEADER, type Exchange } from './exchange.js';
import { newStats, readStream, send, sseOptions, withQuery, type HttpStats } from './http.js';
import type {
  CallOptions,
  ParamsOf,
  RawOptions,
  RpcExchange,
  SseEvent,
  StreamExchange,
  StreamingMethodName,
  StreamOptions,
  Transport,
} from './transport.js';

export interface JsonRpcTransportOptions {
  readonly endpoint: string;
  /** The interface's tenant, put into the params of every call that names none. */
  readonly tenant?: string;
  /** Headers sent with every request (authentication). */
  readonly headers?: Readonly<Record<string, string>>;
  readonly timeoutMs: number;
  /** The A2A-Version header sent (default the protocol version); a 0.3 transport sends none, as 0.3 clients do. */
  readonly version?: string;
  /** The protocol version spoken. Default 1.0. */
  readonly protocolVersion?: ProtocolVersion;
}

/** The JSON-RPC binding over HTTP, recording every exchange as evidence. */
export class JsonRpcTransport implements Transport {
  readonly binding = 'JSONRPC' as const;
  readonly endpoint: string;
  readonly protocolVersion: ProtocolVersion;
  readonly stats: HttpStats = newStats();
  #nextId = 1;

  constructor(private readonly options: JsonRpcTransportOptions) {
    this.endpoint = options.endpoint;
    this.protocolVersion = options.protocolVersion ?? PROTOCOL_VERSION;
  }

  /** The tenant the card's interface names, sent in every call whose params name none. */
  get tenant(): string | undefined {
    return interfaceTenant(this.options.tenant);
  }

  call<M extends MethodName>(method: M, params: ParamsOf<M>, options: CallOptions = {}): Promise<RpcExchange> {
    return this.callRaw(method, params, options);
  }

  stream<M extends StreamingMethodName>(method: M, params: ParamsOf<M>, options: StreamOptions = {}): Promise<StreamExchange> {
    return this.streamRaw(method, params, options);
  }

  async callRaw(method: string, params: unknown, options: CallOptions = {}): Promise<RpcExchange> {
    const { body, id } = this.#envelope(method, params, options);
    const exchange = await this.raw(body, {
      headers: this.#headers(options, MEDIA_TYPES.json),
      ...(options.withoutRunHeaders === true ? { withoutRunHeaders: true } : {}),
      timeoutMs: options.timeoutMs,
      url: withQuery(this.endpoint, options.query),
    });
    const json = exchange.json as { result?: unknown; error?: RpcExchange['error'] } | undefined;
    return { ...exchange, id, ...(json && 'result' in json ? { result: json.result } : {}), ...(json?.error ? { error: json.error } : {}) };
  }

  streamRaw(method: string, params: unknown, options: StreamOptions = {}): Promise<StreamExchange> {
    const { body } = this.#envelope(method, params, options);
    const request = {
      method: 'POST',
      url: withQuery(this.endpoint, options.query),
      headers: this.#headers(options, MEDIA_TYPES.eventStream),
      body,
    };
    const interpret = ({ json }: { readonly json?: unknown }) => {
      const envelope = json as { result?: StreamResponse; error?: SseEvent['error'] } | undefined;
      return {
        ...(envelope?.result === undefined ? {} : { frame: envelope.result }),
        ...(envelope?.error === undefined ? {} : { error: envelope.error }),
      };
    };
    return readStream(request, sseOptions(options, this.options.timeoutMs, interpret), this.stats);
  }

  /** JSON-RPC carries every value in its body. */
  unsendable(): string | undefined {
    return undefined;
  }

  raw(body: string | undefined, options: RawOptions = {}): Promise<Exchange> {
    const headers = {
      ...(options.withoutRunHeaders === true ? {} : this.options.headers),
      ...(options.headers ?? { 'content-type': MEDIA_TYPES.json }),
    };
    const request = {
      method: options.method ?? 'POST',
      url: options.url ?? this.endpoint,
      headers,
      ...(body === undefined ? {} : { body }),
    };
    return send(request, options.timeoutMs ?? this.options.timeoutMs, this.stats);
  }

  #envelope(method: string, params: unknown, options: CallOptions): { body: string; id: string | number | null | undefined } {
    const id = options.notification ? undefined : options.id === undefined ? `conform-${this.#nextId++}` : options.id;
    const envelope = {
      jsonrpc: '2.0',
      ...(id === undefined ? {} : { id }),
      method,
      ...(options.omitParams ? {} : { params: withInterfaceTenant(params, this.options.tenant) }),
    };
    return { body: JSON.stringify(envelope), id };
  }

  #headers(options: CallOptions, accept: string): Record<string, string> {
    return {
      ...(options.withoutRunHeaders === true ? {} : this.options.headers),
      'content-type': MEDIA_TYPES.json,
      accept,
      ...(options.noVersionHeader || this.protocolVersion !== PROTOCOL_VERSION
        ? {}
        : { [VERSION_HEADER]: this.options.version ?? PROTOCOL_VERSION }),
      ...options.headers,
    };
  }
}
