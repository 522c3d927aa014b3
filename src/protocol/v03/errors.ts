import type * as V03 from '../../../generated/a2a/0.3/types.js';
import { ERRORS as ERRORS_03, SPEC_ERROR_BY_CODE as SPEC_ERROR_BY_CODE_03 } from '../../../generated/a2a/0.3/errors.js';
import { ERROR_BY_REASON, ERRORS, SPEC_ERROR_BY_CODE, type ErrorName } from '../../../generated/a2a/1.0/errors.js';
import type { FieldViolation } from '../../../generated/a2a/1.0/types.js';
import { setOwn } from '../../support/own-property.js';
import { isRecord } from '../../support/records.js';
import { listedViolations, type A2AError } from '../a2a-error.js';

/**
 * An error as a 0.3 caller reads it. The codes are the same numbers in both versions (1.0 only
 * added -32008 and -32009; a 0.3 request gets -32009 only on a route of the other version); 0.3's `data` is a free object where
 * 1.0 has a list of typed details, so the ErrorInfo and the field violations become its members.
 */
export function jsonRpcErrorTo03(error: A2AError): V03.JSONRPCError {
  const data: Record<string, unknown> = { reason: error.reason, domain: error.definition.domain };
  if (Object.keys(error.metadata).length > 0) data['metadata'] = { ...error.metadata };
  if (error.violations.length > 0) data['fieldViolations'] = listedViolations(error.violations);
  return { code: error.code, message: error.message, data };
}

/**
 * The HTTP status of an error on 0.3's HTTP+JSON binding: spec/a2a/0.3/errors.json's for the
 * spec's own errors (1.0.0's statuses, e.g. 409 for TaskNotCancelable), the hub's own status for
 * the hub errors that share a code with them (-32600 is also 404, 405, 413, …).
 */
export function httpStatusIn03(error: A2AError): number {
  const name03 = SPEC_ERROR_BY_CODE.get(error.code) === error.definition.name ? SPEC_ERROR_BY_CODE_03.get(error.code) : undefined;
  return name03 === undefined ? error.definition.httpStatus : ERRORS_03[name03].httpStatus;
}

/** What a 0.3 error object says, read as 1.0 knows errors. */
export interface ErrorFrom03 {
  /** The registered error, or undefined for a code neither version defines. */
  readonly name: ErrorName | undefined;
  readonly metadata: Record<string, string>;
  readonly violations: FieldViolation[];
}

/**
 * A 0.3 agent's error: its code names the error (the numbers are 1.0's; 0.3's -32007
 * AuthenticatedExtendedCardNotConfigured is 1.0's ExtendedAgentCardNotConfigured), unless `data`
 * names a registered reason of the same code, as jsonRpcErrorTo03 writes it (a hub error such as
 * -32000 needs that). `data` is free-form in 0.3: its `metadata` strings and `fieldViolations`
 * are read when it has them, anything else is ignored.
 */
export function jsonRpcErrorFrom03(error: { readonly code: number; readonly data?: unknown }): ErrorFrom03 {
  const data = isRecord(error.data) ? error.data : {};
  const reason = typeof data['reason'] === 'string' ? data['reason'] : undefined;
  const byReason = reason === undefined ? undefined : ERROR_BY_REASON.get(reason);
  const name = byReason !== undefined && ERRORS[byReason].code === error.code ? byReason : SPEC_ERROR_BY_CODE.get(error.code);
  const metadata: Record<string, string> = {};
  if (isRecord(data['metadata']))
    for (const [key, value] of Object.entries(data['metadata'])) if (typeof value === 'string') setOwn(metadata, key, value);
  const violations = Array.isArray(data['fieldViolations'])
    ? (data['fieldViolations'] as unknown[]).flatMap((entry) =>
        isRecord(entry) && typeof entry['field'] === 'string' && typeof entry['description'] === 'string'
          ? [{ field: entry['field'], description: entry['description'] }]
          : [],
      )
    : [];
  return { name, metadata, violations };
}

/** A 0.3 error object (`{code, message, data?}`, what 0.3's HTTP+JSON bodies and error events carry), if `json` is one. */
export function errorObject03(json: unknown): { readonly code: number; readonly message: string; readonly data?: unknown } | undefined {
  if (!isRecord(json) || typeof json['code'] !== 'number' || typeof json['message'] !== 'string') return undefined;
  return { code: json['code'], message: json['message'], data: json['data'] };
}
