import { isRecord } from './records.js';

/**
 * JSON with members sorted by key and no insignificant white space: two values that differ only
 * in member order serialise the same. For JSON data this is the JSON Canonicalization Scheme
 * (RFC 8785): `JSON.stringify` already writes numbers and strings the way JCS prescribes
 * (shortest round-trip numbers, -0 as 0, the minimal escapes). Members whose value is undefined
 * are left out, as JSON.stringify leaves them out.
 */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value === 'boolean' || typeof value === 'string') return JSON.stringify(value);
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) throw new Error(`JSON cannot represent ${value}`);
    return JSON.stringify(value);
  }
  if (Array.isArray(value)) return `[${value.map((item: unknown) => canonicalJson(item === undefined ? null : item)).join(',')}]`;
  if (isRecord(value)) {
    const keys = Object.keys(value)
      .filter((key) => value[key] !== undefined)
      .sort();
    return `{${keys.map((key) => `${JSON.stringify(key)}:${canonicalJson(value[key])}`).join(',')}}`;
  }
  throw new Error(`JSON cannot represent a ${typeof value}`);
}
