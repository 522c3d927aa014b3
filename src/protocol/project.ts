import { setOwn } from '../support/own-property.js';
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
  return schema === undefined ? value : (projectorOf(document, schema)(value) as T);
}

type Projector = (value: unknown) => unknown;

/*
 * Every request's params are projected, so each schema is turned into a function once, on
 * first use, instead of being interpreted per value. Schemas are recursive (Struct, Value),
 * hence the indirection through a slot filled after the function is registered.
 */
const projectors = new WeakMap<JsonSchema, Projector>();
const shapes = new WeakMap<JsonSchema, Projector>();

function cached(cache: WeakMap<JsonSchema, Projector>, schema: JsonSchema, compile: () => Projector): Projector {
  const known = cache.get(schema);
  if (known !== undefined) return known;
  let compiled: Projector | undefined;
  cache.set(schema, (value) => (compiled ??= compile())(value));
  compiled = compile();
  cache.set(schema, compiled);
  return compiled;
}

/** Projects a value of `raw`: picks the union branch the value is an instance of, then its shape. */
function projectorOf(document: SchemaDocument, raw: JsonSchema): Projector {
  return cached(projectors, raw, () => {
    const schema = resolveRef(document, raw);
    const allOf = schemaList(schema, 'allOf');
    if (allOf.length === 1 && allOf[0] !== undefined) return shapeOf(document, resolveRef(document, allOf[0]));
    const branches = [...schemaList(schema, 'anyOf'), ...(schema['x-oneof'] === undefined ? schemaList(schema, 'oneOf') : [])];
    const own = shapeOf(document, schema);
    if (branches.length === 0) return own;
    // A branch is told apart by its const members (e.g. a `kind`); one without any matches every object.
    const tests = branches.map((branch) => {
      const resolved = resolveRef(document, branch);
      const consts = Object.entries(properties(resolved)).flatMap(([name, member]) =>
        'const' in member ? [[name, member['const']] as const] : [],
      );
      return { consts, members: Object.keys(properties(resolved)), shape: shapeOf(document, resolved) };
    });
    return (value) => {
      if (typeof value !== 'object' || value === null) return own(value);
      const record = value as Record<string, unknown>;
      // Branches without consts all match: the one that declares the most of the value's members
      // keeps them (0.3's `TaskIdParams | GetTaskPushNotificationConfigParams` differ by one member).
      let match: (typeof tests)[number] | undefined;
      let covered = -1;
      for (const test of tests) {
        if (!test.consts.every(([name, constant]) => record[name] === constant)) continue;
        const count = test.members.filter((name) => Object.hasOwn(record, name)).length;
        if (count > covered) [match, covered] = [test, count];
      }
      return (match?.shape ?? own)(value);
    };
  });
}

/** Projects a value of one concrete schema: its declared members, items or map values. */
function shapeOf(document: SchemaDocument, schema: JsonSchema): Projector {
  return cached(shapes, schema, () => {
    const items = schema['items'];
    const item = isSchema(items) ? projectorOf(document, items) : undefined;
    const members = new Map(Object.entries(properties(schema)).map(([name, member]) => [name, projectorOf(document, member)] as const));
    const additional = schema['additionalProperties'];
    const mapValue = members.size === 0 && isSchema(additional) ? projectorOf(document, additional) : undefined;
    return (value) => {
      if (Array.isArray(value)) {
        const list: readonly unknown[] = value;
        return item === undefined ? list : list.map((entry) => item(entry));
      }
      if (typeof value !== 'object' || value === null) return value;
      if (members.size === 0 && mapValue === undefined) return value;
      const copy: Record<string, unknown> = {};
      for (const key of Object.keys(value)) {
        const project = mapValue ?? members.get(key);
        if (project !== undefined) setOwn(copy, key, project((value as Record<string, unknown>)[key]));
      }
      return copy;
    };
  });
}
