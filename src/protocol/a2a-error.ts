import { ERRORS, type ErrorDefinition, type ErrorName } from '../../generated/a2a/1.0/errors.js';
import type { BadRequest, ErrorInfo, FieldViolation, JSONRPCError, RestErrorResponse } from '../../generated/a2a/1.0/types.js';
import { underPrefix } from './violations.js';

export type { ErrorDefinition, ErrorName };

export interface A2AErrorOptions {
  /** ErrorInfo metadata, e.g. `{ taskId }`. Values must never hold secrets: they go on the wire. */
  readonly metadata?: Readonly<Record<string, string>>;
  /** Field violations, sent as a google.rpc.BadRequest detail. */
  readonly violations?: readonly FieldViolation[];
  /** Seconds the client should wait before sending the request again: HTTP's Retry-After, on every binding. */
  readonly retryAfterSeconds?: number;
  readonly cause?: unknown;
}

/**
 * How many field violations an error answer lists. A request with thousands of bad members
 * would otherwise get an answer many times its own size; the first ones say what to fix.
 */
export const LISTED_VIOLATIONS = 20;

const ERROR_INFO_TYPE = 'type.googleapis.com/google.rpc.ErrorInfo';
const BAD_REQUEST_TYPE = 'type.googleapis.com/google.rpc.BadRequest';

/**
 * An error that belongs on the wire: it knows its code in every binding and renders itself
 * as a JSON-RPC error object or an HTTP+JSON error body. Anything else thrown by a handler is
 * a local error and must be reported as InternalError without its details.
 */
export class A2AError extends Error {
  readonly definition: ErrorDefinition;
  readonly metadata: Readonly<Record<string, string>>;
  readonly violations: readonly FieldViolation[];
  readonly retryAfterSeconds: number | undefined;

  constructor(definition: ErrorDefinition, message?: string, options: A2AErrorOptions = {}) {
    super(message ?? definition.message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = definition.name;
    this.definition = definition;
    this.metadata = options.metadata ?? {};
    this.violations = options.violations ?? [];
    this.retryAfterSeconds = options.retryAfterSeconds;
  }

  /**
   * The same error with every violation's field under `prefix`: the handler names fields from
   * the request message's root (`message.contextId`), and JSON-RPC nests that message in `params`.
   */
  withFieldPrefix(prefix: string): A2AError {
    if (this.violations.length === 0) return this;
    return new A2AError(this.definition, this.message, {
      metadata: this.metadata,
      violations: this.violations.map((violation) => ({ ...violation, field: underPrefix(prefix, violation.field) })),
      ...(this.retryAfterSeconds === undefined ? {} : { retryAfterSeconds: this.retryAfterSeconds }),
      cause: this,
    });
  }

  get code(): number {
    return this.definition.code;
  }

  get reason(): string {
    return this.definition.reason;
  }

  /** The `data` array both bindings carry: an ErrorInfo, then a BadRequest when there are violations. */
  details(): (ErrorInfo | BadRequest)[] {
    const info: ErrorInfo = { '@type': ERROR_INFO_TYPE, reason: this.definition.reason, domain: this.definition.domain };
    if (Object.keys(this.metadata).length > 0) info.metadata = { ...this.metadata };
    if (this.violations.length === 0) return [info];
    return [info, { '@type': BAD_REQUEST_TYPE, fieldViolations: listedViolations(this.violations) }];
  }

  toJsonRpcError(): JSONRPCError {
    return { code: this.definition.code, message: this.message, data: this.details() };
  }

  toRestErrorResponse(): RestErrorResponse {
    return {
      error: {
        code: this.definition.httpStatus,
        status: this.definition.grpcStatus as RestErrorResponse['error']['status'],
        message: this.message,
        details: this.details(),
      },
    };
  }
}

export function isA2AError(value: unknown): value is A2AError {
  return value instanceof A2AError;
}

/**
 * The error registered as `name` in spec/a2a/1.0/errors.json, with a message for this
 * occurrence (the registry's default when none is given). Callers name errors, never codes:
 * the code, reason and statuses of each binding come from the registry.
 */
export function a2aError(name: ErrorName, message?: string, options?: A2AErrorOptions): A2AError {
  return new A2AError(ERRORS[name], message, options);
}

/** The first LISTED_VIOLATIONS violations, then one counting the rest (its field empty: it names no single field). */
export function listedViolations(violations: readonly FieldViolation[]): FieldViolation[] {
  const listed = violations.slice(0, LISTED_VIOLATIONS).map((violation) => ({ ...violation }));
  const rest = violations.length - listed.length;
  if (rest > 0) listed.push({ field: '', description: `and ${rest} more violation${rest === 1 ? '' : 's'}, not listed` });
  return listed;
}
