import type { FieldViolation } from '../../generated/a2a/1.0/types.js';
import type { FieldViolationReason } from '../../generated/hub/field-violations.js';
import { a2aError } from '../protocol/a2a-error.js';
import { fieldPath } from '../protocol/violations.js';
import { isRecord } from '../support/records.js';

/**
 * Members whose content the stores keep as JSON text, where U+0000 is written as the escape
 * `\u0000` and comes back intact: message and artifact parts, and metadata (but its `skill`,
 * which is a column of its own).
 */
const KEPT_AS_JSON: ReadonlySet<string> = new Set(['parts', 'metadata']);

/** The one character a PostgreSQL text column cannot hold (SQLite can, so both refuse it alike). */
const NUL = '\u0000';

/**
 * The first string of a request's params that a store could not keep as it is: an id, a
 * tenant, a page token or a skill name holding U+0000, which PostgreSQL refuses in any text
 * column. Refused on every store the same way, before anything is read or written, so a request
 * never fails on one store and succeeds on another.
 */
export function unstorableString(params: unknown): FieldViolation | undefined {
  const pointer = firstNul(params, '');
  if (pointer === undefined) return undefined;
  return {
    field: fieldPath(pointer),
    description: 'holds the character U+0000, which the hub cannot store in an id, a tenant, a token or a skill name',
    reason: 'INVALID_CHARACTER' satisfies FieldViolationReason,
  };
}

/** Refuses, as InvalidParams naming the field, a request with a string no store could keep as it is. */
export function requireStorable(params: unknown): void {
  const violation = unstorableString(params);
  if (violation === undefined) return;
  throw a2aError('InvalidParamsError', `${violation.field} ${violation.description}`, { violations: [violation] });
}

/** The JSON pointer of the first string below `value` that holds NUL, outside what is kept as JSON. */
function firstNul(value: unknown, pointer: string): string | undefined {
  if (typeof value === 'string') return value.includes(NUL) ? pointer : undefined;
  if (Array.isArray(value)) {
    for (const [index, item] of value.entries()) {
      const found = firstNul(item, `${pointer}/${index}`);
      if (found !== undefined) return found;
    }
    return undefined;
  }
  if (!isRecord(value)) return undefined;
  for (const [key, member] of Object.entries(value)) {
    const at = `${pointer}/${key.replaceAll('~', '~0').replaceAll('/', '~1')}`;
    if (key.includes(NUL)) return at;
    if (key === 'metadata' && isRecord(member)) {
      // The skill a message names is a column of the task.
      if (typeof member['skill'] === 'string' && member['skill'].includes(NUL)) return `${at}/skill`;
      continue;
    }
    if (KEPT_AS_JSON.has(key)) continue;
    const found = firstNul(member, at);
    if (found !== undefined) return found;
  }
  return undefined;
}
