import { describe, expect, it } from 'vitest';
import type { Message } from '../../generated/a2a/1.0/types.js';
import { TEST_DIRECTIVE_METADATA_KEY, parseTestDirective } from '../../src/executors/test-directives.js';

function parse(text: string, metadata?: Record<string, unknown>) {
  const message: Message = { messageId: 'm', role: 'ROLE_USER', parts: [{ text }], ...(metadata === undefined ? {} : { metadata }) };
  return parseTestDirective(message, text);
}

describe('echo test directives', () => {
  it('plain text asks for nothing special', () => {
    expect(parse('hello')).toEqual({ outcome: 'completed', steps: 0, stepMs: 100, chunks: 3 });
  });

  it.each([
    ['::fail', 'failed'],
    ['::failed', 'failed'],
    ['::reject', 'rejected'],
    ['::input-required', 'input-required'],
    ['::auth-required', 'auth-required'],
    ['::message', 'message'],
  ])('a line %s finishes %s', (line, outcome) => {
    expect(parse(`hello\n  ${line}  \nmore`).outcome).toBe(outcome);
  });

  // The words come from the message text: one that Object.prototype has must stay unknown.
  it.each(['::constructor', '::bogus', '::valueof'])('%s is not a directive', (line) => {
    expect(parse(`hello\n${line}`)).toEqual(parse('hello'));
  });

  it('an unknown outcome in metadata is ignored', () => {
    for (const outcome of ['toString', 'constructor', 'done', 42]) {
      expect(parse('hello', { [TEST_DIRECTIVE_METADATA_KEY]: { outcome } })).toEqual(parse('hello'));
    }
  });

  it('steps and chunks are clamped, metadata overrides text', () => {
    expect(parse('::slow 5000\n::chunks 0')).toMatchObject({ steps: 1000, chunks: 1 });
    expect(parse('::fail', { [TEST_DIRECTIVE_METADATA_KEY]: { outcome: 'rejected', stepMs: 99_999 } })).toMatchObject({
      outcome: 'rejected',
      stepMs: 10_000,
    });
  });
});
