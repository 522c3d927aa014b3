import type { Family } from './families.js';
import { generatedHeader } from './header.js';
import { checkedTable, literal } from './tables.js';

interface RequirementRow {
  id: string;
  section: string;
  level: 'MUST' | 'SHOULD' | 'MAY';
  text: string;
  bindings: string[];
  capability: string | null;
  mode: string;
  source: string;
  warns?: string;
  digest?: number;
}

interface RequirementsTable {
  specVersion: string;
  requirements: RequirementRow[];
}

/** `requirements.ts`: the conformance catalog as typed constants, ids checked unique. */
export function emitRequirements(specDir: string, family: Family): string {
  const table = checkedTable<RequirementsTable>(specDir, family, 'requirements.json');
  const seen = new Set<string>();
  for (const row of table.requirements) {
    if (seen.has(row.id)) throw new Error(`${table.file.displayPath}: requirement id ${row.id} appears twice`);
    seen.add(row.id);
  }
  return [
    generatedHeader(`spec/${family.id}/requirements.json`),
    '/** Every requirement id of the catalog: a check naming any other id does not compile. */',
    `export type RequirementId =\n${table.requirements.map((row) => `  | ${literal(row.id)}`).join('\n')};`,
    '',
    "export type RequirementLevel = 'MUST' | 'SHOULD' | 'MAY';",
    "export type RequirementMode = 'black-box' | 'cooperative' | 'unreachable';",
    '/** What a violation of the requirement is: a FAIL for a MUST, a WARN for a SHOULD or MAY. */',
    "export type ViolationVerdict = 'FAIL' | 'WARN';",
    '',
    'export interface Requirement {',
    '  readonly id: RequirementId;',
    '  readonly section: string;',
    '  readonly level: RequirementLevel;',
    '  readonly text: string;',
    '  readonly bindings: readonly string[];',
    `  readonly capability: ${[...new Set(table.requirements.flatMap((row) => (row.capability === null ? [] : [row.capability])))]
      .sort()
      .map((name) => literal(name))
      .join(' | ')} | null;`,
    '  readonly mode: RequirementMode;',
    '  readonly source: string;',
    "  /** The only observations that WARN rather than get the level's verdict; a MUST without it never warns. */",
    '  readonly warns?: string;',
    '  /** The verdict a violation gets, from the level. */',
    '  readonly violation: ViolationVerdict;',
    '  readonly digest?: number;',
    '}',
    '',
    `export const REQUIREMENTS_SPEC_VERSION = ${literal(table.specVersion)};`,
    '',
    '/** The catalog, in report order. */',
    `export const REQUIREMENTS: readonly Requirement[] = ${literal(table.requirements.map((row) => ({ ...row, violation: row.level === 'MUST' ? 'FAIL' : 'WARN' })))};`,
    '',
    'export const REQUIREMENT_BY_ID: ReadonlyMap<string, Requirement> = new Map(REQUIREMENTS.map((requirement) => [requirement.id, requirement]));',
    '',
    'export function isRequirementId(id: string): id is RequirementId {',
    '  return REQUIREMENT_BY_ID.has(id);',
    '}',
    '',
  ].join('\n');
}
