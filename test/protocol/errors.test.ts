import { describe, expect, it } from 'vitest';
import { ERRORS, SPEC_ERROR_BY_CODE, ERROR_BY_REASON, type ErrorName } from '../../generated/a2a/1.0/errors.js';
import { a2aError, A2AError, LISTED_VIOLATIONS } from '../../src/protocol/a2a-error.js';
import { A2A_1_0 } from '../../src/protocol/a2a-schema.js';
import { checkValue } from '../../src/protocol/validation.js';

/** The A2A error table of the v1.0.1 specification (§5.4, digest §7.1), restated here to check the spec/ table. */
const SPEC_1_0_1: [ErrorName, number, string, number, string][] = [
  ['TaskNotFoundError', -32001, 'TASK_NOT_FOUND', 404, 'NOT_FOUND'],
  ['TaskNotCancelableError', -32002, 'TASK_NOT_CANCELABLE', 400, 'FAILED_PRECONDITION'],
  ['PushNotificationNotSupportedError', -32003, 'PUSH_NOTIFICATION_NOT_SUPPORTED', 400, 'FAILED_PRECONDITION'],
  ['UnsupportedOperationError', -32004, 'UNSUPPORTED_OPERATION', 400, 'FAILED_PRECONDITION'],
  ['ContentTypeNotSupportedError', -32005, 'CONTENT_TYPE_NOT_SUPPORTED', 400, 'INVALID_ARGUMENT'],
  ['InvalidAgentResponseError', -32006, 'INVALID_AGENT_RESPONSE', 500, 'INTERNAL'],
  ['ExtendedAgentCardNotConfiguredError', -32007, 'EXTENDED_AGENT_CARD_NOT_CONFIGURED', 400, 'FAILED_PRECONDITION'],
  ['ExtensionSupportRequiredError', -32008, 'EXTENSION_SUPPORT_REQUIRED', 400, 'FAILED_PRECONDITION'],
  ['VersionNotSupportedError', -32009, 'VERSION_NOT_SUPPORTED', 400, 'FAILED_PRECONDITION'],
  ['JSONParseError', -32700, 'JSON_PARSE', 400, 'INVALID_ARGUMENT'],
  ['InvalidRequestError', -32600, 'INVALID_REQUEST', 400, 'INVALID_ARGUMENT'],
  ['MethodNotFoundError', -32601, 'METHOD_NOT_FOUND', 404, 'NOT_FOUND'],
  ['InvalidParamsError', -32602, 'INVALID_PARAMS', 400, 'INVALID_ARGUMENT'],
  ['InternalError', -32603, 'INTERNAL', 500, 'INTERNAL'],
];

describe('the generated error registry', () => {
  it.each(SPEC_1_0_1)('%s has code %i, reason %s, HTTP %i and gRPC %s', (name, code, reason, http, grpc) => {
    expect(ERRORS[name]).toMatchObject({ code, reason, httpStatus: http, grpcStatus: grpc, domain: 'a2a-protocol.org' });
    expect(SPEC_ERROR_BY_CODE.get(code)).toBe(name);
    expect(ERROR_BY_REASON.get(reason)).toBe(name);
  });

  it('keeps the superseded 1.0.0 mapping as legacy data', () => {
    expect(ERRORS.TaskNotCancelableError.legacy).toEqual({ version: '1.0.0', httpStatus: 409, grpcStatus: 'FAILED_PRECONDITION' });
    expect(ERRORS.InvalidAgentResponseError.legacy?.httpStatus).toBe(502);
  });

  it('gives a2a-hub transport errors their own ErrorInfo domain', () => {
    expect(ERRORS.UnauthenticatedError).toMatchObject({ category: 'hub', httpStatus: 401, domain: 'a2a-hub.dev' });
    expect(ERRORS.RateLimitedError.httpStatus).toBe(429);
  });

  it.each(Object.keys(ERRORS))('%s: a2aError renders a JSON-RPC error and an HTTP+JSON error body that validate', (name) => {
    const error = a2aError(name as ErrorName, undefined, { metadata: { taskId: 't-1' } });
    const definition = ERRORS[name as ErrorName];
    expect(error).toBeInstanceOf(A2AError);
    expect(error.message).toBe(definition.message);
    const wire = error.toJsonRpcError();
    expect(checkValue(A2A_1_0, 'JSONRPCError', wire, { flavour: 'exact' })).toEqual({ ok: true, value: wire });
    expect(wire).toEqual({
      code: definition.code,
      message: definition.message,
      data: [
        {
          '@type': 'type.googleapis.com/google.rpc.ErrorInfo',
          reason: definition.reason,
          domain: definition.domain,
          metadata: { taskId: 't-1' },
        },
      ],
    });
    const rest = error.toRestErrorResponse();
    expect(checkValue(A2A_1_0, 'RestErrorResponse', rest, { flavour: 'exact' }).ok).toBe(true);
    expect(rest.error.code).toBe(definition.httpStatus);
  });

  it('adds a BadRequest detail carrying the field violations', () => {
    const error = a2aError('InvalidParamsError', 'params.message.messageId is required', {
      violations: [{ field: 'params.message.messageId', description: 'is required' }],
    });
    const wire = error.toJsonRpcError();
    expect(wire.data?.[1]).toEqual({
      '@type': 'type.googleapis.com/google.rpc.BadRequest',
      fieldViolations: [{ field: 'params.message.messageId', description: 'is required' }],
    });
    expect(checkValue(A2A_1_0, 'JSONRPCErrorResponse', { jsonrpc: '2.0', id: null, error: wire }, { flavour: 'exact' }).ok).toBe(true);
  });

  it('lists at most LISTED_VIOLATIONS violations on both bindings, then one counting the rest', () => {
    const violations = Array.from({ length: 1500 }, (_, index) => ({ field: `f${index}`, description: 'is unknown' }));
    const error = a2aError('InvalidParamsError', 'many', { violations });
    const fieldsOf = (details: readonly unknown[] | undefined) =>
      (details?.[1] as { fieldViolations: { field: string; description: string }[] }).fieldViolations;
    for (const listed of [fieldsOf(error.toJsonRpcError().data), fieldsOf(error.toRestErrorResponse().error.details)]) {
      expect(listed).toHaveLength(LISTED_VIOLATIONS + 1);
      expect(listed[0]).toEqual(violations[0]);
      expect(listed[LISTED_VIOLATIONS]).toEqual({ field: '', description: `and ${1500 - LISTED_VIOLATIONS} more violations, not listed` });
    }
    expect(error.violations).toHaveLength(1500);
  });

  it('the exact envelope rejects an ErrorInfo without reason even though unknown details are allowed', () => {
    const bad = { code: -32001, message: 'x', data: [{ '@type': 'type.googleapis.com/google.rpc.ErrorInfo', domain: 'a2a-protocol.org' }] };
    const result = checkValue(A2A_1_0, 'JSONRPCError', bad, { flavour: 'exact' });
    expect(result.ok).toBe(false);
    expect(result.ok ? [] : result.violations.map((v) => v.field)).toEqual(['data[0]']);
  });
});
