import { expect } from 'vitest';
import { ERRORS, type ErrorName } from '../../generated/a2a/1.0/errors.js';
import type { BadRequest, ErrorInfo, JSONRPCError } from '../../generated/a2a/1.0/types.js';

export type { ErrorName };

/**
 * Error expectations by the error's registry name: the code, the ErrorInfo reason and domain
 * and the HTTP+JSON status are read from ERRORS (spec/a2a/1.0/errors.json), never restated in
 * a test. Every check fails the test; none of them returns a verdict to be ignored.
 */

/** The ErrorInfo that must come first in `data` / `details`. */
export function errorInfoOf(details: readonly unknown[] | undefined): ErrorInfo {
  const first = details?.[0] as ErrorInfo | undefined;
  expect(first?.['@type']).toBe('type.googleapis.com/google.rpc.ErrorInfo');
  return first as ErrorInfo;
}

/** The BadRequest detail of an error, failing when there is none. */
export function badRequestOf(details: readonly unknown[] | undefined): BadRequest {
  const found = (details ?? []).find(
    (detail) => (detail as { '@type'?: string })['@type'] === 'type.googleapis.com/google.rpc.BadRequest',
  ) as BadRequest | undefined;
  expect(found, 'a google.rpc.BadRequest detail').toBeDefined();
  return found as BadRequest;
}

/** The fields named by the google.rpc.BadRequest detail of an error, failing when there is none. */
export function violationFields(error: { data?: readonly unknown[] } | undefined): string[] {
  return badRequestOf(error?.data).fieldViolations.map((violation) => violation.field);
}

/**
 * Checks a JSON-RPC error object against the registry row of `name`: its code, and the
 * google.rpc.ErrorInfo first in `data` with the row's reason and domain. Returns the error.
 */
export function expectNamedError(error: JSONRPCError | undefined, name: ErrorName): JSONRPCError {
  expect(error, `expected ${name}`).toBeDefined();
  const row = ERRORS[name];
  const info = errorInfoOf((error as JSONRPCError).data);
  expect({ code: error?.code, reason: info?.reason, domain: info?.domain }, name).toEqual({
    code: row.code,
    reason: row.reason,
    domain: row.domain,
  });
  return error as JSONRPCError;
}

/**
 * Checks a google.rpc.Status body (the HTTP-level error the hub answers outside JSON-RPC)
 * against the registry row of `name`: code and status, and the ErrorInfo reason and domain.
 */
export function expectNamedStatus(status: { code: number; status: string; details?: readonly unknown[] }, name: ErrorName): void {
  const row = ERRORS[name];
  const info = errorInfoOf(status.details);
  expect({ code: status.code, status: status.status, reason: info?.reason, domain: info?.domain }, name).toEqual({
    code: row.httpStatus,
    status: row.grpcStatus,
    reason: row.reason,
    domain: row.domain,
  });
}
