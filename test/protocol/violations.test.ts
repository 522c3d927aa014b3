import { describe, expect, it } from 'vitest';
import { A2A_1_0 } from '../../src/protocol/a2a-schema.js';
import { CONTROL } from '../../src/protocol/control-schema.js';
import { checkValue, type Checked } from '../../src/protocol/validation.js';
import { fieldPath } from '../../src/protocol/violations.js';

const message = (parts: unknown[]) => ({ message: { messageId: 'm-1', role: 'ROLE_USER', parts } });

function violations(result: Checked<unknown>) {
  return result.ok ? [] : result.violations;
}

describe('field violations from validator errors', () => {
  it('a part with no content member gives one violation naming the four members', () => {
    const result = checkValue(A2A_1_0, 'SendMessageRequest', message([{ mediaType: 'text/plain' }]), { fieldPrefix: 'params' });
    expect(violations(result)).toEqual([
      {
        field: 'params.message.parts[0]',
        description: 'must set exactly one of text, raw, url, data (none is set)',
        reason: 'ONEOF_VIOLATION',
      },
    ]);
  });

  it('a part with two content members says which two', () => {
    const result = checkValue(A2A_1_0, 'SendMessageRequest', message([{ text: 'a' }, { text: 'b', url: 'https://x.test/a' }]));
    expect(violations(result)).toEqual([
      {
        field: 'message.parts[1]',
        description: 'must set exactly one of text, raw, url, data (text and url are set)',
        reason: 'ONEOF_VIOLATION',
      },
    ]);
  });

  it('a wrongly typed member inside a valid part is reported at that member only', () => {
    expect(violations(checkValue(A2A_1_0, 'Message', { messageId: 'm', role: 'ROLE_USER', parts: [{ text: 7 }] }))).toEqual([
      { field: 'parts[0].text', description: 'must be a string, got a number', reason: 'INVALID_TYPE' },
    ]);
  });

  it('empty parts, a bad role and a timestamp with an offset each get their own precise violation', () => {
    expect(
      violations(checkValue(A2A_1_0, 'Message', { messageId: 'm', role: 'agent', parts: [] })).map((v) => [v.field, v.reason]),
    ).toEqual([
      ['role', 'INVALID_ENUM'],
      ['parts', 'TOO_FEW_ITEMS'],
    ]);
    const status = checkValue(A2A_1_0, 'TaskStatus', { state: 'TASK_STATE_WORKING', timestamp: '2025-10-28T10:30:00+02:00' });
    expect(violations(status)).toEqual([
      {
        field: 'timestamp',
        description: 'must be an RFC 3339 timestamp in UTC ending in Z, e.g. 2025-10-28T10:30:00.000Z',
        reason: 'INVALID_FORMAT',
      },
    ]);
  });

  it('pageSize and historyLength out of range', () => {
    const result = checkValue(A2A_1_0, 'ListTasksRequest', { pageSize: 150, historyLength: -1 }, { fieldPrefix: 'params' });
    expect(violations(result)).toEqual([
      { field: 'params.pageSize', description: 'must be <= 100, got 150', reason: 'OUT_OF_RANGE' },
      { field: 'params.historyLength', description: 'must be >= 0, got -1', reason: 'OUT_OF_RANGE' },
    ]);
  });

  it('a JSON-RPC id of the wrong type collapses the union into one violation', () => {
    const result = checkValue(A2A_1_0, 'JSONRPCRequest', { jsonrpc: '2.0', id: true, method: 'GetTask' });
    expect(violations(result)).toEqual([{ field: 'id', description: 'must be a string or an integer, got true', reason: 'INVALID_VALUE' }]);
  });

  it('an unknown control action names every known action', () => {
    const result = checkValue(CONTROL, 'ControlAction', { action: 'inbound.explode', id: 'x' }, { flavour: 'exact' });
    const [only, ...rest] = violations(result);
    expect(rest).toEqual([]);
    expect(only?.field).toBe('action');
    expect(only?.description).toMatch(
      /^must be one of "inbound\.create", .*"session\.close", "push\.retry", "push\.delete", "task\.prune", got "inbound\.explode"$/,
    );
  });

  it('a control action with a member it does not take lists the members it does', () => {
    const result = checkValue(CONTROL, 'ControlAction', { action: 'inbound.enable', id: 'x', name: 'y' }, { flavour: 'exact' });
    expect(violations(result)).toEqual([
      { field: 'name', description: 'is not a member of this object; known members: action, id', reason: 'UNKNOWN_MEMBER' },
    ]);
  });

  it('an unknown member named like an Object.prototype member gets the known members, not a 0.3 hint', () => {
    const result = checkValue(CONTROL, 'ControlAction', { action: 'inbound.enable', id: 'x', constructor: 1 }, { flavour: 'exact' });
    expect(violations(result)).toEqual([
      { field: 'constructor', description: 'is not a member of this object; known members: action, id', reason: 'UNKNOWN_MEMBER' },
    ]);
  });
});

