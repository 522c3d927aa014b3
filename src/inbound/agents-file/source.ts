import { readFileSync } from 'node:fs';
import { isMap, isScalar, isSeq, LineCounter, parseDocument, type Document } from 'yaml';
import type { FieldViolation } from '../../../generated/a2a/1.0/types.js';
import { violationPhrases } from '../../protocol/violations.js';

/** A file of declared agents that cannot be used: every problem, each `file:line: field what`, one per line of the message. */
export class AgentsFileError extends Error {
  readonly problems: readonly string[];

  constructor(problems: readonly string[]) {
    super(problems.join('\n'));
    this.name = 'AgentsFileError';
    this.problems = problems;
  }
}

/** A path into the parsed value: member names and item indexes. */
export type ValuePath = readonly (string | number)[];

/** A parsed YAML or JSON file that still knows where each of its values was written. */
export interface SourceFile {
  /** The file as the user named it, the first word of every message. */
  readonly name: string;
  readonly value: unknown;
  /** The line (from 1) of the member or item at `path`, or of the nearest enclosing one the file has. */
  lineOf(path: ValuePath): number;
  /** The text of the scalar at `path` as written, when it is a scalar written without quotes. */
  plainTextAt(path: ValuePath): string | undefined;
}

/** Reads and parses a YAML or JSON file; a syntax error names its line and column. */
export function readSourceFile(path: string, what: string): SourceFile {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const reason = code === 'ENOENT' ? 'no such file' : code === 'EISDIR' ? 'it is a folder' : (error as Error).message;
    throw new AgentsFileError([`cannot read ${what} ${path}: ${reason}`]);
  }
  return parseSourceText(text, path);
}

/**
 * Parses `text` as YAML 1.2 (JSON is YAML too). A file named *.json is parsed as JSON first,
 * since YAML reads some things JSON refuses (a trailing comma) and JSON's own message is the one
 * its author expects.
 */
export function parseSourceText(text: string, name: string): SourceFile {
  const lines = new LineCounter();
  if (/\.json$/i.test(name)) checkJsonSyntax(text, name);
  const document = parseDocument(text, { lineCounter: lines, prettyErrors: false, uniqueKeys: true });
  const syntax = document.errors.map((error) => {
    const { line, col } = lines.linePos(error.pos[0]);
    return `${name}:${line}:${col}: ${firstLine(error.message)} (YAML syntax)`;
  });
  if (syntax.length > 0) throw new AgentsFileError(syntax);
  let value: unknown;
  try {
    value = document.toJS({ maxAliasCount: 1000 });
  } catch (error) {
    throw new AgentsFileError([`${name}: ${(error as Error).message}`]);
  }
  if (document.contents === null) throw new AgentsFileError([`${name}: the file is empty`]);
  return {
    name,
    value,
    lineOf: (path) => lines.linePos(offsetOf(document, path)).line,
    plainTextAt: (path) => {
      const node = document.getIn(path, true);
      return isScalar(node) && node.type === 'PLAIN' && node.range ? text.slice(node.range[0], node.range[1]) : undefined;
    },
  };
}

function checkJsonSyntax(text: string, name: string): void {
  try {
    JSON.parse(text);
  } catch (error) {
    const message = (error as Error).message;
    const position = /at position (\d+)/.exec(message)?.[1];
    if (position === undefined) throw new AgentsFileError([`${name}: not valid JSON: ${message}`]);
    const before = text.slice(0, Number(position)).split('\n');
    const where = `${before.length}:${(before[before.length - 1]?.length ?? 0) + 1}`;
    throw new AgentsFileError([`${name}:${where}: not valid JSON: ${message.replace(/\(line \d+ column \d+\)/, '').trimEnd()}`]);
  }
}

function firstLine(message: string): string {
  return message.split('\n')[0]?.replace(/ at line \d+, column \d+:?$/, '') ?? message;
}

/** Where the value at `path` starts: a member at its key, an item at itself; the nearest existing ancestor otherwise. */
function offsetOf(document: Document, path: ValuePath): number {
  let node: unknown = document.contents;
  let offset = rangeStart(node) ?? 0;
  for (const segment of path) {
    if (isMap(node)) {
      const pair = node.items.find((item) => isScalar(item.key) && String(item.key.value) === String(segment));
      if (pair === undefined) break;
      offset = rangeStart(pair.key) ?? offset;
      node = pair.value;
    } else if (isSeq(node) && typeof segment === 'number') {
      const item: unknown = node.items[segment];
      if (item === undefined) break;
      offset = rangeStart(item) ?? offset;
      node = item;
    } else break;
  }
  return offset;
}

function rangeStart(node: unknown): number | undefined {
  const range = (node as { range?: readonly number[] } | null | undefined)?.range;
  return range?.[0];
}

/** `agents[1].model["base url"]` → ['agents', 1, 'model', 'base url']: a violation's field as a path into the value. */
export function fieldSegments(field: string): (string | number)[] {
  const segments: (string | number)[] = [];
  const pattern = /\[(\d+)\]|\[("(?:[^"\\]|\\.)*")\]|\.?([^.[\]]+)/g;
  for (const match of field.matchAll(pattern)) {
    if (match[1] !== undefined) segments.push(Number(match[1]));
    else if (match[2] !== undefined) segments.push(JSON.parse(match[2]) as string);
    else if (match[3] !== undefined) segments.push(match[3]);
  }
  return segments;
}

/**
 * Each violation as `file:line: field description`, at the line of its field. A string member
 * YAML read as a number or a boolean (version: 1.0, name: yes) says how to quote it.
 */
export function locatedPhrases(source: SourceFile, violations: readonly FieldViolation[], subject: string): string[] {
  return violations.map((violation) => {
    const path = fieldSegments(violation.field);
    const [phrase = ''] = violationPhrases([violation], subject);
    const plain = /^must be a string, got a (number|boolean)$/.test(violation.description) ? source.plainTextAt(path) : undefined;
    const member = path[path.length - 1];
    const hint = plain === undefined || typeof member !== 'string' ? '' : `: write it in quotes, ${member}: "${plain}"`;
    return `${source.name}:${source.lineOf(path)}: ${phrase}${hint}`;
  });
}
