import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import protobuf from 'protobufjs';
import { beforeAll, describe, expect, it } from 'vitest';
import { loadFamily, type Family } from '../../codegen/families.js';
import { DEFAULT_SPEC_DIR } from '../../codegen/paths.js';
import { PROTO_NAMES } from '../../generated/a2a/1.0/proto-names.js';
import { isJsonObject, type JsonObject, type JsonValue } from '../../codegen/json.js';
import { PROTO_0_3, PROTO_1_0, sharedFileAvailable } from '../helpers/paths.js';

/** A family of spec/ that maps a proto file's messages and enums, one def each, in ProtoJSON. */
interface ProtoFamily {
  /** Folder under spec/, e.g. `a2a/0.3/rest`. */
  family: string;
  proto: string;
  /** The proto package whose messages and enums the family defines. */
  namespace: string;
  /** How the test names the proto. */
  source: string;
  /** True when the family has no defs besides the proto's and the well-known types (no JSON-RPC envelopes, no errors). */
  protoOnly: boolean;
}

const V1_0: ProtoFamily = { family: 'a2a/1.0', proto: PROTO_1_0, namespace: 'lf.a2a.v1', source: 'a2a.proto v1.0.1', protoOnly: false };
const V0_3_REST: ProtoFamily = {
  family: 'a2a/0.3/rest',
  proto: PROTO_0_3,
  namespace: 'a2a.v1',
  source: 'the A2A 0.3.0 a2a.proto (a2a.v1)',
  protoOnly: true,
};
const PROTO_FAMILIES = [V1_0, V0_3_REST];
/** Whether each proto is here, asked once per file so that a missing one is reported once. */
const AVAILABLE = new Map(PROTO_FAMILIES.map((row) => [row, sharedFileAvailable(row.proto, `parity of spec/${row.family} with ${row.source}`)]));

/** Defs a ProtoJSON family may have besides the proto's messages and enums: the scalars and well-known types of common.schema.json. */
const COMMON_DEFS = new Set(['Int32', 'Bytes', 'Timestamp', 'Struct', 'Value', 'Empty']);

async function loadProtoFamily(row: ProtoFamily): Promise<{ family: Family; namespace: protobuf.Namespace }> {
  const family = await loadFamily(DEFAULT_SPEC_DIR, join(DEFAULT_SPEC_DIR, ...row.family.split('/')));
  const parsed = protobuf.parse(readFileSync(row.proto, 'utf8'), { keepCase: true });
  return { family, namespace: parsed.root.lookup(row.namespace) as protobuf.Namespace };
}

const WELL_KNOWN: Record<string, string> = {
  'google.protobuf.Timestamp': 'ref:Timestamp',
  'google.protobuf.Struct': 'ref:Struct',
  'google.protobuf.Value': 'ref:Value',
  'google.protobuf.Empty': 'ref:Empty',
};
const SCALARS: Record<string, string> = { string: 'string', bool: 'boolean', int32: 'int32', bytes: 'ref:Bytes' };

/** proto3 JSON name: `reference_task_ids` → `referenceTaskIds`. */
function lowerCamel(protoName: string): string {
  return protoName.replace(/_([a-z0-9])/g, (_, letter: string) => letter.toUpperCase());
}

/** The ProtoJSON member name of a field: its `json_name` option when the proto gives one (0.3: `Message request = 1 [json_name = "message"]`), else lowerCamelCase. */
function jsonName(field: protobuf.Field): string {
  const explicit: unknown = field.options?.['json_name'];
  return typeof explicit === 'string' ? explicit : lowerCamel(field.name);
}

function protoType(type: string): string {
  return SCALARS[type] ?? WELL_KNOWN[type] ?? `ref:${type}`;
}

function protoFieldType(field: protobuf.Field): string {
  if (field instanceof protobuf.MapField) return `map<${protoType(field.type)}>`;
  return field.repeated ? `array<${protoType(field.type)}>` : protoType(field.type);
}

