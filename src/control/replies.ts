import type { Context } from 'koa';
import { MEDIA_TYPES } from '../../generated/a2a/1.0/protocol.js';
import { CONTROL_API, CONTROL_ENDPOINTS, type ControlEndpointKey, type ControlEndpointTypes } from '../../generated/control/api.js';
import type { ReadError } from '../../generated/control/types.js';
import { validateReadError, type Validator } from '../../generated/control/validators.js';
import type { LogFunction } from '../support/log.js';

const KNOWN_STATUSES: ReadonlySet<number> = new Set(CONTROL_API.statusCodes.map((row) => row.status));

export interface ReplyOptions {
  /** Check every reply against spec/control before it is sent, and log what does not conform (default true). */
  readonly selfCheck?: boolean;
  readonly log?: LogFunction;
}

/**
 * The control API's answers, typed by endpoint from spec/control/api.json: a success is the
 * endpoint's response def, a failure its failure def, and the status one the endpoint declares.
 * With selfCheck on, each reply is validated like the A2A endpoints' results: a reply that does
 * not conform is a bug in the hub, so it is logged (and still sent).
 */
export class ControlReplies {
  constructor(private readonly options: ReplyOptions) {}

  ok<K extends ControlEndpointKey>(ctx: Context, endpoint: K, body: ControlEndpointTypes[K]['response']): void {
    if (this.options.selfCheck !== false) this.#check(endpoint, 200, CONTROL_ENDPOINTS[endpoint].validateResponse, body);
    send(ctx, 200, body);
  }

  fail<K extends ControlEndpointKey>(ctx: Context, endpoint: K, status: number, body: ControlEndpointTypes[K]['failure']): void {
    if (this.options.selfCheck !== false) this.#check(endpoint, status, CONTROL_ENDPOINTS[endpoint].validateFailure, body);
    send(ctx, status, body);
  }

  /** A request no endpoint serves (an unknown path or method), or one refused before routing. */
  refuse(ctx: Context, status: number, message: string): void {
    const body: ReadError = { ok: false, message };
    if (this.options.selfCheck !== false) this.#check(`${ctx.method} ${ctx.path}`, status, validateReadError, body);
    send(ctx, status, body);
  }

  #check(endpoint: string, status: number, validate: Validator<unknown>, body: unknown): void {
    const declared = Object.hasOwn(CONTROL_ENDPOINTS, endpoint)
      ? CONTROL_ENDPOINTS[endpoint as ControlEndpointKey].statuses
      : [...KNOWN_STATUSES];
    const problems = [
      ...(declared.includes(status) ? [] : [`status ${status} is not one spec/control/api.json declares for ${endpoint}`]),
      ...(validate(body)
        ? []
        : (validate.errors ?? []).slice(0, 5).map((error) => `${error.instancePath || '(body)'} ${error.message ?? ''}`)),
    ];
    if (problems.length > 0)
      this.options.log?.('error', 'a control API reply does not conform to spec/control', { endpoint, status, problems });
  }
}

function send(ctx: Context, status: number, body: unknown): void {
  ctx.status = status;
  ctx.type = MEDIA_TYPES.json;
  ctx.body = JSON.stringify(body);
}
