import { compile } from 'json-schema-to-typescript';
import { oneofMembers } from '../src/protocol/json-schema.js';
import { forEachSubschema } from './conventions.js';
import type { Family } from './families.js';
import { generatedHeader } from './header.js';
import { deepClone, isJsonObject, type JsonObject } from './json.js';

const ROOT_NAME = 'GeneratedRoot';

/**
 * Emits `types.ts` for a family with json-schema-to-typescript. The schema it sees is a
 * TypeScript view of the spec: proto oneofs become exclusive unions (other members `?: never`),
 * free JSON (`google.protobuf.Value`) becomes `unknown`, and descriptions beside `$ref`s are
 * dropped because the library would otherwise emit a duplicate type for each of them.
 */
export async function emitTypes(family: Family): Promise<string> {
  const defs = deepClone(isJsonObject(family.document['$defs']) ? family.document['$defs'] : {});
  for (const def of Object.values(defs)) if (isJsonObject(def)) toTypeScriptView(def);
  const root: JsonObject = { title: ROOT_NAME, type: 'object', additionalProperties: false, $defs: defs };
  const emitted = await compile(root, ROOT_NAME, {
    bannerComment: '',
    unreachableDefinitions: true,
    additionalProperties: false,
    strictIndexSignatures: true,
    ignoreMinAndMaxItems: true,
    declareExternallyReferenced: true,
    unknownAny: true,
    format: true,
    $refOptions: { resolve: { http: false } },
  });
  const emptyRoot = `export interface ${ROOT_NAME} {}\n`;
  if (!emitted.includes(emptyRoot)) throw new Error(`spec/${family.id}: expected an empty ${ROOT_NAME} interface to strip`);
  const body = emitted
    .replace(emptyRoot, '')
    .replace(/\n \*\n \* This interface was referenced by `GeneratedRoot`'s JSON-Schema\n \* via the `definition` "[^"]+"\./g, '')
    .replace(/\/\*\*\n \* This interface was referenced by `GeneratedRoot`'s JSON-Schema\n \* via the `definition` "[^"]+"\.\n \*\/\n/g, '')
    .replace(/\n{3,}/g, '\n\n');
  return generatedHeader(`spec/${family.id}/*.schema.json`) + body;
}

function toTypeScriptView(schema: JsonObject): void {
  if ('$ref' in schema) {
    for (const key of Object.keys(schema)) if (key !== '$ref') delete schema[key];
    return;
  }
  forEachSubschema(schema, (child) => toTypeScriptView(child));
  if (isFreeJson(schema)) schema['tsType'] = 'unknown';
  if ('x-oneof' in schema) rewriteOneofAsUnion(schema);
}

function isFreeJson(schema: JsonObject): boolean {
  const structural = ['type', '$ref', 'enum', 'const', 'anyOf', 'oneOf', 'allOf', 'properties', 'items', 'not'];
  return !structural.some((keyword) => keyword in schema);
}

function rewriteOneofAsUnion(schema: JsonObject): void {
  const properties = isJsonObject(schema['properties']) ? schema['properties'] : {};
  const members = oneofMembers(schema);
  const required = Array.isArray(schema['required']) ? schema['required'] : [];
  schema['oneOf'] = members.map((member) => {
    const branchProperties: JsonObject = {};
    for (const [name, property] of Object.entries(properties)) {
      branchProperties[name] = name === member || !members.includes(name) ? property : { tsType: 'never' };
    }
    return { type: 'object', additionalProperties: false, properties: branchProperties, required: [...required, member] };
  });
  for (const key of ['properties', 'required', 'type', 'additionalProperties', 'x-oneof']) delete schema[key];
}
