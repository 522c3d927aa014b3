import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { arbitraryFor } from '../../conformance/arbitraries/from-schema.js';
import { mutatedArbitrary } from '../../conformance/arbitraries/mutations.js';
import { A2A_1_0 } from '../../src/protocol/a2a-schema.js';
import { CONTROL } from '../../src/protocol/control-schema.js';
import hubDocument from '../../generated/hub/schema.json' with { type: 'json' };
import { validators as hubExact } from '../../generated/hub/validators.js';
import { validators as hubInput } from '../../generated/hub/input-validators.js';
import { checkValue, type SchemaFamily } from '../../src/protocol/validation.js';
import { fieldPath } from '../../src/protocol/violations.js';

/** Runs per def: each family has dozens of defs, so every family gets thousands of cases. */
const RUNS = Number(process.env['FC_RUNS'] ?? 200);
const SEED = process.env['FC_SEED'] === undefined ? undefined : Number(process.env['FC_SEED']);
const params = { numRuns: RUNS, ...(SEED === undefined ? {} : { seed: SEED }) };

const FAMILIES: [string, SchemaFamily<Record<string, unknown>>][] = [
  ['a2a/1.0', A2A_1_0],
  ['control', CONTROL],
  ['hub', { document: hubDocument, exact: hubExact, input: hubInput }],
];

describe.each(FAMILIES)('schema family %s', (_name, family) => {
  const defs = Object.keys(family.document.$defs);

  it.each(defs)('%s: values derived from the schema pass both validators', (def) => {
    fc.assert(
      fc.property(arbitraryFor(family.document, def), (value) => {
        const exact = checkValue(family, def, value, { flavour: 'exact' });
        expect(exact.ok ? [] : exact.violations).toEqual([]);
        expect(checkValue(family, def, value, { flavour: 'input' }).ok).toBe(true);
      }),
      params,
    );
  });

  it.each(defs)('%s: every single mutation is rejected with a violation at the mutated field', (def) => {
    let mutated = 0;
    fc.assert(
      fc.property(mutatedArbitrary(family.document, def, { unknownMembers: true }), (sample) => {
        if (sample === undefined) return;
        mutated += 1;
        const expected = fieldPath(sample.mutation.pointer);
        const exact = checkValue(family, def, sample.value, { flavour: 'exact' });
        expect(exact.ok, sample.mutation.detail).toBe(false);
        if (!exact.ok) expect(exact.violations.map((v) => v.field), sample.mutation.detail).toContain(expected);
        if (sample.mutation.kind !== 'unknown-member') {
          const input = checkValue(family, def, sample.value, { flavour: 'input' });
          expect(input.ok, sample.mutation.detail).toBe(false);
          if (!input.ok) expect(input.violations.map((v) => v.field), sample.mutation.detail).toContain(expected);
        }
      }),
      params,
    );
    const freeJson = def === 'Value';
    if (!freeJson) expect(mutated, 'the def offered no place to mutate').toBeGreaterThan(0);
  });
});
