/**
 * Read-only helpers over a generated schema document (`generated/<family>/schema.json`):
 * one resource whose named types are `$defs` and whose references are all `#/$defs/<Name>`.
 */
export interface JsonSchema {
  readonly [keyword: string]: unknown;
}

export interface SchemaDocument {
  readonly $id?: string;
  readonly $defs: { readonly [name: string]: JsonSchema };
}

/** A schema's title for messages, or a neutral word when it has none. */
export function titleOf(schema: JsonSchema, fallback = 'a schema'): string {
  return typeof schema['title'] === 'string' ? schema['title'] : fallback;
}

export function isSchema(value: unknown): value is JsonSchema {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The def a `#/$defs/<Name>` reference names, or the schema itself when it is not a reference. */
export function resolveRef(document: SchemaDocument, schema: JsonSchema): JsonSchema {
  let current = schema;
  for (let hops = 0; typeof current['$ref'] === 'string'; hops += 1) {
    const match = /^#\/\$defs\/(.+)$/.exec(current['$ref']);
    const target = match?.[1] === undefined ? undefined : document.$defs[match[1]];
    if (target === undefined || hops > 32) throw new Error(`unresolvable reference ${current['$ref']}`);
    current = target;
  }
  return current;
}

export function schemaList(schema: JsonSchema, keyword: 'oneOf' | 'anyOf' | 'allOf'): JsonSchema[] {
  const list = schema[keyword];
  return Array.isArray(list) ? list.filter(isSchema) : [];
}

export function properties(schema: JsonSchema): { readonly [name: string]: JsonSchema } {
  const value = schema['properties'];
  return isSchema(value) ? (value as { readonly [name: string]: JsonSchema }) : {};
}

export function requiredNames(schema: JsonSchema): string[] {
  const value = schema['required'];
  return Array.isArray(value) ? value.filter((name): name is string => typeof name === 'string') : [];
}

/** Members of a proto oneof group (`x-oneof` with `oneOf: [{required: [member]}, …]`), else []. */
export function oneofMembers(schema: JsonSchema): string[] {
  if (typeof schema['x-oneof'] !== 'string') return [];
  return schemaList(schema, 'oneOf').flatMap((branch) => requiredNames(branch).slice(0, 1));
}

/** The value at a JSON pointer (ajv's instancePath), or undefined when the path does not exist. */
export function valueAt(data: unknown, pointer: string): unknown {
  let current = data;
  for (const segment of splitPointer(pointer)) {
    if (typeof current !== 'object' || current === null) return undefined;
    // Own members only: a segment such as "__proto__" or "constructor" must not reach Object.prototype.
    current = Object.hasOwn(current, segment) ? (current as Record<string, unknown>)[segment] : undefined;
  }
  return current;
}

export function splitPointer(pointer: string): string[] {
  if (pointer === '') return [];
  return pointer
    .slice(1)
    .split('/')
    .map((segment) => segment.replaceAll('~1', '/').replaceAll('~0', '~'));
}

/**
 * The schema that describes the value at `pointer` inside a value of type `def`: follows
 * properties, items and map values through references and through the single-branch
 * applicators. Returns undefined where the path leaves what the schema describes or where a
 * union makes the answer ambiguous. `union: 'keep'` returns a union at the pointer itself
 * as written instead of the branch the value there selects.
 */
export function schemaAt(
  document: SchemaDocument,
  def: string,
  pointer: string,
  data?: unknown,
  options: { readonly union?: 'narrow' | 'keep' } = {},
): JsonSchema | undefined {
  const root = document.$defs[def];
  if (root === undefined) return undefined;
  let current: JsonSchema = resolveRef(document, root);
  let path = '';
  for (const segment of splitPointer(pointer)) {
    current = narrowUnion(document, current, data === undefined ? undefined : valueAt(data, path));
    const members = properties(current);
    const next = (Object.hasOwn(members, segment) ? members[segment] : undefined) ?? arrayItems(current, segment) ?? mapValues(current);
    if (next === undefined) return undefined;
    current = resolveRef(document, next);
    path += `/${segment.replaceAll('~', '~0').replaceAll('/', '~1')}`;
  }
  if (options.union === 'keep') return current;
  return narrowUnion(document, current, data === undefined ? undefined : valueAt(data, pointer));
}

function arrayItems(schema: JsonSchema, segment: string): JsonSchema | undefined {
  const items = schema['items'];
  return /^\d+$/.test(segment) && isSchema(items) ? items : undefined;
}

function mapValues(schema: JsonSchema): JsonSchema | undefined {
  const additional = schema['additionalProperties'];
  return isSchema(additional) ? additional : undefined;
}

/** Picks the branch of an anyOf/oneOf of references whose discriminating const matches the value. */
function narrowUnion(document: SchemaDocument, schema: JsonSchema, value: unknown): JsonSchema {
  const single = schemaList(schema, 'allOf');
  if (single.length === 1 && single[0] !== undefined) return resolveRef(document, single[0]);
  const branches = [...schemaList(schema, 'anyOf'), ...schemaList(schema, 'oneOf')].filter((b) => '$ref' in b);
  if (branches.length === 0 || typeof value !== 'object' || value === null) return schema;
  const matching = branches
    .map((branch) => resolveRef(document, branch))
    // A branch typed as something other than an object (a kind written as a string beside its
    // object form) cannot be the one an object value meant.
    .filter(
      (branch) =>
        branch['type'] === undefined || branch['type'] === 'object' || (Array.isArray(branch['type']) && branch['type'].includes('object')),
    )
    .filter((branch) =>
      Object.entries(properties(branch)).every(([name, property]) => {
        return !('const' in property) || (value as Record<string, unknown>)[name] === property['const'];
      }),
    );
  return matching.length === 1 && matching[0] !== undefined ? matching[0] : schema;
}
