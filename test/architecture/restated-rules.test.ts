import { describe, expect, it } from 'vitest';
import ts from 'typescript';
import { REPO_ROOT } from '../../codegen/paths.js';
import { readSources } from './import-graph.js';

/**
 * Protocol rules live in spec/ and come back through generated/. These are the shapes in
 * which a rule gets retyped by hand; hand-written code must not contain them. Comments may
 * mention codes and names: they explain, they do not decide.
 */
const RESTATEMENTS: readonly { readonly what: string; readonly pattern: RegExp }[] = [
  { what: 'a JSON-RPC error code (name the error: a2aError/expectError with its registry name)', pattern: /-32\d{3}\b/ },
  { what: 'a list of task states (use the generated state classes and outcomes)', pattern: /['"]TASK_STATE_[A-Z_]+['"]\s*,\s*['"]TASK_STATE_/ },
  { what: 'the test-directive metadata key (use generated/hub/test-directives.ts)', pattern: /['"]a2a-hub\/test['"]/ },
  { what: 'the test-directive extension URI (use generated/hub/test-directives.ts)', pattern: /extensions\/test-directives\/v1/ },
  { what: 'the well-known card path (use WELL_KNOWN_AGENT_CARD_PATH)', pattern: /['"`]\/\.well-known\/agent-card\.json['"`]/ },
];

/** Source text with comments blanked, so that only code and string literals are searched. */
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

export function restatedRules(files: ReadonlyMap<string, string>, roots: readonly string[]): string[] {
  const found: string[] = [];
  for (const [path, text] of files) {
    if (!roots.some((root) => path.startsWith(root)) || !/\.ts$/.test(path)) continue;
    withoutComments(path, text)
      .split('\n')
      .forEach((line, index) => {
        for (const { what, pattern } of RESTATEMENTS) if (pattern.test(line)) found.push(`${path}:${index + 1}: ${what}`);
      });
  }
  return found;
}

describe('protocol rules are not restated outside spec/', () => {
  const sources = readSources(REPO_ROOT);

  it('src/ names errors, states, directives and paths through generated/', () => {
    expect(restatedRules(sources, ['src/'])).toEqual([]);
  });

  it('finds a planted restatement, and ignores the same text in a comment', () => {
    const planted = new Map([
      ['src/planted.ts', "// -32001 is TaskNotFound\nconst code = -32001;\nconst states = ['TASK_STATE_COMPLETED', 'TASK_STATE_FAILED'];\nconst key = 'a2a-hub/test';\n"],
    ]);
    expect(restatedRules(planted, ['src/'])).toEqual([
      'src/planted.ts:2: a JSON-RPC error code (name the error: a2aError/expectError with its registry name)',
      'src/planted.ts:3: a list of task states (use the generated state classes and outcomes)',
      'src/planted.ts:4: the test-directive metadata key (use generated/hub/test-directives.ts)',
    ]);
  });
});