/** The same vocabulary read off a schema: what kind of JSON value the property holds. */
function schemaType(schema: JsonValue | undefined): string {
  if (!isJsonObject(schema)) return 'missing';
  const ref = schema['$ref'];
  if (typeof ref === 'string') {
    const name = ref.replace('#/$defs/', '');
    return name === 'Int32' ? 'int32' : `ref:${name}`;
  }
  const allOf = schema['allOf'];
  if (Array.isArray(allOf) && allOf.length === 1) return schemaType(allOf[0]);
  if (schema['type'] === 'array') return `array<${schemaType(schema['items'])}>`;
  if (schema['type'] === 'object' && isJsonObject(schema['additionalProperties'])) {
    return `map<${schemaType(schema['additionalProperties'])}>`;
  }
  if (schema['type'] === 'integer') return 'int32';
  return typeof schema['type'] === 'string' ? schema['type'] : 'unknown';
}

function required(def: JsonObject): string[] {
  const value = def['required'];
  return Array.isArray(value) ? value.map(String).sort() : [];
}

function mismatchesOf(family: Family, namespace: protobuf.Namespace): string[] {
  const defs = family.document['$defs'] as JsonObject;
  const problems: string[] = [];
  for (const nested of namespace.nestedArray) {
    if (nested instanceof protobuf.Enum) {
      const def = defs[nested.name];
      if (!isJsonObject(def)) {
        problems.push(`enum ${nested.name}: no schema`);
        continue;
      }
      const expected = Object.keys(nested.values);
      const inSchema = [...(Array.isArray(def['enum']) ? def['enum'].map(String) : []), JSON.stringify(def['x-proto-unspecified'] ?? null).replaceAll('"', '')];
      if (JSON.stringify([...inSchema].sort()) !== JSON.stringify([...expected].sort())) {
        problems.push(`enum ${nested.name}: values ${inSchema.join(',')} ≠ proto ${expected.join(',')}`);
      }
      if (def['x-proto-unspecified'] !== expected.find((value) => nested.values[value] === 0)) {
        problems.push(`enum ${nested.name}: x-proto-unspecified must name the zero value`);
      }
    } else if (nested instanceof protobuf.Type) {
      const def = defs[nested.name];
      if (!isJsonObject(def)) {
        problems.push(`message ${nested.name}: no schema`);
        continue;
      }
      const properties = isJsonObject(def['properties']) ? def['properties'] : {};
      const expectedNames = nested.fieldsArray.map(jsonName);
      for (const name of Object.keys(properties)) {
        if (!expectedNames.includes(name)) problems.push(`message ${nested.name}: member ${name} is not a proto field`);
      }
      const expectedRequired: string[] = [];
      for (const field of nested.fieldsArray) {
        const name = jsonName(field);
        const property = properties[name];
        if (property === undefined) {
          problems.push(`message ${nested.name}: field ${field.name} has no member ${name}`);
          continue;
        }
        // Input may use the proto field name: where json_name breaks the derivation, the member names it.
        const wantedProtoName = lowerCamel(field.name) === name ? undefined : field.name;
        const protoName = isJsonObject(property) ? property['x-proto-name'] : undefined;
        if (protoName !== wantedProtoName)
          problems.push(`message ${nested.name}: member ${name} needs x-proto-name ${JSON.stringify(wantedProtoName ?? null)}, has ${JSON.stringify(protoName ?? null)}`);
        const options = field.options ?? {};
        const isRequired = options['(google.api.field_behavior)'] === 'REQUIRED';
        if (isRequired) expectedRequired.push(name);
        const expectedType = protoFieldType(field);
        if (schemaType(property) !== expectedType) {
          problems.push(`message ${nested.name}: ${name} is ${schemaType(property)}, proto says ${expectedType}`);
        }
        const explicit = isJsonObject(property) && property['x-presence'] === 'explicit';
        if (explicit !== (options['proto3_optional'] === true)) {
          problems.push(`message ${nested.name}: ${name} x-presence ${explicit ? 'set' : 'missing'}, proto ${options['proto3_optional'] ? 'optional' : 'implicit'}`);
        }
        const deprecated = isJsonObject(property) && property['deprecated'] === true;
        if (deprecated !== (options['deprecated'] === true)) problems.push(`message ${nested.name}: ${name} deprecated flag differs`);
        const minItems = isJsonObject(property) ? property['minItems'] : undefined;
        const emptyPageAllowed = nested.name === 'ListTasksResponse' && name === 'tasks';
        if (isRequired && field.repeated && !emptyPageAllowed && minItems !== 1) {
          problems.push(`message ${nested.name}: REQUIRED repeated ${name} needs minItems 1`);
        }
      }
      if (JSON.stringify(required(def)) !== JSON.stringify(expectedRequired.sort())) {
        problems.push(`message ${nested.name}: required [${required(def).join(',')}] ≠ proto [${expectedRequired.join(',')}]`);
      }
      for (const oneof of nested.oneofsArray.filter((group) => !group.name.startsWith('_'))) {
        const branches = Array.isArray(def['oneOf']) ? def['oneOf'] : [];
        const members = branches.map((branch) => (isJsonObject(branch) && Array.isArray(branch['required']) ? JSON.stringify(branch['required'][0] ?? null).replaceAll('"', '') : '?'));
        const expected = oneof.oneof.map((member) => {
          const field = nested.fields[member];
          return field === undefined ? member : jsonName(field);
        });
        if (def['x-oneof'] !== oneof.name || JSON.stringify(members) !== JSON.stringify(expected)) {
          problems.push(`message ${nested.name}: oneof ${oneof.name} is [${members.join(',')}] (x-oneof ${JSON.stringify(def['x-oneof'] ?? null)}), proto [${expected.join(',')}]`);
        }
      }
    }
  }
  return problems;
}

