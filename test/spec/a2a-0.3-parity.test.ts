import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { loadFamily, type Family } from '../../codegen/families.js';
import { DEFAULT_SPEC_DIR } from '../../codegen/paths.js';
import { isJsonObject, type JsonObject, type JsonValue } from '../../codegen/json.js';
import { METHODS, METHOD_NAMES } from '../../generated/a2a/0.3/methods.js';
import { SCHEMA_0_3, sharedFileAvailable } from '../helpers/paths.js';

/**
 * spec/a2a/0.3 against the official 0.3.0 JSON Schema (a2a.json): every definition with the same
 * members, member types, required set, enums, consts and defaults. spec/ closes every object
 * (additionalProperties: false), which a2a.json leaves open; that is the one difference the
 * conventions make on purpose, so additionalProperties is compared only where it is a schema.
 */

/** The defs of results.schema.json name anonymous subschemas of a2a.json: here is where each one is. */
const NAMED_SUBSCHEMAS: Record<string, string> = {
  SendMessageResult: 'SendMessageSuccessResponse/properties/result',
  SendStreamingMessageResult: 'SendStreamingMessageSuccessResponse/properties/result',
  ListTaskPushNotificationConfigResult: 'ListTaskPushNotificationConfigSuccessResponse/properties/result',
  DeleteTaskPushNotificationConfigResult: 'DeleteTaskPushNotificationConfigSuccessResponse/properties/result',
  GetTaskPushNotificationConfigRequestParams: 'GetTaskPushNotificationConfigRequest/properties/params',
};
/** a2a.json gives agent/getAuthenticatedExtendedCard no params member at all; spec/ names "none". */
const NO_PARAMS = 'GetAuthenticatedExtendedCardParams';
/** tasks/resubscribe has no response def of its own in a2a.json: it answers as message/stream does. */
const RESPONSE_OF: Record<string, string> = { TaskResubscriptionRequest: 'SendStreamingMessageSuccessResponse' };

/**
 * A schema as a comparable string: references by name, unions as sorted sets, the keywords that
 * decide what a value may be (type, const, enum, default, items, format), and objects by member.
 * Descriptions do not take part: spec/ may word them better.
 */
export function canonical(schema: JsonValue | undefined, refPrefix: string): string {
  if (!isJsonObject(schema)) return JSON.stringify(schema ?? null);
  const parts: string[] = [];
  const ref = schema['$ref'];
  if (typeof ref === 'string') parts.push(`ref:${ref.startsWith(refPrefix) ? ref.slice(refPrefix.length) : ref}`);
  for (const keyword of ['type', 'const', 'enum', 'default', 'format', 'minItems', 'minLength']) {
    if (keyword in schema) parts.push(`${keyword}=${JSON.stringify(keyword === 'enum' ? [...(schema[keyword] as JsonValue[])].map(String).sort() : schema[keyword])}`);
  }
  for (const keyword of ['anyOf', 'oneOf', 'allOf']) {
    const list = schema[keyword];
    if (Array.isArray(list)) parts.push(`${keyword}[${list.map((branch) => canonical(branch, refPrefix)).sort().join('|')}]`);
  }
  if ('items' in schema) parts.push(`items(${canonical(schema['items'], refPrefix)})`);
  const additional = schema['additionalProperties'];
  // `{}` in a2a.json and `true` in spec/ both mean free-form values; false is spec/'s closing.
  if (isJsonObject(additional) && Object.keys(additional).length > 0) parts.push(`values(${canonical(additional, refPrefix)})`);
  else if (additional === true || (isJsonObject(additional) && Object.keys(additional).length === 0)) parts.push('values(any)');
  const properties = schema['properties'];
  if (isJsonObject(properties)) {
    const members = Object.keys(properties)
      .sort()
      .map((name) => `${name}:${canonical(properties[name], refPrefix)}`);
    parts.push(`{${members.join(',')}}`);
  }
  const required = schema['required'];
  if (Array.isArray(required)) parts.push(`required=[${required.map(String).sort().join(',')}]`);
  return parts.join(' ');
}

