import type { Context } from 'koa';
import { HEADERS, MEDIA_TYPES, PROTOCOL_VERSION } from '../../generated/a2a/1.0/protocol.js';
import type { StreamResponse } from '../../generated/a2a/1.0/types.js';
import { isA2AError, type A2AError } from '../protocol/a2a-error.js';
import { errorResponse, PARAMS_MEMBER, parseEnvelope, resolveCall, successResponse, type JsonRpcId } from '../protocol/jsonrpc.js';
import type { InboundAgent, UnavailableAgent } from '../server/hosted-agent.js';
import {
  admit,
  callContextOf,
  checkResult,
  negotiateServiceParameters,
  outcomeOf,
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
 * have their own (401, 413, 415, 429).
 */
export async function serveJsonRpc(ctx: Context, agent: InboundAgent, options: A2AEndpointOptions): Promise<void> {
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
    negotiateServiceParameters(ctx, agent, options);
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
    respondWithFailure(ctx, error, { id, notification, method, observation }, options);
  }
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
}

function respondWithFailure(ctx: Context, error: unknown, failed: Failed, options: A2AEndpointOptions): void {
  const wireError = toWireError(error, 'JSON-RPC', options);
  const status = wireError.definition.category === 'hub' ? wireError.definition.httpStatus : 200;
  // JSON-RPC never answers a notification, not even with an error; transport failures
  // (401, 413, 415, 429) and hub errors (503) are HTTP's business and still get their status.
  failed.observation?.done(failed.method, outcomeOf(wireError));
  if (failed.notification && status === 200) {
    ctx.status = 204;
    return;
  }
  respond(ctx, status, errorResponse(failed.id, wireError));
}

function respond(ctx: Context, status: number, body: unknown): void {
  ctx.status = status;
  ctx.type = MEDIA_TYPES.json;
  ctx.body = JSON.stringify(body);
}
