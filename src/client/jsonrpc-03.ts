import { METHODS as METHODS_03 } from '../../generated/a2a/0.3/methods.js';
import { PROTOCOL_VERSION as VERSION_03 } from '../../generated/a2a/0.3/protocol.js';
import type { MethodName } from '../../generated/a2a/1.0/methods.js';
import { HEADERS } from '../../generated/a2a/1.0/protocol.js';
import type { FieldViolation } from '../../generated/a2a/1.0/types.js';
import { a2aError } from '../protocol/a2a-error.js';
import { A2A_0_3, type A2A03Defs } from '../protocol/a2a-schema.js';
import { projectToSchema } from '../protocol/project.js';
import { callIn03, type CallIn03 } from '../protocol/v03/calls.js';
import { jsonRpcErrorFrom03 } from '../protocol/v03/errors.js';
import { UntranslatableError } from '../protocol/untranslatable.js';
import { checkValue } from '../protocol/validation.js';
import { validateResult } from './answer-validation.js';
import type { StreamingMethod } from './binding.js';
import type { JsonRpcDialect } from './jsonrpc-binding.js';
import { namedRemoteError } from './remote-error.js';

/**
 * A2A 0.3 over JSON-RPC, for an interface whose protocolVersion is 0.3: each 1.0 call is made
 * as its 0.3 method (src/protocol/v03/calls.ts), the answer is checked against spec/a2a/0.3
 * (tolerantly, as every answer is) and translated, then held to 1.0 like any other answer, so
 * the caller only ever sees 1.0. What 0.3 cannot express is refused before anything is sent.
 */
export const JSONRPC_0_3: JsonRpcDialect = {
  // 0.3 agents ignore it; a dual-stack one reads it to answer in 0.3 (1.0 §3.6.2 would too without it).
  headers: { [HEADERS.version.toLowerCase()]: VERSION_03 },
  request(method, params) {
    const call = callOf(method);
    try {
      return { method: call.method, params: call.params(params as never) };
    } catch (error) {
      if (!(error instanceof UntranslatableError)) throw error;
      throw a2aError('InvalidParamsError', `${method}: ${error.message}, so it cannot be sent to an A2A ${VERSION_03} agent`, {
        violations: [{ field: error.path, description: error.message.slice(error.path.length + 2) }],
      });
    }
  },
  result: (method, result) => validateResult(method, translated(method, result)),
  frame: (method, frame) => validateResult<StreamingMethod>(method, translated(method, frame)),
  error(method, error, known) {
    const read = jsonRpcErrorFrom03(error);
    return namedRemoteError(known ?? read.name, error.message, read, `remote code ${error.code}`);
  },
};

function callOf<M extends MethodName>(method: M): CallIn03<M> {
  const call = callIn03(method);
  if (call === undefined)
    throw a2aError('UnsupportedOperationError', `${method}: the agent speaks A2A ${VERSION_03}, which has no ${method}`);
  return call;
}

/** A 0.3 result (or frame) checked as its 0.3 def, members 0.3 does not know dropped, then translated to 1.0. */
function translated(method: MethodName, result: unknown): unknown {
  const call = callOf(method);
  const def = METHODS_03[call.method].resultType as keyof A2A03Defs;
  const verdict = checkValue(A2A_0_3, def, result, { flavour: 'input', fieldPrefix: 'result' });
  if (!verdict.ok) throw nonConforming(`the ${call.method} answer`, verdict.violations);
  try {
    return call.result(projectToSchema(A2A_0_3.document, def, verdict.value) as never);
  } catch (error) {
    if (!(error instanceof UntranslatableError)) throw error;
    throw nonConforming(`the ${call.method} answer`, [
      { field: `result.${error.path}`, description: error.message.slice(error.path.length + 2) },
    ]);
  }
}

function nonConforming(what: string, violations: readonly FieldViolation[]) {
  const summary = violations.map((violation) => `${violation.field}: ${violation.description}`).join('; ');
  return a2aError('InvalidAgentResponseError', `${what} does not conform to A2A ${VERSION_03}: ${summary}`, { violations });
}
