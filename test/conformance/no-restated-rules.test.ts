import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../../codegen/paths.js';
import { ERRORS } from '../../generated/a2a/1.0/errors.js';
import { TEST_DIRECTIVE_METADATA_KEY, TEST_DIRECTIVES_EXTENSION, TEST_OUTCOMES } from '../../generated/hub/test-directives.js';

/*
 * The conformance suite reads the protocol's rules from generated/ (spec/ compiled), never from
 * a copy of its own: a restated error code, state set or directive contract would drift from the
 * spec silently. This scans every conformance/**\/*.ts file for such copies and names file:line.
 */

const CONFORMANCE = join(REPO_ROOT, 'conformance');

const escape = (text: string): string => text.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
const quoted = (alternatives: readonly string[]): string => `(['"\`])(?:${alternatives.map(escape).join('|')})\\1`;
/** Two quoted members of `names` in a row, in a list, an argument list or a union: a set of its own. */
const listOf = (names: readonly string[]): RegExp => new RegExp(`${quoted(names)}\\s*[,|]\\s*${quoted(names).replace('\\1', '\\2')}`, 'g');

interface Rule {
  readonly name: string;
  readonly pattern: RegExp;
}

const TASK_STATE_NAME = 'TASK_STATE_[A-Z_]+';

const RULES: readonly Rule[] = [
  { name: 'a JSON-RPC or A2A error code (use ERRORS, isError, errorLabel)', pattern: /-32\d{3}\b/g },
  { name: 'an ErrorInfo reason (use ERRORS[name].reason)', pattern: new RegExp(quoted(Object.values(ERRORS).map((error) => error.reason)), 'g') },
  { name: 'the test-directive metadata key (use testDirectiveMetadata)', pattern: new RegExp(quoted([TEST_DIRECTIVE_METADATA_KEY]), 'g') },
  { name: 'the test-directive extension URI (use TEST_DIRECTIVES_EXTENSION)', pattern: new RegExp(escape(TEST_DIRECTIVES_EXTENSION), 'g') },
  { name: 'a list of task states (use task-states.ts: TERMINAL_STATES, isTerminalState…)', pattern: new RegExp(`(['"\`])${TASK_STATE_NAME}\\1\\s*[,|]\\s*(['"\`])${TASK_STATE_NAME}\\2`, 'g') },
  { name: 'a state set of its own (use task-states.ts)', pattern: /\b(?:const|let|var)\s+(?:TASK_STATES|TERMINAL_STATES|INTERRUPTED_STATES|ACTIVE_STATES|FAILURE_STATES)\b/g },
  { name: 'a list of test outcomes (use TEST_OUTCOMES, TestOutcome)', pattern: listOf(TEST_OUTCOMES.map((outcome) => outcome.name)) },
];

/** `line: rule: text` for every match of every rule in `text`. */
function violationsIn(text: string): string[] {
  const found: string[] = [];
  for (const rule of RULES) {
    for (const match of text.matchAll(rule.pattern)) {
      const line = text.slice(0, match.index).split('\n').length;
      found.push(`${line}: ${rule.name}: ${match[0].replace(/\s+/g, ' ')}`);
    }
  }
  return found;
}

function typeScriptFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return typeScriptFiles(path);
    return entry.isFile() && entry.name.endsWith('.ts') ? [path] : [];
  });
}

describe('conformance/ restates no rule the spec owns', () => {
  it('has no error code, reason, directive contract, state set or outcome list of its own', () => {
    const files = typeScriptFiles(CONFORMANCE);
    expect(files.length).toBeGreaterThan(20);
    const violations = files.flatMap((file) => violationsIn(readFileSync(file, 'utf8')).map((violation) => `${relative(REPO_ROOT, file)}:${violation}`));
    expect(violations).toEqual([]);
  });

  it('catches each kind of restatement', () => {
    const planted: Record<string, string> = {
      code: "if (exchange.error?.code === -32602) pass();",
      reason: "expectError(exchange, { reason: 'TASK_NOT_FOUND' });",
      key: "const metadata = { 'a2a-hub/test': { outcome: 'failed' } };",
      extension: "const uri = 'https://a2a-hub.dev/extensions/test-directives/v1';",
      states: "const done = ['TASK_STATE_COMPLETED',\n  'TASK_STATE_FAILED'];",
      union: "type Done = 'TASK_STATE_COMPLETED' | 'TASK_STATE_CANCELED';",
      set: 'const TERMINAL_STATES = new Set(finished);',
      outcomes: "type Outcome = 'completed' | 'input-required';",
    };
    for (const [what, text] of Object.entries(planted)) expect(violationsIn(text), what).toHaveLength(1);
    expect(violationsIn("if (state === 'TASK_STATE_COMPLETED') outcome('completed');")).toEqual([]);
  });
});
