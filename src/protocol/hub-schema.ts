import document from '../../generated/hub/schema.json' with { type: 'json' };
import { validators as exact, type Validator } from '../../generated/hub/validators.js';
import { validators as input } from '../../generated/hub/input-validators.js';
import type { SchemaFamily } from './validation.js';

/** The names of the hub's own defs (configuration, gateway methods) and their types. */
export type HubDefs = { [K in keyof typeof exact]: (typeof exact)[K] extends Validator<infer T> ? T : never };

/** a2a-hub's own contracts as compiled from spec/hub. */
export const HUB: SchemaFamily<HubDefs> = {
  document,
  exact,
  input,
};
