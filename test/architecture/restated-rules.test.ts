import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../../codegen/paths.js';
import { ERRORS } from '../../generated/a2a/1.0/errors.js';
import { TEST_DIRECTIVE_METADATA_KEY, TEST_DIRECTIVES_EXTENSION, TEST_OUTCOMES } from '../../generated/hub/test-directives.js';
import { HEADERS, MEDIA_TYPES, WELL_KNOWN_AGENT_CARD_PATH } from '../../generated/a2a/1.0/protocol.js';
import { CONTROL_API } from '../../generated/control/api.js';
import { REST_ROUTES } from '../../src/protocol/rest-routes.js';
import { readSources } from './import-graph.js';

/*
 * Protocol rules live in spec/ and come back through generated/. These are the shapes in which a
 * rule gets retyped by hand; the hub (src/) and the conformance suite (conformance/) must not
 * contain them, or they would drift from the spec silently. Comments may mention codes and
 * names: they explain, they do not decide.
 */

const escape = (text: string): string => text.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
const quoted = (alternatives: readonly string[], group = 1): string => `(['"\`])(?:${alternatives.map(escape).join('|')})\\${group}`;
/** Two quoted members of `names` in a row, in a list, an argument list or a union: a set of its own. */
const listOf = (names: readonly string[]): RegExp => new RegExp(`${quoted(names, 1)}\\s*[,|]\\s*${quoted(names, 2)}`, 'g');
const TASK_STATE_NAME = 'TASK_STATE_[A-Z_]+';
/** What only an HTTP+JSON route path holds: its custom verbs (`message:send`, `:cancel`) and its literal segments below `/tasks/{id}`. */
const ROUTE_FRAGMENTS = [
  ...new Set(
    REST_ROUTES.flatMap((route) => {
      if (route.customVerb === undefined) return [];
      const last = route.segments[route.segments.length - 1];
      return [last !== undefined && 'literal' in last ? `${last.literal}:${route.customVerb}` : `:${route.customVerb}`];
    }),
  ),
  ...new Set(
    REST_ROUTES.flatMap((route) => route.segments.slice(2).flatMap((segment) => ('literal' in segment ? [`/${segment.literal}`] : []))),
  ),
];

const RULES: readonly { readonly name: string; readonly pattern: RegExp }[] = [
  { name: 'a JSON-RPC or A2A error code (name the error: a2aError, expectError, errorLabel)', pattern: /-32\d{3}\b/g },
  {
    name: 'an ErrorInfo reason (use ERRORS[name].reason)',
    pattern: new RegExp(quoted(Object.values(ERRORS).map((error) => error.reason)), 'g'),
  },
  { name: 'the test-directive metadata key (use testDirectiveMetadata)', pattern: new RegExp(quoted([TEST_DIRECTIVE_METADATA_KEY]), 'g') },
  { name: 'the test-directive extension URI (use TEST_DIRECTIVES_EXTENSION)', pattern: new RegExp(escape(TEST_DIRECTIVES_EXTENSION), 'g') },
  {
    name: 'a list of task states (use the generated classes and outcomes)',
    pattern: new RegExp(`(['"\`])${TASK_STATE_NAME}\\1\\s*[,|]\\s*(['"\`])${TASK_STATE_NAME}\\2`, 'g'),
  },
  {
    name: 'a state set of its own (use task-states.ts)',
    pattern: /\b(?:const|let|var)\s+(?:TASK_STATES|TERMINAL_STATES|INTERRUPTED_STATES|ACTIVE_STATES|FAILURE_STATES)\b/g,
  },
  { name: 'a list of test outcomes (use TEST_OUTCOMES, TestOutcome)', pattern: listOf(TEST_OUTCOMES.map((outcome) => outcome.name)) },
  { name: 'the well-known card path (use WELL_KNOWN_AGENT_CARD_PATH)', pattern: new RegExp(quoted([WELL_KNOWN_AGENT_CARD_PATH]), 'g') },
  { name: 'an A2A header name (use HEADERS)', pattern: new RegExp(`(['"\`])(?:${Object.values(HEADERS).map(escape).join('|')})\\1`, 'gi') },
  {
    name: 'an A2A media type (use MEDIA_TYPES)',
    pattern: new RegExp(`(['"\`])(?:${[MEDIA_TYPES.a2aJson, MEDIA_TYPES.eventStream].map(escape).join('|')})`, 'g'),
  },
  {
    name: 'an HTTP+JSON route (use routeOf, fillRoute, matchRestRoute from src/protocol/rest-routes.ts)',
    pattern: new RegExp(
      `(['"\`])[^'"\`\n]*(?:${ROUTE_FRAGMENTS.map((fragment) => (fragment.startsWith(':') ? `[}\\w]${escape(fragment)}` : escape(fragment))).join('|')})\\b`,
      'g',
    ),
  },
  {
    name: 'a control API path (use CONTROL_API.basePath, panelPath, CONTROL_ENDPOINTS)',
    pattern: new RegExp(`(['"\`])(?:${[CONTROL_API.basePath, CONTROL_API.panelPath].map(escape).join('|')})\\1`, 'g'),
  },
];

