import type { FieldViolation } from '../../generated/a2a/1.0/types.js';
import type { MessageNames } from '../../generated/a2a/1.0/proto-names.js';
import { canonicalJson } from '../support/canonical-json.js';
import { setOwn } from '../support/own-property.js';
import { isRecord } from '../support/records.js';

/** A family's generated table of proto field names, per message def. */
export type ProtoNameTable = { readonly [def: string]: MessageNames };

export type Normalised = { readonly ok: true; readonly value: unknown } | { readonly ok: false; readonly violations: FieldViolation[] };

/**
 * Renames the members of `value` (a `def`) that use a proto field name (`context_id`) to their
 * JSON name (`contextId`), walking into nested messages along the schema, because a ProtoJSON
 * parser accepts both spellings. Free-form members (Struct, Value: `metadata`, part `data`)
 * are never walked into, so their keys stay as sent. Both spellings with the same value are
 * one field; with different values they are a violation naming the field. The input is not
 * changed: an object is copied only when one of its members is renamed, so input that is all
 * camelCase costs one scan of each message's keys.
 */
export function toJsonNames(table: ProtoNameTable, def: string, value: unknown, fieldPrefix = ''): Normalised {
  const violations: FieldViolation[] = [];
  const normalised = message(table, def, value, fieldPrefix, violations);
  return violations.length === 0 ? { ok: true, value: normalised } : { ok: false, violations };
}

function message(table: ProtoNameTable, def: string, value: unknown, path: string, violations: FieldViolation[]): unknown {
  const names = table[def];
  if (names === undefined || !isRecord(value)) return value;
  let result = value;
  let twice: [string, string][] | undefined;
  for (const key of Object.keys(value)) {
    // Not only snake_case: a json_name field's proto name may be any word (0.3's `request`, `msg`).
    if (!Object.hasOwn(names.renames, key)) continue;
    const jsonName = names.renames[key] as string;
    if (result === value) result = { ...value };
    delete result[key];
    if (Object.hasOwn(value, jsonName)) (twice ??= []).push([key, jsonName]);
    else setOwn(result, jsonName, value[key]);
  }
  for (const [protoName, jsonName] of twice ?? []) {
    const field = member(path, jsonName);
    const asProto = nested(table, names, jsonName, value[protoName], field, violations);
    const asJson = nested(table, names, jsonName, value[jsonName], field, violations);
    if (canonicalJson(asProto) !== canonicalJson(asJson)) {
      violations.push({ field, description: `is given twice with different values, as ${protoName} and as ${jsonName}` });
    }
  }
  for (const jsonName in names.nested) {
    if (!Object.hasOwn(result, jsonName)) continue;
    const before = result[jsonName];
    const after = nested(table, names, jsonName, before, member(path, jsonName), violations);
    if (after === before) continue;
    if (result === value) result = { ...value };
    result[jsonName] = after;
  }
  return result;
}

/** The member `jsonName` of a message, normalised according to how it holds its message(s). */
function nested(
  table: ProtoNameTable,
  names: MessageNames,
  jsonName: string,
  value: unknown,
  path: string,
  violations: FieldViolation[],
): unknown {
  const target = names.nested[jsonName];
  if (target === undefined) return value;
  switch (target.shape) {
    case 'one':
      return message(table, target.def, value, path, violations);
    case 'list': {
      if (!Array.isArray(value)) return value;
      let changed = false;
      const items = value.map((item: unknown, index) => {
        const after = message(table, target.def, item, `${path}[${index}]`, violations);
        changed ||= after !== item;
        return after;
      });
      return changed ? items : value;
    }
    case 'map': {
      if (!isRecord(value)) return value;
      let entries: Record<string, unknown> | undefined;
      for (const key of Object.keys(value)) {
        const after = message(table, target.def, value[key], `${path}[${JSON.stringify(key)}]`, violations);
        if (after === value[key]) continue;
        entries ??= { ...value };
        setOwn(entries, key, after);
      }
      return entries ?? value;
    }
  }
}

function member(path: string, name: string): string {
  return path === '' ? name : `${path}.${name}`;
}
