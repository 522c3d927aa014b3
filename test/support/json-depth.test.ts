import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { jsonTextDeeperThan } from '../../src/support/json-depth.js';

/** The depth of a parsed value and the path to its first deepest-beyond-`limit` container, by recursion (the reference). */
function reference(value: unknown, limit: number, depth = 1, path: (string | number)[] = []): (string | number)[] | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  if (depth > limit) return path;
  const children: [string | number, unknown][] = Array.isArray(value) ? value.map((child, index) => [index, child]) : Object.entries(value);
  for (const [key, child] of children) {
    const found = reference(child, limit, depth + 1, [...path, key]);
    if (found !== undefined) return found;
  }
  return undefined;
}

describe('jsonTextDeeperThan', () => {
  it.each([
    ['a flat object', '{"a":1,"b":"x"}', 2, undefined],
    ['exactly at the limit', '{"a":{"b":{}}}', 3, undefined],
    ['one level past it', '{"a":{"b":{}}}', 2, ['a', 'b']],
    ['an array index', '[1,[2,[3,[4]]]]', 3, [1, 1, 1]],
    ['brackets inside strings', '{"a":"[[[[[[","b":"{{{{"}', 1, undefined],
    ['an escaped quote in a string', '{"a":"\\"[[[[","b":[[[]]]}', 2, ['b', 0]],
    ['an escaped backslash before a closing quote', '{"a\\\\":[[[]]]}', 2, ['a\\', 0]],
    ['a member name with an escape', '{"\\u0041b":{"c":[]}}', 2, ['Ab', 'c']],
    ['the second member', '{"x":[],"y":{"z":{"w":{}}}}', 3, ['y', 'z', 'w']],
  ])('%s', (_name, text, limit, want) => {
    expect(jsonTextDeeperThan(text, limit)?.path).toEqual(want);
  });

  it('names only the first steps of a long path, and says there are more', () => {
    const text = `{"message":{"metadata":{"deep":${'['.repeat(500)}${']'.repeat(500)}}}}`;
    expect(jsonTextDeeperThan(text, 100, 8)).toEqual({ path: ['message', 'metadata', 'deep', 0, 0, 0, 0, 0], more: true });
  });

  it('stops at the limit in a text millions of levels deep (JSON.parse of it takes over a second)', () => {
    const text = `${'['.repeat(5_000_000)}${']'.repeat(5_000_000)}`;
    expect(jsonTextDeeperThan(text, 100, 200)?.path).toHaveLength(100);
  });

  it('agrees with a recursive walk of the parsed value, for any JSON value and limit', () => {
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 8 }), fc.integer({ min: 1, max: 8 }), (value, limit) => {
        const text = JSON.stringify(value);
        expect(jsonTextDeeperThan(text, limit, 100)?.path).toEqual(reference(JSON.parse(text) as unknown, limit));
      }),
      { numRuns: 500 },
    );
  });
});
