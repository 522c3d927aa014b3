import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Ask } from '../../conformance/core/profiles.js';
import { REQUIREMENT_BY_ID } from '../../generated/conformance/requirements.js';
import {
  canonicalAnswer,
  canonicalFrame,
  classify,
  emptyInterfacePaths,
  learnInterfaces,
  renderAnswer,
  renderFrame,
  renderRest,
  type ExchangeBinding,
  type RestExchange,
} from './fault-binding.js';

/*
 * A fault-injecting HTTP proxy for the conformance suite's self-test. It forwards every request
 * to a correct A2A endpoint (the hub) and returns the answer, with ONE fault planted: a fault is
 * data (a few hooks), applied to the request before it is forwarded, to the response head, to
 * JSON bodies (parsed, changed, re-serialized) or to SSE streams (parsed into events). The card's
 * interface URLs are always rewritten to the proxy's origin, so the suite talks to the proxy.
 *
 * A fault is written once, in JSON-RPC shapes, and planted on every binding its requirements
 * apply to: fault-binding.ts shows an HTTP+JSON exchange to it as the JSON-RPC one it means and
 * renders the change back. A fault written for HTTP+JSON's own shapes says `view: 'wire'`.
 */

export type JsonObject = Record<string, unknown>;

/** The request as it will be forwarded; hooks may change headers and body in place. */
export interface ProxiedRequest {
  httpMethod: string;
  /** Path and query, e.g. `/a2a/default?A2A-Version=1.0`. */
  path: string;
  /** Lower-case names, without hop-by-hop headers and host. */
  headers: Record<string, string>;
  /** The raw body, forwarded as is unless a hook replaces it. */
  body: string | undefined;
}

/** What a hook knows about the exchange it is changing. */
export interface RequestContext {
  readonly httpMethod: string;
  readonly path: string;
  /** The binding of the request, by the interfaces the card declares; undefined for the card itself and undeclared paths. */
  readonly binding: ExchangeBinding | undefined;
  /** The A2A method of the request: the JSON-RPC method, or the method an HTTP+JSON route serves. */
  readonly method?: string;
  /** The JSON-RPC id of the request (undefined when absent or not JSON-RPC). */
  readonly id?: unknown;
  /** The JSON-RPC params, when they are an object, or the request message of an HTTP+JSON route. */
  readonly params?: JsonObject;
  /** Memory shared by every exchange through this proxy, for faults that depend on history. */
  readonly memory: Map<string, unknown>;
  /** The proxy's origin, e.g. http://127.0.0.1:41234. */
  readonly origin: string;
  /** Counts this exchange as changed by the fault when the change does not show in the bytes (a stream re-timed, say). */
  markPlanted(): void;
}

/** Status and headers (lower-case names) of the response; hooks change them in place. */
export interface ResponseHead {
  status: number;
  headers: Record<string, string>;
}

export interface FaultContext extends RequestContext {
  readonly response: ResponseHead;
}

/** One SSE event. `json` is the parsed data; when present it is what is written back. */
export interface SseFrame {
  id?: string;
  event?: string;
  data: string;
  json?: unknown;
  /** A comment line (keep-alive) rather than an event. */
  comment?: string;
}

/** An answer given by the proxy itself, without forwarding. */
export interface Reply {
  readonly status: number;
  readonly headers?: Record<string, string>;
  /** A string is sent as text/plain, anything else as JSON. */
  readonly body: unknown;
}

export interface Fault {
  readonly id: string;
  readonly description: string;
  /** Requirement ids whose violation the fault is (FAIL for a MUST, WARN for a SHOULD or MAY). */
  readonly expect: readonly string[];
  /**
   * What the agent must be asked for before the fault can show (an agent that finishes every task
   * at once never shows a lost update of slow work); none: observable black-box, on any agent.
   */
  readonly needs?: readonly Ask[];
  /** Headers the suite sends with every request of this fault's run (`--header`), e.g. the credentials a locked agent wants. */
  readonly headers?: Readonly<Record<string, string>>;
  /** The suite's timeout for this fault's run, when the fault makes it wait. */
  readonly timeoutMs?: number;
  /** Before forwarding: change the request in place, or answer it by returning a Reply (no other hook applies to a Reply). */
  readonly onRequest?: (request: ProxiedRequest, ctx: RequestContext) => Reply | undefined;
  /** The upstream response's status and headers, changed in place (any response kind). */
  readonly onHeaders?: (response: ResponseHead, ctx: FaultContext) => void;
  /** A JSON response body: change it in place, or return a replacement (undefined keeps it). */
  readonly onJson?: (body: unknown, ctx: FaultContext) => unknown;
  /** A JSON response body answered by the proxy's own Reply instead (undefined keeps the answer), e.g. a stream where an error was. */
  readonly replaceJson?: (body: unknown, ctx: FaultContext) => Reply | undefined;
  /** A whole SSE stream (buffered until the upstream ends): return the events to send. */
  readonly onSse?: (events: SseFrame[], ctx: FaultContext) => SseFrame[];
  /** Keep SSE responses open this many ms after the upstream stream ended, then end them. */
  readonly hold?: number;
  /** The bindings whose exchanges it changes; by default every binding a requirement it names applies to. */
  readonly bindings?: readonly ExchangeBinding[];
  /** `wire`: its hooks read HTTP+JSON exchanges as they are, not shown as JSON-RPC ones (a fault of that binding's own shapes). */
  readonly view?: 'wire';
}

/** The bindings a fault is planted on. */
export function bindingsOf(fault: Fault): readonly ExchangeBinding[] {
  if (fault.bindings !== undefined) return fault.bindings;
  const named = new Set(fault.expect.flatMap((id) => REQUIREMENT_BY_ID.get(id)?.bindings ?? []));
  return (['JSONRPC', 'HTTP+JSON'] as const).filter((binding) => named.has(binding));
}

export interface FaultProxy {
  readonly url: string;
  /**
   * How many exchanges the fault changed (answered, rewrote, held or re-timed): 0 means the run
   * never met the fault. With `binding`, those of that binding; `card` counts the card and
   * undeclared paths.
   */
  planted(binding?: ExchangeBinding | 'card'): number;
  close(): Promise<void>;
}

const HOP_BY_HOP = new Set([
  'connection',
  'keep-alive',
  'proxy-authenticate',
  'proxy-authorization',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
  'host',
  'content-length',
  'expect',
]);
/** Response headers the proxy recomputes (fetch has already decoded the body). */
const RESPONSE_DROPPED = new Set([...HOP_BY_HOP, 'content-encoding']);

export function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** `error` of a JSON-RPC error response. */
export function rpcError(body: unknown): JsonObject | undefined {
  return isObject(body) && isObject(body['error']) ? body['error'] : undefined;
}

/** `result` of a JSON-RPC success response, when it is an object. */
export function rpcResult(body: unknown): JsonObject | undefined {
  return isObject(body) && isObject(body['result']) ? body['result'] : undefined;
}

/** Every object inside a value, depth first; free-form members (metadata, data) are not entered. */
export function eachObject(value: unknown, visit: (object: JsonObject) => void): void {
  if (Array.isArray(value)) {
    for (const item of value) eachObject(item, visit);
    return;
  }
  if (!isObject(value)) return;
  visit(value);
  for (const [key, member] of Object.entries(value)) if (key !== 'metadata' && key !== 'data') eachObject(member, visit);
}

/** The Tasks in a result: SendMessage's `task`, ListTasks' `tasks`, or the bare Task of GetTask/CancelTask. */
export function tasksIn(result: unknown): JsonObject[] {
  if (!isObject(result)) return [];
  if (isObject(result['task'])) return [result['task']];
  if (Array.isArray(result['tasks'])) return result['tasks'].filter(isObject);
  return typeof result['id'] === 'string' && isObject(result['status']) ? [result] : [];
}

/** The StreamResponse an SSE event carries (`result` of its JSON-RPC envelope). */
export function frameOf(event: SseFrame): JsonObject | undefined {
  return rpcResult(event.json);
}

/** A JSON-RPC error answer, for onRequest. */
export function rpcErrorReply(ctx: RequestContext, code: number, message: string, reason?: string): Reply {
  const data =
    reason === undefined ? {} : { data: [{ '@type': 'type.googleapis.com/google.rpc.ErrorInfo', reason, domain: 'a2a-protocol.org' }] };
  return { status: 200, body: { jsonrpc: '2.0', id: ctx.id ?? null, error: { code, message, ...data } } };
}

/** Replaces the request's JSON-RPC params (onRequest). */
export function rewriteParams(request: ProxiedRequest, change: (params: JsonObject) => void): void {
  if (request.body === undefined) return;
  let body: unknown;
  try {
    body = JSON.parse(request.body);
  } catch {
    return;
  }
  if (!isObject(body) || !isObject(body['params'])) return;
  change(body['params']);
  request.body = JSON.stringify(body);
}

