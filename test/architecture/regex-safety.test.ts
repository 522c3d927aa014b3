import { checkSync } from 'recheck';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../../codegen/paths.js';
import { beforeFirst, trimLeading, trimTrailing } from '../../src/support/trim.js';
import { readSources } from './import-graph.js';

/*
 * No regular expression in the hub or the conformance suite may backtrack super-linearly: both
 * apply them to what a remote sent (a request path, a header, an agent's answer), and one
 * quadratic pattern on a 16 KB path held the event loop for half a second (issue 42). Each
 * literal is judged by recheck, a ReDoS checker that analyses the pattern's automaton rather than
 * timing it; a pattern built at run time must be one of those reviewed below.
 */

/** Patterns built at run time (`new RegExp`), each with why it is safe. */
const REVIEWED_DYNAMIC: Readonly<Record<string, string>> = {
  'src/executors/test-directives.ts':
    'LINE: a constant prefix, then ^…([a-z-]+)(?:\\s+(\\d+))?\\s*$, anchored at the start; recheck judges it linear (the test below checks the built pattern).',
  'conformance/arbitraries/from-schema.ts':
    "the `pattern` keywords of spec/'s own schemas, to generate strings: never applied to what a remote sent.",
};

interface Found {
  readonly file: string;
  readonly line: number;
  readonly pattern: string;
}

function regexLiterals(files: ReadonlyMap<string, string>): { literals: Found[]; dynamic: Found[] } {
  const literals: Found[] = [];
  const dynamic: Found[] = [];
  for (const [file, text] of files) {
    if (!(file.startsWith('src/') || file.startsWith('conformance/')) || !file.endsWith('.ts')) continue;
    const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
    const visit = (node: ts.Node): void => {
      const line = source.getLineAndCharacterOfPosition(node.getStart()).line + 1;
      if (node.kind === ts.SyntaxKind.RegularExpressionLiteral) literals.push({ file, line, pattern: node.getText() });
      if (ts.isNewExpression(node) && ts.isIdentifier(node.expression) && node.expression.text === 'RegExp')
        dynamic.push({ file, line, pattern: node.getText() });
      ts.forEachChild(node, visit);
    };
    visit(source);
  }
  return { literals, dynamic };
}

describe('regular expressions do not backtrack super-linearly', () => {
  const { literals, dynamic } = regexLiterals(readSources(REPO_ROOT));

  it('finds the literals (the scan itself works)', () => {
    expect(literals.length).toBeGreaterThan(50);
  });

  it('every literal in src/ and conformance/ is judged safe by recheck', () => {
    const unsafe = literals.flatMap(({ file, line, pattern }) => {
      const end = pattern.lastIndexOf('/');
      const verdict = checkSync(pattern.slice(1, end), pattern.slice(end + 1));
      if (verdict.status === 'safe') return [];
      const how = verdict.status === 'vulnerable' ? verdict.complexity.type : verdict.error.kind;
      return [`${file}:${line} ${pattern}: ${verdict.status} (${how})`];
    });
    expect(unsafe).toEqual([]);
  });

  it('catches a quadratic pattern (the check can fail)', () => {
    expect(checkSync('\\/+$', '').status).toBe('vulnerable');
    expect(checkSync('%.*$', '').status).toBe('vulnerable');
  });

  it('builds patterns at run time only where they were reviewed', () => {
    const files = [...new Set(dynamic.map((found) => found.file))].sort();
    expect(files).toEqual(Object.keys(REVIEWED_DYNAMIC).sort());
  });

  it('the test-directive line pattern, as built, is linear', () => {
    expect(checkSync('^::([a-z-]+)(?:\\s+(\\d+))?\\s*$', '').status).toBe('safe');
  });
});

describe('the trimming that replaced /x+$/', () => {
  it.each([
    ['/a2a/default///', '/', '/a2a/default'],
    ['///', '/', ''],
    ['', '/', ''],
    ['abc', '/', 'abc'],
    ['abc==', '=', 'abc'],
  ])('trimTrailing(%j, %j) is %j', (text, char, want) => {
    expect(trimTrailing(text, char)).toBe(want);
  });

  it.each([
    ['--slug--', 'slug--'],
    ['slug', 'slug'],
    ['----', ''],
  ])('trimLeading(%j, "-") is %j', (text, want) => {
    expect(trimLeading(text, '-')).toBe(want);
  });

  it.each([
    ['fe80::1%eth0', 'fe80::1'],
    ['127.0.0.1', '127.0.0.1'],
    ['%', ''],
  ])('beforeFirst(%j, "%") is %j', (text, want) => {
    expect(beforeFirst(text, '%')).toBe(want);
  });

  it('trims a megabyte of slashes followed by a letter at once (the regular expression it replaced needed about 5·10¹¹ steps)', () => {
    const text = `${'/'.repeat(1_000_000)}x${'/'.repeat(1_000_000)}`;
    expect(trimTrailing(text, '/')).toBe(`${'/'.repeat(1_000_000)}x`);
  });
});
