import type { ConformanceReport, Finding, RequirementResult, Verdict } from '../../generated/conformance/types.js';
import {
  LEVELS,
  VERDICTS,
  countVerdicts,
  findingFields,
  groupByArea,
  labelledExplanationOf,
  notableFindings,
  staleEntries,
  summaryLine,
  truncate,
  visibleText,
  type VerdictCounts,
  checkLabel,
  interfaceLabel,
  interfacesOf,
  versionsOf,
  exchangesOf,
} from './common.js';

export interface ConsoleOptions {
  /** Use ANSI colours (only when writing to a terminal that wants them). */
  readonly color: boolean;
  /** Also list every PASS and SKIP requirement with its reason, and every finding of a problem. */
  readonly verbose?: boolean;
}

/** Counterexamples longer than this are cut in the console; the JSON and HTML reports keep them whole. */
const COUNTEREXAMPLE_MAX = 500;
/** Other evidence (expected, observed) longer than this is cut too; curl commands never are. */
const FIELD_MAX = 2000;
/** Findings shown per requirement unless verbose. */
const FINDINGS_MAX = 10;

const ANSI = {
  bold: '1',
  dim: '2',
  red: '31',
  green: '32',
  yellow: '33',
  magenta: '35',
  cyan: '36',
} as const;

type Style = keyof typeof ANSI;

const VERDICT_STYLE: Record<Verdict, readonly Style[]> = {
  PASS: ['green'],
  FAIL: ['red', 'bold'],
  WARN: ['yellow'],
  SKIP: ['dim'],
  ERROR: ['magenta', 'bold'],
};

