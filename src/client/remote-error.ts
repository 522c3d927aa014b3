import { ERRORS, type ErrorName } from '../../generated/a2a/1.0/errors.js';
import type { FieldViolation } from '../../generated/a2a/1.0/types.js';
import { a2aError, type A2AError, type A2AErrorOptions } from '../protocol/a2a-error.js';
import { errorInfoMetadata } from '../protocol/error-info.js';
import { isRecord } from '../support/records.js';

/**
 * The A2AError of an error an agent sent, whichever binding carried it: the JSON-RPC `data`
 * array and the google.rpc.Status `details` hold the same ErrorInfo and BadRequest, so the
 * metadata and field violations are read alike. Which error it is, each binding decides.
 */

/** The HTTP status of a request without (valid) credentials, on every binding. */
export const UNAUTHENTICATED_STATUS = ERRORS.UnauthenticatedError.httpStatus;

/**
 * `name` with the agent's message, ErrorInfo metadata and BadRequest violations; an error no
 * registry entry names is InternalError, its message followed by `unnamed` (what the agent sent instead).
 */
export function remoteError(name: ErrorName | undefined, message: string, details: unknown, unnamed: string): A2AError {
  return namedRemoteError(name, message, { metadata: errorInfoMetadata(details), violations: fieldViolationsOf(details) }, unnamed);
}

/** As remoteError, for an error whose metadata and violations were read already (a 0.3 error's free-form `data`). */
export function namedRemoteError(name: ErrorName | undefined, message: string, options: A2AErrorOptions, unnamed: string): A2AError {
  if (name === undefined) return a2aError('InternalError', `${message} (${unnamed})`, options);
  return a2aError(name, message, options);
}

/** The field violations of every google.rpc.BadRequest among `details`. */
export function fieldViolationsOf(details: unknown): FieldViolation[] {
  const violations: FieldViolation[] = [];
  if (!Array.isArray(details)) return violations;
  for (const detail of details as unknown[]) {
    const fieldViolations = isRecord(detail) ? detail['fieldViolations'] : undefined;
    if (!Array.isArray(fieldViolations)) continue;
    for (const entry of fieldViolations as unknown[]) {
      if (isRecord(entry) && typeof entry['field'] === 'string' && typeof entry['description'] === 'string') {
        violations.push({ field: entry['field'], description: entry['description'] });
      }
    }
  }
  return violations;
}

/** HTTP 401 without an error body of the binding: the credentials were missing or refused. */
export function unauthenticatedWithoutBody(method: string): A2AError {
  return a2aError(
    'UnauthenticatedError',
    `${method}: the agent answered HTTP ${UNAUTHENTICATED_STATUS}: credentials are missing or were refused`,
  );
}
