import type { Message } from '../../generated/a2a/1.0/types.js';
import {
  DEFAULT_TEST_OUTCOME,
  isTestOutcome,
  TEST_DIRECTIVE_METADATA_KEY,
  TEST_DIRECTIVE_PARAMETERS,
  TEST_DIRECTIVE_TEXT_PREFIX,
  TEST_OUTCOMES,
  type TestDirective,
  type TestDirectiveParameter,
  type TestDirectiveParameterDefinition,
  type TestOutcome,
} from '../../generated/hub/test-directives.js';
import { TCK_SCENARIOS, type TckScenario } from '../../generated/hub/tck-scenarios.js';
import { isRecord } from '../support/records.js';

/**
 * The test-directive convention (spec/hub/test-directives.json, docs/test-directives.md): how a
 * client asks an agent for a given lifecycle so that a conformance suite can reach every state
 * deterministically. The `echo` preset implements it and advertises it on its card.
 *
 * A directive is given either in message metadata, `{"a2a-hub/test": {"outcome": "input-required", "steps": 5, "stepMs": 50}}`,
 * or as a line of the message text, `::input-required`, `::slow 5`, `::chunks 4`.
 *
 * The official A2A TCK asks the same way by messageId prefix (spec/hub/tck-scenarios.json,
 * `tck-input-required-…`); a prefix is read as the directive it stands for, so the echo preset is
 * also a TCK system under test. A directive in the text or metadata wins over the prefix.
 */
export {
  TEST_DIRECTIVES_EXTENSION,
  TEST_DIRECTIVE_METADATA_KEY,
  type TestDirective,
  type TestOutcome,
} from '../../generated/hub/test-directives.js';

const OUTCOME_BY_WORD: ReadonlyMap<string, TestOutcome> = new Map(
  TEST_OUTCOMES.flatMap((outcome) => outcome.textWords.map((word): [string, TestOutcome] => [word, outcome.name])),
);
const PARAMETERS = Object.entries(TEST_DIRECTIVE_PARAMETERS) as [TestDirectiveParameter, TestDirectiveParameterDefinition][];
const PARAMETER_BY_WORD: ReadonlyMap<string, [TestDirectiveParameter, TestDirectiveParameterDefinition]> = new Map(
  PARAMETERS.flatMap((entry) => (entry[1].textWord === undefined ? [] : [[entry[1].textWord, entry] as const])),
);
const LINE = new RegExp(`^${TEST_DIRECTIVE_TEXT_PREFIX.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}([a-z-]+)(?:\\s+(\\d+))?\\s*$`);

/** The directive the message gives; `defaults` replaces the convention's defaults for what it leaves out. */
export function parseTestDirective(
  message: Message,
  text: string,
  defaults: Partial<Record<TestDirectiveParameter, number>> = {},
): TestDirective {
  const directive: { -readonly [K in keyof TestDirective]: TestDirective[K] } = {
    outcome: DEFAULT_TEST_OUTCOME,
    ...(Object.fromEntries(PARAMETERS.map(([name, parameter]) => [name, parameter.default])) as Record<TestDirectiveParameter, number>),
    ...defaults,
    ...tckDirective(message.messageId),
  };
  // Most messages hold no directive line: skip splitting them.
  for (const line of text.includes(TEST_DIRECTIVE_TEXT_PREFIX) ? text.split('\n') : []) {
    const match = LINE.exec(line.trim());
    if (!match?.[1]) continue;
    const [, word, count] = match;
    const outcome = OUTCOME_BY_WORD.get(word);
    const parameter = PARAMETER_BY_WORD.get(word);
    if (outcome !== undefined) directive.outcome = outcome;
    else if (parameter !== undefined) directive[parameter[0]] = clamp(Number(count ?? parameter[1].textDefault), parameter[1]);
  }
  const meta = message.metadata?.[TEST_DIRECTIVE_METADATA_KEY];
  if (isRecord(meta)) {
    const given = meta;
    if (isTestOutcome(given['outcome'])) directive.outcome = given['outcome'];
    for (const [name, parameter] of PARAMETERS) {
      const value = given[name];
      if (typeof value === 'number') directive[name] = clamp(value, parameter);
    }
  }
  return directive;
}

/** The directive a TCK messageId prefix stands for: its outcome, one silent-length step of slow work, two chunks. */
function tckDirective(messageId: string): Partial<TestDirective> {
  const scenario: TckScenario | undefined = TCK_SCENARIOS.find((entry) => messageId.startsWith(entry.prefix));
  if (scenario === undefined) return {};
  return {
    outcome: scenario.outcome,
    ...(scenario.slow ? { steps: 1, stepMs: scenario.minimumMs } : {}),
    ...(scenario.chunked ? { chunks: 2 } : {}),
  };
}

/** A whole number within the parameter's range; anything not finite is its minimum. */
function clamp(value: number, range: { readonly minimum: number; readonly maximum: number }): number {
  return Number.isFinite(value) ? Math.min(Math.max(range.minimum, Math.floor(value)), range.maximum) : range.minimum;
}
