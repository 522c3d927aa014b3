import { ERRORS, type ErrorName } from '../../../generated/a2a/1.0/errors.js';
import type { RequirementId } from '../../../generated/conformance/requirements.js';
import type { SkipReason } from '../../../generated/conformance/types.js';
import { errorLabel, observedOf, reasonOf } from '../../core/answers.js';
import type { CheckContext } from '../../core/check.js';
import type { RpcExchange } from '../../core/transport.js';

/* Recording verdicts beyond the context's own pass/fail/warn/skip. */

const passed = new WeakMap<CheckContext, Set<string>>();
/** PASS once per check and key: helpers that inspect every task would otherwise repeat it. */
export function passOnce(context: CheckContext, requirement: RequirementId, message: string, key: string = requirement): void {
  const seen = passed.get(context) ?? new Set<string>();
  passed.set(context, seen);
  if (seen.has(key)) return;
  seen.add(key);
  context.pass(requirement, message);
}

/** Records the same SKIP on each requirement. */
export function skipAll(context: CheckContext, requirements: readonly RequirementId[], reason: SkipReason, message: string): void {
  for (const requirement of requirements) context.skip(requirement, reason, message);
}

/**
 * JSONRPC-ENV-009 for an A2A error a check provoked. `certain`: the situation admits only this
 * error, so any other error code is a FAIL; otherwise only an error naming itself by ErrorInfo
 * reason is judged. A success is not judged here (the method's own requirement fails).
 */
export function recordErrorCode(context: CheckContext, exchange: RpcExchange, name: ErrorName, certain: boolean): void {
  if (context.transport.binding !== 'JSONRPC' || exchange.error === undefined) return;
  const expected = ERRORS[name];
  if (exchange.error.code === expected.code) {
    passOnce(context, 'JSONRPC-ENV-009', `${name} is ${expected.code}`, `JSONRPC-ENV-009:${name}`);
    return;
  }
  if (!certain && reasonOf(exchange.error) !== expected.reason) return;
  context.fail('JSONRPC-ENV-009', {
    message: `${name} came back with code ${exchange.error.code}`,
    expected: `error code ${errorLabel(name)} in A2A 1.0.1`,
    observed: observedOf(exchange),
    exchange,
  });
}

/** context.expectError for an A2A error, plus its JSONRPC-ENV-009 verdict. */
export function expectA2AError(
  context: CheckContext,
  requirement: RequirementId,
  exchange: RpcExchange,
  name: ErrorName,
  certain = true,
): boolean {
  recordErrorCode(context, exchange, name, certain);
  return context.expectError(requirement, exchange, name);
}
