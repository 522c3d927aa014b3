import type { ErrorObject } from 'ajv';
import a2aDocument from '../../generated/a2a/1.0/schema.json' with { type: 'json' };
import type { FieldViolation } from '../../generated/a2a/1.0/types.js';
import { REASON_BY_KEYWORD, type FieldViolationReason } from '../../generated/hub/field-violations.js';
import {
  oneofMembers,
  properties,
  resolveRef,
  schemaAt,
  schemaList,
  splitPointer,
  valueAt,
  type JsonSchema,
  type SchemaDocument,
} from './json-schema.js';

export interface ViolationContext {
  /** The generated schema document the validator was compiled from. */
  readonly document: SchemaDocument;
  /** The def the value was validated against. */
  readonly def: string;
  /** The value that failed validation. */
  readonly data: unknown;
  /** Prepended to every field path, e.g. `params` for a JSON-RPC request's params. */
  readonly fieldPrefix?: string;
}

/** Members and values that A2A 0.3 peers send and 1.0 does not have (digest §14.1); hints for the A2A 1.0 family only. */
const LEGACY_MEMBERS: ReadonlyMap<string, string> = new Map([
  ['kind', '`kind` is an A2A 0.3 discriminator; 1.0 tells variants apart by their member name'],
  ['final', '`final` is from A2A 0.3; in 1.0 the end of the stream marks completion'],
  ['mimeType', '`mimeType` is from A2A 0.3; 1.0 uses `mediaType`'],
  ['file', '`file` parts are from A2A 0.3; 1.0 uses `raw` or `url` on the part itself'],
]);

/**
 * Turns ajv's errors into a short list of google.rpc.BadRequest field violations: one per
 * problem, with a path a person can read (`params.message.parts[0]`) and a description that
 * says what was expected. A proto oneof that has no member set, or several, gives one
 * violation naming the members instead of one error per branch.
 */
export function toFieldViolations(errors: readonly ErrorObject[], context: ViolationContext): FieldViolation[] {
  const oneofPaths = new Set(errors.filter((error) => error.keyword === 'oneOf').map((error) => error.instancePath));
  const unions = errors.filter((error) => error.keyword === 'anyOf');
  // A value that has the type of one branch only (an object where the union is an object or
  // false) is wrong inside that branch: its errors say what, the union's would not.
  const explained = new Map<string, ReadonlySet<ErrorObject>>();
  for (const union of unions) {
    const own = branchErrors(union, errors, context);
    if (own !== undefined) explained.set(union.instancePath, own);
  }
  const unionPaths = unions.map((union) => union.instancePath).filter((path) => !explained.has(path));
  const violations: FieldViolation[] = [];
  const seen = new Set<string>();
  for (const error of errors) {
    const oneofBranch = /oneOf\/\d+\/required$/.test(error.schemaPath) && oneofPaths.has(error.instancePath);
    const explainedPath = [...explained.keys()].find((path) => within(error.instancePath, path));
    const ownBranch = explainedPath !== undefined && explained.get(explainedPath)?.has(error) === true;
    if (explainedPath !== undefined && !ownBranch) continue;
    const underUnion = !ownBranch && error.keyword !== 'anyOf' && unionPaths.some((path) => within(error.instancePath, path));
    if (oneofBranch || underUnion) continue;
    const violation = describe(error, context);
    const key = `${violation.field}\u0000${violation.description}`;
    if (!seen.has(key)) {
      seen.add(key);
      violations.push(violation);
    }
  }
  return violations;
}

function within(pointer: string, path: string): boolean {
  return pointer === path || pointer.startsWith(`${path}/`);
}

/**
 * The errors of the one anyOf branch whose type the value has, or undefined when none or
 * several have it. A `const` branch never counts: a constant of the same type (false for
 * true) is not what the value was meant to be.
 */
function branchErrors(union: ErrorObject, errors: readonly ErrorObject[], context: ViolationContext): ReadonlySet<ErrorObject> | undefined {
  const schema = schemaAt(context.document, context.def, union.instancePath, context.data, { union: 'keep' });
  const branches = schemaList(schema ?? {}, 'anyOf');
  const value = valueAt(context.data, union.instancePath);
  const fitting = branches.flatMap((branch, index) => (hasTypeOf(resolveRef(context.document, branch), value) ? [index] : []));
  const [index, ...others] = fitting;
  const branch = index === undefined ? undefined : branches[index];
  if (branch === undefined || others.length > 0) return undefined;
  // ajv reports errors inside a referenced def by the def's own path.
  const prefixes = [`${union.schemaPath}/${String(index)}/`, ...(typeof branch['$ref'] === 'string' ? [`${branch['$ref']}/`] : [])];
  const own = errors.filter(
    (error) =>
      error !== union && within(error.instancePath, union.instancePath) && prefixes.some((prefix) => error.schemaPath.startsWith(prefix)),
  );
  return own.length > 0 ? new Set(own) : undefined;
}

