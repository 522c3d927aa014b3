import { createAjv } from './ajv.js';
import type { Family } from './families.js';
import { generatedHeader } from './header.js';
import { isJsonObject, type JsonValue } from './json.js';
import { literal } from './tables.js';

/**
 * `defaults.ts`: the `default` keyword of every member that has one, per def, so that code
 * filling in a default reads the schema's value instead of restating it. Each default is
 * checked against its member's own schema. Returns undefined when the family has none.
 */
export function emitDefaults(family: Family): string | undefined {
  const defs = isJsonObject(family.document['$defs']) ? family.document['$defs'] : {};
  const ajv = createAjv();
  ajv.addSchema(family.document);
  const found: [string, [string, JsonValue][]][] = [];
  for (const def of family.defNames) {
    const schema = defs[def];
    const members = isJsonObject(schema) && isJsonObject(schema['properties']) ? schema['properties'] : {};
    const withDefault: [string, JsonValue][] = [];
    for (const [name, member] of Object.entries(members)) {
      if (!isJsonObject(member) || !('default' in member)) continue;
      const value = member['default'];
      if (!ajv.validate({ $ref: `${family.schemaId}#/$defs/${def}/properties/${name}` }, value)) {
        throw new Error(`spec/${family.id}: the default of ${def}.${name} does not match its schema: ${ajv.errorsText()}`);
      }
      withDefault.push([name, value]);
    }
    if (withDefault.length > 0) found.push([def, withDefault]);
  }
  if (found.length === 0) return undefined;
  const entries = found.map(([def, members]) => `  ${def}: ${frozen(Object.fromEntries(members), '  ')},`);
  const shape = found.map(
    ([def, members]) => `  readonly ${def}: Frozen<Required<Pick<T.${def}, ${members.map(([name]) => literal(name)).join(' | ')}>>>;`,
  );
  return [
    generatedHeader(`spec/${family.id}/*.schema.json (their default keywords)`),
    "import type * as T from './types.js';",
    '',
    '/** A value that cannot be changed, however deep. */',
    'export type Frozen<V> = V extends readonly (infer I)[] ? readonly Frozen<I>[] : V extends object ? { readonly [K in keyof V]: Frozen<V[K]> } : V;',
    '',
    '/** Per def, the value of each member that has a `default` in the schema. */',
    'export interface Defaults {',
    ...shape,
    '}',
    '',
    '/** Frozen all the way down: a default is shared by every configuration that takes it. */',
    'export const DEFAULTS: Defaults = Object.freeze({',
    ...entries,
    '});',
    '',
  ].join('\n');
}

/** A value as TypeScript source whose objects and arrays are frozen, indented by `indent`. */
function frozen(value: JsonValue, indent: string): string {
  if (Array.isArray(value)) return `Object.freeze([${value.map((item) => frozen(item, indent)).join(', ')}])`;
  if (value !== null && typeof value === 'object') {
    const inner = `${indent}  `;
    const members = Object.entries(value).map(([key, member]) => `${inner}${literal(key)}: ${frozen(member, inner)},`);
    return `Object.freeze({\n${members.join('\n')}\n${indent}})`;
  }
  return literal(value);
}
