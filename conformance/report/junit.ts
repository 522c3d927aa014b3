import type { ConformanceReport, Finding, RequirementResult } from '../../generated/conformance/types.js';
import {
  findingFields,
  groupByArea,
  notableFindings,
  explanationOf,
  skipReasonsOf,
  staleEntries,
  summaryLine,
  visibleText,
  checkLabel,
  interfacesOf,
  versionsOf,
} from './common.js';

/** Text content of an element: `&`, `<`, `>` escaped (quotes too, harmlessly), invalid XML 1.0 characters made visible. */
export function xmlText(text: string): string {
  return visibleText(text)
    .replaceAll('&', '&amp;')
    .replaceAll('<', '&lt;')
    .replaceAll('>', '&gt;')
    .replaceAll('"', '&quot;')
    .replaceAll("'", '&apos;');
}

/** An attribute value: as text, plus tab and newline as character references so attribute normalisation keeps them. */
export function xmlAttribute(text: string): string {
  return xmlText(text).replaceAll('\t', '&#9;').replaceAll('\n', '&#10;');
}

function attributes(values: Record<string, string | number | undefined>): string {
  return Object.entries(values)
    .filter((entry): entry is [string, string | number] => entry[1] !== undefined)
    .map(([name, value]) => ` ${name}="${xmlAttribute(String(value))}"`)
    .join('');
}

function findingText(finding: Finding): string {
  const lines = [`${finding.verdict} [${checkLabel(finding)}] ${finding.message}`];
  for (const [label, value] of findingFields(finding)) {
    const [first = '', ...rest] = value.split('\n');
    lines.push(`  ${label}: ${first}`);
    for (const line of rest) lines.push(`    ${line}`);
  }
  return lines.join('\n');
}

function evidence(result: RequirementResult, findings: readonly Finding[]): string {
  const head = [`${result.id} (${result.level}, section ${result.section}): ${result.text}`];
  if (result.baselined !== undefined) head.push(`baselined: ${result.baselined}`);
  return [...head, '', ...findings.map(findingText)].join('\n');
}

function testcase(area: string, result: RequirementResult): string {
  const open = `    <testcase${attributes({ classname: area, name: `${result.id} ${result.text}`, time: '0' })}`;
  const firstOf = (verdict: Finding['verdict']): Finding | undefined =>
    result.findings.find((finding) => finding.verdict === verdict) ?? result.findings[0];
  // How many exchanges backed the verdict, so that a PASS on none shows in any JUnit viewer.
  const properties = `\n      <properties><property${attributes({ name: 'evidence', value: String(result.evidence) })}/></properties>`;
  switch (result.verdict) {
    case 'PASS':
      return `${open}>${properties}\n    </testcase>`;
    case 'SKIP':
      return `${open}>${properties}\n      <skipped${attributes({ message: explanationOf(result), type: skipReasonsOf(result).join(', ') || undefined })}/>\n    </testcase>`;
    case 'WARN':
      return `${open}>${properties}\n      <system-out>${xmlText(evidence(result, notableFindings(result)))}</system-out>\n    </testcase>`;
    case 'FAIL': {
      const first = firstOf('FAIL');
      const body = xmlText(evidence(result, notableFindings(result)));
      if (result.baselined !== undefined) {
        // An accepted failure, like pytest's xfail: reported as skipped so CI stays green, with the evidence kept.
        return `${open}>${properties}\n      <skipped${attributes({ message: `expected failure (baseline): ${result.baselined}` })}/>\n      <system-out>${body}</system-out>\n    </testcase>`;
      }
      return `${open}>${properties}\n      <failure${attributes({ message: first?.message ?? 'failed', type: `${result.level} FAIL` })}>${body}</failure>\n    </testcase>`;
    }
    case 'ERROR': {
      const first = firstOf('ERROR');
      return `${open}>${properties}\n      <error${attributes({ message: first?.message ?? 'the check itself failed', type: 'suite ERROR' })}>${xmlText(evidence(result, notableFindings(result)))}</error>\n    </testcase>`;
    }
  }
}

/**
 * The report as JUnit XML for CI: one `<testsuite>` per area, one `<testcase>` per requirement.
 * FAIL is a `<failure>`, ERROR an `<error>`, SKIP a `<skipped>` (its `type` the skip reason
 * codes), WARN passes with its findings in
 * `<system-out>`, and a baselined FAIL is `<skipped>` with the baseline reason (an expected failure).
 */
export function renderJUnit(report: ConformanceReport): string {
  const timestamp = report.startedAt.replace(/(\.\d+)?Z$/, '').slice(0, 19);
  const properties = [
    ['target', report.target.url],
    ['endpoint', report.target.endpoint],
    ['binding', report.target.binding],
    // The current version keeps the plain key it always had; another version's interface names its version.
    ...interfacesOf(report.target).map((entry): [string, string] => [
      entry.protocolVersion === report.specVersion ? `endpoint.${entry.binding}` : `endpoint.${entry.binding}.${entry.protocolVersion}`,
      entry.endpoint,
    ]),
    ['mode', report.target.mode],
    ['profile', report.target.profile ?? 'none'],
    ['specVersion', report.specVersion],
    ['protocolVersions', versionsOf(report.target).join(',')],
    ['tool', `${report.tool.name} ${report.tool.version}`],
    ['level', report.options.level],
    ['runs', String(report.options.runs)],
    ['seed', String(report.options.seed)],
    ...report.warnings.map((warning) => ['warning', warning]),
    ...staleEntries(report).map((entry) => [
      'baselineStale',
      `${entry.id}: ${entry.now === undefined ? 'not a requirement of this catalog' : `no longer fails (now ${entry.now})`}`,
    ]),
    ['summary', summaryLine(report)],
  ]
    .map(([name = '', value = '']) => `      <property${attributes({ name, value })}/>`)
    .join('\n');
  let totals = { tests: 0, failures: 0, errors: 0, skipped: 0 };
  const suites = groupByArea(report.results).map(({ area, results }) => {
    const counts = {
      tests: results.length,
      failures: results.filter((result) => result.verdict === 'FAIL' && result.baselined === undefined).length,
      errors: results.filter((result) => result.verdict === 'ERROR').length,
      skipped: results.filter((result) => result.verdict === 'SKIP' || (result.verdict === 'FAIL' && result.baselined !== undefined))
        .length,
    };
    totals = {
      tests: totals.tests + counts.tests,
      failures: totals.failures + counts.failures,
      errors: totals.errors + counts.errors,
      skipped: totals.skipped + counts.skipped,
    };
    return [
      `  <testsuite${attributes({ name: area, ...counts, time: '0', timestamp })}>`,
      '    <properties>',
      properties,
      '    </properties>',
      ...results.map((result) => testcase(area, result)),
      '  </testsuite>',
    ].join('\n');
  });
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites${attributes({ name: `a2a-hub conform ${report.target.url}`, ...totals, time: (report.durationMs / 1000).toFixed(3), timestamp })}>`,
    ...suites,
    '</testsuites>',
    '',
  ].join('\n');
}
