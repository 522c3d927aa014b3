import fc from 'fast-check';
import {
  isSchema,
  oneofMembers,
  properties,
  requiredNames,
  resolveRef,
  schemaList,
  splitPointer,
  type JsonSchema,
  type SchemaDocument,
} from '../../src/protocol/json-schema.js';
import { arbitraryFor, arbitraryForSchema, type ArbitraryOptions } from './from-schema.js';

export type MutationKind =
  'drop-required' | 'wrong-type' | 'bad-enum' | 'empty-required-array' | 'two-oneof-members' | 'no-oneof-member' | 'unknown-member';

export interface Mutation {
  readonly kind: MutationKind;
  /** JSON pointer of the value the mutation breaks; a validator must report a violation there. */
  readonly pointer: string;
  readonly detail: string;
}

export interface Mutated {
  readonly value: unknown;
  readonly mutation: Mutation;
}

export interface MutationOptions extends ArbitraryOptions {
  /** Also add unknown members: invalid only for the exact validators (input ignores them). */
  readonly unknownMembers?: boolean;
}

interface Site {
  readonly mutation: Mutation;
  readonly apply: (value: unknown) => fc.Arbitrary<unknown>;
}

const WRONG_TYPE: Record<string, unknown> = {
  string: 12345,
  integer: '7',
  number: '7.5',
  boolean: 'true',
  object: ['not', 'an', 'object'],
  array: { not: 'an array' },
  null: 0,
};

/** A value of each JSON type, for replacing a union member by a type none of its branches takes. */
const VALUE_OF_TYPE: Record<string, unknown> = { boolean: true, array: [], string: 'x', object: {}, null: null };

/**
 * Valid values of `def` with exactly one mutation applied that the schema forbids: a dropped
 * required member, a value of the wrong type, an enum value that does not exist, an empty
 * REQUIRED array, a second or missing oneof member, or (exact shapes only) an unknown member.
 * Yields undefined for a value that offers no place to mutate (e.g. free JSON).
 */
export function mutatedArbitrary(document: SchemaDocument, def: string, options: MutationOptions = {}): fc.Arbitrary<Mutated | undefined> {
  const root = document.$defs[def];
  if (root === undefined) throw new Error(`no def ${def}`);
  return arbitraryFor(document, def, options).chain((value) => {
    const sites = mutationSites(document, root, value, options);
    if (sites.length === 0) return fc.constant(undefined);
    return fc
      .constantFrom(...sites)
      .chain((site) => site.apply(value).map((mutatedValue) => ({ value: mutatedValue, mutation: site.mutation })));
  });
}

export function mutationSites(document: SchemaDocument, schema: JsonSchema, value: unknown, options: MutationOptions = {}): Site[] {
  const sites: Site[] = [];
  visit(document, schema, value, '', sites, options);
  return sites;
}

