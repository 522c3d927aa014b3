import type { ErrorObject } from 'ajv';
import type { FieldViolation } from '../../generated/a2a/1.0/types.js';
import type { JsonSchema, SchemaDocument } from './json-schema.js';
import { toFieldViolations } from './violations.js';

interface ErrorCarrying {
  (data: unknown): boolean;
  errors?: readonly ErrorObject[] | null;
}

/** A generated family as the runtime sees it: its schema document and both validator sets. */
export interface SchemaFamily<Defs> {
  readonly document: SchemaDocument;
  /** Exact shapes: for what we emit and for checking peers. */
  readonly exact: { readonly [K in keyof Defs]: ErrorCarrying };
  /** Tolerant shapes: unknown members ignored, for what we receive. */
  readonly input: { readonly [K in keyof Defs]: ErrorCarrying };
}

export type Checked<T> = { readonly ok: true; readonly value: T } | { readonly ok: false; readonly violations: FieldViolation[] };

export interface CheckOptions {
  /** `input` ignores unknown members (the default for data we receive); `exact` rejects them. */
  readonly flavour?: 'exact' | 'input';
  /** Prepended to field paths, e.g. `params`. */
  readonly fieldPrefix?: string;
}

/** Validates `data` as the def `def` of a family and explains a failure as field violations. */
export function checkValue<Defs, K extends keyof Defs & string>(
  family: SchemaFamily<Defs>,
  def: K,
  data: unknown,
  options: CheckOptions = {},
): Checked<Defs[K]> {
  const validator = family[options.flavour ?? 'input'][def];
  if (validator(data)) return { ok: true, value: data as Defs[K] };
  const violations = toFieldViolations(validator.errors ?? [], {
    document: family.document,
    def,
    data,
    ...(options.fieldPrefix === undefined ? {} : { fieldPrefix: options.fieldPrefix }),
  });
  return { ok: false, violations };
}

export type { JsonSchema };
