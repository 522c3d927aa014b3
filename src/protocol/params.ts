import { METHODS, type MethodName } from '../../generated/a2a/1.0/methods.js';
import { PROTO_NAMES } from '../../generated/a2a/1.0/proto-names.js';
import type { FieldViolation } from '../../generated/a2a/1.0/types.js';
import { a2aError, type A2AError } from './a2a-error.js';
import { A2A_1_0 } from './a2a-schema.js';
import { projectToSchema } from './project.js';
import { toJsonNames } from './proto-names.js';
import { checkValue } from './validation.js';
import { violationPhrases } from './violations.js';

export type ParamsCheck = { readonly ok: true; readonly value: unknown } | { readonly ok: false; readonly error: A2AError };

/**
 * The request message of `method` as every binding hands it to the handler: proto field names
 * renamed to JSON names, validated against the tolerant schema (-32602 / 400 with field
 * violations, paths under `fieldPrefix`), and projected onto the members the schema knows.
 */
export function checkParams(method: MethodName, raw: unknown, fieldPrefix: string): ParamsCheck {
  const definition = METHODS[method];
  const named = toJsonNames(PROTO_NAMES, definition.paramsType, raw, fieldPrefix);
  if (!named.ok) return { ok: false, error: invalidParams(named.violations) };
  const params = checkValue(A2A_1_0, definition.paramsType as 'SendMessageRequest', named.value, fieldPrefix === '' ? {} : { fieldPrefix });
  if (!params.ok) return { ok: false, error: invalidParams(params.violations) };
  return { ok: true, value: projectToSchema(A2A_1_0.document, definition.paramsType, params.value) };
}

/** InvalidParamsError whose message sums up the first violations and whose BadRequest lists them all. */
export function invalidParams(violations: readonly FieldViolation[], what = 'invalid params'): A2AError {
  return a2aError('InvalidParamsError', `${what}: ${summary(violations)}`, { violations });
}

function summary(violations: readonly FieldViolation[]): string {
  const shown = violationPhrases(violations.slice(0, 3), 'request');
  return violations.length > 3 ? `${shown.join('; ')}; and ${violations.length - 3} more` : shown.join('; ');
}