function hasTypeOf(schema: JsonSchema, value: unknown): boolean {
  if ('const' in schema) return false;
  const types: unknown[] = Array.isArray(schema['type']) ? schema['type'] : [schema['type']];
  return types.some((type) => {
    switch (type) {
      case 'object':
        return typeof value === 'object' && value !== null && !Array.isArray(value);
      case 'array':
        return Array.isArray(value);
      case 'integer':
        return Number.isInteger(value);
      case 'null':
        return value === null;
      default:
        return typeof type === 'string' && typeof value === type;
    }
  });
}

/** The reason spec/hub/field-violations.json gives a failed keyword. */
function reasonOf(keyword: string): FieldViolationReason {
  return REASON_BY_KEYWORD.get(keyword) ?? 'INVALID_VALUE';
}

function describe(error: ErrorObject, context: ViolationContext): FieldViolation {
  const reason = reasonOf(error.keyword);
  const at = (pointer: string, description: string): FieldViolation => ({
    field: fieldPath(pointer, context.fieldPrefix),
    description,
    reason,
  });
  const params = error.params as Record<string, unknown>;
  const schema = () => schemaAt(context.document, context.def, error.instancePath, context.data);
  switch (error.keyword) {
    case 'required': {
      const missing = String(params['missingProperty']);
      return at(`${error.instancePath}/${escape(missing)}`, 'is required');
    }
    case 'additionalProperties': {
      const extra = String(params['additionalProperty']);
      const hint = context.document.$id === a2aDocument.$id ? LEGACY_MEMBERS.get(extra) : undefined;
      const known = Object.keys(properties(schema() ?? {}));
      const expected = known.length > 0 ? `; known members: ${known.join(', ')}` : '';
      return at(`${error.instancePath}/${escape(extra)}`, `is not a member of this object${hint ? ` (${hint})` : expected}`);
    }
    case 'oneOf':
      return describeOneof(error, context, schema());
    case 'anyOf':
      return at(
        error.instancePath,
        `must be ${describeUnion(context.document, schema())}, got ${shown(valueAt(context.data, error.instancePath))}`,
      );
    case 'discriminator':
      return describeDiscriminator(error, context, schema());
    case 'enum': {
      const allowed = (params['allowedValues'] as unknown[]).map((value) => JSON.stringify(value));
      const got = valueAt(context.data, error.instancePath);
      // Only the proto enums of A2A 1.0 were lowercase words in 0.3; a lowercase value of any other enum is just wrong.
      const protoEnum = schema()?.['x-proto-unspecified'] !== undefined;
      const legacy =
        protoEnum && typeof got === 'string' && /^[a-z]+(-[a-z]+)*$/.test(got)
          ? ' (a lowercase value is how A2A 0.3 JSON-RPC spells it)'
          : '';
      return at(error.instancePath, `must be one of ${allowed.join(', ')}, got ${JSON.stringify(got)}${legacy}`);
    }
    case 'type':
      return at(
        error.instancePath,
        `must be ${article(String(params['type']))}, got ${typeName(valueAt(context.data, error.instancePath))}`,
      );
    case 'const':
      return at(error.instancePath, `must be ${JSON.stringify(params['allowedValue'])}`);
    case 'pattern':
    case 'format':
      return at(error.instancePath, describeFormat(schema(), error, valueAt(context.data, error.instancePath)));
    case 'minItems':
      return at(error.instancePath, `must have at least ${String(params['limit'])} element${params['limit'] === 1 ? '' : 's'}`);
    case 'minLength':
      return at(error.instancePath, params['limit'] === 1 ? 'must not be empty' : `must be at least ${String(params['limit'])} characters`);
    case 'minimum':
    case 'maximum':
    case 'exclusiveMinimum':
    case 'exclusiveMaximum':
      return at(
        error.instancePath,
        `must be ${String(params['comparison'])} ${String(params['limit'])}, got ${shown(valueAt(context.data, error.instancePath))}`,
      );
    default:
      return at(error.instancePath, error.message ?? `fails ${error.keyword}`);
  }
}

