import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { RecencyMap } from '../../src/support/recency-map.js';

type Command =
  | { readonly op: 'set'; readonly key: number; readonly value: number }
  | { readonly op: 'touch' | 'delete' | 'get'; readonly key: number }
  | { readonly op: 'trimTo'; readonly limit: number }
  | { readonly op: 'deleteWhileIterating'; readonly every: number };

const key = fc.integer({ min: 0, max: 12 });
const command: fc.Arbitrary<Command> = fc.oneof(
  fc.record({ op: fc.constant('set' as const), key, value: fc.integer() }),
  fc.record({ op: fc.constantFrom('touch' as const, 'delete' as const, 'get' as const), key }),
  fc.record({ op: fc.constant('trimTo' as const), limit: fc.integer({ min: 0, max: 10 }) }),
  fc.record({ op: fc.constant('deleteWhileIterating' as const), every: fc.integer({ min: 1, max: 3 }) }),
);

describe('RecencyMap', () => {
  // The model is a plain Map, whose insertion order is the recency order when every use
  // deletes and re-inserts; the class must agree with it on contents and order.
  it('keeps the same entries in the same order as a delete-and-reinsert Map', () => {
    fc.assert(
      fc.property(fc.array(command, { maxLength: 80 }), (commands) => {
        const map = new RecencyMap<number, number>();
        const model = new Map<number, number>();
        for (const c of commands) {
          switch (c.op) {
            case 'set':
              map.set(c.key, c.value);
              model.delete(c.key);
              model.set(c.key, c.value);
              break;
            case 'touch': {
              const value = model.get(c.key);
              expect(map.touch(c.key)).toBe(value !== undefined);
              if (value !== undefined) {
                model.delete(c.key);
                model.set(c.key, value);
              }
              break;
            }
            case 'delete':
              expect(map.delete(c.key)).toBe(model.delete(c.key));
              break;
            case 'get':
              expect(map.get(c.key)).toBe(model.get(c.key));
              expect(map.has(c.key)).toBe(model.has(c.key));
              break;
            case 'trimTo':
              map.trimTo(c.limit);
              for (const oldest of [...model.keys()].slice(0, Math.max(0, model.size - c.limit))) model.delete(oldest);
              break;
            case 'deleteWhileIterating': {
              let n = 0;
              for (const [k] of map.oldestFirst()) if (n++ % c.every === 0) map.delete(k);
              n = 0;
              for (const k of [...model.keys()]) if (n++ % c.every === 0) model.delete(k);
              break;
            }
          }
          expect([...map.oldestFirst()]).toEqual([...model.entries()]);
          expect(map.size).toBe(model.size);
        }
      }),
    );
  });

  it('keeps evicting the least recent entry through many evictions', () => {
    const map = new RecencyMap<string, number>();
    for (let n = 0; n < 10_000; n += 1) map.set(`k${n}`, n);
    for (let n = 10_000; n < 60_000; n += 1) {
      map.set(`k${n}`, n);
      map.trimTo(10_000);
    }
    expect(map.size).toBe(10_000);
    expect([...map.oldestFirst()][0]).toEqual(['k50000', 50_000]);
    map.clear();
    expect([...map.oldestFirst()]).toEqual([]);
  });
});
