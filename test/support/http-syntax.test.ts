import { describe, expect, it } from 'vitest';
import { isFieldValue, isHttpToken } from '../../src/support/http-syntax.js';

describe('isHttpToken', () => {
  const cases: readonly [given: string, want: boolean][] = [
    ['Bearer', true],
    ['Basic', true],
    ["x-!#$%&'*+.^_`|~9", true],
    ['', false],
    ['Bear er', false],
    ['Bad/Scheme', false],
    ['a:b', false],
    ['naïve', false],
    ['tab\there', false],
  ];
  it.each(cases)('%j → %s', (given, want) => expect(isHttpToken(given)).toBe(want));
});

describe('isFieldValue', () => {
  const cases: readonly [given: string, want: boolean][] = [
    ['', true],
    ['abc def', true],
    ['with\ttab', true],
    ['café (obs-text)', true],
    ['line\nbreak', false],
    ['carriage\rreturn', false],
    ['nul\u0000', false],
    ['del\u007f', false],
    ['beyond latin-1 ✓', false],
  ];
  it.each(cases)('%j → %s', (given, want) => expect(isFieldValue(given)).toBe(want));
});