describe('a value that does not match a pattern', () => {
  it('a bad endpointPath says what a valid path looks like, as its schema describes it', () => {
    const action = (endpointPath: string) => ({ action: 'inbound.create', name: 'x', description: 'd', version: '1', endpointPath });
    const expected = (got: string) =>
      'must be an absolute path such as /a2a/my-agent: one or more segments of letters, digits, -, _, . and ~ ' +
      `after a /, no trailing /, no . or .. segment, and not /a2a/api or below it, got ${JSON.stringify(got)}`;
    for (const path of ['a2a/x', '/a2a/x/', '/a2a//x', '/a2a/../x', '/a2a/api/x', '/a2a/my agent']) {
      const found = violations(checkValue(CONTROL, 'ControlAction', action(path), { flavour: 'exact' }));
      expect(found, path).toEqual([{ field: 'endpointPath', description: expected(path), reason: 'INVALID_FORMAT' }]);
    }
  });
});

describe('A2A 0.3 hints', () => {
  it('a lowercase value of a proto enum gets the 0.3 hint', () => {
    const [only] = violations(checkValue(A2A_1_0, 'Message', { messageId: 'm', role: 'user', parts: [{ text: 'a' }] }));
    expect(only?.description).toBe(
      'must be one of "ROLE_USER", "ROLE_AGENT", got "user" (a lowercase value is how A2A 0.3 JSON-RPC spells it)',
    );
  });

  it('a lowercase value of an enum whose values are lowercase words does not', () => {
    const scheme = { apiKeySecurityScheme: { location: 'body', name: 'key' } };
    const [only] = violations(checkValue(A2A_1_0, 'SecurityScheme', scheme));
    expect(only?.description).toBe('must be one of "query", "header", "cookie", got "body"');
  });

  it('a 0.3 member gets its hint in A2A objects only', () => {
    const [a2a] = violations(
      checkValue(A2A_1_0, 'Message', { messageId: 'm', role: 'ROLE_USER', parts: [{ text: 'a' }], kind: 'message' }, { flavour: 'exact' }),
    );
    expect(a2a?.description).toContain('A2A 0.3 discriminator');
    const [control] = violations(
      checkValue(CONTROL, 'ControlAction', { action: 'inbound.enable', id: 'x', kind: 'y' }, { flavour: 'exact' }),
    );
    expect(control?.description).toBe('is not a member of this object; known members: action, id');
  });
});

describe('fieldPath', () => {
  it('writes JSON pointers the way google.rpc.BadRequest field paths read', () => {
    expect(fieldPath('/message/parts/0/text', 'params')).toBe('params.message.parts[0].text');
    expect(fieldPath('/metadata/a~1b', '')).toBe('metadata["a/b"]');
    expect(fieldPath('', 'params')).toBe('params');
  });
});
