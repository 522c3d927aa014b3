import fc from 'fast-check';
import {
  isSchema,
  oneofMembers,
  properties,
  requiredNames,
  resolveRef,
  schemaList,
  titleOf,
  type JsonSchema,
  type SchemaDocument,
} from '../../src/protocol/json-schema.js';

export interface ArbitraryOptions {
  /** Longest array generated where the schema sets no maximum. */
  readonly maxItems?: number;
  /** Most keys in a free-form object (Struct, maps). */
  readonly maxKeys?: number;
  /** Depth of free JSON values (google.protobuf.Value, Struct members). */
  readonly maxJsonDepth?: number;
  /** Draw strings from full Unicode (graphemes) instead of printable ASCII. */
  readonly unicode?: boolean;
}

const DEFAULTS: Required<ArbitraryOptions> = { maxItems: 3, maxKeys: 3, maxJsonDepth: 2, unicode: false };

/**
 * Derives a fast-check arbitrary from a def of a generated schema document. Every value it
 * produces is meant to pass that def's exact validator; the property tests hold it to that.
 * It understands the subset of JSON Schema that spec/ uses: objects (closed, maps and free),
 * proto oneof groups, arrays, enums, consts, string formats and patterns, integer bounds,
 * unions of references, simple if/then/else and `not` over enums.
 */
export function arbitraryFor(document: SchemaDocument, def: string, options: ArbitraryOptions = {}): fc.Arbitrary<unknown> {
  const root = document.$defs[def];
  if (root === undefined) throw new Error(`no def ${def} in ${document.$id ?? 'the schema document'}`);
  return arbitraryForSchema(document, root, options);
}

/** The same for any schema of the document, e.g. one member's inline schema. */
export function arbitraryForSchema(document: SchemaDocument, root: JsonSchema, options: ArbitraryOptions = {}): fc.Arbitrary<unknown> {
  const settings = { ...DEFAULTS, ...options };
  const cache = new Map<JsonSchema, fc.Arbitrary<unknown>>();
  const building = new Set<JsonSchema>();
  const build = (schema: JsonSchema): fc.Arbitrary<unknown> => {
    const target = resolveRef(document, schema);
    const cached = cache.get(target);
    if (cached !== undefined) return cached;
    if (building.has(target)) throw new Error(`arbitraryFor: ${titleOf(target)} is recursive`);
    building.add(target);
    const built = forSchema(target, build, settings);
    building.delete(target);
    cache.set(target, built);
    return built;
  };
  return build(root);
}

type Build = (schema: JsonSchema) => fc.Arbitrary<unknown>;

function forSchema(schema: JsonSchema, build: Build, settings: Required<ArbitraryOptions>): fc.Arbitrary<unknown> {
  if ('const' in schema) return fc.constant(schema['const']);
  if (Array.isArray(schema['enum'])) return fc.constantFrom(...(schema['enum'] as unknown[]));
  const allOf = schemaList(schema, 'allOf');
  if (allOf.length === 1 && allOf[0] !== undefined && schema['type'] === undefined) return build(allOf[0]);
  const union = [...schemaList(schema, 'anyOf'), ...(schema['x-oneof'] === undefined ? schemaList(schema, 'oneOf') : [])];
  // A union's branches are complete schemas (a discriminated oneOf also declares the tag on itself).
  if (union.length > 0) return fc.oneof(...union.map(build));
  switch (schema['type']) {
    case 'object':
      return objectArbitrary(schema, build, settings);
    case 'array':
      return arrayArbitrary(schema, build, settings);
    case 'string':
      return stringArbitrary(schema, settings);
    case 'integer': {
      const { min, max } = bounds(schema);
      return fc.integer({
        min: Number.isInteger(min) && schema['exclusiveMinimum'] === min ? min + 1 : Math.ceil(min),
        max: Number.isInteger(max) && schema['exclusiveMaximum'] === max ? max - 1 : Math.floor(max),
      });
    }
    case 'number': {
      const { min, max } = bounds(schema);
      return fc.double({
        noNaN: true,
        noDefaultInfinity: true,
        min,
        max,
        minExcluded: schema['exclusiveMinimum'] === min,
        maxExcluded: schema['exclusiveMaximum'] === max,
      });
    }
    case 'boolean':
      return fc.boolean();
    case 'null':
      return fc.constant(null);
    case undefined:
      return fc.jsonValue({ maxDepth: settings.maxJsonDepth });
    default:
      throw new Error(`arbitraryFor: unsupported type ${JSON.stringify(schema['type'])} in ${titleOf(schema)}`);
  }
}

/** Inclusive or exclusive bounds as one pair; the caller checks which one applied. */
function bounds(schema: JsonSchema): { min: number; max: number } {
  const min = typeof schema['exclusiveMinimum'] === 'number' ? schema['exclusiveMinimum'] : numberBound(schema['minimum'], -1e6);
  const max = typeof schema['exclusiveMaximum'] === 'number' ? schema['exclusiveMaximum'] : numberBound(schema['maximum'], 1e6);
  return { min, max };
}

function numberBound(value: unknown, fallback: number): number {
  return typeof value === 'number' ? value : fallback;
}