/** The human-readable report `a2a-hub conform` prints. */
export function renderConsole(report: ConformanceReport, options: ConsoleOptions): string {
  const paint = (text: string, ...styles: Style[]): string =>
    options.color && styles.length > 0 ? `\u001b[${styles.map((style) => ANSI[style]).join(';')}m${text}\u001b[0m` : text;
  const verdict = (value: Verdict, width = 5): string => paint(value.padEnd(width), ...VERDICT_STYLE[value]);
  const safe = (text: string): string => visibleText(text);
  const out: string[] = [];

  // Header: what was tested, and how.
  const { target, options: run, tool } = report;
  out.push(
    paint(
      `${safe(tool.name)} conform ${safe(tool.version)} · A2A ${versionsOf(target).map(safe).join(' and ')}${target.agentName === undefined ? '' : ` · ${safe(target.agentName)}`}`,
      'bold',
    ),
  );
  out.push(
    `  target    ${safe(target.url)}${target.cardUrl === undefined ? '' : `  (card ${safe(target.cardUrl)})`}${target.assumedCard ? '  (no card found; a minimal card was assumed)' : ''}`,
  );
  for (const entry of interfacesOf(target))
    out.push(
      `  endpoint  ${safe(entry.endpoint)} · ${safe(interfaceLabel(entry))} · ${target.mode}${target.profile === undefined || target.profile === 'none' ? '' : ` (profile ${target.profile})`}`,
    );
  const selection = [
    run.only?.length ? `only ${run.only.map(safe).join(',')}` : '',
    run.skip?.length ? `skip ${run.skip.map(safe).join(',')}` : '',
  ].filter((part) => part !== '');
  out.push(
    `  options   level ${run.level} · ${run.runs} runs · seed ${run.seed} · timeout ${run.timeoutMs} ms${selection.length > 0 ? ` · ${selection.join(' · ')}` : ''}`,
  );
  out.push(`  started   ${safe(report.startedAt)}`);
  out.push('');

  // Counts by area and by level.
  const groups = groupByArea(report.results);
  const labelWidth = Math.max(12, ...groups.map((group) => group.area.length + 2));
  const countsRow = (label: string, counts: VerdictCounts): string =>
    `  ${label.padEnd(labelWidth)}${VERDICTS.map((value) => {
      const cell = String(counts[value]).padStart(value.length + 2);
      return counts[value] === 0 ? paint(cell, 'dim') : value === 'PASS' || value === 'SKIP' ? cell : paint(cell, ...VERDICT_STYLE[value]);
    }).join('')}`;
  const heading = (title: string): string =>
    paint(`${title.padEnd(labelWidth + 2)}${VERDICTS.map((value) => value.padStart(value.length + 2)).join('')}`, 'bold');
  out.push(heading('By area'));
  for (const group of groups) out.push(countsRow(group.area, countVerdicts(group.results)));
  out.push(heading('By level'));
  for (const level of LEVELS) {
    const results = report.results.filter((result) => result.level === level);
    if (results.length > 0) out.push(countsRow(level, countVerdicts(results)));
  }

  // Problems, worst first.
  const idWidth = Math.max(0, ...report.results.map((result) => result.id.length));
  const requirementLine = (result: RequirementResult): string =>
    `  ${verdict(result.verdict)}  ${paint(safe(result.id).padEnd(idWidth), 'bold')}  ${result.level.padEnd(6)}  ${safe(result.text)}`;
  const findingLines = (finding: Finding): string[] => {
    const lines = [`      ${verdict(finding.verdict, 0)} ${paint(`[${safe(checkLabel(finding))}]`, 'dim')} ${safe(finding.message)}`];
    for (const [label, value] of findingFields(finding, { counterexampleMax: COUNTEREXAMPLE_MAX })) {
      const shown = label === 'curl' || label === 'counterexample' ? value : truncate(value, FIELD_MAX);
      const [first = '', ...rest] = safe(shown).split('\n');
      const indent = ' '.repeat(8 + 16);
      lines.push(`        ${paint(label.padEnd(15), 'dim')} ${label === 'curl' ? paint(first, 'cyan') : first}`);
      for (const line of rest) lines.push(`${indent}${label === 'curl' ? paint(line, 'cyan') : line}`);
    }
    return lines;
  };
  const problem = (result: RequirementResult): string[] => {
    const lines = [requirementLine(result), `        ${paint(`section ${safe(result.section)} · ${exchangesOf(result)}`, 'dim')}`];
    if (result.baselined !== undefined) lines.push(`        ${paint('baselined:', 'yellow')} ${safe(result.baselined)}`);
    const shown = options.verbose ? result.findings : notableFindings(result);
    for (const finding of shown.slice(0, options.verbose ? undefined : FINDINGS_MAX)) lines.push(...findingLines(finding));
    const hidden = shown.length - (options.verbose ? shown.length : Math.min(shown.length, FINDINGS_MAX));
    if (hidden > 0)
      lines.push(paint(`      … ${hidden} more finding${hidden === 1 ? '' : 's'} (--verbose, --json or --html show them all)`, 'dim'));
    const passing = result.findings.length - shown.length;
    if (!options.verbose && passing > 0)
      lines.push(paint(`      (and ${passing} passing or skipped observation${passing === 1 ? '' : 's'})`, 'dim'));
    return lines;
  };
  const section = (title: string, results: readonly RequirementResult[], style: Style[]): void => {
    if (results.length === 0) return;
    out.push('');
    out.push(paint(`${title} (${results.length})`, 'bold', ...style));
    for (const result of results) out.push(...problem(result));
  };
  section(
    'Failures',
    report.results.filter((result) => result.verdict === 'FAIL' && result.baselined === undefined),
    ['red'],
  );
  section(
    'Errors: the suite itself broke; not counted against the agent',
    report.results.filter((result) => result.verdict === 'ERROR'),
    ['magenta'],
  );
  section(
    'Baselined failures: expected, not counted',
    report.results.filter((result) => result.verdict === 'FAIL' && result.baselined !== undefined),
    ['yellow'],
  );
  section(
    'Warnings',
    report.results.filter((result) => result.verdict === 'WARN'),
    ['yellow'],
  );

  const stale = staleEntries(report);
  if (stale.length > 0) {
    out.push('');
    out.push(paint(`Stale baseline entries (${stale.length}): they no longer fail, remove them from the baseline`, 'bold', 'yellow'));
    const staleWidth = Math.max(...stale.map((entry) => entry.id.length));
    for (const entry of stale)
      out.push(
        `  ${paint(safe(entry.id).padEnd(staleWidth), 'bold')}  ${entry.now === undefined ? 'not a requirement of this catalog' : `now ${verdict(entry.now, 0)}`}`,
      );
  }

  if (report.warnings.length > 0) {
    out.push('');
    out.push(paint(`Run warnings (${report.warnings.length})`, 'bold', 'yellow'));
    for (const warning of report.warnings) out.push(`  ${paint('!', 'yellow')} ${safe(warning)}`);
  }

  if (options.verbose) {
    for (const value of ['PASS', 'SKIP'] as const) {
      const results = report.results.filter((result) => result.verdict === value);
      if (results.length === 0) continue;
      out.push('');
      out.push(paint(`${value === 'PASS' ? 'Passed' : 'Skipped'} (${results.length})`, 'bold'));
      for (const result of results) {
        out.push(requirementLine(result));
        out.push(`        ${paint(safe(labelledExplanationOf(result)), 'dim')}`);
      }
    }
  }

  out.push('');
  const clean = report.summary.mustFailures === 0 && report.summary.ERROR === 0;
  out.push(paint(summaryLine(report), 'bold', report.summary.mustFailures > 0 ? 'red' : clean ? 'green' : 'yellow'));
  return `${out.join('\n')}\n`;
}
