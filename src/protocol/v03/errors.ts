import type * as V03 from '../../../generated/a2a/0.3/types.js';
import { listedViolations, type A2AError } from '../a2a-error.js';

/**
 * An error as a 0.3 caller reads it. The codes are the same numbers in both versions (1.0 only
 * added -32008 and -32009, which a 0.3 request never gets); 0.3's `data` is a free object where
 * 1.0 has a list of typed details, so the ErrorInfo and the field violations become its members.
 */
export function jsonRpcErrorTo03(error: A2AError): V03.JSONRPCError {
  const data: Record<string, unknown> = { reason: error.reason, domain: error.definition.domain };
  if (Object.keys(error.metadata).length > 0) data['metadata'] = { ...error.metadata };
  if (error.violations.length > 0) data['fieldViolations'] = listedViolations(error.violations);
  return { code: error.code, message: error.message, data };
}
