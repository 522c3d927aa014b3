import type { Context } from 'koa';
import { METHODS } from '../../generated/a2a/1.0/methods.js';
import { HEADERS, MEDIA_TYPES, PROTOCOL_VERSION, VERSION_QUERY_PARAMETER } from '../../generated/a2a/1.0/protocol.js';
import type { StreamResponse } from '../../generated/a2a/1.0/types.js';
import { validateStreamResponse, type Validator } from '../../generated/a2a/1.0/validators.js';
import { a2aError, isA2AError, type A2AError } from '../protocol/a2a-error.js';
import { errorResponse, parseEnvelope, resolveCall, successResponse, type JsonRpcId } from '../protocol/jsonrpc.js';
import { negotiateVersion, type VersionPolicy } from '../protocol/versions.js';
import type { A2AHandler } from '../server/a2a-handler.js';
import type { InboundAgent, UnavailableAgent } from '../server/hosted-agent.js';
import type { LogFunction } from '../support/log.js';
import { baseUrlOf, type BaseUrlOptions } from './base-url.js';
import { bearerMatches } from './bearer.js';
import { readA2ABody } from './body.js';
import type { EndpointObserver, RequestObservation } from './endpoint-observer.js';
import type { RateLimiter } from './rate-limit.js';
import { pipeFramesToSse } from './sse-frames.js';
import { openSse } from './sse.js';
import type { StreamTracker } from './stream-tracker.js';

export interface JsonRpcEndpointOptions extends BaseUrlOptions {
  readonly handler: A2AHandler;
  readonly bodyLimitBytes: number;
  readonly version: VersionPolicy;
  readonly rateLimiter?: RateLimiter;
  readonly streams: StreamTracker;
  readonly sseHeartbeatMs: number;
  readonly observer?: EndpointObserver;
  /** Validate every result and frame before it is sent, and log what does not conform. */
  readonly selfCheck: boolean;
  readonly log: LogFunction;
}

/**
 * The JSON-RPC binding of one inbound agent: checks in a fixed order (rate limit, so token
 * guessing is throttled too; authentication; content type; size; JSON; envelope; version;
 * method; params), then the
 * transport-neutral handler, then a JSON body or an SSE stream. Every failure is a JSON-RPC
 * error object with an ErrorInfo; HTTP status is 200 except for the transport failures that
 * have their own (401, 413, 415, 429).
 */
export async function serveJsonRpc(ctx: Context, agent: InboundAgent, options: JsonRpcEndpointOptions): Promise<void> {
  ctx.set(HEADERS.version, PROTOCOL_VERSION);
  let id: JsonRpcId = null;
  let notification = false;
  let method = '-';
  const observation = options.observer?.request(ctx.socket, agent.id);
  try {
    admit(ctx, agent, options);
    const envelope = parseEnvelope(await readA2ABody(ctx, options.bodyLimitBytes));
    id = envelope.id;
    if (!envelope.ok) throw envelope.error;
    notification = envelope.value.notification;
    const version = negotiateVersion(ctx.get(HEADERS.version) || queryVersion(ctx), options.version);
    if (!version.ok) throw version.error;
    const activated = activatedExtensions(ctx.get(HEADERS.extensions), agent.extensions);
    // Spec topics/extensions: the response names the extensions that were activated.
    if (activated.length > 0) ctx.set(HEADERS.extensions, activated.join(', '));
    const resolved = resolveCall(envelope.value);
    if (!resolved.ok) throw resolved.error;
    const call = resolved.value;
    method = call.method;
    const lastEventId = Number.parseInt(ctx.get('last-event-id'), 10);
    const result = await options.handler.call(call.method, call.params as never, {
      agent,
      // Only GetExtendedAgentCard needs it.
      get baseUrl() {
        return baseUrlOf(ctx, options);
      },
      ...(Number.isSafeInteger(lastEventId) && lastEventId >= 0 ? { lastEventId } : {}),
    });
    if (call.notification) {
      if (result.kind === 'stream') result.frames.end();
      ctx.status = 204;
      observation?.done(method, 'notification');
      return;
    }
    if (result.kind === 'result') {
      if (options.selfCheck) selfCheck(METHODS[call.method].validateResult, result.result, call.method, options);
      respond(ctx, 200, successResponse(id, result.result));
      observation?.done(method, 'ok');
      return;
    }
    const requestId = id;
    const sse = openSse(ctx, options.sseHeartbeatMs, { [HEADERS.version]: PROTOCOL_VERSION });
    // Tracked until the response has really gone out, not merely been ended by us.
    options.streams.track(new Promise<void>((resolve) => ctx.res.once('close', () => resolve())));
    const streamEnded = observation?.streamOpened();
    if (streamEnded) sse.onClose(streamEnded);
    observation?.done(method, 'ok');
    pipeFramesToSse(
      result.frames,
      sse,
      (frame: StreamResponse) => {
        if (options.selfCheck) selfCheck(validateStreamResponse, frame, call.method, options);
        return JSON.stringify(successResponse(requestId, frame));
      },
      (error) => JSON.stringify(errorResponse(requestId, error)),
    );
  } catch (error) {
    respondWithFailure(ctx, error, { id, notification, method, observation }, options);
  }
}