function describeOneof(error: ErrorObject, context: ViolationContext, schema: JsonSchema | undefined): FieldViolation {
  const field = fieldPath(error.instancePath, context.fieldPrefix);
  const members = schema === undefined ? [] : oneofMembers(schema);
  if (members.length === 0) {
    return { field, description: `must match exactly one of ${describeUnion(context.document, schema)}`, reason: reasonOf('oneOf') };
  }
  const value = valueAt(context.data, error.instancePath);
  const present = members.filter((member) => typeof value === 'object' && value !== null && member in value);
  const list = members.join(', ');
  const found = present.length === 0 ? 'none is set' : `${present.join(' and ')} are set`;
  return { field, description: `must set exactly one of ${list} (${found})`, reason: 'ONEOF_VIOLATION' satisfies FieldViolationReason };
}

function describeDiscriminator(error: ErrorObject, context: ViolationContext, schema: JsonSchema | undefined): FieldViolation {
  const params = error.params as { tag?: string; tagValue?: unknown };
  const tag = params.tag ?? 'type';
  const values = schemaList(schema ?? {}, 'oneOf').flatMap((branch) => {
    const constant = properties(resolveRef(context.document, branch))[tag]?.['const'];
    return constant === undefined ? [] : [JSON.stringify(constant)];
  });
  const field = fieldPath(`${error.instancePath}/${escape(tag)}`, context.fieldPrefix);
  const got = params.tagValue === undefined ? 'it is missing' : `got ${JSON.stringify(params.tagValue)}`;
  return { field, description: `must be one of ${values.join(', ')}, ${got}`, reason: reasonOf('discriminator') };
}

function describeUnion(document: SchemaDocument, schema: JsonSchema | undefined): string {
  const branches = [...schemaList(schema ?? {}, 'anyOf'), ...schemaList(schema ?? {}, 'oneOf')];
  const names = branches.map((branch) => {
    const target = resolveRef(document, branch);
    if (typeof target['title'] === 'string') return target['title'];
    if ('const' in target) return JSON.stringify(target['const']);
    return article(typeof target['type'] === 'string' ? target['type'] : 'value');
  });
  return names.length > 0 ? names.join(' or ') : 'a valid value';
}

function describeFormat(schema: JsonSchema | undefined, error: ErrorObject, value: unknown): string {
  const described = schema?.['x-pattern-description'];
  if (error.keyword === 'pattern' && typeof described === 'string') return `must be ${described}, got ${shown(value)}`;
  switch (schema?.['title']) {
    case 'Timestamp':
      return 'must be an RFC 3339 timestamp in UTC ending in Z, e.g. 2025-10-28T10:30:00.000Z';
    case 'Bytes':
      return 'must be base64';
    default:
      if (error.keyword === 'format') return `must be a valid ${String((error.params as { format: string }).format)}`;
      return `must match ${String((error.params as { pattern: string }).pattern)}`;
  }
}

/** A field path below `prefix` (`params`, or '' for a request message's root). */
export function underPrefix(prefix: string, field: string): string {
  if (prefix === '') return field;
  return field === '' ? prefix : `${prefix}.${field}`;
}

/** `/message/parts/0/text` → `message.parts[0].text`, the form google.rpc.BadRequest uses. */
export function fieldPath(pointer: string, prefix?: string): string {
  let path = prefix ?? '';
  for (const segment of splitPointer(pointer)) {
    if (/^\d+$/.test(segment)) path += `[${segment}]`;
    else if (/^[A-Za-z_@$][\w@$-]*$/.test(segment)) path += path === '' ? segment : `.${segment}`;
    else path += `[${JSON.stringify(segment)}]`;
  }
  return path;
}

function escape(segment: string): string {
  return segment.replaceAll('~', '~0').replaceAll('/', '~1');
}

/** A scalar as JSON; an object or array by its type, which may be long. */
function shown(value: unknown): string {
  return typeof value === 'object' && value !== null ? typeName(value) : JSON.stringify(value);
}

function typeName(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return article(typeof value);
}

function article(type: string): string {
  return /^[aeiou]/.test(type) ? `an ${type}` : `a ${type}`;
}

/** Each violation as `field description` (`subject description` for the value itself), the way a message lists them. */
export function violationPhrases(violations: readonly Pick<FieldViolation, 'field' | 'description'>[], subject: string): string[] {
  return violations.map((violation) => `${violation.field || subject} ${violation.description}`);
}
