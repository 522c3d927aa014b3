import { describe, expect, it } from 'vitest';
import { ERRORS } from '../../generated/a2a/1.0/errors.js';
import type { JSONRPCError } from '../../generated/a2a/1.0/types.js';
import { expectErrorResponse, type RpcResponse } from './a2a-client.js';
import { expectNamedError, expectNamedStatus, violationFields } from './errors.js';
import { expectJsonRpcError, type RawResponse } from './raw-http.js';
import { artifactText } from './tasks.js';
import { until, waitFor } from './wait.js';

/**
 * The shared helpers must fail the test whenever what they check does not hold: a helper that
 * passed on a wrong answer would weaken every test that calls it.
 */

const INFO = 'type.googleapis.com/google.rpc.ErrorInfo';
const notFound = ERRORS.TaskNotFoundError;

function error(code: number, reason: string, domain: string): JSONRPCError {
  return { code, message: 'm', data: [{ '@type': INFO, reason, domain }] };
}

function rpcResponse(body: RpcResponse<unknown>['body'], status = 200): RpcResponse<unknown> {
  return { status, headers: new Headers({ 'content-type': 'application/json' }), body };
}

function raw(body: unknown, status = 200): RawResponse {
  return { status, headers: new Headers({ 'content-type': 'application/json' }), text: JSON.stringify(body) };
}

describe('error expectations by name', () => {
  it('accept the registry row of the name', () => {
    const matching = error(notFound.code, notFound.reason, notFound.domain);
    expect(expectNamedError(matching, 'TaskNotFoundError')).toBe(matching);
  });

  it.each([
    ['another code', error(notFound.code - 1, notFound.reason, notFound.domain)],
    ['another reason', error(notFound.code, 'SOMETHING_ELSE', notFound.domain)],
    ['another domain', error(notFound.code, notFound.reason, 'a2a-hub.dev')],
    ['no ErrorInfo', { code: notFound.code, message: 'm' }],
    ['no error at all', undefined],
  ])('fail on %s', (_name, candidate) => {
    expect(() => expectNamedError(candidate, 'TaskNotFoundError')).toThrow();
  });

  it('a hub error and a spec error that share a code are told apart by reason and domain', () => {
    const unauthenticated = ERRORS.UnauthenticatedError;
    const rateLimited = error(ERRORS.RateLimitedError.code, ERRORS.RateLimitedError.reason, ERRORS.RateLimitedError.domain);
    expect(unauthenticated.code).toBe(ERRORS.RateLimitedError.code);
    expect(() => expectNamedError(rateLimited, 'UnauthenticatedError')).toThrow();
  });

  it('a strict-client response fails on a result, another HTTP status or another id', () => {
    const body = { jsonrpc: '2.0' as const, id: 1, error: error(notFound.code, notFound.reason, notFound.domain) };
    expectErrorResponse(rpcResponse(body), 'TaskNotFoundError', { id: 1 });
    expect(() => expectErrorResponse(rpcResponse({ ...body, result: {} }), 'TaskNotFoundError')).toThrow();
    expect(() => expectErrorResponse(rpcResponse(body, 401), 'TaskNotFoundError')).toThrow();
    expect(() => expectErrorResponse(rpcResponse(body), 'TaskNotFoundError', { id: 2 })).toThrow();
  });

  it('a raw response fails on another id (null unless given) or HTTP status', () => {
    const body = { jsonrpc: '2.0', id: null, error: error(notFound.code, notFound.reason, notFound.domain) };
    expectJsonRpcError(raw(body), 'TaskNotFoundError');
    expect(() => expectJsonRpcError(raw({ ...body, id: 'x' }), 'TaskNotFoundError')).toThrow();
    expect(() => expectJsonRpcError(raw(body, 404), 'TaskNotFoundError')).toThrow();
  });

  it('a google.rpc.Status fails on another status name or code', () => {
    const row = ERRORS.NotFoundError;
    const details = [{ '@type': INFO, reason: row.reason, domain: row.domain }];
    expectNamedStatus({ code: row.httpStatus, status: row.grpcStatus, details }, 'NotFoundError');
    expect(() => expectNamedStatus({ code: row.httpStatus, status: 'UNIMPLEMENTED', details }, 'NotFoundError')).toThrow();
    expect(() => expectNamedStatus({ code: 405, status: row.grpcStatus, details }, 'NotFoundError')).toThrow();
  });

  it('violationFields fails when there is no BadRequest instead of answering []', () => {
    expect(() => violationFields(error(notFound.code, notFound.reason, notFound.domain))).toThrow();
  });
});

describe('waits', () => {
  it('waitFor returns the value that satisfied it', async () => {
    let reads = 0;
    expect(
      await waitFor(
        () => ++reads,
        (value) => value === 3,
        'three reads',
        1000,
        1,
      ),
    ).toBe(3);
  });

  it('a wait that runs out throws, naming what it waited for and the last value read', async () => {
    await expect(
      waitFor(
        () => 'still working',
        (value) => value === 'done',
        'the task',
        30,
        5,
      ),
    ).rejects.toThrow(/waiting for the task; last read: still working/);
    await expect(until(() => false, 'the impossible', 30, 5)).rejects.toThrow(/the impossible/);
  });

  it('an error thrown by the probe fails at once and is not retried', async () => {
    let reads = 0;
    const failing = (): boolean => {
      reads += 1;
      throw new Error('probe failed');
    };
    await expect(until(failing, 'never', 1000, 1)).rejects.toThrow('probe failed');
    expect(reads).toBe(1);
  });
});

describe('artifactText', () => {
  it('joins every part of every artifact in order', () => {
    const artifacts = [
      { artifactId: 'a', parts: [{ text: 'echo: ' }, { text: 'he' }] },
      { artifactId: 'b', parts: [{ data: {} }, { text: 'llo' }] },
    ];
    expect(artifactText({ artifacts })).toBe('echo: hello');
    expect(artifactText({})).toBe('');
  });
});
