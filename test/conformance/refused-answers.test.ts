import { describe, expect, it } from 'vitest';
import { ERROR_DOMAIN, ERRORS, type ErrorName } from '../../generated/a2a/1.0/errors.js';
import { refused } from '../../conformance/core/answers.js';
import { retryAfterMs } from '../../conformance/core/http.js';

/*
 * What the runner counts as a refused request (its "this run proves little" warning) and how
 * long it waits out a 429: given an answer, want a verdict.
 */

function status(name: ErrorName): unknown {
  const error = ERRORS[name];
  return {
    error: {
      code: error.httpStatus,
      status: error.grpcStatus,
      message: error.message,
      details: [{ '@type': 'type.googleapis.com/google.rpc.ErrorInfo', reason: error.reason, domain: error.domain }],
    },
  };
}

const REFUSED: readonly { readonly given: string; readonly status: number; readonly body: unknown; readonly want: boolean }[] = [
  { given: 'HTTP+JSON TaskNotFoundError for a task the suite made up', status: 404, body: status('TaskNotFoundError'), want: false },
  { given: 'HTTP+JSON MethodNotFoundError', status: 404, body: status('MethodNotFoundError'), want: false },
  {
    given: 'JSON-RPC TaskNotFoundError (code, no ErrorInfo) at 404',
    status: 404,
    body: { jsonrpc: '2.0', id: 1, error: { code: ERRORS.TaskNotFoundError.code, message: 'Task not found' } },
    want: false,
  },
  {
    given: "0.3's HTTP+JSON error object",
    status: 404,
    body: { code: ERRORS.TaskNotFoundError.code, message: 'Task not found' },
    want: false,
  },
  { given: "a hub's own NOT_FOUND: no route at this path", status: 404, body: status('NotFoundError'), want: true },
  {
    given: 'a TaskNotFound code with the ErrorInfo of another error',
    status: 404,
    body: { error: { code: ERRORS.TaskNotFoundError.code, details: [{ reason: 'NOT_FOUND', domain: ERROR_DOMAIN }] } },
    want: true,
  },
  { given: 'an HTML 404 page', status: 404, body: undefined, want: true },
  { given: 'a JSON 404 without an error', status: 404, body: { message: 'Cannot POST /rpc' }, want: true },
  { given: '401', status: 401, body: status('UnauthenticatedError'), want: true },
  { given: '403', status: 403, body: undefined, want: true },
  { given: '400 InvalidParamsError', status: 400, body: status('InvalidParamsError'), want: false },
  { given: '200', status: 200, body: { jsonrpc: '2.0', id: 1, result: {} }, want: false },
];

describe('a refused request', () => {
  it.each(REFUSED)('$given: $want', ({ status: code, body, want }) => {
    expect(refused(code, body)).toBe(want);
  });
});

const NOW = Date.parse('2026-12-08T00:00:00Z');
const RETRY_AFTER: readonly { readonly given: string | null; readonly want: number | undefined }[] = [
  { given: null, want: 1000 },
  { given: '', want: 1000 },
  { given: '0', want: 0 },
  { given: '2', want: 2000 },
  { given: '10', want: 10_000 },
  { given: '11', want: undefined },
  { given: 'Tue, 08 Dec 2026 00:00:03 GMT', want: 3000 },
  { given: 'Mon, 07 Dec 2026 23:59:00 GMT', want: 0 },
  { given: 'soon', want: undefined },
];

describe('Retry-After', () => {
  it.each(RETRY_AFTER)('$given is waited $want ms', ({ given, want }) => {
    expect(retryAfterMs(given, NOW)).toBe(want);
  });
});