/** Every def of a proto-only family is a message or enum of the proto, or a common scalar. */
function extraDefs(family: Family, namespace: protobuf.Namespace): string[] {
  const protoNames = new Set(namespace.nestedArray.filter((n) => n instanceof protobuf.Type || n instanceof protobuf.Enum).map((n) => n.name));
  return family.defNames.filter((name) => !protoNames.has(name) && !COMMON_DEFS.has(name)).map((name) => `${name}: not a message or enum of the proto`);
}

for (const row of PROTO_FAMILIES) {
  describe.skipIf(AVAILABLE.get(row) !== true)(`spec/${row.family} is faithful to ${row.source}`, () => {
    let family: Family;
    let namespace: protobuf.Namespace;

    beforeAll(async () => {
      ({ family, namespace } = await loadProtoFamily(row));
    });

    it('has every message and enum with the same fields, JSON names, types, REQUIRED set, presence, oneofs and enum values', () => {
      const counted = namespace.nestedArray.filter((n) => n instanceof protobuf.Type || n instanceof protobuf.Enum);
      expect(counted.length).toBeGreaterThan(40);
      expect(mismatchesOf(family, namespace)).toEqual([]);
    });

    if (row.protoOnly) {
      it('has no def besides the proto messages and enums and the common scalars', () => {
        expect(extraDefs(family, namespace)).toEqual([]);
      });
    }

    it('has a title equal to the proto name and a description on every def', () => {
      const defs = family.document['$defs'] as JsonObject;
      const problems = Object.entries(defs).flatMap(([name, def]) =>
        isJsonObject(def) && def['title'] === name && typeof def['description'] === 'string' ? [] : [name],
      );
      expect(problems).toEqual([]);
    });
  });
}

describe.skipIf(AVAILABLE.get(V0_3_REST) !== true)('the parity check fails on a broken spec/a2a/0.3/rest, naming what differs', () => {
  let family: Family;
  let namespace: protobuf.Namespace;

  beforeAll(async () => {
    ({ family, namespace } = await loadProtoFamily(V0_3_REST));
  });

  /** The family with its bundled document changed by `edit`, so the check runs on a broken copy. */
  function broken(edit: (defs: JsonObject) => void): Family {
    const document = structuredClone(family.document);
    edit(document['$defs'] as JsonObject);
    return { ...family, document };
  }
  const defOf = (defs: JsonObject, name: string): JsonObject => defs[name] as JsonObject;
  const propertiesOf = (defs: JsonObject, name: string): JsonObject => defOf(defs, name)['properties'] as JsonObject;

  it('reports a member named after the proto field instead of its json_name', () => {
    const problems = mismatchesOf(
      broken((defs) => {
        const properties = propertiesOf(defs, 'StreamResponse');
        properties['msg'] = properties['message'] ?? null;
        delete properties['message'];
      }),
      namespace,
    );
    expect(problems).toContain('message StreamResponse: member msg is not a proto field');
    expect(problems).toContain('message StreamResponse: field msg has no member message');
  });

  it('reports a json_name member that does not name its proto field', () => {
    const problems = mismatchesOf(
      broken((defs) => {
        delete (propertiesOf(defs, 'StreamResponse')['message'] as JsonObject)['x-proto-name'];
      }),
      namespace,
    );
    expect(problems).toContain('message StreamResponse: member message needs x-proto-name "msg", has null');
  });

  it('reports a wrong REQUIRED set, a wrong type and a missing enum value', () => {
    const problems = mismatchesOf(
      broken((defs) => {
        delete defOf(defs, 'SendMessageRequest')['required'];
        propertiesOf(defs, 'SendMessageConfiguration')['blocking'] = { type: 'string' };
        defOf(defs, 'TaskState')['enum'] = ['TASK_STATE_SUBMITTED'];
      }),
      namespace,
    );
    expect(problems).toContain('message SendMessageRequest: required [] ≠ proto [message]');
    expect(problems).toContain('message SendMessageConfiguration: blocking is string, proto says boolean');
    expect(problems.some((problem) => problem.startsWith('enum TaskState: values'))).toBe(true);
  });
});

