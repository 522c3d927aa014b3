import document from '../../generated/control/schema.json' with { type: 'json' };
import { validators as exact, type Validator } from '../../generated/control/validators.js';
import { validators as input } from '../../generated/control/input-validators.js';
import type { SchemaFamily } from './validation.js';

/** The names of the control-API defs and their types. */
export type ControlDefs = { [K in keyof typeof exact]: (typeof exact)[K] extends Validator<infer T> ? T : never };

/** The control API as compiled from spec/control. */
export const CONTROL: SchemaFamily<ControlDefs> = {
  document,
  exact,
  input,
};
