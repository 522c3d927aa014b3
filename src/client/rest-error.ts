import { ERRORS, ERROR_NAMES, type ErrorDefinition, type ErrorName } from '../../generated/a2a/1.0/errors.js';
import { METHODS, type MethodName } from '../../generated/a2a/1.0/methods.js';
import type { A2AError } from '../protocol/a2a-error.js';
import { registeredErrorOf } from '../protocol/error-info.js';
import { isRecord } from '../support/records.js';
import { remoteError, UNAUTHENTICATED_STATUS } from './remote-error.js';

/**
 * HTTP+JSON error answers (spec §11.6): `{"error": google.rpc.Status}` back to the registry's
 * A2AError, so that a caller sees the same typed error on either binding.
 */

export interface RestStatus {
  /** The HTTP status the Status repeats; the response's when it gives none. */
  readonly code: number | undefined;
  /** The google.rpc.Code name, e.g. NOT_FOUND. */
  readonly status: string | undefined;
  readonly message: string;
  readonly details: unknown;
}

/** The Status of an HTTP+JSON error body, if `text` is one. */
export function readRestStatus(text: string): RestStatus | undefined {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return undefined;
  }
  return restStatusOf(body);
}

/** The Status of a parsed error body (`{"error": {…}}`), if it is one. */
export function restStatusOf(body: unknown): RestStatus | undefined {
  const error = isRecord(body) ? body['error'] : undefined;
  if (!isRecord(error) || typeof error['message'] !== 'string') return undefined;
  const code = error['code'];
  const status = error['status'];
  return {
    code: typeof code === 'number' ? code : undefined,
    status: typeof status === 'string' ? status : undefined,
    message: error['message'],
    details: error['details'],
  };
}

/**
 * The A2AError of a Status received with HTTP `httpStatus`: named by its ErrorInfo when that
 * names a registered error, whatever the HTTP status (the ErrorInfo is what §11.6 requires of
 * this binding, while the statuses of some errors changed from 1.0.0 to 1.0.1, and an agent
 * on either table, or on a proxy's idea of one, still means the error it names); else by the
 * statuses, when exactly one error the method may return (or else exactly one spec error) has
 * them in the 1.0.1 table or the 1.0.0 one; else InternalError. HTTP 401 is
 * UnauthenticatedError whatever the body says.
 */
export function restError(method: MethodName, httpStatus: number, status: RestStatus): A2AError {
  const name =
    httpStatus === UNAUTHENTICATED_STATUS
      ? 'UnauthenticatedError'
      : (registeredErrorOf(status.details, () => true) ?? errorByStatus(method, httpStatus, status.status));
  return remoteError(
    name,
    status.message,
    status.details,
    `remote HTTP ${httpStatus}${status.status === undefined ? '' : ` ${status.status}`}`,
  );
}

/** Spec errors only: the hub's own share statuses with them and are named by their ErrorInfo alone. */
const SPEC_ERRORS: readonly ErrorName[] = ERROR_NAMES.filter((name) => ERRORS[name].category !== 'hub');

function errorByStatus(method: MethodName, httpStatus: number, grpcStatus: string | undefined): ErrorName | undefined {
  const matches = (name: ErrorName): boolean => {
    const definition: ErrorDefinition = ERRORS[name];
    return [definition, definition.legacy].some(
      (table) => table !== undefined && table.httpStatus === httpStatus && (grpcStatus === undefined || table.grpcStatus === grpcStatus),
    );
  };
  const declared = METHODS[method].errors.filter(matches);
  if (declared.length === 1) return declared[0];
  const spec = SPEC_ERRORS.filter(matches);
  return spec.length === 1 ? spec[0] : undefined;
}
