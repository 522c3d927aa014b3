import type { SpecFile } from './families.js';
import { isJsonObject, type JsonObject, type JsonValue } from './json.js';

const DRAFT_2020_12 = 'https://json-schema.org/draft/2020-12/schema';
const FILE_KEYS = new Set(['$schema', 'title', 'description', '$defs']);
const SCHEMA_MAP_KEYWORDS = ['properties', 'patternProperties', 'dependentSchemas'];
const SCHEMA_KEYWORDS = [
  'items',
  'additionalProperties',
  'not',
  'if',
  'then',
  'else',
  'contains',
  'propertyNames',
  'unevaluatedProperties',
  'unevaluatedItems',
];
const SCHEMA_LIST_KEYWORDS = ['allOf', 'anyOf', 'oneOf', 'prefixItems'];

/** Calls `visit` on each direct subschema of `schema` with the keyword path leading to it. */
export function forEachSubschema(schema: JsonObject, visit: (child: JsonObject, path: string) => void): void {
  for (const keyword of SCHEMA_MAP_KEYWORDS) {
    const map = schema[keyword];
    if (isJsonObject(map)) {
      for (const [name, child] of Object.entries(map)) if (isJsonObject(child)) visit(child, `${keyword}/${name}`);
    }
  }
  for (const keyword of SCHEMA_KEYWORDS) {
    const child = schema[keyword];
    if (isJsonObject(child)) visit(child, keyword);
  }
  for (const keyword of SCHEMA_LIST_KEYWORDS) {
    const list = schema[keyword];
    if (Array.isArray(list)) list.forEach((child, index) => isJsonObject(child) && visit(child, `${keyword}/${index}`));
  }
}

/**
 * Checks the conventions of spec/README.md that JSON Schema itself cannot express.
 * Returns one message per problem, each naming the file and the JSON pointer.
 */
export function checkConventions(files: SpecFile[]): string[] {
  const problems: string[] = [];
  const titles = new Map<string, string>();
  for (const file of files) {
    const at = (pointer: string, message: string) => problems.push(`${file.displayPath}#${pointer}: ${message}`);
    for (const key of Object.keys(file.json)) if (!FILE_KEYS.has(key)) at('', `unexpected top-level key "${key}"`);
    if (file.json['$schema'] !== DRAFT_2020_12) at('/$schema', `must be "${DRAFT_2020_12}"`);
    for (const key of ['title', 'description']) {
      if (typeof file.json[key] !== 'string') at(`/${key}`, 'must be a string');
    }
    const defs = file.json['$defs'];
    if (!isJsonObject(defs)) continue;
    for (const [name, def] of Object.entries(defs)) {
      const pointer = `/$defs/${name}`;
      if (!isJsonObject(def)) {
        at(pointer, 'must be a schema object');
        continue;
      }
      if (def['title'] !== name) at(pointer, `title must equal the def name "${name}"`);
      if (typeof def['description'] !== 'string' || def['description'].trim() === '') {
        at(pointer, 'needs a description');
      }
      const seen = titles.get(name);
      if (seen !== undefined) at(pointer, `title "${name}" is also used in ${seen}`);
      titles.set(name, file.displayPath);
      checkSchema(def, pointer, true, at);
    }
  }
  return problems;
}

/** Subschemas reached through these keywords describe the same instance as their parent. */
/** What a `$ref` may sit beside: annotations of the member, never constraints that would merge into the target. */
const REF_SIBLINGS: ReadonlySet<string> = new Set(['$ref', 'description', 'default', 'x-proto-name']);

const SAME_INSTANCE = /^(allOf|anyOf|oneOf|not|if|then|else|dependentSchemas)(\/|$)/;

function checkSchema(
  schema: JsonObject,
  pointer: string,
  isDef: boolean,
  at: (pointer: string, message: string) => void,
  inherited: string[] = [],
): void {
  if (!isDef && 'title' in schema) at(pointer, 'only defs carry a title (named types live in $defs)');
  if ('$ref' in schema) {
    const extra = Object.keys(schema).filter((key) => !REF_SIBLINGS.has(key));
    if (extra.length > 0) at(pointer, `a $ref may only have a sibling description, default and x-proto-name, found ${extra.join(', ')}`);
  }
  const own = isJsonObject(schema['properties']) ? Object.keys(schema['properties']) : [];
  const declared = [...inherited, ...own];
  checkRequiredDeclared(schema['required'], declared, pointer, at);
  if ('x-oneof' in schema) checkOneofGroup(schema, declared, pointer, at);
  forEachSubschema(schema, (child, path) => {
    const inOneofGroup = 'x-oneof' in schema && path.startsWith('oneOf/');
    if (!inOneofGroup) checkSchema(child, `${pointer}/${path}`, false, at, SAME_INSTANCE.test(path) ? declared : []);
  });
}

function checkRequiredDeclared(
  required: JsonValue | undefined,
  declared: string[],
  pointer: string,
  at: (pointer: string, message: string) => void,
): void {
  if (required === undefined) return;
  if (!Array.isArray(required)) return at(`${pointer}/required`, 'must be an array');
  for (const name of required) {
    if (typeof name !== 'string' || !declared.includes(name)) {
      at(`${pointer}/required`, `${JSON.stringify(name)} is not a declared property`);
    }
  }
}

function checkOneofGroup(schema: JsonObject, declared: string[], pointer: string, at: (pointer: string, message: string) => void): void {
  const branches = schema['oneOf'];
  if (typeof schema['x-oneof'] !== 'string') at(`${pointer}/x-oneof`, 'must name the proto oneof');
  if (!Array.isArray(branches) || branches.length < 2) {
    return at(pointer, 'x-oneof needs a oneOf with one branch per member');
  }
  branches.forEach((branch, index) => {
    const required = isJsonObject(branch) ? branch['required'] : undefined;
    const only = isJsonObject(branch) && Object.keys(branch).length === 1;
    if (!only || !Array.isArray(required) || required.length !== 1 || typeof required[0] !== 'string') {
      return at(`${pointer}/oneOf/${index}`, 'a oneof branch must be exactly {"required": ["<member>"]}');
    }
    if (!declared.includes(required[0])) at(`${pointer}/oneOf/${index}`, `member "${required[0]}" is not a declared property`);
  });
}
