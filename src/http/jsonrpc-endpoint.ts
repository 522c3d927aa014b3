import type { Context } from 'koa';
import { METHODS as METHODS_03 } from '../../generated/a2a/0.3/methods.js';
import { isThisProtocolVersion as is03, PROTOCOL_VERSION as VERSION_03 } from '../../generated/a2a/0.3/protocol.js';
import { isMethodName } from '../../generated/a2a/1.0/methods.js';
import { HEADERS, MEDIA_TYPES, PROTOCOL_VERSION } from '../../generated/a2a/1.0/protocol.js';
import type { StreamResponse } from '../../generated/a2a/1.0/types.js';
import { validateTask as validateTask03 } from '../../generated/a2a/0.3/validators.js';
import { validateTask as validateTask10 } from '../../generated/a2a/1.0/validators.js';
import type { GatewayMethod } from '../../generated/hub/gateway-methods.js';
import { a2aError, isA2AError, type A2AError } from '../protocol/a2a-error.js';
import {
  errorResponse,
  PARAMS_MEMBER,
  parseEnvelope,
  resolveCall,
  successResponse,
  type Envelope,
  type JsonRpcId,
} from '../protocol/jsonrpc.js';
import { jsonRpcErrorTo03 } from '../protocol/v03/errors.js';
import type { ServedVersion } from '../protocol/versions.js';
import { gatewayAnswerIn, gatewayMethodOf, resolveGatewayCall } from '../server/gateway-calls.js';
import { workerOf, type GatewayAnswer } from '../server/gateway-handler.js';
import { method03Of, resolve03Call, run03Call } from '../server/v03-calls.js';
import { versionsServedBy, type InboundAgent, type UnavailableAgent } from '../server/hosted-agent.js';
import {
  admit,
  callContextOf,
  checkResult,
  negotiateServiceParameters,
  outcomeOf,
  selfCheck,
  sendResultHeaders,
  streamFrames,
  toWireError,
  unavailableError,
  type A2AEndpointOptions,
} from './a2a-edge.js';
import { readA2ABody } from './body.js';
import type { RequestObservation } from './endpoint-observer.js';

/**
 * The JSON-RPC binding of one inbound agent: checks in a fixed order (rate limit, so token
 * guessing is throttled too; authentication; content type; size; JSON; envelope; version;
 * method; params), then the
 * transport-neutral handler, then a JSON body or an SSE stream. Every failure is a JSON-RPC
 * error object with an ErrorInfo; HTTP status is 200 except for the transport failures that
 * have their own (401, 413, 415, 429). A request made in A2A 0.3 (`A2A-Version: 0.3`, or no
 * header and a method and params that only 0.3 has or `absentVersion` says 0.3) is served and
 * answered in 0.3.
 */
export async function serveJsonRpc(ctx: Context, agent: InboundAgent, options: A2AEndpointOptions): Promise<void> {
  ctx.set(HEADERS.version, PROTOCOL_VERSION);
  let id: JsonRpcId = null;
  let notification = false;
  let method = '-';
  // Until the version is negotiated, a failure is rendered as the header asks.
  let version: ServedVersion = is03(ctx.get(HEADERS.version)) ? VERSION_03 : PROTOCOL_VERSION;
  const observation = options.observer?.request(ctx.socket, agent.id);
  try {
    admit(ctx, agent, options);
    const envelope = parseEnvelope(
      await readA2ABody(ctx, options.bodyLimitBytes, { messageAt: PARAMS_MEMBER, idleMs: options.bodyIdleTimeoutMs ?? 0 }),
    );
    id = envelope.id;
    if (!envelope.ok) throw envelope.error;
    notification = envelope.value.notification;
    const request = envelope.value;
    version = negotiateServiceParameters(ctx, agent, options, { served: versionsServedBy(agent), implied: () => impliedVersion(request) });
    const gateway = gatewayMethodOf(request.method, version);
    if (gateway !== undefined) {
      method = gateway.name;
      await serveGateway(ctx, agent, gateway, request, version, observation, options);
      return;
    }
    if (version === VERSION_03) {
      ctx.set(HEADERS.version, VERSION_03);
      method = envelope.value.method;
      await serve03(ctx, agent, envelope.value, observation, options);
      return;
    }
    const resolved = resolveCall(envelope.value);
    if (!resolved.ok) throw resolved.error;
    const call = resolved.value;
    method = call.method;
    const result = await options.handler
      .call(call.method, call.params as never, callContextOf(ctx, agent, options))
      .catch((error: unknown) => {
        throw isA2AError(error) ? error.withFieldPrefix(PARAMS_MEMBER) : error;
      });
    sendResultHeaders(ctx, result);
    if (call.notification) {
      if (result.kind === 'stream') result.frames.end();
      ctx.status = 204;
      observation?.done(method, 'notification');
      return;
    }
    if (result.kind === 'result') {
      checkResult(call.method, result.result, options);
      respond(ctx, 200, successResponse(id, result.result));
      observation?.done(method, 'ok');
      return;
    }
    const requestId = id;
    streamFrames(
      ctx,
      result.frames,
      call.method,
      {
        frame: (frame: StreamResponse) => JSON.stringify(successResponse(requestId, frame)),
        error: (error: A2AError) => JSON.stringify(errorResponse(requestId, error)),
      },
      observation,
      options,
      { [HEADERS.version]: PROTOCOL_VERSION },
    );
  } catch (error) {
    respondWithFailure(ctx, error, { id, notification, method, observation, version }, options);
  }
}

