import document from '../../generated/a2a/1.0/schema.json' with { type: 'json' };
import type * as A2A from '../../generated/a2a/1.0/types.js';
import { validators as exact, type Validator } from '../../generated/a2a/1.0/validators.js';
import { validators as input } from '../../generated/a2a/1.0/input-validators.js';
import document03 from '../../generated/a2a/0.3/schema.json' with { type: 'json' };
import { validators as exact03 } from '../../generated/a2a/0.3/validators.js';
import { validators as input03 } from '../../generated/a2a/0.3/input-validators.js';
import document03Rest from '../../generated/a2a/0.3/rest/schema.json' with { type: 'json' };
import { validators as exact03Rest } from '../../generated/a2a/0.3/rest/validators.js';
import { validators as input03Rest } from '../../generated/a2a/0.3/rest/input-validators.js';
import type { SchemaFamily } from './validation.js';

/** The names of the A2A 1.0 defs and their types. */
export type A2ADefs = { [K in keyof typeof exact]: (typeof exact)[K] extends Validator<infer T> ? T : never };

/** A2A 1.0.1 as compiled from spec/a2a/1.0. */
export const A2A_1_0: SchemaFamily<A2ADefs> = {
  document,
  exact,
  input,
};

export type { A2A };

/** The names of the A2A 0.3 defs and their types. */
export type A2A03Defs = { [K in keyof typeof exact03]: (typeof exact03)[K] extends Validator<infer T> ? T : never };

/** A2A 0.3.0 as compiled from spec/a2a/0.3: what 0.3 peers send and are sent. */
export const A2A_0_3: SchemaFamily<A2A03Defs> = {
  document: document03,
  exact: exact03,
  input: input03,
};

/** The names of the A2A 0.3 HTTP+JSON defs (ProtoJSON of the 0.3 proto) and their types. */
export type A2A03RestDefs = { [K in keyof typeof exact03Rest]: (typeof exact03Rest)[K] extends Validator<infer T> ? T : never };

/** A2A 0.3.0's HTTP+JSON payloads as compiled from spec/a2a/0.3/rest. */
export const A2A_0_3_REST: SchemaFamily<A2A03RestDefs> = {
  document: document03Rest,
  exact: exact03Rest,
  input: input03Rest,
};
