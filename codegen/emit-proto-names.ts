import type { Family } from './families.js';
import { generatedHeader } from './header.js';
import { isJsonObject, type JsonObject, type JsonValue } from './json.js';
import { literal } from './tables.js';

/** How a member holds a message: one, a repeated field, or the values of a map (whose keys are free-form). */
type Shape = 'one' | 'list' | 'map';

interface DefNames {
  /** Proto field name → JSON name, for the members whose two names differ. */
  renames: [string, string][];
  /** JSON name → the def and shape of a message-typed member, to walk into. */
  nested: [string, string, Shape][];
}

/** A proto field's name as ProtoJSON derives the JSON name from it, read backwards: `contextId` → `context_id`. */
export function protoFieldName(jsonName: string): string {
  return jsonName.replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`);
}

/**
 * `proto-names.ts`: per message def, the proto field names that differ from the JSON names and
 * the message-typed members to walk into, so that input may use either spelling (ProtoJSON
 * parsers accept both). Defs without `properties` (Struct, Value, scalars) are free-form or
 * leaves and never walked into. Only defs from which a rename can be reached are listed.
 */
export function emitProtoNames(family: Family): string {
  const defs = isJsonObject(family.document['$defs']) ? family.document['$defs'] : {};
  const byDef = new Map<string, DefNames>();
  for (const def of family.defNames) {
    const schema = defs[def];
    if (!isJsonObject(schema) || !isJsonObject(schema['properties'])) continue;
    const names: DefNames = { renames: [], nested: [] };
    for (const [name, member] of Object.entries(schema['properties'])) {
      // A proto `json_name` option breaks the derivation; the member then says its field name.
      const declared = isJsonObject(member) ? member['x-proto-name'] : undefined;
      const protoName = typeof declared === 'string' ? declared : protoFieldName(name);
      if (protoName !== name) names.renames.push([protoName, name]);
      const target = messageTarget(defs, member);
      if (target !== undefined) names.nested.push([name, ...target]);
    }
    byDef.set(def, names);
  }
  const relevant = new Set([...byDef].filter(([, names]) => names.renames.length > 0).map(([def]) => def));
  for (let grew = true; grew;) {
    grew = false;
    for (const [def, names] of byDef) {
      if (!relevant.has(def) && names.nested.some(([, target]) => relevant.has(target))) {
        relevant.add(def);
        grew = true;
      }
    }
  }
  const entries = [...byDef].filter(([def]) => relevant.has(def));
  const lines = entries.map(([def, names]) => {
    const renames = names.renames.map(([protoName, name]) => `${literal(protoName)}: ${literal(name)}`).join(', ');
    const nested = names.nested
      .filter(([, target]) => relevant.has(target))
      .map(([name, target, shape]) => `${literal(name)}: { def: ${literal(target)}, shape: ${literal(shape)} }`)
      .join(', ');
    return `  ${def}: { renames: { ${renames} }, nested: { ${nested} } },`;
  });
  return [
    generatedHeader(`spec/${family.id}/*.schema.json (their property names)`),
    '/** How a member holds a message: one, a repeated field, or the values of a map. */',
    "export type MemberShape = 'one' | 'list' | 'map';",
    '',
    '/** What input normalisation needs to know of one message def. */',
    'export interface MessageNames {',
    '  /** Proto field name → JSON name, for the fields whose two names differ. */',
    '  readonly renames: { readonly [protoName: string]: string };',
    '  /** JSON name → the def of a message-typed member (and how it holds it) to walk into. */',
    '  readonly nested: { readonly [jsonName: string]: { readonly def: string; readonly shape: MemberShape } };',
    '}',
    '',
    '/** Per message def from which a proto-named member can be reached. */',
    'export const PROTO_NAMES: { readonly [def: string]: MessageNames } = {',
    ...lines,
    '};',
    '',
  ].join('\n');
}

function messageTarget(defs: JsonObject, member: JsonValue): [string, Shape] | undefined {
  if (!isJsonObject(member)) return undefined;
  const one = messageRef(defs, member);
  if (one !== undefined) return [one, 'one'];
  const items = member['items'];
  if (member['type'] === 'array' && isJsonObject(items)) {
    const item = messageRef(defs, items);
    if (item !== undefined) return [item, 'list'];
  }
  const values = member['additionalProperties'];
  if (member['type'] === 'object' && isJsonObject(values)) {
    const value = messageRef(defs, values);
    if (value !== undefined) return [value, 'map'];
  }
  return undefined;
}

/** The def a schema refers to (directly or through a one-element allOf), if that def has properties. */
function messageRef(defs: JsonObject, schema: JsonObject): string | undefined {
  const allOf = schema['allOf'];
  if (Array.isArray(allOf) && allOf.length === 1 && isJsonObject(allOf[0])) return messageRef(defs, allOf[0]);
  const ref = schema['$ref'];
  if (typeof ref !== 'string' || !ref.startsWith('#/$defs/')) return undefined;
  const name = ref.slice('#/$defs/'.length);
  const target = defs[name];
  return isJsonObject(target) && isJsonObject(target['properties']) ? name : undefined;
}