/** Source text with comments blanked (lines kept), so that only code and string literals are searched. */
function withoutComments(path: string, text: string): string {
  const file = ts.createSourceFile(path, text, ts.ScriptTarget.Latest, false);
  const ranges: ts.CommentRange[] = [];
  const visit = (node: ts.Node): void => {
    ranges.push(...(ts.getLeadingCommentRanges(text, node.pos) ?? []), ...(ts.getTrailingCommentRanges(text, node.end) ?? []));
    node.forEachChild(visit);
  };
  visit(file);
  ranges.push(...(ts.getLeadingCommentRanges(text, file.endOfFileToken.pos) ?? []));
  const chars = text.split('');
  for (const range of ranges) for (let at = range.pos; at < range.end; at += 1) if (chars[at] !== '\n') chars[at] = ' ';
  return chars.join('');
}

/** `path:line: rule: match` for every restatement in the .ts files below `roots`. */
export function restatedRules(files: ReadonlyMap<string, string>, roots: readonly string[]): string[] {
  const found: string[] = [];
  for (const [path, text] of files) {
    if (!roots.some((root) => path.startsWith(root)) || !path.endsWith('.ts')) continue;
    const code = withoutComments(path, text);
    for (const rule of RULES) {
      for (const match of code.matchAll(rule.pattern)) {
        found.push(`${path}:${code.slice(0, match.index).split('\n').length}: ${rule.name}: ${match[0].replace(/\s+/g, ' ')}`);
      }
    }
  }
  return found;
}

describe('protocol rules are not restated outside spec/', () => {
  const sources = readSources(REPO_ROOT);

  it.each(['src/', 'conformance/'])('%s names errors, states, directives and paths through generated/', (root) => {
    expect([...sources.keys()].filter((path) => path.startsWith(root)).length).toBeGreaterThan(20);
    expect(restatedRules(sources, [root])).toEqual([]);
  });

  it('catches each kind of restatement, and ignores the same text in a comment', () => {
    const planted: Record<string, string> = {
      code: 'if (exchange.error?.code === -32602) pass();',
      reason: "expectError(exchange, { reason: 'TASK_NOT_FOUND' });",
      key: "const metadata = { 'a2a-hub/test': { outcome: 'failed' } };",
      extension: "const uri = 'https://a2a-hub.dev/extensions/test-directives/v1';",
      states: "const done = ['TASK_STATE_COMPLETED',\n  'TASK_STATE_FAILED'];",
      union: "type Done = 'TASK_STATE_COMPLETED' | 'TASK_STATE_CANCELED';",
      set: 'const TERMINAL_STATES = new Set(finished);',
      outcomes: "type Outcome = 'completed' | 'input-required';",
      path: "const card = `${base}${'/.well-known/agent-card.json'}`;",
      header: "fetch(url, { headers: { 'a2a-version': version } });",
      media: "response.setHeader('content-type', 'text/event-stream; charset=utf-8');",
      control: "router.get('/a2a/panel', serve);",
      route: 'const url = `${base}/tasks/${encodeURIComponent(id)}:cancel`;',
      send: 'await post(`${base}/message:send`, body);',
    };
    for (const [what, text] of Object.entries(planted))
      expect(restatedRules(new Map([['src/planted.ts', text]]), ['src/']), what).toHaveLength(1);
    const innocent = "// -32001 is TaskNotFound, 'TASK_NOT_FOUND'\nif (state === 'TASK_STATE_COMPLETED') outcome('completed');\n";
    expect(restatedRules(new Map([['src/planted.ts', innocent]]), ['src/'])).toEqual([]);
  });
});