/**
 * The endpoint of an instance that cannot run here: past the same rate limit and token check
 * as a served one, AgentUnavailableError. The reason stays with the operator, since it names
 * this hub's presets; a caller learns only that the agent is unavailable.
 */
export function serveUnavailable(ctx: Context, agent: UnavailableAgent, options: JsonRpcEndpointOptions): void {
  ctx.set(HEADERS.version, PROTOCOL_VERSION);
  const observation = options.observer?.request(ctx.socket, agent.id);
  try {
    admit(ctx, agent, options);
    throw unavailableError(agent);
  } catch (error) {
    respondWithFailure(ctx, error, { id: null, notification: false, method: '-', observation }, options);
  }
}

/** What an unavailable instance's endpoint and card answer. */
export function unavailableError(agent: UnavailableAgent): A2AError {
  return a2aError('AgentUnavailableError', `agent "${agent.id}" is unavailable in this hub; its operator can see why`, {
    metadata: { instance: agent.id },
  });
}

/** Rate limit first, so token guessing is throttled too; then the bearer token. Throws the refusal. */
function admit(ctx: Context, agent: { readonly id: string; readonly tokenDigest?: string }, options: JsonRpcEndpointOptions): void {
  const wait = options.rateLimiter?.take(ctx.socket.remoteAddress ?? 'unknown') ?? 0;
  if (wait > 0) {
    ctx.set('Retry-After', String(wait));
    throw a2aError('RateLimitedError', `too many requests from this address; retry in ${wait} s`);
  }
  if (agent.tokenDigest !== undefined && !bearerMatches(ctx.get('authorization') || undefined, agent.tokenDigest)) {
    ctx.set('WWW-Authenticate', `Bearer realm="${agent.id}"`);
    throw a2aError(
      'UnauthenticatedError',
      ctx.get('authorization') ? 'the bearer token is not valid for this agent' : 'this agent requires Authorization: Bearer <token>',
    );
  }
}

interface Failed {
  readonly id: JsonRpcId;
  readonly notification: boolean;
  readonly method: string;
  readonly observation: RequestObservation | undefined;
}

function respondWithFailure(ctx: Context, error: unknown, failed: Failed, options: JsonRpcEndpointOptions): void {
  const wireError = toWireError(error, options);
  const status = wireError.definition.category === 'hub' ? wireError.definition.httpStatus : 200;
  // JSON-RPC never answers a notification, not even with an error; transport failures
  // (401, 413, 415, 429) and hub errors (503) are HTTP's business and still get their status.
  failed.observation?.done(failed.method, status === 200 ? String(wireError.code) : `http-${status}`);
  if (failed.notification && status === 200) {
    ctx.status = 204;
    return;
  }
  respond(ctx, status, errorResponse(failed.id, wireError));
}

/** The requested extension URIs (comma-separated, §3.2.6) that the agent implements; unknown ones are ignored. */
function activatedExtensions(header: string, supported: readonly string[]): string[] {
  if (header === '' || supported.length === 0) return [];
  const requested = header
    .split(',')
    .map((uri) => uri.trim())
    .filter((uri) => uri !== '');
  return [...new Set(requested.filter((uri) => supported.includes(uri)))];
}

/** A2A-Version may also come as a query parameter (spec §3.6.1). */
function queryVersion(ctx: Context): string | undefined {
  // Almost no request has a query string; parsing an empty one still costs an object or two.
  if (ctx.querystring === '') return undefined;
  const value = ctx.query[VERSION_QUERY_PARAMETER] ?? ctx.query[VERSION_QUERY_PARAMETER.toLowerCase()];
  return Array.isArray(value) ? value[0] : value;
}

function respond(ctx: Context, status: number, body: unknown): void {
  ctx.status = status;
  ctx.type = MEDIA_TYPES.json;
  ctx.body = JSON.stringify(body);
}

/** A2A errors go out as they are; anything else is ours, logged, and reported without details. */
function toWireError(error: unknown, options: JsonRpcEndpointOptions): A2AError {
  if (isA2AError(error)) return error;
  options.log('error', 'unexpected error while handling a JSON-RPC request', {
    error: error instanceof Error ? error.stack : String(error),
  });
  return a2aError('InternalError', 'the server failed to handle the request; it has been logged');
}

/** Our own output must validate; a failure is a bug in the hub, logged with what was wrong. */
function selfCheck(validate: Validator<unknown>, value: unknown, method: string, options: JsonRpcEndpointOptions): void {
  if (validate(value)) return;
  const problems = (validate.errors ?? []).slice(0, 5).map((error) => `${error.instancePath} ${error.message ?? ''}`);
  options.log('error', 'a response did not validate against the generated schema', { method, problems });
}
