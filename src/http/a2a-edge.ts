import type { Context } from 'koa';
import { METHODS, type MethodName } from '../../generated/a2a/1.0/methods.js';
import { HEADERS as HEADERS_03 } from '../../generated/a2a/0.3/protocol.js';
import { HEADERS, PROTOCOL_VERSION, VERSION_QUERY_PARAMETER } from '../../generated/a2a/1.0/protocol.js';
import type { StreamResponse } from '../../generated/a2a/1.0/types.js';
import { validateStreamResponse, type Validator } from '../../generated/a2a/1.0/validators.js';
import { a2aError, isA2AError, type A2AError } from '../protocol/a2a-error.js';
import { negotiateVersion, type ServedVersion, type VersionPolicy, type VersionRequest } from '../protocol/versions.js';
import type { A2AHandler, CallContext, CallResult } from '../server/a2a-handler.js';
import type { FrameQueue } from '../server/frame-queue.js';
import type { InboundAgent, UnavailableAgent } from '../server/hosted-agent.js';
import type { LogFunction } from '../support/log.js';
import { sourceKey } from '../support/source-address.js';
import { baseUrlOf, type BaseUrlOptions } from './base-url.js';
import { bearerMatches } from './bearer.js';
import type { EndpointObserver, RequestObservation } from './endpoint-observer.js';
import type { RateLimiter } from './rate-limit.js';
import { pipeFramesToSse, type SseRendering } from './sse-frames.js';
import { openSse } from './sse.js';
import type { StreamTracker } from './stream-tracker.js';

/**
 * What the two wire bindings (JSON-RPC and HTTP+JSON) share at the edge: the admission checks,
 * version and extension negotiation, the call context, the wire error of an unexpected
 * failure, the self-check and the opening of an SSE stream. Each binding keeps only its
 * envelope and how it renders results and errors, so the rules cannot drift apart.
 */