/**
 * The version a request without A2A-Version shows by itself (docs/spec-policy.md 5.1): the one
 * version in which its method exists and its params are valid; when both versions refuse it,
 * the one that finds fewer violations (a method a version lacks counts as the most), so the
 * error is in the dialect the caller meant. A request both versions accept (GetTask's `{id}`)
 * shows nothing, and the hub's absent-version policy rules.
 */
function impliedVersion(envelope: Envelope): ServedVersion | undefined {
  const [as10, as03] = [misfitIn(PROTOCOL_VERSION, envelope), misfitIn(VERSION_03, envelope)];
  if (as10 === as03) return undefined;
  return as10 < as03 ? PROTOCOL_VERSION : VERSION_03;
}

/** How badly a request fits a version: 0 when valid, its violations when not, Infinity when the version has no such method. */
function misfitIn(version: ServedVersion, envelope: Envelope): number {
  const gateway = gatewayMethodOf(envelope.method, version);
  const resolved =
    gateway !== undefined
      ? resolveGatewayCall(gateway, envelope.params, version, PARAMS_MEMBER, { exact: true })
      : version === VERSION_03
        ? method03Of(envelope.method) === undefined
          ? undefined
          : resolve03Call(envelope.method, envelope.params, PARAMS_MEMBER)
        : isMethodName(envelope.method)
          ? resolveCall(envelope)
          : undefined;
  if (resolved === undefined) return Number.POSITIVE_INFINITY;
  return resolved.ok ? 0 : Math.max(1, resolved.error.violations.length);
}

/**
 * One of seed 004's gateway methods (src/server/gateway-calls.ts), in the request's version.
 * Those the agent's worker calls need the instance's token: without one, anybody could
 * complete its tasks.
 */
async function serveGateway(
  ctx: Context,
  agent: InboundAgent,
  gateway: GatewayMethod,
  envelope: Envelope,
  version: ServedVersion,
  observation: RequestObservation | undefined,
  options: A2AEndpointOptions,
): Promise<void> {
  if (version === VERSION_03) ctx.set(HEADERS.version, VERSION_03);
  if (gateway.side === 'agent') workerOf(gateway.name, agent);
  if (gateway.side === 'agent' && agent.tokenDigest === undefined) {
    throw a2aError(
      'UnauthenticatedError',
      `${gateway.name} is the worker's method and needs the agent's token, but this agent has none: give it one (inbound.setAuth or authTokenEnv)`,
    );
  }
  const resolved = resolveGatewayCall(gateway, envelope.params, version, PARAMS_MEMBER);
  if (!resolved.ok) throw resolved.error;
  let answer: GatewayAnswer;
  try {
    answer = await options.handler.gateway.call(resolved.value, callContextOf(ctx, agent, options));
  } catch (error) {
    throw isA2AError(error) ? error.withFieldPrefix(PARAMS_MEMBER) : error;
  }
  const result = gatewayAnswerIn(answer, version);
  if (options.selfCheck) selfCheckGateway(gateway, answer, result, version, options);
  if (envelope.notification) {
    ctx.status = 204;
    observation?.done(gateway.name, 'notification');
    return;
  }
  respond(ctx, 200, successResponse(envelope.id, result));
  observation?.done(gateway.name, 'ok');
}

