import standaloneModule from 'ajv/dist/standalone/index.js';
import { createAjv } from './ajv.js';
import type { Family } from './families.js';
import { generatedHeader } from './header.js';
import { deepClone, walkObjects, type JsonObject } from './json.js';

export type ValidatorFlavour = 'exact' | 'input';

export const VALIDATOR_MODULES: Record<ValidatorFlavour, string> = {
  exact: 'validators',
  input: 'input-validators',
};

const FLAVOUR_DOC: Record<ValidatorFlavour, string> = {
  exact: 'Exact ProtoJSON shapes: unknown members are errors. For what we emit and for checking what peers emit.',
  input: 'Tolerant input shapes: unknown members are ignored (spec §5.7). For requests we receive.',
};

export function validatorName(def: string): string {
  return `validate${def}`;
}

/**
 * Emits a standalone ajv module (`.js`) and its declarations (`.d.ts`) with one type-guard
 * validator per def. The input flavour is the same document with every
 * `additionalProperties: false` removed, so unknown members pass without being stripped.
 */
export function emitValidators(family: Family, flavour: ValidatorFlavour): { js: string; dts: string } {
  const schemaId = flavour === 'exact' ? family.schemaId : family.schemaId.replace(/schema\.json$/, 'input-schema.json');
  const document = flavour === 'exact' ? family.document : tolerant(family.document, schemaId);
  const ajv = createAjv({ code: { source: true, esm: true, lines: true } });
  ajv.addSchema(document);
  const exports: Record<string, string> = {};
  for (const def of family.defNames) exports[validatorName(def)] = `${schemaId}#/$defs/${def}`;
  const code = standaloneModule.default(ajv, exports);
  const source = `spec/${family.id}/*.schema.json`;
  // ajv's ESM output still calls require() for its runtime helpers; createRequire makes that
  // work under Node, tsx and vitest alike (a rewrite to `import` breaks vite's CJS interop).
  const js = [
    generatedHeader(source).trimEnd(),
    `// ${FLAVOUR_DOC[flavour]}`,
    '/* eslint-disable */',
    "import { createRequire } from 'node:module';",
    'const require = createRequire(import.meta.url);',
    code.replace(/^"use strict";/, '').trimStart(),
    '',
    '/** Every validator by the name of its def. */',
    'export const validators = {',
    ...family.defNames.map((def) => `  ${def}: ${validatorName(def)},`),
    '};',
  ].join('\n');
  const dts = [
    generatedHeader(source).trimEnd(),
    `// ${FLAVOUR_DOC[flavour]}`,
    "import type { ErrorObject } from 'ajv';",
    "import type * as T from './types.js';",
    '',
    '/** A compiled schema: a type guard that leaves its errors on `.errors` when it returns false. */',
    'export interface Validator<V> {',
    '  (data: unknown): data is V;',
    '  errors?: ErrorObject[] | null;',
    '}',
    '',
    ...family.defNames.map((def) => `export declare const ${validatorName(def)}: Validator<T.${def}>;`),
    '',
    '/** Every validator by the name of its def. */',
    'export declare const validators: {',
    ...family.defNames.map((def) => `  readonly ${def}: Validator<T.${def}>;`),
    '};',
    '',
  ].join('\n');
  return { js: js.endsWith('\n') ? js : `${js}\n`, dts };
}

function tolerant(document: JsonObject, schemaId: string): JsonObject {
  const copy = deepClone(document);
  copy['$id'] = schemaId;
  walkObjects(copy, (node) => {
    if (node['additionalProperties'] === false) delete node['additionalProperties'];
  });
  return copy;
}