function visit(
  document: SchemaDocument,
  rawSchema: JsonSchema,
  value: unknown,
  pointer: string,
  sites: Site[],
  options: MutationOptions,
): void {
  const resolved = resolveRef(document, rawSchema);
  const replace = (kind: MutationKind, replacement: unknown, detail: string) =>
    sites.push({ mutation: { kind, pointer, detail }, apply: (root) => fc.constant(setAt(root, pointer, replacement)) });
  const schema = narrow(document, resolved, value);
  if (schema === undefined) {
    const foreign = typeOutsideUnion(document, resolved);
    if (foreign !== undefined) replace('wrong-type', VALUE_OF_TYPE[foreign], `a value of none of the union's types (${foreign})`);
    return;
  }

  const type = schema['type'];
  if (
    typeof type === 'string' &&
    !('const' in schema) &&
    WRONG_TYPE[type] !== undefined &&
    !(type === 'number' && typeof value === 'string')
  ) {
    replace('wrong-type', WRONG_TYPE[type], `a ${type} replaced by ${JSON.stringify(WRONG_TYPE[type])}`);
  }
  if (Array.isArray(schema['enum'])) replace('bad-enum', 'NOT_A_VALUE', 'an enum value that does not exist');

  if (Array.isArray(value)) {
    if (typeof schema['minItems'] === 'number' && schema['minItems'] >= 1) replace('empty-required-array', [], 'an empty REQUIRED array');
    const items = schema['items'];
    if (isSchema(items)) value.forEach((item, index) => visit(document, items, item, `${pointer}/${index}`, sites, options));
    return;
  }
  if (typeof value !== 'object' || value === null) return;
  const object = value as Record<string, unknown>;
  const declared = properties(schema);

  for (const name of requiredNames(schema)) {
    if (name in object)
      sites.push({
        mutation: { kind: 'drop-required', pointer: join(pointer, name), detail: `required ${name} removed` },
        apply: (root) => fc.constant(deleteAt(root, join(pointer, name))),
      });
  }
  const members = oneofMembers(schema);
  const present = members.filter((member) => member in object);
  if (present.length === 1 && present[0] !== undefined) {
    const only = present[0];
    sites.push({
      mutation: { kind: 'no-oneof-member', pointer, detail: `oneof member ${only} removed` },
      apply: (root) => fc.constant(deleteAt(root, join(pointer, only))),
    });
    for (const other of members.filter((member) => member !== only)) {
      const otherSchema = declared[other];
      if (otherSchema === undefined) continue;
      sites.push({
        mutation: { kind: 'two-oneof-members', pointer, detail: `second oneof member ${other} added beside ${only}` },
        apply: (root) => arbitraryForSchema(document, otherSchema, options).map((extra) => setAt(root, join(pointer, other), extra)),
      });
    }
  }
  if (options.unknownMembers && schema['additionalProperties'] === false && !('kind' in declared)) {
    sites.push({
      mutation: { kind: 'unknown-member', pointer: join(pointer, 'kind'), detail: 'A2A 0.3 style `kind` member added' },
      apply: (root) => fc.constant(setAt(root, join(pointer, 'kind'), 'text')),
    });
  }
  for (const [name, child] of Object.entries(object)) {
    const childSchema = declared[name] ?? (isSchema(schema['additionalProperties']) ? schema['additionalProperties'] : undefined);
    if (childSchema !== undefined) visit(document, childSchema, child, join(pointer, name), sites, options);
  }
}

/** For a union whose branches each have one JSON type: a type none of them accepts. */
function typeOutsideUnion(document: SchemaDocument, schema: JsonSchema): string | undefined {
  const branches = [...schemaList(schema, 'anyOf'), ...schemaList(schema, 'oneOf')].map((branch) => resolveRef(document, branch));
  if (branches.length === 0) return undefined;
  const types = branches.map((branch) => branch['type']);
  if (!types.every((type): type is string => typeof type === 'string')) return undefined;
  const accepted = new Set(types.flatMap((type) => (type === 'number' ? ['number', 'integer'] : [type])));
  return ['boolean', 'array', 'string', 'object', 'null'].find((type) => !accepted.has(type));
}

/** Follows single-branch allOf and discriminated unions; gives up (undefined) inside other unions, where a mutation might still match another branch. */
function narrow(document: SchemaDocument, schema: JsonSchema, value: unknown): JsonSchema | undefined {
  const allOf = schemaList(schema, 'allOf');
  if (allOf.length === 1 && allOf[0] !== undefined) return narrow(document, resolveRef(document, allOf[0]), value);
  if (schemaList(schema, 'anyOf').length > 0) return undefined;
  const discriminator = schema['discriminator'];
  if (isSchema(discriminator) && typeof discriminator['propertyName'] === 'string' && typeof value === 'object' && value !== null) {
    const tag = discriminator['propertyName'];
    const branch = schemaList(schema, 'oneOf')
      .map((candidate) => resolveRef(document, candidate))
      .find((candidate) => properties(candidate)[tag]?.['const'] === (value as Record<string, unknown>)[tag]);
    return branch;
  }
  if (schema['x-oneof'] === undefined && schemaList(schema, 'oneOf').length > 0) return undefined;
  return schema;
}

function join(pointer: string, member: string): string {
  return `${pointer}/${member.replaceAll('~', '~0').replaceAll('/', '~1')}`;
}

function setAt(root: unknown, pointer: string, replacement: unknown): unknown {
  const segments = splitPointer(pointer);
  if (segments.length === 0) return replacement;
  const copy = structuredClone(root) as Record<string, unknown>;
  const parent = segments.slice(0, -1).reduce<Record<string, unknown>>((node, segment) => node[segment] as Record<string, unknown>, copy);
  parent[segments[segments.length - 1] ?? ''] = replacement;
  return copy;
}

function deleteAt(root: unknown, pointer: string): unknown {
  const segments = splitPointer(pointer);
  const copy = structuredClone(root) as Record<string, unknown>;
  const parent = segments.slice(0, -1).reduce<Record<string, unknown>>((node, segment) => node[segment] as Record<string, unknown>, copy);
  delete parent[segments[segments.length - 1] ?? ''];
  return copy;
}
