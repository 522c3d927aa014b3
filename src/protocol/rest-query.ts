import { PROTO_NAMES } from '../../generated/a2a/1.0/proto-names.js';
import { VERSION_QUERY_PARAMETER } from '../../generated/a2a/1.0/protocol.js';
import type { FieldViolation } from '../../generated/a2a/1.0/types.js';
import { setOwn } from '../support/own-property.js';
import { isRecord } from '../support/records.js';
import { A2A_1_0 } from './a2a-schema.js';
import { properties, resolveRef, type JsonSchema, type SchemaDocument } from './json-schema.js';

/**
 * HTTP+JSON query parameters (spec §11.5) read and written along the request message's schema:
 * camelCase names (proto names accepted), booleans `true`/`false`, decimal numbers, enum names,
 * RFC 3339 timestamps as strings, repeated fields as repeated parameters or a comma list. Nested
 * messages cannot be sent in a query. Values are only converted to their JSON type here; the
 * request is then validated like a JSON-RPC params object, so ranges and enum names are
 * checked in one place.
 */

export type QueryRead =
  { readonly ok: true; readonly value: Record<string, unknown> } | { readonly ok: false; readonly violations: FieldViolation[] };

/** The schema family whose request messages a query carries fields of (the 0.3 binding has its own). */
export interface QuerySchemas {
  readonly document: SchemaDocument;
  /** Proto field names a query may use for the JSON names of a def's members. */
  readonly renamesOf: (def: string) => Readonly<Record<string, string>>;
}

const A2A_1_0_QUERIES: QuerySchemas = {
  document: A2A_1_0.document,
  renamesOf: (def) => PROTO_NAMES[def]?.renames ?? {},
};

type Scalar = 'string' | 'integer' | 'number' | 'boolean';
type Kind = { readonly scalar: Scalar; readonly repeated: boolean } | { readonly unsupported: string };

/** Service parameters that may ride in the query (§3.6.1) and are not request fields. */
const SERVICE_PARAMETERS: ReadonlySet<string> = new Set([VERSION_QUERY_PARAMETER.toLowerCase()]);

/**
 * The request fields of `def` given in `query`. `boundByPath` names the fields the route takes
 * from the path, which a query may not set again. Every parameter must be a field of the
 * request: an unknown one is a violation, never silently ignored.
 */
export function readQuery(
  def: string,
  query: Iterable<[string, string]>,
  boundByPath: readonly string[] = [],
  schemas: QuerySchemas = A2A_1_0_QUERIES,
): QueryRead {
  const document = schemas.document;
  const schema = document.$defs[def];
  if (schema === undefined) throw new Error(`no def ${def}`);
  const members = properties(resolveRef(document, schema));
  const renames = schemas.renamesOf(def);
  const kindOf = (member: JsonSchema): Kind => kindIn(document, member);
  const grouped = new Map<string, { readonly sentAs: string; readonly values: string[] }>();
  const violations: FieldViolation[] = [];
  for (const [sentAs, value] of query) {
    if (SERVICE_PARAMETERS.has(sentAs.toLowerCase())) continue;
    const name = Object.hasOwn(renames, sentAs) ? (renames[sentAs] as string) : sentAs;
    const entry = grouped.get(name);
    if (entry === undefined) grouped.set(name, { sentAs, values: [value] });
    else entry.values.push(value);
  }
  const value: Record<string, unknown> = {};
  let acceptedNamed = false;
  for (const [name, { sentAs, values }] of grouped) {
    const member = Object.hasOwn(members, name) ? members[name] : undefined;
    if (member === undefined) {
      // The accepted names once, on the first unknown parameter: repeating them on each made the
      // answer to a long query many times its size.
      const accepted = acceptedNamed ? '' : `; it takes ${queryNames(members, boundByPath, kindOf)}`;
      acceptedNamed = true;
      violations.push({ field: sentAs, description: `is not a query parameter of ${def}${accepted}` });
      continue;
    }
    if (boundByPath.includes(name)) {
      violations.push({ field: sentAs, description: 'is taken from the path and cannot be given in the query as well' });
      continue;
    }
    const kind = kindOf(member);
    if ('unsupported' in kind) {
      violations.push({ field: name, description: `is ${kind.unsupported}, which cannot be sent as a query parameter` });
      continue;
    }
    if (!kind.repeated && values.length > 1) {
      violations.push({ field: name, description: `is given ${values.length} times; it takes one value` });
      continue;
    }
    const texts = kind.repeated ? values.flatMap((text) => text.split(',')) : values;
    const converted = texts.map((text) => convert(kind.scalar, text));
    const bad = converted.findIndex((entry) => entry === undefined);
    if (bad >= 0) {
      violations.push({ field: name, description: `${JSON.stringify(texts[bad])} is not ${describeScalar(kind.scalar)}` });
      continue;
    }
    setOwn(value, name, kind.repeated ? converted : converted[0]);
  }
  return violations.length === 0 ? { ok: true, value } : { ok: false, violations };
}

/**
 * The query string that carries the members of `params` a route does not take from its path,
 * for clients: scalars as their text, repeated fields as repeated parameters. Members that
 * cannot be sent in a query (nested messages) throw: no GET route of A2A 1.0 has one.
 */
export function writeQuery(params: Readonly<Record<string, unknown>>, boundByPath: readonly string[]): URLSearchParams {
  const query = new URLSearchParams();
  for (const [name, value] of Object.entries(params)) {
    if (value === undefined || boundByPath.includes(name)) continue;
    for (const item of Array.isArray(value) ? (value as unknown[]) : [value]) {
      if (isRecord(item) || Array.isArray(item)) throw new TypeError(`${name} is a message and cannot be sent as a query parameter`);
      query.append(name, String(item));
    }
  }
  return query;
}

function kindIn(document: SchemaDocument, member: JsonSchema): Kind {
  const schema = resolveRef(document, member);
  if (schema['type'] === 'array') {
    const items = schema['items'];
    const item = isRecord(items) ? kindIn(document, items) : { unsupported: 'a list' };
    return 'scalar' in item && !item.repeated ? { scalar: item.scalar, repeated: true } : { unsupported: 'a list of messages' };
  }
  const type = schema['type'];
  if (type === 'string' || type === 'integer' || type === 'number' || type === 'boolean') return { scalar: type, repeated: false };
  if (Array.isArray(schema['enum'])) return { scalar: 'string', repeated: false };
  return { unsupported: 'a message' };
}

function convert(scalar: Scalar, text: string): unknown {
  switch (scalar) {
    case 'string':
      return text;
    case 'boolean':
      return text === 'true' ? true : text === 'false' ? false : undefined;
    case 'integer':
      return /^[+-]?\d+$/.test(text) ? Number(text) : undefined;
    case 'number':
      return /^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$/.test(text) ? Number(text) : undefined;
  }
}

function describeScalar(scalar: Scalar): string {
  switch (scalar) {
    case 'string':
      return 'a string';
    case 'boolean':
      return 'a boolean (true or false)';
    case 'integer':
      return 'a decimal integer';
    case 'number':
      return 'a decimal number';
  }
}

function queryNames(
  members: { readonly [name: string]: JsonSchema },
  boundByPath: readonly string[],
  kindOf: (member: JsonSchema) => Kind,
): string {
  const names = Object.keys(members).filter(
    (name) => !boundByPath.includes(name) && !('unsupported' in kindOf(members[name] as JsonSchema)),
  );
  return names.length === 0 ? 'none' : names.join(', ');
}