/** One line per difference, naming the def and, where it is one member, the member. */
export function mismatches(reference: JsonObject, ours: JsonObject): string[] {
  const problems: string[] = [];
  const theirs = (name: string) => reference[name] as JsonObject;
  for (const name of Object.keys(reference).sort()) {
    const mine = ours[name];
    if (!isJsonObject(mine)) {
      problems.push(`${name}: missing from spec/a2a/0.3`);
      continue;
    }
    const want = theirs(name);
    const wantMembers = isJsonObject(want['properties']) ? want['properties'] : {};
    const haveMembers = isJsonObject(mine['properties']) ? mine['properties'] : {};
    for (const member of Object.keys(wantMembers)) {
      if (!(member in haveMembers)) problems.push(`${name}.${member}: missing`);
      else if (canonical(wantMembers[member], '#/definitions/') !== canonical(haveMembers[member], '#/$defs/'))
        problems.push(
          `${name}.${member}: ${canonical(haveMembers[member], '#/$defs/')}, a2a.json says ${canonical(wantMembers[member], '#/definitions/')}`,
        );
    }
    for (const member of Object.keys(haveMembers)) if (!(member in wantMembers)) problems.push(`${name}.${member}: not in a2a.json`);
    const strip = (schema: JsonObject): JsonObject => ({ ...schema, properties: {} });
    const wantRest = canonical(strip(want), '#/definitions/');
    const haveRest = canonical(strip(mine), '#/$defs/');
    if (wantRest !== haveRest) problems.push(`${name}: ${haveRest}, a2a.json says ${wantRest}`);
  }
  for (const name of Object.keys(ours).sort()) {
    if (name in reference) continue;
    const at = NAMED_SUBSCHEMAS[name];
    if (name === NO_PARAMS) continue;
    if (at === undefined) {
      problems.push(`${name}: not in a2a.json, and not one of the subschemas results.schema.json names`);
      continue;
    }
    const [def, ...path] = at.split('/');
    let want: JsonValue | undefined = reference[def ?? ''];
    for (const step of path) want = isJsonObject(want) ? want[step] : undefined;
    const wantShape = canonical(isJsonObject(want) ? { ...want, description: null } : want, '#/definitions/');
    const haveShape = canonical({ ...(ours[name] as JsonObject), title: null, description: null }, '#/$defs/');
    if (wantShape !== haveShape) problems.push(`${name}: ${haveShape}, but ${at} is ${wantShape}`);
  }
  return problems;
}

const available = sharedFileAvailable(SCHEMA_0_3, 'parity of spec/a2a/0.3 with the 0.3.0 JSON Schema');

describe.skipIf(!available)('spec/a2a/0.3 is faithful to the A2A 0.3.0 JSON Schema', () => {
  let family: Family;
  let reference: JsonObject;
  let ours: JsonObject;

  beforeAll(async () => {
    family = await loadFamily(DEFAULT_SPEC_DIR, join(DEFAULT_SPEC_DIR, 'a2a', '0.3'));
    reference = (JSON.parse(readFileSync(SCHEMA_0_3, 'utf8')) as { definitions: JsonObject }).definitions;
    ours = family.document['$defs'] as JsonObject;
  });

  it('has every definition, with the same members, member types, required set, enums, consts and defaults', () => {
    expect(Object.keys(reference).length).toBeGreaterThan(90);
    expect(mismatches(reference, ours)).toEqual([]);
  });

  it('reports a difference by def and member name', () => {
    const task = ours['Task'] as JsonObject;
    const changed: JsonObject = {
      ...ours,
      Task: { ...task, properties: { ...(task['properties'] as JsonObject), kind: { type: 'string', const: 'tasks' } }, required: ['id'] },
      Extra: { title: 'Extra', description: 'not in a2a.json', type: 'object' },
    };
    delete changed['TaskState'];
    expect(mismatches(reference, changed)).toEqual([
      expect.stringMatching(/^Task\.kind: .*const="tasks".*, a2a\.json says .*const="task"/),
      expect.stringMatching(/^Task: .*required=\[id\], a2a\.json says .*required=\[contextId,id,kind,status\]/),
      'TaskState: missing from spec/a2a/0.3',
      'Extra: not in a2a.json, and not one of the subschemas results.schema.json names',
    ]);
  });

  it("names in methods.json each method's params and result as a2a.json's request and success response do", () => {
    const requests = Object.entries(reference).filter(
      ([name, def]) => isJsonObject(def) && isJsonObject(def['properties']) && isJsonObject(def['properties']['method']) && name !== 'JSONRPCRequest',
    );
    const problems: string[] = [];
    const shapeOf = (def: string): string => {
      const named = ours[def] as JsonObject;
      return def in NAMED_SUBSCHEMAS ? canonical({ ...named, title: null, description: null }, '#/$defs/') : `ref:${def}`;
    };
    for (const [name, def] of requests) {
      const properties = (def as JsonObject)['properties'] as JsonObject;
      const method = (properties['method'] as JsonObject)['const'] as string;
      const entry = METHOD_NAMES.includes(method as never) ? METHODS[method as keyof typeof METHODS] : undefined;
      if (entry === undefined) {
        problems.push(`${method} (${name}): not in methods.json`);
        continue;
      }
      const params = properties['params'];
      const wantParams = params === undefined ? null : canonical({ ...(params as JsonObject), description: null }, '#/definitions/');
      if (wantParams === null ? entry.paramsType !== NO_PARAMS || !entry.paramsOptional : shapeOf(entry.paramsType) !== wantParams)
        problems.push(`${method}: params ${entry.paramsType}, a2a.json says ${wantParams ?? 'none'}`);
      const response = reference[RESPONSE_OF[name] ?? name.replace(/Request$/, 'SuccessResponse')] as JsonObject;
      const result = (response['properties'] as JsonObject)['result'] as JsonObject;
      const wantResult = canonical({ ...result, description: null }, '#/definitions/');
      if (shapeOf(entry.resultType) !== wantResult) problems.push(`${method}: result ${entry.resultType}, a2a.json says ${wantResult}`);
      // A method streams when its result may be an update event: no other result can.
      const streaming = wantResult.includes('ref:TaskStatusUpdateEvent');
      if (entry.streaming !== streaming) problems.push(`${method}: streaming ${entry.streaming}, a2a.json's result says ${streaming}`);
    }
    expect(requests).toHaveLength(METHOD_NAMES.length);
    expect(problems).toEqual([]);
  });
});
