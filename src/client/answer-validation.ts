import { METHODS, type MethodName, type MethodTypes } from '../../generated/a2a/1.0/methods.js';
import type { FieldViolation } from '../../generated/a2a/1.0/types.js';
import { a2aError, type A2AError } from '../protocol/a2a-error.js';
import { A2A_1_0, type A2ADefs } from '../protocol/a2a-schema.js';
import { projectToSchema } from '../protocol/project.js';
import { checkValue } from '../protocol/validation.js';

/**
 * What the client accepts from an agent, whatever the binding: answers are checked tolerantly
 * (spec §5.7: unknown members are ignored) and the ignored members dropped, so callers only
 * ever hold exact 1.0 shapes; anything else that does not conform, 0.3 shapes included, is
 * InvalidAgentResponse.
 */

/** The result of `method`, exact 1.0, or InvalidAgentResponse. */
export function validateResult<M extends MethodName>(method: M, result: unknown): MethodTypes[M]['result'] {
  const definition = METHODS[method];
  // An exact answer has no member to drop.
  if (definition.validateResult(result)) return result;
  return conforming(definition.resultType as keyof A2ADefs, result, 'result', `the ${method} answer`) as MethodTypes[M]['result'];
}

/**
 * `value` as a `type` with the members the schema does not know dropped, or InvalidAgentResponse
 * naming `what` and each violation (paths start with `fieldPrefix`).
 */
export function conforming<K extends keyof A2ADefs>(type: K, value: unknown, fieldPrefix: string, what: string): A2ADefs[K] {
  const verdict = checkValue(A2A_1_0, type, value, { flavour: 'input', fieldPrefix });
  if (!verdict.ok) throw nonConforming(what, verdict.violations);
  return projectToSchema(A2A_1_0.document, type, verdict.value);
}

function nonConforming(what: string, violations: readonly FieldViolation[]): A2AError {
  const summary = violations.map((violation) => `${violation.field}: ${violation.description}`).join('; ');
  return a2aError('InvalidAgentResponseError', `${what} does not conform to A2A 1.0: ${summary}`, { violations });
}
