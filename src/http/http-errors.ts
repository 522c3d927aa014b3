import type { Context } from 'koa';
import { MEDIA_TYPES } from '../../generated/a2a/1.0/protocol.js';
import { a2aError, type A2AError } from '../protocol/a2a-error.js';

/** An HTTP-level failure as JSON (the HTTP+JSON binding's google.rpc.Status body), never an HTML page. */
export function respondWithError(ctx: Context, error: A2AError, status = error.definition.httpStatus): void {
  ctx.status = status;
  ctx.type = MEDIA_TYPES.json;
  ctx.body = JSON.stringify(error.toRestErrorResponse());
}

export function respondNotFound(ctx: Context): void {
  respondWithError(ctx, a2aError('NotFoundError', `nothing is served at ${ctx.method} ${ctx.path}`));
}

export function respondMethodNotAllowed(ctx: Context, allowed: readonly string[]): void {
  ctx.set('Allow', allowed.join(', '));
  respondWithError(ctx, a2aError('MethodNotAllowedError', `${ctx.method} is not allowed on ${ctx.path}; use ${allowed.join(' or ')}`));
}
