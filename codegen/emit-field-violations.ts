import type { Family } from './families.js';
import { generatedHeader } from './header.js';
import { checkedTable, literal } from './tables.js';

interface ReasonRow {
  reason: string;
  keywords: string[];
  meaning: string;
}

/** `field-violations.ts`: the FieldViolation reasons a2a-hub writes into every BadRequest. */
export function emitFieldViolations(specDir: string, family: Family): string {
  const table = checkedTable<{ reasons: ReasonRow[] }>(specDir, family, 'field-violations.json');
  const keywords = new Map<string, string>();
  for (const row of table.reasons) {
    for (const keyword of row.keywords) {
      if (keywords.has(keyword))
        throw new Error(`${table.file.displayPath}: keyword ${keyword} is claimed by ${keywords.get(keyword)} and ${row.reason}`);
      keywords.set(keyword, row.reason);
    }
  }
  return [
    generatedHeader(`spec/${family.id}/field-violations.json`),
    `export type FieldViolationReason = ${table.reasons.map((row) => literal(row.reason)).join(' | ')};`,
    '',
    'export interface FieldViolationReasonDefinition {',
    '  readonly reason: FieldViolationReason;',
    '  /** The JSON Schema keywords whose failure is reported with this reason. */',
    '  readonly keywords: readonly string[];',
    '  readonly meaning: string;',
    '}',
    '',
    `export const FIELD_VIOLATION_REASONS: readonly FieldViolationReasonDefinition[] = ${literal(table.reasons)};`,
    '',
    '/** The reason for a failed JSON Schema keyword; keywords no row claims are INVALID_VALUE. */',
    'export const REASON_BY_KEYWORD: ReadonlyMap<string, FieldViolationReason> = new Map(',
    '  FIELD_VIOLATION_REASONS.flatMap((row) => row.keywords.map((keyword): [string, FieldViolationReason] => [keyword, row.reason])),',
    ');',
    '',
  ].join('\n');
}
