import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { KeyFilter } from '../../src/store/key-filter.js';

describe('KeyFilter', () => {
  it('never forgets a key it was given', () => {
    fc.assert(
      fc.property(fc.uniqueArray(fc.string({ unit: 'grapheme', maxLength: 60 }), { maxLength: 300 }), (keys) => {
        const filter = new KeyFilter(keys.length);
        for (const key of keys) filter.add(key);
        expect(keys.every((key) => filter.mightContain(key))).toBe(true);
        expect(filter.size).toBe(keys.length);
      }),
    );
  });

  it('answers no for almost every key it was not given, up to its capacity', () => {
    const filter = new KeyFilter(20_000);
    for (let n = 0; n < filter.capacity; n += 1) filter.add(`default\u0000message-${n}`);
    let falsePositives = 0;
    const probes = 50_000;
    for (let n = 0; n < probes; n += 1) if (filter.mightContain(`default\u0000other-${n}`)) falsePositives += 1;
    // About 1 % by design; 2 % leaves room for chance, and a broken hash would be far above.
    expect(falsePositives / probes).toBeLessThan(0.02);
  });
});