function objectArbitrary(schema: JsonSchema, build: Build, settings: Required<ArbitraryOptions>): fc.Arbitrary<unknown> {
  const members = oneofMembers(schema);
  const required = requiredNames(schema);
  const fields: Record<string, fc.Arbitrary<unknown>> = {};
  for (const [name, property] of Object.entries(properties(schema))) {
    if (!members.includes(name)) fields[name] = build(property);
  }
  const base = fc.record(fields, { requiredKeys: required.filter((name) => name in fields) });
  const additional = schema['additionalProperties'];
  const extra =
    Object.keys(properties(schema)).length === 0 && additional !== false
      ? fc.dictionary(
          keyArbitrary(schema, build),
          isSchema(additional) ? build(additional) : fc.jsonValue({ maxDepth: settings.maxJsonDepth }),
          {
            maxKeys: settings.maxKeys,
          },
        )
      : fc.constant({});
  let object: fc.Arbitrary<Record<string, unknown>> = fc.tuple(base, extra).map(([fixed, free]) => ({ ...free, ...fixed }));
  if (members.length > 0) {
    const chosen = fc.oneof(...members.map((member) => build(properties(schema)[member] ?? {}).map((value) => ({ [member]: value }))));
    object = fc.tuple(object, chosen).map(([rest, member]) => ({ ...rest, ...member }));
  }
  if (isSchema(schema['if'])) object = object.filter((value) => satisfiesConditional(schema, value));
  return object;
}

function keyArbitrary(schema: JsonSchema, build: Build): fc.Arbitrary<string> {
  const names = schema['propertyNames'];
  if (isSchema(names)) return build(names).map(String);
  return fc.string({ minLength: 1, maxLength: 12 });
}

/** Evaluates the if/then/else forms spec/ uses: const members in `if`, required lists in `then`/`else`. */
function satisfiesConditional(schema: JsonSchema, value: Record<string, unknown>): boolean {
  const condition = schema['if'] as JsonSchema;
  const holds =
    requiredNames(condition).every((name) => name in value) &&
    Object.entries(properties(condition)).every(
      ([name, property]) => !(name in value) || !('const' in property) || value[name] === property['const'],
    );
  const branch = schema[holds ? 'then' : 'else'];
  if (!isSchema(branch)) return true;
  const negated = branch['not'];
  if (isSchema(negated)) return !requiredNames(negated).every((name) => name in value);
  return requiredNames(branch).every((name) => name in value);
}

function arrayArbitrary(schema: JsonSchema, build: Build, settings: Required<ArbitraryOptions>): fc.Arbitrary<unknown> {
  const items = isSchema(schema['items']) ? build(schema['items']) : fc.jsonValue({ maxDepth: settings.maxJsonDepth });
  const minLength = numberBound(schema['minItems'], 0);
  const maxLength = Math.max(minLength, numberBound(schema['maxItems'], settings.maxItems));
  if (schema['uniqueItems'] === true) return fc.uniqueArray(items, { minLength, maxLength, selector: (item) => JSON.stringify(item) });
  return fc.array(items, { minLength, maxLength });
}

function stringArbitrary(schema: JsonSchema, settings: Required<ArbitraryOptions>): fc.Arbitrary<string> {
  const minLength = numberBound(schema['minLength'], 0);
  const maxLength = Math.max(minLength, numberBound(schema['maxLength'], Math.max(minLength, 16)));
  const excluded = excludedValues(schema);
  let strings: fc.Arbitrary<string>;
  if (schema['format'] === 'date-time') {
    strings = fc
      .date({ min: new Date('1970-01-01T00:00:00Z'), max: new Date('2099-12-31T23:59:59Z'), noInvalidDate: true })
      .map((date) => date.toISOString());
  } else if (schema['format'] === 'uri') {
    strings = fc.webUrl({ withQueryParameters: true, withFragments: true });
  } else if (schema['contentEncoding'] === 'base64') {
    strings = fc.uint8Array({ maxLength: 24 }).map((bytes) => Buffer.from(bytes).toString('base64'));
  } else if (typeof schema['pattern'] === 'string') {
    const pattern = new RegExp(schema['pattern'], 'u');
    strings = fc.stringMatching(new RegExp(withoutLookarounds(schema['pattern']), 'u')).filter((text) => pattern.test(text));
    strings = strings.filter((text) => text.length >= minLength && text.length <= Math.max(maxLength, 64));
  } else {
    strings = fc.string({ minLength, maxLength, ...(settings.unicode ? { unit: 'grapheme' as const } : {}) });
  }
  return excluded.length === 0 ? strings : strings.filter((text) => !excluded.includes(text));
}

/** Values a `not: {enum}` or `not: {const}` forbids. */
function excludedValues(schema: JsonSchema): unknown[] {
  const negated = schema['not'];
  if (!isSchema(negated)) return [];
  if (Array.isArray(negated['enum'])) return negated['enum'] as unknown[];
  return 'const' in negated ? [negated['const']] : [];
}

/** fast-check's stringMatching has no lookarounds; generate without them and filter with the full pattern. */
function withoutLookarounds(pattern: string): string {
  let result = '';
  for (let index = 0; index < pattern.length; index += 1) {
    if (
      pattern.startsWith('(?=', index) ||
      pattern.startsWith('(?!', index) ||
      pattern.startsWith('(?<=', index) ||
      pattern.startsWith('(?<!', index)
    ) {
      let depth = 0;
      for (; index < pattern.length; index += 1) {
        if (pattern[index] === '\\') index += 1;
        else if (pattern[index] === '(') depth += 1;
        else if (pattern[index] === ')' && --depth === 0) break;
      }
      continue;
    }
    result += pattern[index] ?? '';
  }
  return result;
}