export function parseSse(text: string): SseFrame[] {
  const frames: SseFrame[] = [];
  for (const block of text.replace(/\r\n?/g, '\n').split('\n\n')) {
    if (block.trim() === '') continue;
    const data: string[] = [];
    const frame: SseFrame = { data: '' };
    for (const line of block.split('\n')) {
      if (line.startsWith(':')) {
        frame.comment = line.slice(1);
        continue;
      }
      const colon = line.indexOf(':');
      const field = colon === -1 ? line : line.slice(0, colon);
      const value = colon === -1 ? '' : line.slice(colon + 1).replace(/^ /, '');
      if (field === 'data') data.push(value);
      else if (field === 'id') frame.id = value;
      else if (field === 'event') frame.event = value;
    }
    if (data.length === 0 && frame.comment !== undefined) {
      frames.push({ data: '', comment: frame.comment });
      continue;
    }
    frame.data = data.join('\n');
    delete frame.comment;
    try {
      frame.json = JSON.parse(frame.data) as unknown;
    } catch {
      // not JSON: written back as it came
    }
    frames.push(frame);
  }
  return frames;
}

export function serializeSse(frames: readonly SseFrame[]): string {
  return frames
    .map((frame) => {
      if (frame.comment !== undefined && frame.data === '' && frame.json === undefined) return `:${frame.comment}\n\n`;
      const data = frame.json === undefined ? frame.data : JSON.stringify(frame.json);
      const lines = [
        ...(frame.id === undefined ? [] : [`id: ${frame.id}`]),
        ...(frame.event === undefined ? [] : [`event: ${frame.event}`]),
        ...data.split('\n').map((line) => `data: ${line}`),
      ];
      return `${lines.join('\n')}\n\n`;
    })
    .join('');
}

function requestHeaders(request: IncomingMessage): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(request.headers)) {
    if (value === undefined || HOP_BY_HOP.has(name.toLowerCase())) continue;
    headers[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : value;
  }
  return headers;
}

async function readBody(request: IncomingMessage): Promise<string | undefined> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return chunks.length === 0 ? undefined : Buffer.concat(chunks).toString('utf8');
}

function rpcOf(body: string | undefined): { method?: string; id?: unknown; params?: JsonObject } {
  if (body === undefined) return {};
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    return {};
  }
  if (!isObject(parsed)) return {};
  return {
    ...(typeof parsed['method'] === 'string' ? { method: parsed['method'] } : {}),
    ...('id' in parsed ? { id: parsed['id'] } : {}),
    ...(isObject(parsed['params']) ? { params: parsed['params'] } : {}),
  };
}

/** The next chunk of a body, undefined at its end. */
async function readChunk(reader: { read(): Promise<unknown> } | undefined): Promise<Uint8Array | undefined> {
  if (reader === undefined) return undefined;
  const chunk = (await reader.read()) as { done: boolean; value?: Uint8Array };
  return chunk.done ? undefined : chunk.value;
}

/** A Reply: a string body as text/plain, anything else as JSON, unless its headers say otherwise. */
function sendReply(response: ServerResponse, reply: Reply): void {
  const text = typeof reply.body === 'string' ? reply.body : JSON.stringify(reply.body);
  const type = typeof reply.body === 'string' ? 'text/plain; charset=utf-8' : 'application/json';
  send(response, reply.status, { 'content-type': type, ...reply.headers }, text);
}

function send(response: ServerResponse, status: number, headers: Record<string, string>, body: string): void {
  response.writeHead(status, { ...headers, 'content-length': String(Buffer.byteLength(body)) });
  response.end(body);
}

/** A Reply written in JSON-RPC shapes, as the HTTP+JSON answer it means. */
function restReply(reply: Reply): Reply {
  if (typeof reply.body !== 'string') {
    const rendered = renderAnswer(reply.body, undefined, reply.status);
    return rendered === undefined ? reply : { ...reply, status: rendered.status, body: rendered.json };
  }
  if (!/event-stream/i.test(reply.headers?.['content-type'] ?? '')) return reply;
  return { ...reply, body: serializeSse(parseSse(reply.body).map(restFrameOf)) };
}

/** A frame written in JSON-RPC shapes, as the HTTP+JSON frame it means. */
function restFrameOf(frame: SseFrame): SseFrame {
  const rendered = frame.json === undefined ? undefined : renderFrame(frame.json);
  if (rendered === undefined) return frame;
  const { event: _event, ...rest } = frame;
  return { ...rest, ...(rendered.event === undefined ? {} : { event: rendered.event }), json: rendered.json };
}

/** The frames of an HTTP+JSON stream, each shown as the JSON-RPC envelope it means. */
function canonicalFrames(exchange: RestExchange, frames: readonly SseFrame[]): SseFrame[] {
  return frames.map((frame) => {
    const envelope = frame.json === undefined ? undefined : canonicalFrame(exchange.method, frame.event, frame.json);
    if (envelope === undefined) return frame;
    const { event: _event, ...rest } = frame;
    return { ...rest, json: envelope };
  });
}

function parseJson(text: string): { ok: true; value: unknown } | { ok: false } {
  try {
    return { ok: true, value: JSON.parse(text) as unknown };
  } catch {
    return { ok: false };
  }
}

/**
 * Starts the proxy on 127.0.0.1, port 0, in front of `upstream` (an origin such as the hub's
 * URL), planting `fault` (none: a transparent proxy).
 */
