import { readFileSync } from 'node:fs';
import type { ConformanceReport } from '../../generated/conformance/types.js';

/**
 * The baseline file: failures that are known and accepted for now, each with the reason.
 *
 * ```json
 * { "expectedFailures": [{ "id": "SEND-030", "reason": "why it is accepted for now" }] }
 * ```
 */
export interface BaselineFile {
  expectedFailures: Array<{ id: string; reason: string }>;
}

/** What a baseline file gets when the reason has yet to be written. */
export const TODO_REASON = 'TODO: explain';

/** A baseline file that cannot be used; the message names the file and what is wrong with it. */
export class BaselineError extends Error {
  override readonly name = 'BaselineError';
  constructor(
    readonly file: string,
    problem: string,
  ) {
    super(`baseline ${file}: ${problem}`);
  }
}

export interface BaselineOptions {
  /** The requirement ids of the catalog: when given, an entry naming another id is an error (a typo would otherwise only show up as stale). */
  readonly knownIds?: Iterable<string>;
}

const EXAMPLE = '{ "expectedFailures": [{ "id": "SEND-030", "reason": "why it is accepted for now" }] }';

/** Reads a baseline file into requirement id → reason (RunOptions.baseline). Throws BaselineError with a clear message. */
export function loadBaseline(path: string, options: BaselineOptions = {}): Map<string, string> {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') throw new BaselineError(path, 'file not found (write one with --write-baseline, or leave out --baseline)');
    if (code === 'EISDIR') throw new BaselineError(path, 'is a directory, not a baseline file');
    throw new BaselineError(path, `cannot be read: ${error instanceof Error ? error.message : String(error)}`);
  }
  return parseBaseline(text, path, options);
}

/** Parses the text of a baseline file; `source` names it in errors. */
export function parseBaseline(text: string, source: string, options: BaselineOptions = {}): Map<string, string> {
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (error) {
    throw new BaselineError(source, `is not valid JSON (${error instanceof Error ? error.message : String(error)}); expected ${EXAMPLE}`);
  }
  if (typeof data !== 'object' || data === null || Array.isArray(data))
    throw new BaselineError(source, `must be a JSON object like ${EXAMPLE}`);
  const top = data as Record<string, unknown>;
  const unknownTop = Object.keys(top).filter((key) => key !== 'expectedFailures' && key !== '$schema' && key !== '$comment');
  if (unknownTop.length > 0)
    throw new BaselineError(source, `unknown member ${unknownTop.map((key) => JSON.stringify(key)).join(', ')}; expected ${EXAMPLE}`);
  const entries = top.expectedFailures;
  if (!Array.isArray(entries))
    throw new BaselineError(
      source,
      `"expectedFailures" must be an array, ${entries === undefined ? 'and it is missing' : `not ${describe(entries)}`}; expected ${EXAMPLE}`,
    );
  const known = options.knownIds === undefined ? undefined : new Set(options.knownIds);
  const baseline = new Map<string, string>();
  for (const [index, entry] of (entries as unknown[]).entries()) {
    const where = `expectedFailures[${index}]`;
    if (typeof entry !== 'object' || entry === null || Array.isArray(entry))
      throw new BaselineError(source, `${where} must be an object { "id": ..., "reason": ... }, not ${describe(entry)}`);
    const { id, reason, ...rest } = entry as Record<string, unknown>;
    const extra = Object.keys(rest);
    if (typeof id !== 'string' || id.trim() === '')
      throw new BaselineError(
        source,
        `${where} has ${id === undefined ? 'no "id"' : `an invalid "id" (${describe(id)})`}: it must name a requirement, e.g. "SEND-030"`,
      );
    const named = `${where} (${id})`;
    if (extra.length > 0)
      throw new BaselineError(
        source,
        `${named} has unknown member ${extra.map((key) => JSON.stringify(key)).join(', ')}; only "id" and "reason" are allowed`,
      );
    if (reason === undefined)
      throw new BaselineError(source, `${named} has no "reason": every expected failure needs one saying why it is accepted`);
    if (typeof reason !== 'string' || reason.trim() === '')
      throw new BaselineError(
        source,
        `${named} has an invalid "reason" (${describe(reason)}): it must be a non-empty string saying why the failure is accepted`,
      );
    if (known !== undefined && !known.has(id)) throw new BaselineError(source, `${named} is not a requirement id of the catalog`);
    if (baseline.has(id)) {
      const first = (entries as unknown[]).findIndex(
        (other) => typeof other === 'object' && other !== null && (other as { id?: unknown }).id === id,
      );
      throw new BaselineError(source, `duplicate id ${id}: expectedFailures[${first}] and ${where} both list it; keep one`);
    }
    baseline.set(id, reason);
  }
  return baseline;
}

/**
 * A baseline listing the report's current FAILs (for `--write-baseline`). Failures that were
 * already baselined keep their reason; new ones get "TODO: explain".
 */
export function baselineFromReport(report: ConformanceReport): string {
  const file: BaselineFile = {
    expectedFailures: report.results
      .filter((result) => result.verdict === 'FAIL')
      .map((result) => ({ id: result.id, reason: result.baselined ?? TODO_REASON })),
  };
  return `${JSON.stringify(file, null, 2)}\n`;
}

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'string')
    return value.trim() === '' ? `a blank string ${JSON.stringify(value)}` : `the string ${JSON.stringify(value)}`;
  if (typeof value === 'number' || typeof value === 'boolean') return `the ${typeof value} ${value}`;
  return typeof value === 'object' ? 'an object' : typeof value;
}
