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

/** The catalog tables of a family: `requirements.json` (the current version) and one `requirements-<version>.json` per other version. */
export const REQUIREMENTS_TABLE = /^requirements(?:-\d+\.\d+)?\.json$/;

/**
 * `requirements.ts`: the conformance catalogs as typed constants, one list over every protocol
 * version (each requirement says its own), ids checked unique across them.
 */
export function emitRequirements(specDir: string, family: Family): string {
  const names = [...family.tables.keys()].filter((name) => REQUIREMENTS_TABLE.test(name)).sort();
  const tables = names.map((name) => checkedTable<RequirementsTable>(specDir, family, name));
  const current = tables.find((table) => table.file.name === 'requirements.json');
  if (current === undefined) throw new Error(`spec/${family.id}/requirements.json is missing`);
  const seen = new Set<string>();
  for (const table of tables) {
    const expected = table.file.name.replace(/^requirements-?|\.json$/g, '');
    if (expected !== '' && expected !== table.specVersion)
      throw new Error(`${table.file.displayPath}: its specVersion is ${table.specVersion}, its name says ${expected}`);
    for (const row of table.requirements) {
      if (seen.has(row.id)) throw new Error(`${table.file.displayPath}: requirement id ${row.id} appears twice`);
      seen.add(row.id);
    }
  }
  // The current version's catalog first, then the others, newest first: report order.
  const ordered = [current, ...tables.filter((table) => table !== current).sort((a, b) => b.specVersion.localeCompare(a.specVersion))];
  const rows = ordered.flatMap((table) => table.requirements.map((row) => ({ ...row, protocol: table.specVersion })));
  const table = { specVersion: current.specVersion, requirements: rows };
  return [
    generatedHeader(names.map((name) => `spec/${family.id}/${name}`).join(', ')),
    '/** Every requirement id of the catalog: a check naming any other id does not compile. */',
    `export type RequirementId =\n${table.requirements.map((row) => `  | ${literal(row.id)}`).join('\n')};`,
    '',
    "export type RequirementLevel = 'MUST' | 'SHOULD' | 'MAY';",
    '/** The protocol versions with a catalog, the current one first. */',
    `export const CATALOG_VERSIONS = ${literal(ordered.map((entry) => entry.specVersion))} as const;`,
    'export type ProtocolVersion = (typeof CATALOG_VERSIONS)[number];',
    "export type RequirementMode = 'black-box' | 'cooperative' | 'unreachable';",
    '/** What a violation of the requirement is: a FAIL for a MUST, a WARN for a SHOULD or MAY. */',
    "export type ViolationVerdict = 'FAIL' | 'WARN';",
    '',
    'export interface Requirement {',
    '  readonly id: RequirementId;',
    '  /** The protocol version whose catalog it belongs to. */',
    '  readonly protocol: ProtocolVersion;',
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
    '/** How many requirements the catalog of each version has. */',
    `export const CATALOG_SIZES: Readonly<Record<ProtocolVersion, number>> = ${literal(Object.fromEntries(ordered.map((entry) => [entry.specVersion, entry.requirements.length])))};`,
    '',
    'export const REQUIREMENT_BY_ID: ReadonlyMap<string, Requirement> = new Map(REQUIREMENTS.map((requirement) => [requirement.id, requirement]));',
    '',
    'export function isRequirementId(id: string): id is RequirementId {',
    '  return REQUIREMENT_BY_ID.has(id);',
    '}',
    '',
  ].join('\n');
}