export async function startFaultProxy(upstream: string, fault: Fault | undefined): Promise<FaultProxy> {
  const upstreamBase = upstream.replace(/\/+$/, '');
  const upstreamOrigin = new URL(upstream).origin;
  const memory = new Map<string, unknown>();
  const interfaces = emptyInterfacePaths();
  const plantedOn = new Map<ExchangeBinding | 'card', number>();
  const faultBindings = fault === undefined ? [] : bindingsOf(fault);
  /** Stops in-flight exchanges (aborts upstream fetches, ends held streams) at close. */
  const stoppers = new Set<() => void>();
  let origin = '';

  const handle = async (request: IncomingMessage, response: ServerResponse): Promise<void> => {
    const controller = new AbortController();
    let holdTimer: NodeJS.Timeout | undefined;
    let releaseHold: (() => void) | undefined;
    let stopped = false;
    const stop = (): void => {
      stopped = true;
      controller.abort();
      clearTimeout(holdTimer);
      releaseHold?.();
    };
    stoppers.add(stop);
    // The client went away (or the answer is complete), or the proxy closes: stop reading upstream and holding.
    response.once('close', stop);
    try {
      const body = await readBody(request);
      const proxied: ProxiedRequest = {
        httpMethod: request.method ?? 'GET',
        path: request.url ?? '/',
        headers: requestHeaders(request),
        body,
      };
      const classified = classify(proxied.httpMethod, proxied.path, body, interfaces);
      const binding = classified.binding;
      const rest = classified.binding === 'HTTP+JSON' ? classified.rest : undefined;
      // The card and undeclared paths belong to every binding; an exchange of a binding the fault is not planted on passes untouched.
      const active = fault !== undefined && (binding === undefined || faultBindings.includes(binding)) ? fault : undefined;
      // An HTTP+JSON exchange shown to the fault as the JSON-RPC one it means.
      const shown = rest !== undefined && active?.view !== 'wire' ? rest : undefined;
      let changed = false;
      const mark = (): void => {
        if (!changed) plantedOn.set(binding ?? 'card', (plantedOn.get(binding ?? 'card') ?? 0) + 1);
        changed = true;
      };
      const call = rest === undefined ? rpcOf(body) : { method: rest.method, params: rest.params };
      const ctx: RequestContext = {
        httpMethod: proxied.httpMethod,
        path: proxied.path,
        binding,
        ...call,
        memory,
        origin,
        markPlanted: mark,
      };
      if (shown !== undefined) proxied.body = shown.canonical;
      const sentAs = JSON.stringify([proxied.headers, proxied.body, proxied.httpMethod, proxied.path]);
      const reply = active?.onRequest?.(proxied, ctx);
      if (reply !== undefined) {
        mark();
        sendReply(response, shown === undefined ? reply : restReply(reply));
        return;
      }
      if (JSON.stringify([proxied.headers, proxied.body, proxied.httpMethod, proxied.path]) !== sentAs) mark();
      if (shown !== undefined) {
        const rendered =
          proxied.body === shown.canonical ? undefined : renderRest(shown, proxied.body ?? '', proxied.headers['accept'] ?? '*/*');
        if (rendered === undefined) proxied.body = body;
        else {
          proxied.httpMethod = rendered.httpMethod;
          proxied.path = rendered.path;
          proxied.body = rendered.body;
          if (rendered.body !== undefined) proxied.headers['content-type'] ??= 'application/json';
        }
      }

      const upstreamResponse = await fetch(`${upstreamBase}${proxied.path}`, {
        method: proxied.httpMethod,
        headers: proxied.headers,
        ...(proxied.body === undefined || proxied.httpMethod === 'GET' || proxied.httpMethod === 'HEAD' ? {} : { body: proxied.body }),
        redirect: 'manual',
        signal: controller.signal,
      });
      const head: ResponseHead = { status: upstreamResponse.status, headers: {} };
      upstreamResponse.headers.forEach((value, name) => {
        if (!RESPONSE_DROPPED.has(name.toLowerCase())) head.headers[name.toLowerCase()] = value;
      });
      const upstreamType = head.headers['content-type'] ?? '';
      const faultCtx: FaultContext = { ...ctx, response: head };
      const headAs = JSON.stringify(head);
      active?.onHeaders?.(head, faultCtx);
      if (JSON.stringify(head) !== headAs) mark();

      if (/^text\/event-stream\b/i.test(upstreamType)) {
        const reader = upstreamResponse.body?.getReader();
        const decoder = new TextDecoder();
        const transform = active?.onSse;
        if (transform === undefined) {
          // Pass-through: each chunk as it arrives, so the client sees events live.
          response.writeHead(head.status, head.headers);
          response.flushHeaders();
          for (;;) {
            const chunk = await readChunk(reader);
            if (chunk === undefined) break;
            response.write(decoder.decode(chunk, { stream: true }));
          }
        } else {
          let text = '';
          for (;;) {
            const chunk = await readChunk(reader);
            if (chunk === undefined) break;
            text += decoder.decode(chunk, { stream: true });
          }
          const frames = shown === undefined ? parseSse(text) : canonicalFrames(shown, parseSse(text));
          const before = serializeSse(frames);
          const transformed = transform(frames, faultCtx);
          const changedFrames = serializeSse(transformed) !== before;
          if (changedFrames) mark();
          const written = !changedFrames ? parseSse(text) : shown === undefined ? transformed : transformed.map(restFrameOf);
          response.writeHead(head.status, head.headers);
          response.write(serializeSse(written));
        }
        if (active?.hold !== undefined && !stopped) {
          mark();
          await new Promise<void>((resolve) => {
            releaseHold = resolve;
            holdTimer = setTimeout(resolve, active.hold);
          });
        }
        response.end();
        return;
      }

      let text = await upstreamResponse.text();
      const json = /json/i.test(upstreamType) ? parseJson(text) : ({ ok: false } as const);
      if (json.ok) learnInterfaces(json.value, interfaces);
      // The card (and the extended card) name the upstream's URLs: point them at the proxy.
      if (text.includes(upstreamOrigin)) text = text.replaceAll(upstreamOrigin, origin);
      const parsed = parseJson(text);
      // What the fault's JSON hooks read: the body, or for HTTP+JSON the envelope it means (none for a body that is neither a result nor a Status).
      const view =
        !json.ok || !parsed.ok ? undefined : shown === undefined ? parsed.value : canonicalAnswer(shown.method, head.status, parsed.value);
      if (active?.replaceJson !== undefined && view !== undefined) {
        const replaced = active.replaceJson(view, faultCtx);
        if (replaced !== undefined) {
          mark();
          sendReply(response, shown === undefined ? replaced : restReply(replaced));
          return;
        }
      }
      if (active?.onJson !== undefined && view !== undefined) {
        const before = JSON.stringify(view);
        const original = structuredClone(view);
        const status = head.status;
        const replacement = active.onJson(view, faultCtx);
        const after = replacement === undefined ? view : replacement;
        if (JSON.stringify(after) !== before || head.status !== status) {
          mark();
          if (shown === undefined) text = JSON.stringify(after);
          else {
            const rendered = renderAnswer(after, original as JsonObject, head.status === status ? undefined : head.status);
            if (rendered !== undefined) {
              head.status = rendered.status;
              text = JSON.stringify(rendered.json);
            }
          }
        }
      }
      send(response, head.status, head.headers, text);
    } catch (error) {
      if (controller.signal.aborted || response.destroyed) {
        response.destroy();
        return;
      }
      if (!response.headersSent) send(response, 502, { 'content-type': 'text/plain; charset=utf-8' }, `fault proxy: ${String(error)}`);
      else response.destroy();
    } finally {
      stoppers.delete(stop);
    }
  };

  const server = createServer((request, response) => {
    void handle(request, response);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url: origin,
    planted: (binding) =>
      binding === undefined ? [...plantedOn.values()].reduce((sum, count) => sum + count, 0) : (plantedOn.get(binding) ?? 0),
    async close() {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      for (const stop of stoppers) stop();
      server.closeAllConnections();
      await closed;
    },
  };
}

// ---------------------------------------------------------------------------------------------
// The catalogue: one fault each, with the requirements it must make FAIL.

const TERMINAL = new Set(['TASK_STATE_COMPLETED', 'TASK_STATE_FAILED', 'TASK_STATE_CANCELED', 'TASK_STATE_REJECTED']);

/** onJson changing error code `from` into `to`, for some JSON-RPC methods or all. */
function remapError(from: number, to: number, methods?: readonly string[]): (body: unknown, ctx: FaultContext) => unknown {
  return (body, ctx) => {
    const error = rpcError(body);
    if (error?.['code'] === from && (methods === undefined || (ctx.method !== undefined && methods.includes(ctx.method))))
      error['code'] = to;
    return body;
  };
}

/** onJson changing the public agent card. */
function onCard(change: (card: JsonObject) => void): (body: unknown, ctx: FaultContext) => unknown {
  return (body, ctx) => {
    if (ctx.httpMethod === 'GET' && ctx.path.startsWith('/.well-known/agent-card.json') && isObject(body)) change(body);
    return body;
  };
}

/** onJson for the result of one JSON-RPC method. */
function onResult(
  method: string,
  change: (result: JsonObject, ctx: FaultContext, body: JsonObject) => unknown,
): (body: unknown, ctx: FaultContext) => unknown {
  return (body, ctx) => {
    const result = rpcResult(body);
    return ctx.method === method && result !== undefined && isObject(body) ? change(result, ctx, body) : body;
  };
}

/** onSse for the SendStreamingMessage streams only. */
function onSendStream(change: (events: SseFrame[]) => SseFrame[]): (events: SseFrame[], ctx: FaultContext) => SseFrame[] {
  return (events, ctx) => (ctx.method === 'SendStreamingMessage' ? change(events) : events);
}

function stateOf(frame: JsonObject | undefined): unknown {
  const holder = isObject(frame?.['statusUpdate']) ? frame['statusUpdate'] : isObject(frame?.['task']) ? frame['task'] : undefined;
  return isObject(holder?.['status']) ? holder['status']['state'] : undefined;
}

/** The credentials the auth faults accept; their runs send them (Fault.headers), the checks' probes do not. */
const VALID_TOKEN = 'Bearer conform-valid-token';

const SECURITY = {
  securitySchemes: { bearer: { httpAuthSecurityScheme: { scheme: 'Bearer' } } },
  securityRequirements: [{ schemes: { bearer: { list: [] } } }],
};

export const FAULTS: readonly Fault[] = [
  // --- JSON-RPC envelope -----------------------------------------------------------------
  {
    id: 'envelope-no-jsonrpc',
    description: 'responses lack the jsonrpc member',
    expect: ['JSONRPC-ENV-002'],
    onJson: (body) => {
      if (isObject(body) && ('result' in body || 'error' in body)) delete body['jsonrpc'];
      return body;
    },
  },
  {
    id: 'envelope-wrong-id',
    description: 'responses echo another id than the request’s',
    expect: ['JSONRPC-ENV-002'],
    onJson: (body) => {
      if (isObject(body) && body['id'] !== null && body['id'] !== undefined)
        body['id'] = typeof body['id'] === 'number' ? body['id'] + 1 : `${JSON.stringify(body['id'])}-other`;
      return body;
    },
  },
  {
    id: 'envelope-result-and-error',
    description: 'error responses also carry "result": null',
    expect: ['JSONRPC-ENV-002'],
    onJson: (body) => {
      if (rpcError(body) !== undefined && isObject(body)) body['result'] = null;
      return body;
    },
  },
  {
    id: 'envelope-text-plain',
    description: 'JSON-RPC responses are labelled Content-Type: text/plain',
    expect: ['JSONRPC-ENV-001'],
    onHeaders: (response, ctx) => {
      if (ctx.httpMethod === 'POST' && /^application\/json/i.test(response.headers['content-type'] ?? ''))
        response.headers['content-type'] = 'text/plain; charset=utf-8';
    },
  },
  {
    id: 'parse-error-as-invalid-request',
    description: 'a body that is not JSON is answered -32600 instead of -32700',
    expect: ['JSONRPC-ENV-003'],
    onJson: remapError(-32700, -32600),
  },
  {
    id: 'parse-error-with-id',
    description: 'the -32700 answer carries a non-null id',
    expect: ['JSONRPC-ENV-003'],
    onJson: (body) => {
      if (rpcError(body)?.['code'] === -32700 && isObject(body)) body['id'] = 'conform-guessed-id';
      return body;
    },
  },
  {
    id: 'invalid-request-as-parse-error',
    description: 'a JSON value that is not a JSON-RPC request is answered -32700 instead of -32600',
    expect: ['JSONRPC-ENV-004'],
    onJson: remapError(-32600, -32700),
  },
  {
    id: 'unknown-method-as-invalid-request',
    description: 'an unknown method is answered -32600 instead of -32601',
    expect: ['JSONRPC-ENV-005'],
    onJson: remapError(-32601, -32600),
  },
  {
    id: 'invalid-params-as-internal-error',
    description: 'invalid params are answered -32603 instead of -32602',
    expect: ['JSONRPC-ENV-006'],
    onJson: remapError(-32602, -32603),
  },
  {
    id: 'error-data-object',
    description: 'error.data is the ErrorInfo object itself, not an array of details',
    expect: ['JSONRPC-ENV-007'],
    onJson: (body) => {
      const error = rpcError(body);
      if (error !== undefined && Array.isArray(error['data'])) error['data'] = error['data'][0] as unknown;
      return body;
    },
  },

  // --- A2A errors --------------------------------------------------------------------------
  {
    id: 'task-not-found-as-32000',
    description: 'GetTask for an unknown id is answered with -32000 instead of -32001',
    expect: ['GET-002', 'JSONRPC-ENV-009'],
    onJson: remapError(-32001, -32000, ['GetTask']),
  },
  {
    id: 'task-not-cancelable-as-32004',
    description: 'CancelTask of a completed task is answered -32004 instead of -32002',
    expect: ['CANCEL-003', 'JSONRPC-ENV-009'],
    onJson: remapError(-32002, -32004, ['CancelTask']),
  },
  {
    id: 'subscribe-unknown-as-unsupported',
    description: 'SubscribeToTask for an unknown id is answered -32004 instead of -32001',
    expect: ['SUB-003'],
    onJson: remapError(-32001, -32004, ['SubscribeToTask']),
  },

  {
    id: 'send-unknown-task-as-invalid-params',
    description: 'SendMessage naming an unknown taskId is answered -32602 instead of -32001',
    expect: ['SEND-008'],
    onJson: remapError(-32001, -32602, ['SendMessage']),
  },
  {
    id: 'cancel-unknown-as-internal-error',
    description: 'CancelTask for an unknown id is answered -32603 instead of -32001',
    expect: ['CANCEL-002'],
    onJson: remapError(-32001, -32603, ['CancelTask']),
  },
  {
    id: 'subscribe-terminal-as-not-found',
    description: 'SubscribeToTask on a completed task is answered -32001 instead of -32004',
    expect: ['SUB-002'],
    onJson: remapError(-32004, -32001, ['SubscribeToTask']),
  },
  {
    id: 'stream-unknown-task-as-invalid-params',
    description: 'SendStreamingMessage naming an unknown taskId is answered -32602 instead of -32001',
    expect: ['SSE-011'],
    onJson: remapError(-32001, -32602, ['SendStreamingMessage']),
  },
  {
    id: 'push-unsupported-as-unsupported-operation',
    description: 'push-config methods are refused with -32004 instead of -32003',
    expect: ['PUSH-001'],
    // The hub serves push, so the proxy plays an agent without it: the card says so, and the
    // four methods get the wrong refusal.
    onJson: onCard((card) => {
      if (isObject(card['capabilities'])) card['capabilities']['pushNotifications'] = false;
    }),
    onRequest: (_request, ctx) =>
      ctx.method !== undefined && ctx.method.includes('PushNotificationConfig') ? rpcErrorReply(ctx, -32004, 'not supported') : undefined,
  },
  {
    id: 'extended-card-internal-error',
    description: 'GetExtendedAgentCard fails with -32603 although the card declares it',
    expect: ['XCARD-002'],
    onRequest: (_request, ctx) => (ctx.method === 'GetExtendedAgentCard' ? rpcErrorReply(ctx, -32603, 'internal error') : undefined),
  },

  // --- shapes and wire format --------------------------------------------------------------
  {
    id: 'lowercase-task-states',
    description: 'task states are sent as 0.3-style lowercase names (completed, input-required…)',
    expect: ['WIRE-003', 'SEND-002'],
    onJson: (body) => {
      eachObject(rpcResult(body), (object) => {
        const state = object['state'];
        if (typeof state === 'string' && state.startsWith('TASK_STATE_'))
          object['state'] = state.slice('TASK_STATE_'.length).toLowerCase().replaceAll('_', '-');
      });
      return body;
    },
  },
  {
    id: 'kind-members',
    description: 'tasks and messages carry the 0.3 kind discriminator',
    expect: ['WIRE-002'],
    onJson: (body) => {
      eachObject(rpcResult(body), (object) => {
        if (typeof object['id'] === 'string' && isObject(object['status'])) object['kind'] = 'task';
        else if (typeof object['messageId'] === 'string' && Array.isArray(object['parts'])) object['kind'] = 'message';
      });
      return body;
    },
  },
  {
    id: 'bare-task-send-result',
    description: 'SendMessage returns the bare Task instead of {"task": …}',
    expect: ['SEND-001', 'VER-001'],
    onJson: onResult('SendMessage', (result, _ctx, body) => {
      if (isObject(result['task'])) body['result'] = result['task'];
      return body;
    }),
  },
  {
    id: 'wrapped-get-task',
    description: 'GetTask returns {"task": …} instead of the bare Task',
    expect: ['GET-001'],
    onJson: onResult('GetTask', (result, _ctx, body) => {
      body['result'] = { task: result };
      return body;
    }),
  },
  {
    id: 'timestamps-with-offset',
    description: 'timestamps end in +00:00 instead of Z',
    expect: ['WIRE-005', 'DATA-002'],
    onJson: (body) => {
      eachObject(rpcResult(body), (object) => {
        const timestamp = object['timestamp'];
        if (typeof timestamp === 'string') object['timestamp'] = timestamp.replace(/Z$/, '+00:00');
      });
      return body;
    },
  },
  {
    id: 'client-context-id-replaced',
    description: 'a client-chosen contextId is replaced by another in the SendMessage answer',
    expect: ['SEND-016'],
    onJson: onResult('SendMessage', (result, ctx, body) => {
      const sent = isObject(ctx.params?.['message']) ? ctx.params['message']['contextId'] : undefined;
      const answer = isObject(result['task']) ? result['task'] : isObject(result['message']) ? result['message'] : undefined;
      if (typeof sent === 'string' && answer !== undefined) answer['contextId'] = randomUUID();
      return body;
    }),
  },
  {
    id: 'artifact-without-id',
    description: 'artifacts of returned tasks have no artifactId',
    expect: ['SEND-019'],
    onJson: (body) => {
      for (const task of tasksIn(rpcResult(body)))
        if (Array.isArray(task['artifacts'])) for (const artifact of task['artifacts'].filter(isObject)) delete artifact['artifactId'];
      return body;
    },
  },
  {
    id: 'extended-card-legacy-member',
    description: 'GetExtendedAgentCard returns a card with the 0.3 member preferredTransport',
    expect: ['XCARD-004'],
    onJson: onResult('GetExtendedAgentCard', (result, _ctx, body) => {
      result['preferredTransport'] = 'JSONRPC';
      return body;
    }),
  },
  {
    id: 'invalid-params-as-500',
    description: 'SendMessage params the hub refuses with -32602 (mutated fields) get HTTP 500 instead',
    expect: ['ROBUST-003'],
    onJson: (body, ctx) => {
      if (ctx.method !== 'SendMessage' || rpcError(body)?.['code'] !== -32602) return body;
      ctx.response.status = 500;
      return { jsonrpc: '2.0', id: ctx.id ?? null, error: { code: -32603, message: 'internal error' } };
    },
  },

  {
    id: 'context-id-missing',
    description: 'the SendMessage answer to a message without contextId has none either',
    expect: ['SEND-004'],
    onJson: onResult('SendMessage', (result, _ctx, body) => {
      for (const answer of [result['task'], result['message']]) if (isObject(answer)) delete answer['contextId'];
      return body;
    }),
  },
  {
    id: 'task-id-shared',
    description: 'every new task is answered with the same task id',
    expect: ['SEND-003'],
    onJson: onResult('SendMessage', (result, _ctx, body) => {
      if (isObject(result['task'])) result['task']['id'] = 'conform-the-only-task';
      return body;
    }),
  },
  {
    id: 'blocking-send-returns-working',
    description: 'a blocking SendMessage answers with the task still WORKING',
    expect: ['SEND-005'],
    onJson: onResult('SendMessage', (result, ctx, body) => {
      const immediately = isObject(ctx.params?.['configuration']) && ctx.params['configuration']['returnImmediately'] === true;
      const status = isObject(result['task']) && isObject(result['task']['status']) ? result['task']['status'] : undefined;
      if (!immediately && status !== undefined) status['state'] = 'TASK_STATE_WORKING';
      return body;
    }),
  },
  {
    id: 'return-immediately-ignored',
    description: 'configuration.returnImmediately is dropped, so SendMessage blocks until the task ends',
    expect: ['SEND-006'],
    needs: ['slow'],
    onRequest: (request, ctx) => {
      if (ctx.method === 'SendMessage')
        rewriteParams(request, (params) =>
          isObject(params['configuration']) ? delete params['configuration']['returnImmediately'] : undefined,
        );
      return undefined;
    },
  },
  {
    id: 'unknown-members-refused',
    description: 'SendMessage with members the proto does not define is refused with -32602',
    expect: ['SEND-017'],
    onRequest: (_request, ctx) => {
      const message = ctx.params?.['message'];
      const unknown =
        Object.keys(ctx.params ?? {}).some((key) => !['message', 'configuration', 'metadata', 'tenant'].includes(key)) ||
        (isObject(message) && 'kind' in message);
      return ctx.method === 'SendMessage' && unknown ? rpcErrorReply(ctx, -32602, 'unknown member') : undefined;
    },
  },
  {
    id: 'non-object-data-refused',
    description: 'SendMessage with a data part holding an array, string, number, boolean or null is refused',
    expect: ['DATA-003'],
    onRequest: (_request, ctx) => {
      const message = ctx.params?.['message'];
      const parts = isObject(message) && Array.isArray(message['parts']) ? message['parts'] : [];
      return ctx.method === 'SendMessage' && parts.some((part) => isObject(part) && 'data' in part && !isObject(part['data']))
        ? rpcErrorReply(ctx, -32602, 'data must be an object')
        : undefined;
    },
  },
  {
    id: 'raw-parts-refused',
    description: 'SendMessage with a raw (bytes) part is refused with -32602',
    expect: ['ROBUST-001'],
    onRequest: (_request, ctx) => {
      const message = ctx.params?.['message'];
      const parts = isObject(message) && Array.isArray(message['parts']) ? message['parts'] : [];
      return ctx.method === 'SendMessage' && parts.some((part) => isObject(part) && 'raw' in part)
        ? rpcErrorReply(ctx, -32602, 'raw parts are not supported')
        : undefined;
    },
  },
  {
    id: 'get-task-drops-artifacts',
    description: 'GetTask returns a completed task without its artifacts',
    expect: ['DATA-007'],
    onJson: onResult('GetTask', (result, _ctx, body) => {
      delete result['artifacts'];
      return body;
    }),
  },
  {
    id: 'cancel-ignored',
    description: 'CancelTask is forwarded as GetTask: the task is returned but never canceled',
    expect: ['CANCEL-001'],
    needs: ['slow'],
    onRequest: (request, ctx) => {
      if (ctx.method === 'CancelTask' && request.body !== undefined)
        request.body = request.body.replace('"method":"CancelTask"', '"method":"GetTask"');
      return undefined;
    },
  },

  // --- ListTasks and history ------------------------------------------------------------------
  {
    id: 'last-page-token-missing',
    description: 'the last ListTasks page has no nextPageToken member instead of ""',
    expect: ['LIST-002'],
    onJson: onResult('ListTasks', (result, _ctx, body) => {
      if (result['nextPageToken'] === '') delete result['nextPageToken'];
      return body;
    }),
  },
  {
    id: 'list-artifacts-without-include',
    description: 'ListTasks returns artifacts although includeArtifacts was not set',
    expect: ['LIST-004'],
    onJson: onResult('ListTasks', (result, ctx, body) => {
      if (ctx.params?.['includeArtifacts'] === true) return body;
      for (const task of tasksIn(result)) task['artifacts'] ??= [{ artifactId: 'conform-leaked', parts: [{ text: 'leaked' }] }];
      return body;
    }),
  },
  {
    id: 'list-oldest-first',
    description: 'ListTasks pages are in reversed order (oldest first)',
    expect: ['LIST-003'],
    onJson: onResult('ListTasks', (result, _ctx, body) => {
      if (Array.isArray(result['tasks'])) result['tasks'].reverse();
      return body;
    }),
  },
  {
    id: 'list-page-repeats-task',
    description: 'the first task of each following page is the last task of the page before (a repeat and a gap)',
    expect: ['LIST-009'],
    onJson: onResult('ListTasks', (result, ctx, body) => {
      const tasks = Array.isArray(result['tasks']) ? result['tasks'] : undefined;
      if (tasks === undefined) return body;
      const token = ctx.params?.['pageToken'];
      const previous = typeof token === 'string' ? ctx.memory.get(`page:${token}`) : undefined;
      if (previous !== undefined && tasks.length > 0) tasks[0] = previous;
      const next = result['nextPageToken'];
      if (typeof next === 'string' && next !== '' && tasks.length > 0) ctx.memory.set(`page:${next}`, tasks[tasks.length - 1]);
      return body;
    }),
  },
  {
    id: 'list-status-filter-ignored',
    description: 'the ListTasks status filter is dropped before it reaches the agent',
    expect: ['LIST-006', 'LIST-011'],
    onRequest: (request, ctx) => {
      if (ctx.method === 'ListTasks') rewriteParams(request, (params) => delete params['status']);
      return undefined;
    },
  },
  {
    id: 'list-history-length-ignored',
    description: 'ListTasks historyLength is dropped before it reaches the agent',
    expect: ['LIST-012'],
    onRequest: (request, ctx) => {
      if (ctx.method === 'ListTasks') rewriteParams(request, (params) => delete params['historyLength']);
      return undefined;
    },
  },
  {
    id: 'get-history-length-ignored',
    description: 'GetTask historyLength is dropped before it reaches the agent',
    expect: ['GET-003', 'GET-004'],
    needs: ['input-required'],
    onRequest: (request, ctx) => {
      if (ctx.method === 'GetTask') rewriteParams(request, (params) => delete params['historyLength']);
      return undefined;
    },
  },
  {
    id: 'send-history-length-ignored',
    description: 'SendMessage configuration.historyLength is dropped before it reaches the agent',
    expect: ['SEND-007'],
    onRequest: (request, ctx) => {
      if (ctx.method === 'SendMessage')
        rewriteParams(request, (params) =>
          isObject(params['configuration']) ? delete params['configuration']['historyLength'] : undefined,
        );
      return undefined;
    },
  },
  {
    id: 'list-by-context-empty',
    description: 'ListTasks filtered by contextId finds nothing, even a task just created',
    expect: ['STATE-001'],
    onJson: onResult('ListTasks', (result, ctx, body) => {
      if (typeof ctx.params?.['contextId'] !== 'string') return body;
      Object.assign(result, { tasks: [], nextPageToken: '', totalSize: 0 });
      return body;
    }),
  },
  {
    id: 'list-timestamp-filter-ignored',
    description: 'ListTasks statusTimestampAfter is dropped before it reaches the agent',
    expect: ['LIST-007'],
    onRequest: (request, ctx) => {
      if (ctx.method === 'ListTasks') rewriteParams(request, (params) => delete params['statusTimestampAfter']);
      return undefined;
    },
  },
  {
    id: 'list-total-size-off-by-one',
    description: 'ListTasks totalSize counts one task too many',
    expect: ['LIST-001', 'STATE-003'],
    onJson: onResult('ListTasks', (result, _ctx, body) => {
      if (typeof result['totalSize'] === 'number') result['totalSize'] += 1;
      return body;
    }),
  },
  {
    id: 'terminal-task-reopens',
    description: 'from the second GetTask on, a terminal task shows TASK_STATE_WORKING again',
    expect: ['STATE-005'],
    onJson: onResult('GetTask', (result, ctx, body) => {
      const status = isObject(result['status']) ? result['status'] : undefined;
      if (status === undefined || !TERMINAL.has(String(status['state'])) || typeof result['id'] !== 'string') return body;
      const key = `reopen:${result['id']}`;
      if (ctx.memory.has(key)) status['state'] = 'TASK_STATE_WORKING';
      ctx.memory.set(key, true);
      return body;
    }),
  },
  {
    id: 'terminal-task-changes-later',
    description: 'each later GetTask of a terminal task shows another status timestamp',
    expect: ['STATE-002'],
    onJson: onResult('GetTask', (result, ctx, body) => {
      const status = isObject(result['status']) ? result['status'] : undefined;
      if (
        status === undefined ||
        !TERMINAL.has(String(status['state'])) ||
        typeof status['timestamp'] !== 'string' ||
        typeof result['id'] !== 'string'
      )
        return body;
      const key = `seen:${result['id']}`;
      const seen = Number(ctx.memory.get(key) ?? 0);
      ctx.memory.set(key, seen + 1);
      status['timestamp'] = new Date(Date.parse(status['timestamp']) + seen).toISOString();
      return body;
    }),
  },

  // --- streaming ---------------------------------------------------------------------------
  {
    id: 'sse-first-frame-dropped',
    description: 'the task snapshot that opens a SendStreamingMessage stream is dropped',
    expect: ['SSE-007'],
    onSse: onSendStream((events) => events.slice(1)),
  },
  {
    id: 'sse-working-after-completed',
    description: 'the WORKING and the terminal status frames are swapped, so WORKING follows COMPLETED',
    expect: ['SSE-010'],
    onSse: onSendStream((events) => {
      const terminal = events.findIndex((event) => TERMINAL.has(String(stateOf(frameOf(event)))));
      const working = events.findIndex((event, index) => index > 0 && stateOf(frameOf(event)) === 'TASK_STATE_WORKING');
      const [a, b] = [events[working], events[terminal]];
      if (working === -1 || terminal === -1 || a === undefined || b === undefined) return events;
      const swapped = [...events];
      swapped[working] = b;
      swapped[terminal] = a;
      return swapped;
    }),
  },
  {
    id: 'sse-held-open',
    description: 'streams stay open 2.5 s after the terminal frame (timeout 1.5 s)',
    expect: ['SSE-008'],
    timeoutMs: 1500,
    hold: 2500,
  },
  {
    id: 'sse-no-envelope',
    description: 'SSE data items are bare StreamResponses without the JSON-RPC envelope',
    expect: ['SSE-003'],
    onSse: (events) =>
      events.map((event) => {
        const frame = frameOf(event);
        return frame === undefined ? event : { ...event, json: frame };
      }),
  },
  {
    id: 'sse-two-payloads',
    description: 'statusUpdate frames also carry a message member',
    expect: ['SSE-005'],
    onSse: (events) => {
      for (const event of events) {
        const frame = frameOf(event);
        if (isObject(frame?.['statusUpdate']) && frame !== undefined)
          frame['message'] = { messageId: 'conform-extra', role: 'ROLE_AGENT', parts: [{ text: 'extra' }] };
      }
      return events;
    },
  },
  {
    id: 'sse-artifact-wrong-task',
    description: 'artifactUpdate events name another taskId',
    expect: ['SSE-009'],
    onSse: (events) => {
      for (const event of events) {
        const update = frameOf(event)?.['artifactUpdate'];
        if (isObject(update)) update['taskId'] = 'conform-another-task';
      }
      return events;
    },
  },
  {
    id: 'sse-append-first-chunk',
    description: 'the first chunk of a streamed artifact says append: true',
    expect: ['SSE-012'],
    onSse: (events) => {
      const first = events.map((event) => frameOf(event)?.['artifactUpdate']).find(isObject);
      if (first !== undefined) first['append'] = true;
      return events;
    },
  },
  {
    id: 'subscribe-first-frame-dropped',
    description: 'the task snapshot that opens a SubscribeToTask stream is dropped',
    expect: ['SUB-004'],
    needs: ['slow'],
    onSse: (events, ctx) => (ctx.method === 'SubscribeToTask' ? events.slice(1) : events),
  },
  {
    id: 'sse-as-application-json',
    description: 'the SSE stream is labelled Content-Type: application/json',
    expect: ['SSE-002'],
    onHeaders: (response) => {
      if (/^text\/event-stream/i.test(response.headers['content-type'] ?? '')) response.headers['content-type'] = 'application/json';
    },
  },
  {
    id: 'streaming-refused',
    description: 'SendStreamingMessage is refused with -32004 although the card declares streaming',
    expect: ['SSE-002'],
    onRequest: (_request, ctx) =>
      ctx.method === 'SendStreamingMessage' ? rpcErrorReply(ctx, -32004, 'streaming is not supported', 'UNSUPPORTED_OPERATION') : undefined,
  },

  // --- versioning --------------------------------------------------------------------------
  {
    id: 'version-header-ignored',
    description: 'A2A-Version is rewritten to 1.0 before forwarding, so 99.0 is served as 1.0',
    expect: ['VER-002', 'VER-006'],
    onRequest: (request) => {
      if (request.headers['a2a-version'] !== undefined) request.headers['a2a-version'] = '1.0';
      return undefined;
    },
  },
  {
    id: 'patch-version-refused',
    description: 'A2A-Version: 1.0.1 is refused with VersionNotSupportedError',
    expect: ['VER-004'],
    onRequest: (request, ctx) =>
      request.headers['a2a-version'] === '1.0.1'
        ? rpcErrorReply(ctx, -32009, 'version 1.0.1 is not supported', 'VERSION_NOT_SUPPORTED')
        : undefined,
  },

  // --- the agent card --------------------------------------------------------------------------
  {
    id: 'card-skills-removed',
    description: 'the card has no skills member',
    expect: ['CARD-002'],
    onJson: onCard((card) => delete card['skills']),
  },
  {
    id: 'card-legacy-members',
    description: 'the card carries the 0.3 members url and preferredTransport',
    expect: ['CARD-007'],
    onJson: onCard((card) => Object.assign(card, { url: 'http://127.0.0.1/a2a', preferredTransport: 'JSONRPC' })),
  },
  {
    id: 'card-snake-case',
    description: 'the card names defaultInputModes default_input_modes',
    expect: ['CARD-006'],
    onJson: onCard((card) => {
      card['default_input_modes'] = card['defaultInputModes'];
      delete card['defaultInputModes'];
    }),
  },
  {
    id: 'card-relative-interface-url',
    description: 'the card’s interface URL is relative',
    expect: ['CARD-011'],
    onJson: onCard((card) => {
      for (const entry of Array.isArray(card['supportedInterfaces']) ? card['supportedInterfaces'].filter(isObject) : [])
        if (typeof entry['url'] === 'string') entry['url'] = new URL(entry['url']).pathname;
    }),
  },

  {
    id: 'card-skill-without-tags',
    description: 'the card’s skill has no tags',
    expect: ['CARD-003'],
    onJson: onCard((card) => {
      for (const skill of Array.isArray(card['skills']) ? card['skills'].filter(isObject) : []) delete skill['tags'];
    }),
  },
  {
    id: 'card-bad-signature',
    description: 'the card carries a signature whose protected header is not base64url JSON',
    expect: ['CARD-009'],
    onJson: onCard((card) => Object.assign(card, { signatures: [{ protected: 'bm90LWpzb24', signature: 'c2lnbmF0dXJl' }] })),
  },
  {
    id: 'undeclared-rest-routes',
    description: 'HTTP+JSON routes answer at the origin although the card declares only JSON-RPC',
    expect: ['CARD-004'],
    onRequest: (request) =>
      request.httpMethod === 'GET' && request.path.startsWith('/tasks/')
        ? {
            status: 404,
            body: {
              error: {
                code: 404,
                status: 'NOT_FOUND',
                message: 'task not found',
                details: [{ '@type': 'type.googleapis.com/google.rpc.ErrorInfo', reason: 'TASK_NOT_FOUND', domain: 'a2a-protocol.org' }],
              },
            },
          }
        : undefined,
  },
  {
    id: 'card-streaming-undeclared',
    description: 'the card declares streaming: false, but the endpoint streams',
    expect: ['SSE-001', 'SUB-001'],
    onJson: onCard((card) => {
      if (isObject(card['capabilities'])) card['capabilities']['streaming'] = false;
    }),
  },
  {
    id: 'card-extended-undeclared',
    description: 'the card declares extendedAgentCard: false, but GetExtendedAgentCard is served',
    expect: ['XCARD-001'],
    onJson: onCard((card) => {
      if (isObject(card['capabilities'])) card['capabilities']['extendedAgentCard'] = false;
    }),
  },
  {
    id: 'card-input-modes-narrowed',
    description: 'the card accepts only text/plain input, but the agent takes any media type',
    expect: ['SEND-013'],
    onJson: onCard((card) => {
      card['defaultInputModes'] = ['text/plain'];
      for (const skill of Array.isArray(card['skills']) ? card['skills'].filter(isObject) : []) delete skill['inputModes'];
    }),
  },
  {
    id: 'required-extension-not-enforced',
    description: 'the card declares a required extension that the agent does not enforce',
    expect: ['VER-007'],
    onJson: onCard((card) => {
      const capabilities = isObject(card['capabilities']) ? card['capabilities'] : undefined;
      const extensions: unknown[] = Array.isArray(capabilities?.['extensions']) ? (capabilities['extensions'] as unknown[]) : [];
      if (capabilities !== undefined)
        capabilities['extensions'] = [...extensions, { uri: 'https://example.invalid/ext/required/v1', required: true }];
    }),
  },

  // --- authentication ----------------------------------------------------------------------
  {
    id: 'auth-declared-not-enforced',
    description: 'the card requires a bearer token, but requests without one are served',
    expect: ['DATA-004', 'XCARD-003'],
    onJson: onCard((card) => Object.assign(card, SECURITY)),
  },
  {
    id: 'auth-refused-with-403',
    description: 'the card requires a bearer token, and requests without a valid one get 403 instead of 401',
    expect: ['DATA-004'],
    onJson: onCard((card) => Object.assign(card, SECURITY)),
    onRequest: (request, ctx) =>
      ctx.binding !== undefined && request.headers['authorization'] !== 'Bearer conform-valid-token'
        ? { status: 403, body: { jsonrpc: '2.0', id: null, error: { code: -32600, message: 'forbidden' } } }
        : undefined,
  },
  {
    id: 'auth-401-without-challenge',
    description: 'the card requires a bearer token, and requests without one get 401 with no WWW-Authenticate header',
    expect: ['DATA-008'],
    headers: { authorization: VALID_TOKEN },
    onJson: onCard((card) => Object.assign(card, SECURITY)),
    onRequest: (request, ctx) =>
      ctx.binding !== undefined && request.headers['authorization'] !== VALID_TOKEN
        ? { status: 401, body: { jsonrpc: '2.0', id: ctx.id ?? null, error: { code: -32000, message: 'unauthenticated' } } }
        : undefined,
  },
  {
    id: 'auth-401-other-scheme',
    description: 'the card requires a bearer token, and the 401 answers challenge Basic only',
    expect: ['DATA-008'],
    headers: { authorization: VALID_TOKEN },
    onJson: onCard((card) => Object.assign(card, SECURITY)),
    onRequest: (request, ctx) =>
      ctx.binding !== undefined && request.headers['authorization'] !== VALID_TOKEN
        ? {
            status: 401,
            headers: { 'www-authenticate': 'Basic realm="agent"' },
            body: { jsonrpc: '2.0', id: ctx.id ?? null, error: { code: -32000, message: 'unauthenticated' } },
          }
        : undefined,
  },
  {
    id: 'error-without-message',
    description: 'JSON-RPC error objects lack the message member (JSON-RPC 2.0 §5.1 requires a string)',
    expect: ['JSONRPC-ENV-002'],
    onJson: (body) => {
      const error = rpcError(body);
      if (error !== undefined) delete error['message'];
      return body;
    },
  },
  {
    id: 'envelope-content-type-json-seq',
    description: 'JSON-RPC responses are labelled application/json-seq',
    expect: ['JSONRPC-ENV-001'],
    onHeaders: (response, ctx) => {
      if (ctx.httpMethod === 'POST' && /^application\/json/i.test(response.headers['content-type'] ?? ''))
        response.headers['content-type'] = 'application/json-seq';
    },
  },
  {
    id: 'history-oldest-messages',
    description: 'GetTask historyLength N returns the OLDEST N messages instead of the most recent N',
    expect: ['GET-003'],
    needs: ['input-required'],
    onRequest: (request, ctx) => {
      if (ctx.method === 'GetTask') rewriteParams(request, (params) => delete params['historyLength']);
      return undefined;
    },
    onJson: onResult('GetTask', (result, ctx, body) => {
      const limit = ctx.params?.['historyLength'];
      if (typeof limit !== 'number' || !Array.isArray(result['history'])) return body;
      if (limit === 0) delete result['history'];
      else result['history'] = result['history'].slice(0, limit);
      return body;
    }),
  },
  {
    id: 'sse-artifact-chunk-duplicated',
    description: 'every middle artifact chunk (append: true, not lastChunk) is delivered twice, corrupting the assembled artifact',
    expect: ['SSE-012'],
    onSse: (events) =>
      events.flatMap((event) => {
        const update = frameOf(event)?.['artifactUpdate'];
        return isObject(update) && update['append'] === true && update['lastChunk'] !== true
          ? [event, { ...event, json: structuredClone(event.json) }]
          : [event];
      }),
  },

  {
    id: 'card-cache-headers-removed',
    description: 'the card response has no Cache-Control or ETag',
    expect: ['CARD-008'],
    onHeaders: (response, ctx) => {
      if (ctx.path.startsWith('/.well-known/agent-card.json')) {
        delete response.headers['cache-control'];
        delete response.headers['etag'];
      }
    },
  },

  // --- faults an agent that finishes every task at once still shows (black-box) ---
  {
    id: 'cancel-terminal-returns-task',
    description: 'CancelTask of a completed task answers the unchanged task instead of TaskNotCancelableError',
    expect: ['CANCEL-003'],
    onJson: (body, ctx) => {
      const error = rpcError(body);
      if (ctx.method !== 'CancelTask' || error?.['code'] !== -32002) return body;
      const id = ctx.params?.['id'];
      return {
        jsonrpc: '2.0',
        id: ctx.id ?? null,
        result: {
          id,
          contextId: `context-of-${String(id)}`,
          status: { state: 'TASK_STATE_COMPLETED', timestamp: new Date().toISOString() },
        },
      };
    },
  },
  {
    id: 'subscribe-terminal-opens-stream',
    description: 'SubscribeToTask on a completed task opens a stream with the task instead of refusing with -32004',
    expect: ['SUB-002'],
    replaceJson: (body, ctx) => {
      const error = rpcError(body);
      if (ctx.method !== 'SubscribeToTask' || error?.['code'] !== -32004) return undefined;
      const task = { id: ctx.params?.['id'], contextId: 'conform-context', status: { state: 'TASK_STATE_COMPLETED' } };
      return {
        status: 200,
        headers: { 'content-type': 'text/event-stream' },
        body: serializeSse([{ data: '', json: { jsonrpc: '2.0', id: ctx.id ?? null, result: { task } } }]),
      };
    },
  },
  {
    id: 'sse-artifact-after-terminal',
    description: 'the artifact frames of a SendStreamingMessage stream arrive after its terminal status',
    expect: ['SSE-008'],
    onSse: onSendStream((events) => {
      const artifacts = events.filter((event) => isObject(frameOf(event)?.['artifactUpdate']));
      const terminal = events.findIndex((event) => TERMINAL.has(String(stateOf(frameOf(event)))));
      if (artifacts.length === 0 || terminal === -1) return events;
      const rest = events.filter((event) => !artifacts.includes(event));
      const at = rest.findIndex((event) => TERMINAL.has(String(stateOf(frameOf(event)))));
      return [...rest.slice(0, at + 1), ...artifacts, ...rest.slice(at + 1)];
    }),
  },
  {
    id: 'sse-first-chunk-dropped',
    description: 'the first chunk of every streamed artifact is dropped, the next one keeps append: true',
    expect: ['SSE-012'],
    onSse: (events) => {
      const seen = new Set<string>();
      return events.filter((event) => {
        const update = frameOf(event)?.['artifactUpdate'];
        const artifact = isObject(update) && isObject(update['artifact']) ? update['artifact'] : undefined;
        const id = typeof artifact?.['artifactId'] === 'string' ? artifact['artifactId'] : undefined;
        if (id === undefined || seen.has(id)) return true;
        seen.add(id);
        return false;
      });
    },
  },
  {
    id: 'sse-middle-chunk-dropped',
    description: 'the middle chunk of a three-chunk artifact is dropped: the flags stay consistent, the text does not',
    expect: ['SSE-012'],
    onSse: (events) => {
      const chunks = events.filter((event) => isObject(frameOf(event)?.['artifactUpdate']));
      return chunks.length < 3 ? events : events.filter((event) => event !== chunks[1]);
    },
  },
  // --- push notification configs: every check runs black-box on an agent that declares push ---
  {
    id: 'push-create-without-id',
    description: 'CreateTaskPushNotificationConfig answers the config without the id the agent assigned',
    expect: ['PUSH-002'],
    onJson: onResult('CreateTaskPushNotificationConfig', (result, _ctx, body) => {
      delete result['id'];
      return body;
    }),
  },
  {
    id: 'push-list-empty',
    description: 'ListTaskPushNotificationConfigs always answers an empty list',
    expect: ['PUSH-005'],
    onJson: onResult('ListTaskPushNotificationConfigs', (result, _ctx, body) => {
      result['configs'] = [];
      return body;
    }),
  },
  {
    id: 'push-delete-ignored',
    description: 'DeleteTaskPushNotificationConfig answers success but keeps the config',
    expect: ['PUSH-006'],
    onRequest: (request, ctx) =>
      ctx.method === 'DeleteTaskPushNotificationConfig'
        ? { status: 200, body: { jsonrpc: '2.0', id: ctx.id ?? null, result: {} } }
        : undefined,
  },
  {
    id: 'push-unknown-task-accepted',
    description: 'CreateTaskPushNotificationConfig for a task that does not exist is accepted',
    expect: ['PUSH-003'],
    onJson: (body, ctx) => {
      const error = rpcError(body);
      if (ctx.method !== 'CreateTaskPushNotificationConfig' || error?.['code'] !== -32001) return body;
      return { jsonrpc: '2.0', id: ctx.id ?? null, result: { ...ctx.params, id: 'conform-accepted' } };
    },
  },
  {
    id: 'push-get-unknown-config-found',
    description: 'GetTaskPushNotificationConfig of a config id the task never had answers a config',
    expect: ['PUSH-004'],
    onJson: (body, ctx) => {
      const error = rpcError(body);
      if (ctx.method !== 'GetTaskPushNotificationConfig' || error?.['code'] !== -32001) return body;
      return { jsonrpc: '2.0', id: ctx.id ?? null, result: { ...ctx.params, url: 'https://example.invalid/hook' } };
    },
  },
  {
    id: 'sse-buffered',
    description: 'every stream is buffered and delivered at once when it ends',
    expect: ['SSE-014'],
    needs: ['slow'],
    onSse: (events, ctx) => {
      ctx.markPlanted();
      return events;
    },
  },
  {
    id: 'subscribe-updates-dropped',
    description: 'a SubscribeToTask stream sends the task snapshot and then nothing: every later update is dropped, and it stays open',
    expect: ['SUB-005'],
    needs: ['slow'],
    onSse: (events, ctx) => (ctx.method === 'SubscribeToTask' ? events.slice(0, 1) : events),
    hold: 15_000,
    timeoutMs: 2000,
  },
  // --- the card as a client finds it: the suite must write a report that says what is wrong ---
  {
    id: 'card-not-json',
    description: 'the well-known card is answered 200 with an HTML page',
    expect: ['CARD-001'],
    onRequest: (_request, ctx) =>
      ctx.path.startsWith('/.well-known/agent-card.json')
        ? { status: 200, headers: { 'content-type': 'text/html' }, body: '<html><body>Welcome</body></html>' }
        : undefined,
  },
  {
    id: 'card-a2a-0.3-shape',
    description: 'the card is an A2A 0.3 card: top-level url, preferredTransport and protocolVersion 0.3.0, no supportedInterfaces',
    expect: ['CARD-002', 'CARD-005', 'CARD-007'],
    onJson: onCard((card) => {
      const first = Array.isArray(card['supportedInterfaces']) ? card['supportedInterfaces'].find(isObject) : undefined;
      delete card['supportedInterfaces'];
      Object.assign(card, { protocolVersion: '0.3.0', url: first?.['url'], preferredTransport: 'JSONRPC' });
    }),
  },
  {
    id: 'card-interfaces-other-version',
    description: 'every interface of the card declares protocolVersion "0.3": none is one the suite tests',
    expect: ['CARD-005'],
    onJson: onCard((card) => {
      for (const entry of Array.isArray(card['supportedInterfaces']) ? card['supportedInterfaces'].filter(isObject) : [])
        entry['protocolVersion'] = '0.3';
    }),
  },
  {
    id: 'card-protocol-version-with-patch',
    description: 'every interface declares protocolVersion "1.0.0" instead of "1.0"',
    expect: ['CARD-003'],
    onJson: onCard((card) => {
      for (const entry of Array.isArray(card['supportedInterfaces']) ? card['supportedInterfaces'].filter(isObject) : [])
        entry['protocolVersion'] = '1.0.0';
    }),
  },
  {
    id: 'sse-terminal-frame-dropped',
    description:
      'SendStreamingMessage streams lose every frame in a terminal state (the terminal statusUpdate and the closing Task), so they end at WORKING',
    expect: ['SSE-008'],
    onSse: onSendStream((events) => events.filter((event) => !TERMINAL.has(String(stateOf(frameOf(event)))))),
  },
];

// --- HTTP+JSON faults, planted in front of an agent that serves the REST binding ---

const ERROR_INFO_TYPE = 'type.googleapis.com/google.rpc.ErrorInfo';

/** The google.rpc.Status of an HTTP+JSON error body. */
function restStatus(body: unknown): JsonObject | undefined {
  return isObject(body) && isObject(body['error']) && typeof body['error']['status'] === 'string' ? body['error'] : undefined;
}

function pathOnly(ctx: RequestContext): string {
  return ctx.path.split('?')[0] ?? ctx.path;
}

/** Faults of the HTTP+JSON binding's own shapes (Status bodies, bare frames, routes), planted on it alone. */
export const REST_FAULTS: readonly Fault[] = (
  [
    {
      id: 'rest-status-without-error-info',
      description: 'HTTP+JSON error bodies lose the ErrorInfo from details',
      expect: ['REST-ENV-004'],
      onJson: (body) => {
        const status = restStatus(body);
        if (status !== undefined && Array.isArray(status['details']))
          status['details'] = status['details'].filter((detail) => !(isObject(detail) && detail['@type'] === ERROR_INFO_TYPE));
        return undefined;
      },
    },
    {
      id: 'rest-untyped-detail',
      description: 'HTTP+JSON error details gain an element without @type',
      expect: ['REST-ENV-005'],
      onJson: (body) => {
        const status = restStatus(body);
        if (status !== undefined)
          status['details'] = [...(Array.isArray(status['details']) ? (status['details'] as unknown[]) : []), { note: 'no type' }];
        return undefined;
      },
    },
    {
      id: 'rest-task-not-found-400',
      description: 'TaskNotFoundError comes back as HTTP 400 (the Status body unchanged)',
      expect: ['REST-ENV-003'],
      onHeaders: (response, ctx) => {
        if (response.status === 404 && /\/tasks\//.test(pathOnly(ctx))) response.status = 400;
      },
    },
    {
      id: 'rest-sse-jsonrpc-envelope',
      description: 'HTTP+JSON SSE frames are wrapped in a JSON-RPC envelope',
      expect: ['SSE-004'],
      onSse: (events) =>
        events.map((event) => (event.json === undefined ? event : { ...event, json: { jsonrpc: '2.0', id: 1, result: event.json } })),
    },
    {
      id: 'rest-malformed-query-500',
      description: 'a GET refused with 400 (a malformed query parameter) becomes a 500',
      expect: ['ROBUST-003'],
      onHeaders: (response, ctx) => {
        if (ctx.httpMethod === 'GET' && response.status === 400) response.status = 500;
      },
    },
    {
      id: 'rest-cancel-other-error',
      description:
        'over HTTP+JSON only, CancelTask of an unknown task names TaskNotCancelableError (consistently rendered), JSON-RPC says TaskNotFoundError',
      expect: ['REST-ENV-008'],
      onJson: (body, ctx) => {
        const status = restStatus(body);
        if (status === undefined || !pathOnly(ctx).endsWith(':cancel') || status['status'] !== 'NOT_FOUND') return undefined;
        return {
          error: {
            code: 400,
            status: 'FAILED_PRECONDITION',
            message: 'not cancelable',
            details: [{ '@type': ERROR_INFO_TYPE, reason: 'TASK_NOT_CANCELABLE', domain: 'a2a-protocol.org' }],
          },
        };
      },
      onHeaders: (response, ctx) => {
        if (pathOnly(ctx).endsWith(':cancel') && response.status === 404) response.status = 400;
      },
    },
    {
      id: 'rest-tenant-routes-missing',
      description: 'the /{tenant}/ routes are not served (a bare 404 without ErrorInfo)',
      expect: ['REST-ENV-007'],
      onRequest: (_request, ctx) =>
        /\/conform-tenant\//.test(pathOnly(ctx))
          ? { status: 404, body: { error: { code: 404, status: 'NOT_FOUND', message: 'no such route', details: [] } } }
          : undefined,
    },
  ] satisfies Fault[]
).map((fault): Fault => ({ ...fault, bindings: ['HTTP+JSON'], view: 'wire' }));
