import type { Context } from 'koa';
import { methodNotAllowedError, notFoundError } from '../../generated/a2a/1.0/errors.js';
import type { A2AError } from '../protocol/a2a-error.js';

/** An HTTP-level failure as JSON (the HTTP+JSON binding's google.rpc.Status body), never an HTML page. */
export function respondWithError(ctx: Context, error: A2AError, status = error.definition.httpStatus): void {
  ctx.status = status;
  ctx.type = 'application/json';
  ctx.body = JSON.stringify(error.toRestErrorResponse());
}

export function respondNotFound(ctx: Context): void {
  respondWithError(ctx, notFoundError(`nothing is served at ${ctx.method} ${ctx.path}`));
}

export function respondMethodNotAllowed(ctx: Context, allowed: readonly string[]): void {
  ctx.set('Allow', allowed.join(', '));
  respondWithError(ctx, methodNotAllowedError(`${ctx.method} is not allowed on ${ctx.path}; use ${allowed.join(' or ')}`));
}