export interface A2AEndpointOptions extends BaseUrlOptions {
  readonly handler: A2AHandler;
  readonly bodyLimitBytes: number;
  /** How long a request body may stall without a byte (connections.bodyIdleTimeoutMs); 0: no limit. */
  readonly bodyIdleTimeoutMs?: number;
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
 * Rate limit first, so token guessing is throttled too; then the bearer token. Throws the refusal.
 * Behind a trusted proxy the client is the address X-Forwarded-For gives (Koa's ctx.ip, which
 * reads only the last proxyHops entries), not the proxy's socket, which every client shares.
 */
export function admit(ctx: Context, agent: { readonly id: string; readonly tokenDigest?: string }, options: A2AEndpointOptions): void {
  const wait = options.rateLimiter?.take(sourceKey(options.trustProxy ? ctx.ip : ctx.socket.remoteAddress)) ?? 0;
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

/** What an unavailable instance's endpoints and card answer. */
export function unavailableError(agent: UnavailableAgent): A2AError {
  return a2aError('AgentUnavailableError', `agent "${agent.id}" is unavailable in this hub; its operator can see why`, {
    metadata: { instance: agent.id },
  });
}

/**
 * The service parameters of a request (spec §3.2.6, §3.6): throws VersionNotSupportedError for
 * a version this endpoint does not serve; names the activated extensions on the response.
 */
export function negotiateServiceParameters(
  ctx: Context,
  agent: InboundAgent,
  options: A2AEndpointOptions,
  request: Omit<VersionRequest, 'requested'>,
): ServedVersion {
  const version = negotiateVersion({ ...request, requested: ctx.get(HEADERS.version) || queryVersion(ctx) }, options.version);
  if (!version.ok) throw version.error;
  // 0.3 named the extensions header X-A2A-Extensions; a 0.3 client sends and reads that one.
  const extensionsHeader = version.version === PROTOCOL_VERSION ? HEADERS.extensions : HEADERS_03.extensions;
  const activated = activatedExtensions(ctx.get(extensionsHeader), agent.extensions);
  // Spec topics/extensions: the response names the extensions that were activated.
  if (activated.length > 0) ctx.set(extensionsHeader, activated.join(', '));
  return version.version;
}

/** The context the handler gets for this request. */
export function callContextOf(ctx: Context, agent: InboundAgent, options: A2AEndpointOptions): CallContext {
  const lastEventId = lastEventIdOf(ctx.get('last-event-id'));
  return {
    agent,
    // Only GetExtendedAgentCard needs it.
    get baseUrl() {
      return baseUrlOf(ctx, options);
    },
    ...(lastEventId === undefined ? {} : { lastEventId }),
  };
}

/**
 * The frame id a resuming client names: the hub's ids are decimal sequence numbers, so only
 * digits count; anything else (`3abc`, `1e9`, `-1`) is ignored as an absent header would be,
 * rather than read as a prefix that would replay frames the client never asked for.
 */
function lastEventIdOf(header: string): number | undefined {
  if (!/^\d+$/.test(header)) return undefined;
  const id = Number(header);
  return Number.isSafeInteger(id) ? id : undefined;
}

/**
 * A2A errors go out as they are, with the Retry-After they ask for; anything else is ours,
 * logged, and reported without details.
 */
export function toWireError(ctx: Context, error: unknown, binding: string, options: A2AEndpointOptions): A2AError {
  if (isA2AError(error)) {
    if (error.retryAfterSeconds !== undefined) ctx.set('Retry-After', String(error.retryAfterSeconds));
    return error;
  }
  options.log('error', `unexpected error while handling a ${binding} request`, {
    error: error instanceof Error ? error.stack : String(error),
  });
  return a2aError('InternalError', 'the server failed to handle the request; it has been logged');
}

/** The outcome metrics and the peer list record for an error, the same on every binding. */
export function outcomeOf(error: A2AError): string {
  return error.definition.category === 'hub' ? `http-${error.definition.httpStatus}` : String(error.code);
}

/**
 * Sends the headers the handler put on a result (a registered push config's signing secret),
 * on every binding alike; for a stream, before it opens.
 */
export function sendResultHeaders(ctx: Context, result: CallResult): void {
  for (const [name, value] of Object.entries(result.headers ?? {})) ctx.set(name, value);
}

/** Checks a method's result before it is sent (when selfCheck is on). */
export function checkResult(method: MethodName, result: unknown, options: A2AEndpointOptions): void {
  if (options.selfCheck) selfCheck(METHODS[method].validateResult, result, method, options);
}

/**
 * Answers with an SSE stream of `frames`, each frame self-checked and rendered by the binding.
 * The stream is tracked until the response has really gone out, so shutdown can wait for it.
 */
export function streamFrames(
  ctx: Context,
  frames: FrameQueue,
  method: MethodName,
  rendering: SseRendering,
  observation: RequestObservation | undefined,
  options: A2AEndpointOptions,
  headers: Record<string, string>,
): void {
  const sse = openSse(ctx, options.sseHeartbeatMs, headers);
  options.streams.track(new Promise<void>((resolve) => ctx.res.once('close', () => resolve())));
  const streamEnded = observation?.streamOpened();
  if (streamEnded) sse.onClose(streamEnded);
  observation?.done(method, 'ok');
  pipeFramesToSse(frames, sse, {
    ...rendering,
    frame(frame: StreamResponse) {
      if (options.selfCheck) selfCheck(validateStreamResponse, frame, method, options);
      return rendering.frame(frame);
    },
  });
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
export function queryVersion(ctx: Context): string | undefined {
  // Almost no request has a query string; parsing an empty one still costs an object or two.
  if (ctx.querystring === '') return undefined;
  const value = ctx.query[VERSION_QUERY_PARAMETER] ?? ctx.query[VERSION_QUERY_PARAMETER.toLowerCase()];
  return Array.isArray(value) ? value[0] : value;
}

/** Our own output must validate; a failure is a bug in the hub, logged with what was wrong. */
export function selfCheck(validate: Validator<unknown>, value: unknown, method: string, options: A2AEndpointOptions): void {
  if (validate(value)) return;
  const problems = (validate.errors ?? []).slice(0, 5).map((error) => `${error.instancePath} ${error.message ?? ''}`);
  options.log('error', 'a response did not validate against the generated schema', { method, problems });
}
