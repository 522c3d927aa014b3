import type { Family } from './families.js';
import { generatedHeader } from './header.js';
import { checkedTable, literal } from './tables.js';

interface ScenarioRow {
  prefix: string;
  outcome: string;
  slow: boolean;
  chunked: boolean;
  artifact: boolean;
  minimumMs: number;
  effect: string;
}

interface TckScenariosTable {
  source: string;
  scenarios: ScenarioRow[];
}

/** `tck-scenarios.ts`: the official TCK's messageId-prefix scenarios, as the conformance suite's tck profile sends them. */
export function emitTckScenarios(specDir: string, family: Family): string {
  const table = checkedTable<TckScenariosTable>(specDir, family, 'tck-scenarios.json');
  const where = table.file.displayPath;
  table.scenarios.forEach((row, index) => {
    // An agent that tests prefixes in table order must never take a later scenario for an earlier one.
    const shadowed = table.scenarios.slice(index + 1).find((later) => later.prefix.startsWith(row.prefix));
    if (shadowed !== undefined) throw new Error(`${where}: prefix ${row.prefix} comes before ${shadowed.prefix}, which starts with it`);
  });
  return [
    generatedHeader('spec/hub/tck-scenarios.json'),
    "import type { TestOutcome } from './test-directives.js';",
    '',
    '/** Where the convention is defined. */',
    `export const TCK_SCENARIOS_SOURCE = ${literal(table.source)};`,
    '',
    'export interface TckScenario {',
    '  /** A messageId starting with it asks for the scenario. */',
    '  readonly prefix: string;',
    '  readonly outcome: TestOutcome;',
    '  readonly slow: boolean;',
    '  readonly chunked: boolean;',
    '  readonly artifact: boolean;',
    '  readonly minimumMs: number;',
    '  readonly effect: string;',
    '}',
    '',
    '/** In matching order: no prefix starts a later one. */',
    `export const TCK_SCENARIOS: readonly TckScenario[] = ${literal(table.scenarios)};`,
    '',
  ].join('\n');
}
