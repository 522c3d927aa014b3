import { isSchema, properties, resolveRef, schemaList, type JsonSchema, type SchemaDocument } from './json-schema.js';

/**
 * A copy of `value` holding only the members the schema declares. Input is validated
 * tolerantly (spec §5.7: unknown members SHOULD be ignored); projecting right after makes
 * "ignored" literal, so an unknown member is never stored or echoed back in a response that
 * must be exact ProtoJSON. Free-form values (Struct, Value, maps) are copied whole.
 * Assumes `value` already validated against `def`.
 */
export function projectToSchema<T>(document: SchemaDocument, def: string, value: T): T {
  const schema = document.$defs[def];
  return schema === undefined ? value : (project(document, schema, value) as T);
}

function project(document: SchemaDocument, raw: JsonSchema, value: unknown): unknown {
  const schema = narrow(document, resolveRef(document, raw), value);
  if (Array.isArray(value)) {
    const items = schema['items'];
    return isSchema(items) ? value.map((item) => project(document, items, item)) : value;
  }
  if (typeof value !== 'object' || value === null) return value;
  const declared = properties(schema);
  const additional = schema['additionalProperties'];
  if (Object.keys(declared).length === 0) {
    if (!isSchema(additional)) return value;
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, project(document, additional, item)]));
  }
  const copy: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) {
    const member = declared[key];
    if (member !== undefined) copy[key] = project(document, member, item);
  }
  return copy;
}

/** The branch of a union the value is an instance of (by const members), else the schema itself. */
function narrow(document: SchemaDocument, schema: JsonSchema, value: unknown): JsonSchema {
  const allOf = schemaList(schema, 'allOf');
  if (allOf.length === 1 && allOf[0] !== undefined) return resolveRef(document, allOf[0]);
  const branches = [...schemaList(schema, 'anyOf'), ...(schema['x-oneof'] === undefined ? schemaList(schema, 'oneOf') : [])];
  if (branches.length === 0 || typeof value !== 'object' || value === null) return schema;
  const record = value as Record<string, unknown>;
  const match = branches
    .map((branch) => resolveRef(document, branch))
    .find((branch) => Object.entries(properties(branch)).every(([name, member]) => !('const' in member) || record[name] === member['const']));
  return match ?? schema;
}
