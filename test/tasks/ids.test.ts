import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { timeOrderedId } from '../../src/tasks/ids.js';

const UUID_V7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe('timeOrderedId', () => {
  it('is a version 7 UUID whose first 48 bits are the time in ms', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 2 ** 48 - 1 }), (now) => {
        const id = timeOrderedId(now);
        expect(id).toMatch(UUID_V7);
        expect(Number.parseInt(id.slice(0, 8) + id.slice(9, 13), 16)).toBe(now);
      }),
    );
  });

  it('sorts by creation time, as text too, so new ids go at the end of an index', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 2 ** 48 - 2 }), fc.integer({ min: 1, max: 10_000 }), (earlier, gap) => {
        expect(timeOrderedId(earlier) < timeOrderedId(Math.min(2 ** 48 - 1, earlier + gap))).toBe(true);
      }),
    );
  });

  it('does not repeat within one millisecond', () => {
    const ids = new Set(Array.from({ length: 10_000 }, () => timeOrderedId(1_700_000_000_000)));
    expect(ids.size).toBe(10_000);
  });
});