/** A gateway answer holds Tasks of the request's version; a list page is a hub def around them. */
function selfCheckGateway(
  gateway: GatewayMethod,
  answer: GatewayAnswer,
  result: unknown,
  version: ServedVersion,
  options: A2AEndpointOptions,
): void {
  const validateTask = version === VERSION_03 ? validateTask03 : validateTask10;
  if (answer.method === 'task') {
    selfCheck(validateTask, result, gateway.name, options);
    return;
  }
  if (gateway.validateResult !== null) selfCheck(gateway.validateResult, result, gateway.name, options);
  for (const task of (result as { tasks: unknown[] }).tasks) selfCheck(validateTask, task, gateway.name, options);
}

/**
 * A request made in 0.3 (src/server/v03-calls.ts): its method and params checked as 0.3, the
 * 1.0 handler run on their translation, the result and every stream frame translated back.
 * Failures propagate to serveJsonRpc, which renders them as 0.3 errors.
 */
async function serve03(
  ctx: Context,
  agent: InboundAgent,
  envelope: Envelope,
  observation: RequestObservation | undefined,
  options: A2AEndpointOptions,
): Promise<void> {
  const resolved = resolve03Call(envelope.method, envelope.params, PARAMS_MEMBER);
  if (!resolved.ok) throw resolved.error;
  const call = resolved.value;
  const result = await run03Call(options.handler, call, callContextOf(ctx, agent, options), PARAMS_MEMBER);
  sendResultHeaders(ctx, result);
  if (envelope.notification) {
    if (result.kind === 'stream') result.frames.end();
    ctx.status = 204;
    observation?.done(call.method, 'notification');
    return;
  }
  if (result.kind === 'result') {
    if (options.selfCheck) selfCheck(METHODS_03[call.method].validateResult, result.result, call.method, options);
    respond(ctx, 200, successResponse(envelope.id, result.result));
    observation?.done(call.method, 'ok');
    return;
  }
  const requestId = envelope.id;
  streamFrames(
    ctx,
    result.frames,
    result.streamedAs,
    {
      frame: (frame: StreamResponse) => {
        const translated = result.frame(frame);
        return translated === undefined ? undefined : JSON.stringify(successResponse(requestId, translated));
      },
      error: (error: A2AError) => JSON.stringify({ jsonrpc: '2.0', id: requestId, error: jsonRpcErrorTo03(error) }),
    },
    observation,
    options,
    { [HEADERS.version]: VERSION_03 },
  );
}

/**
 * The endpoint of an instance that cannot run here: past the same rate limit and token check
 * as a served one, AgentUnavailableError. The reason stays with the operator, since it names
 * this hub's presets; a caller learns only that the agent is unavailable.
 */
export function serveUnavailable(ctx: Context, agent: UnavailableAgent, options: A2AEndpointOptions): void {
  ctx.set(HEADERS.version, PROTOCOL_VERSION);
  const observation = options.observer?.request(ctx.socket, agent.id);
  try {
    admit(ctx, agent, options);
    throw unavailableError(agent);
  } catch (error) {
    respondWithFailure(ctx, error, { id: null, notification: false, method: '-', observation }, options);
  }
}

interface Failed {
  readonly id: JsonRpcId;
  readonly notification: boolean;
  readonly method: string;
  readonly observation: RequestObservation | undefined;
  /** The version the error is rendered in. */
  readonly version?: ServedVersion;
}

function respondWithFailure(ctx: Context, error: unknown, failed: Failed, options: A2AEndpointOptions): void {
  const wireError = toWireError(ctx, error, 'JSON-RPC', options);
  const status = wireError.definition.category === 'hub' ? wireError.definition.httpStatus : 200;
  // JSON-RPC never answers a notification, not even with an error; transport failures
  // (401, 413, 415, 429) and hub errors (503) are HTTP's business and still get their status.
  failed.observation?.done(failed.method, outcomeOf(wireError));
  if (failed.notification && status === 200) {
    ctx.status = 204;
    return;
  }
  if (failed.version === VERSION_03) {
    ctx.set(HEADERS.version, VERSION_03);
    respond(ctx, status, { jsonrpc: '2.0', id: failed.id, error: jsonRpcErrorTo03(wireError) });
    return;
  }
  respond(ctx, status, errorResponse(failed.id, wireError));
}

function respond(ctx: Context, status: number, body: unknown): void {
  ctx.status = status;
  ctx.type = MEDIA_TYPES.json;
  ctx.body = JSON.stringify(body);
}
