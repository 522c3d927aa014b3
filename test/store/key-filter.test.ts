import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { GrowingKeyFilter, KeyFilter } from '../../src/store/key-filter.js';
import { MessageKeys } from '../../src/store/sqlite-message-keys.js';
import type { Statements } from '../../src/store/sqlite-statements.js';

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

describe('GrowingKeyFilter', () => {
  it('never forgets a key, across the filters it adds as it grows', () => {
    fc.assert(
      fc.property(fc.uniqueArray(fc.string({ unit: 'grapheme', maxLength: 40 }), { minLength: 1000, maxLength: 4000 }), (keys) => {
        const filter = new GrowingKeyFilter(1024);
        for (const key of keys) filter.add(key);
        expect(keys.every((key) => filter.mightContain(key))).toBe(true);
        expect(filter.size).toBe(keys.length);
        expect(filter.filters).toBeGreaterThan(keys.length > 1024 ? 1 : 0);
      }),
      { numRuns: 20 },
    );
  });

  it('adds a filter only when the newest is full, each twice the size of the last', () => {
    const filter = new GrowingKeyFilter(1024);
    const keys: string[] = [];
    const addUpTo = (count: number): void => {
      while (keys.length < count) {
        const key = `default\u0000message-${keys.length}`;
        keys.push(key);
        filter.add(key);
      }
    };
    addUpTo(1024);
    expect(filter.filters).toBe(1);
    addUpTo(1025);
    expect(filter.filters).toBe(2);
    addUpTo(1024 + 2048);
    expect(filter.filters).toBe(2);
    addUpTo(1024 + 2048 + 1);
    expect(filter.filters).toBe(3);
    expect(filter.size).toBe(keys.length);
    expect(keys.every((key) => filter.mightContain(key))).toBe(true);
  });

  it('answers no for almost every key it was not given, about 1 % per filter', () => {
    const filter = new GrowingKeyFilter(10_000);
    for (let n = 0; n < 70_000; n += 1) filter.add(`default\u0000message-${n}`);
    expect(filter.filters).toBe(3);
    let falsePositives = 0;
    const probes = 50_000;
    for (let n = 0; n < probes; n += 1) if (filter.mightContain(`default\u0000other-${n}`)) falsePositives += 1;
    expect(falsePositives / probes).toBeLessThan(0.02 * filter.filters);
  });
});

describe('MessageKeys', () => {
  it('reads the stored keys once, at open, and never again however many are added', () => {
    let reads = 0;
    const stored = Array.from({ length: 300 }, (_, n) => ({ instance_id: 'echo', message_id: `stored-${n}` }));
    const sql = {
      idempotentCount: { get: () => stored.length },
      idempotentKeys: {
        iterate: () => {
          reads += 1;
          return stored.values();
        },
      },
    } as unknown as Statements;
    const keys = new MessageKeys(sql);
    expect(reads).toBe(1);
    // Past the first filter's capacity (200,000): growing used to read every stored key again.
    for (let n = 0; n < 250_000; n += 1) keys.add('echo', `new-${n}`);
    expect(reads).toBe(1);
    expect(keys.mightBeStored('echo', 'stored-7')).toBe(true);
    expect(keys.mightBeStored('echo', 'new-249999')).toBe(true);
  });
});
