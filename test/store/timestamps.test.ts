import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { timestampMillis } from '../../src/store/timestamps.js';

const pad = (value: number, width: number): string => String(value).padStart(width, '0');

/** Strings of toISOString's shape, with fields around and past their valid ranges. */
const isoShaped = fc
  .record({
    year: fc.integer({ min: 0, max: 9999 }),
    month: fc.integer({ min: 0, max: 13 }),
    day: fc.integer({ min: 0, max: 32 }),
    hour: fc.integer({ min: 0, max: 25 }),
    minute: fc.integer({ min: 0, max: 61 }),
    second: fc.integer({ min: 0, max: 61 }),
    millis: fc.integer({ min: 0, max: 999 }),
  })
  .map(
    (f) =>
      `${pad(f.year, 4)}-${pad(f.month, 2)}-${pad(f.day, 2)}T${pad(f.hour, 2)}:${pad(f.minute, 2)}:${pad(f.second, 2)}.${pad(f.millis, 3)}Z`,
  );

describe('timestamps', () => {
  it('reads exactly the canonical form as Date.parse does, and refuses days and hours that would roll over', () => {
    fc.assert(
      fc.property(isoShaped, (text) => {
        const parsed = Date.parse(text);
        const canonical = !Number.isNaN(parsed) && new Date(parsed).toISOString() === text;
        if (canonical) expect(timestampMillis(text)).toBe(parsed);
        // A leap second is valid RFC 3339 that toISOString never writes; everything else must fail.
        else if (text.slice(17, 19) !== '60') expect(() => timestampMillis(text)).toThrow(RangeError);
      }),
      { numRuns: 2000 },
    );
  });

  it('reads instants the hub wrote, at any millisecond', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 253_402_300_799_999 }), (millis) => {
        expect(timestampMillis(new Date(millis).toISOString())).toBe(millis);
      }),
    );
    for (const text of ['2024-02-30T00:00:00.000Z', '2023-02-29T00:00:00.000Z', '2024-04-31T12:00:00.000Z', '2024-01-01T24:00:00.000Z']) {
      expect(() => timestampMillis(text), text).toThrow(RangeError);
    }
    expect(timestampMillis('2024-02-29T23:59:59.999Z')).toBe(Date.UTC(2024, 1, 29, 23, 59, 59, 999));
  });
});
