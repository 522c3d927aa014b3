import { describe, expect, it } from 'vitest';
import { toolAllowed } from '../../src/executors/standard/tool-use.js';

/** The standard preset's tool allowlist: `*` stands for any run of characters, and nothing else is special. */
describe('toolAllowed', () => {
  const cases: readonly { readonly entry: string; readonly name: string; readonly want: boolean }[] = [
    { entry: 'weather__forecast', name: 'weather__forecast', want: true },
    { entry: 'weather__forecast', name: 'weather__forecasts', want: false },
    { entry: '*', name: 'anything', want: true },
    { entry: '*', name: '', want: true },
    { entry: 'weather__*', name: 'weather__forecast', want: true },
    { entry: 'weather__*', name: 'weather_', want: false },
    { entry: '*__forecast', name: 'weather__forecast', want: true },
    { entry: 'w*r__f*t', name: 'weather__forecast', want: true },
    { entry: 'w*r__f*t', name: 'weather__forecasts', want: false },
    // A prefix and a suffix may not share characters of the name.
    { entry: 'ab*ba', name: 'aba', want: false },
    { entry: 'ab*ba', name: 'abba', want: true },
    { entry: 'a**b', name: 'ab', want: true },
    { entry: 'a*b*c', name: 'acb', want: false },
    { entry: 'a*b*c', name: 'axbyc', want: true },
    // Dots and brackets are characters, not patterns.
    { entry: 'a.b*', name: 'axb1', want: false },
    { entry: 'a.b*', name: 'a.b1', want: true },
    { entry: '[x]*', name: '[x]y', want: true },
  ];
  it.each(cases)('$entry against $name: $want', ({ entry, name, want }) => {
    expect(toolAllowed(name, [entry])).toBe(want);
  });

  it('allows every tool without an allowlist, and none with an empty one', () => {
    expect(toolAllowed('x', undefined)).toBe(true);
    expect(toolAllowed('x', [])).toBe(false);
  });

  it('answers at once for a long name against many stars (a regular expression with a .* per star would take hours)', () => {
    expect(toolAllowed('a'.repeat(200_000), ['a*a*a*a*a*a*a*a*b'])).toBe(false);
  });
});
