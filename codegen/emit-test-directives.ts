import type { Family } from './families.js';
import { generatedHeader } from './header.js';
import { checkedTable, literal } from './tables.js';

interface OutcomeRow {
  name: string;
  default: boolean;
  textWords: string[];
  state: string | null;
  effect: string;
}

interface ParameterRow {
  name: string;
  default: number;
  minimum: number;
  maximum: number;
  textWord?: string;
  textDefault?: number;
  effect: string;
}

interface TestDirectivesTable {
  extension: string;
  metadataKey: string;
  textPrefix: string;
  outcomes: OutcomeRow[];
  parameters: ParameterRow[];
}

/** `test-directives.ts`: the test-directive contract the echo preset obeys and the conformance suite sends. */
export function emitTestDirectives(specDir: string, family: Family): string {
  const table = checkedTable<TestDirectivesTable>(specDir, family, 'test-directives.json');
  const where = table.file.displayPath;
  const defaults = table.outcomes.filter((outcome) => outcome.default);
  if (defaults.length !== 1) throw new Error(`${where}: exactly one outcome must be the default, found ${defaults.length}`);
  const words = new Map<string, string>();
  for (const { name, textWords } of table.outcomes) {
    for (const word of textWords) {
      if (words.has(word)) throw new Error(`${where}: text word "${word}" is used by ${words.get(word)} and ${name}`);
      words.set(word, name);
    }
  }
  for (const parameter of table.parameters) {
    if (parameter.textWord !== undefined && words.has(parameter.textWord))
      throw new Error(`${where}: text word "${parameter.textWord}" is also an outcome word`);
    for (const value of [parameter.default, parameter.textDefault ?? parameter.default]) {
      if (value < parameter.minimum || value > parameter.maximum)
        throw new Error(`${where}: ${parameter.name}: default ${value} is outside ${parameter.minimum}..${parameter.maximum}`);
    }
  }
  const outcomeType = table.outcomes.map((outcome) => literal(outcome.name)).join(' | ');
  const parameterNames = table.parameters.map((parameter) => literal(parameter.name)).join(' | ');
  const parameters = Object.fromEntries(table.parameters.map(({ name, ...rest }) => [name, rest]));
  return [
    generatedHeader(`spec/hub/test-directives.json`),
    '/** The extension URI an agent that follows the test directives lists in capabilities.extensions. */',
    `export const TEST_DIRECTIVES_EXTENSION = ${literal(table.extension)};`,
    '',
    '/** The message metadata member that carries a directive object. */',
    `export const TEST_DIRECTIVE_METADATA_KEY = ${literal(table.metadataKey)};`,
    '',
    '/** What starts a directive line in the message text (`::input-required`). */',
    `export const TEST_DIRECTIVE_TEXT_PREFIX = ${literal(table.textPrefix)};`,
    '',
    `export type TestOutcome = ${outcomeType};`,
    `export type TestDirectiveParameter = ${parameterNames};`,
    '',
    'export interface TestOutcomeDefinition {',
    '  readonly name: TestOutcome;',
    '  readonly default: boolean;',
    '  /** Words of a text directive line that ask for this outcome. */',
    '  readonly textWords: readonly string[];',
    '  /** The state the task ends in; null when the agent answers with a direct Message instead. */',
    '  readonly state: string | null;',
    '  readonly effect: string;',
    '}',
    '',
    'export interface TestDirectiveParameterDefinition {',
    '  readonly default: number;',
    '  readonly minimum: number;',
    '  readonly maximum: number;',
    '  /** The text directive word that sets it (`::slow 5`), when one does. */',
    '  readonly textWord?: string;',
    '  /** Its value when the text word comes without a number. */',
    '  readonly textDefault?: number;',
    '  readonly effect: string;',
    '}',
    '',
    `export const TEST_OUTCOMES: readonly TestOutcomeDefinition[] = ${literal(table.outcomes)};`,
    '',
    `export const DEFAULT_TEST_OUTCOME: TestOutcome = ${literal(defaults[0]?.name)};`,
    '',
    `export const TEST_DIRECTIVE_PARAMETERS: { readonly [P in TestDirectiveParameter]: TestDirectiveParameterDefinition } = ${literal(parameters)};`,
    '',
    '/** A directive with every member filled in. */',
    'export type TestDirective = { readonly outcome: TestOutcome } & { readonly [P in TestDirectiveParameter]: number };',
    '',
    '/** What a client asks for: any subset of the members. */',
    'export type TestDirectiveRequest = Partial<TestDirective>;',
    '',
    'export function isTestOutcome(value: unknown): value is TestOutcome {',
    '  return TEST_OUTCOMES.some((outcome) => outcome.name === value);',
    '}',
    '',
    '/** The message metadata that asks an agent following the convention for `directive`. */',
    'export function testDirectiveMetadata(directive: TestDirectiveRequest): Record<string, unknown> {',
    '  return { [TEST_DIRECTIVE_METADATA_KEY]: { ...directive } };',
    '}',
    '',
  ].join('\n');
}