describe.skipIf(AVAILABLE.get(V1_0) !== true)('spec/a2a/1.0 derives its proto names and methods from a2a.proto v1.0.1', () => {
  let namespace: protobuf.Namespace;

  beforeAll(async () => {
    ({ namespace } = await loadProtoFamily(V1_0));
  });

  it('derives, in generated proto-names, exactly the proto field names that differ from the JSON names', () => {
    const problems: string[] = [];
    const messages = namespace.nestedArray.filter((n): n is protobuf.Type => n instanceof protobuf.Type);
    for (const message of messages) {
      const expected = Object.fromEntries(message.fieldsArray.filter((field) => jsonName(field) !== field.name).map((field) => [field.name, jsonName(field)]));
      const derived = PROTO_NAMES[message.name]?.renames ?? {};
      if (JSON.stringify(Object.entries(derived).sort()) !== JSON.stringify(Object.entries(expected).sort())) {
        problems.push(`${message.name}: derived ${JSON.stringify(derived)}, proto ${JSON.stringify(expected)}`);
      }
    }
    // google.rpc.BadRequest is defined in google/rpc/error_details.proto, as `field_violations`.
    const elsewhere = new Map([['BadRequest', { field_violations: 'fieldViolations' }]]);
    for (const [def, names] of Object.entries(PROTO_NAMES)) {
      if (messages.some((message) => message.name === def)) continue;
      if (JSON.stringify(names.renames) !== JSON.stringify(elsewhere.get(def))) problems.push(`${def}: not an A2A proto message`);
    }
    expect(Object.keys(PROTO_NAMES).length).toBeGreaterThan(20);
    expect(problems).toEqual([]);
  });

  it('lists the 11 service methods with the proto request, response, streaming flag and HTTP routes', async () => {
    const methods = JSON.parse(readFileSync(join(DEFAULT_SPEC_DIR, 'a2a', '1.0', 'methods.json'), 'utf8')) as {
      methods: { name: string; params: string; result: string; streaming: boolean; http: { verb: string; path: string; body?: string }[] }[];
    };
    const service = namespace.lookupService('A2AService');
    const fromProto = service.methodsArray.map((method) => {
      const http = (method.parsedOptions ?? []).find((option: Record<string, unknown>) => '(google.api.http)' in option) as
        | { '(google.api.http)': Record<string, unknown> }
        | undefined;
      const routes: { verb: string; path: string; body?: string }[] = [];
      const collect = (rule: Record<string, unknown>) => {
        for (const verb of ['get', 'post', 'put', 'patch', 'delete']) {
          const path = rule[verb];
          if (typeof path === 'string') routes.push({ verb: verb.toUpperCase(), path, ...(typeof rule['body'] === 'string' ? { body: rule['body'] } : {}) });
        }
        const more = rule['additional_bindings'];
        for (const extra of Array.isArray(more) ? more : more === undefined ? [] : [more]) collect(extra as Record<string, unknown>);
      };
      if (http) collect(http['(google.api.http)']);
      return {
        name: method.name,
        params: method.requestType.replace('google.protobuf.', ''),
        result: method.responseType.replace('google.protobuf.', ''),
        streaming: method.responseStream === true,
        http: routes,
      };
    });
    const fromSpec = methods.methods.map(({ name, params, result, streaming, http }) => ({ name, params, result, streaming, http }));
    await Promise.resolve();
    expect(fromSpec).toEqual(fromProto);
  });
});
