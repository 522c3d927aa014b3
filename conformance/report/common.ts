import type { ConformanceReport, Finding, RequirementResult, SkipReason, Verdict } from '../../generated/conformance/types.js';

/** Section areas in the order the catalog presents them; a requirement's area is its id prefix. */
export const AREAS = [
  'CARD',
  'VER',
  'SEND',
  'SSE',
  'GET',
  'LIST',
  'CANCEL',
  'SUB',
  'PUSH',
  'XCARD',
  'JSONRPC-ENV',
  'REST-ENV',
  'DATA',
  'WIRE',
  'ROBUST',
  'STATE',
  'HUB',
  'DIRECTIVES',
] as const;

/** Verdicts in the order reports list their counts. */
export const VERDICTS: readonly Verdict[] = ['PASS', 'FAIL', 'WARN', 'SKIP', 'ERROR'];

export const LEVELS: readonly RequirementResult['level'][] = ['MUST', 'SHOULD', 'MAY'];

/** The area of a requirement id: the longest known prefix (`JSONRPC-ENV-003` → `JSONRPC-ENV`), else the id without its number. */
export function areaOf(id: string): string {
  let best: string | undefined;
  for (const area of AREAS) {
    if (id.startsWith(`${area}-`) && (best === undefined || area.length > best.length)) best = area;
  }
  return best ?? id.replace(/-\d+$/, '');
}

export interface AreaGroup {
  readonly area: string;
  readonly results: readonly RequirementResult[];
}

/** Results grouped by area: known areas in catalog order, unknown ones after them in order of appearance; results keep report order. */
export function groupByArea(results: readonly RequirementResult[]): AreaGroup[] {
  const groups = new Map<string, RequirementResult[]>();
  for (const result of results) {
    const area = areaOf(result.id);
    const list = groups.get(area) ?? [];
    list.push(result);
    groups.set(area, list);
  }
  const rank = (area: string): number => {
    const index = (AREAS as readonly string[]).indexOf(area);
    return index === -1 ? AREAS.length : index;
  };
  const order = [...groups.keys()];
  return order
    .map((area, appearance) => ({ area, appearance }))
    .sort((a, b) => rank(a.area) - rank(b.area) || a.appearance - b.appearance)
    .map(({ area }) => ({ area, results: groups.get(area) ?? [] }));
}

export type VerdictCounts = Record<Verdict, number>;

export function countVerdicts(results: readonly RequirementResult[]): VerdictCounts {
  const counts: VerdictCounts = { PASS: 0, FAIL: 0, WARN: 0, SKIP: 0, ERROR: 0 };
  for (const result of results) counts[result.verdict] += 1;
  return counts;
}

/** `8.1 s`, or `2 min 5 s` from a minute on. */
export function formatDuration(ms: number): string {
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)} s`;
  const seconds = Math.round(ms / 1000);
  return `${Math.floor(seconds / 60)} min ${seconds % 60} s`;
}

/** The closing line: `MUST failures: 0 · 95 PASS, 0 FAIL, 3 WARN, 21 SKIP, 0 ERROR · 412 requests in 8.1 s`. */
export function summaryLine(report: ConformanceReport): string {
  const { summary } = report;
  const baselined = report.results.filter((result) => result.verdict === 'FAIL' && result.baselined !== undefined).length;
  const must = `MUST failures: ${summary.mustFailures}${baselined > 0 ? ` (+${baselined} baselined)` : ''}`;
  const counts = VERDICTS.map((verdict) => `${summary[verdict]} ${verdict}`).join(', ');
  const denied = summary.deniedRequests > 0 ? ` (${summary.deniedRequests} refused)` : '';
  return `${must} · ${counts} · ${summary.requests} request${summary.requests === 1 ? '' : 's'}${denied} in ${formatDuration(report.durationMs)}`;
}

/** Shortens text to at most `max` characters, saying how much was cut. */
export function truncate(text: string, max: number): string {
  if (text.length <= max) return text;
  return `${text.slice(0, max)}… (${text.length - max} more characters)`;
}

/**
 * A counterexample as JSON. Counterexamples come from fast-check and may hold values JSON has
 * no form for: bigints become strings like `"12n"`, `undefined` becomes `"undefined"`, and
 * cycles are cut at `"[Circular]"`.
 */
export function counterexampleJson(value: unknown, options: { pretty?: boolean; max?: number } = {}): string {
  const seen = new WeakSet<object>();
  let text: string | undefined;
  try {
    text = JSON.stringify(
      value,
      (_key, inner: unknown) => {
        if (typeof inner === 'bigint') return `${inner}n`;
        if (inner === undefined) return 'undefined';
        if (typeof inner === 'object' && inner !== null) {
          if (seen.has(inner)) return '[Circular]';
          seen.add(inner);
        }
        return inner;
      },
      options.pretty ? 2 : undefined,
    );
  } catch (error) {
    text = `(not representable as JSON: ${error instanceof Error ? error.message : String(error)})`;
  }
  text ??= String(value);
  return options.max === undefined ? text : truncate(text, options.max);
}

// Characters a terminal would act on (ESC, CR, BS, ...) or that XML 1.0 forbids (C0 controls,
// lone surrogates, U+FFFE/U+FFFF), plus C1 controls. Tab and newline stay.
const UNSAFE = /[\u0000-\u0008\u000B-\u001F\u007F-\u009F\uD800-\uDFFF\uFFFE\uFFFF]/gu;

/**
 * Agent-provided text made safe to print and to embed in XML or HTML: CRLF becomes LF and every
 * other control character, lone surrogate or XML-1.0-invalid character is replaced by its
 * visible escape (`\u0000`), so the evidence survives without acting on the reader.
 */
export function visibleText(text: string): string {
  return text.replaceAll('\r\n', '\n').replace(UNSAFE, (char) => `\\u${(char.codePointAt(0) ?? 0).toString(16).padStart(4, '0')}`);
}

/** The evidence of a finding as label/value pairs, in the order every format shows them. */
export function findingFields(
  finding: Finding,
  options: { counterexampleMax?: number; pretty?: boolean } = {},
): Array<[label: string, value: string]> {
  const fields: Array<[string, string]> = [];
  if (finding.skipReason !== undefined) fields.push(['skip reason', finding.skipReason]);
  if (finding.expected !== undefined) fields.push(['expected', finding.expected]);
  if (finding.observed !== undefined) fields.push(['observed', finding.observed]);
  if (finding.path !== undefined) fields.push(['path', finding.path]);
  if ('counterexample' in finding) {
    fields.push([
      'counterexample',
      counterexampleJson(finding.counterexample, {
        ...(options.pretty ? { pretty: true } : {}),
        ...(options.counterexampleMax === undefined ? {} : { max: options.counterexampleMax }),
      }),
    ]);
  }
  if (finding.seed !== undefined) fields.push(['seed', String(finding.seed)]);
  if (finding.curl !== undefined) fields.push(['curl', finding.curl]);
  return fields;
}

/** The findings that explain a verdict other than PASS or SKIP (all of them when none does). */
export function notableFindings(result: RequirementResult): Finding[] {
  const notable = result.findings.filter((finding) => finding.verdict !== 'PASS' && finding.verdict !== 'SKIP');
  return notable.length > 0 ? notable : result.findings;
}

/** Why a requirement passed or was skipped: its distinct finding messages. */
export function explanationOf(result: RequirementResult): string {
  const messages = [...new Set(result.findings.filter((finding) => finding.verdict === result.verdict).map((finding) => finding.message))];
  const list = messages.length > 0 ? messages : [...new Set(result.findings.map((finding) => finding.message))];
  if (list.length === 0) return result.verdict === 'SKIP' ? 'no reason given' : 'no findings';
  return list.length <= 3 ? list.join('; ') : `${list.slice(0, 3).join('; ')}; and ${list.length - 3} more`;
}

/** The skip reason codes (SkipReason) behind a SKIP verdict, each once; empty for other verdicts. */
export function skipReasonsOf(result: RequirementResult): SkipReason[] {
  if (result.verdict !== 'SKIP') return [];
  return [
    ...new Set(
      result.findings.flatMap((finding) => (finding.verdict === 'SKIP' && finding.skipReason !== undefined ? [finding.skipReason] : [])),
    ),
  ];
}

/** Why a requirement passed or was skipped, with the skip reason codes in front: `[feature-absent] the card is not signed`. */
export function labelledExplanationOf(result: RequirementResult): string {
  const codes = skipReasonsOf(result);
  return codes.length === 0 ? explanationOf(result) : `[${codes.join(', ')}] ${explanationOf(result)}`;
}

/** The baseline entries that no longer fail, with what they got instead. */
export function staleEntries(report: ConformanceReport): Array<{ id: string; now: Verdict | undefined }> {
  return report.summary.baselineStale.map((id) => ({ id, now: report.results.find((result) => result.id === id)?.verdict }));
}

/** How a finding names its check in every report: `check`, or `check · HTTP+JSON` when it ran on one binding of several. */
export function checkLabel(finding: Pick<Finding, 'check' | 'binding'>): string {
  return finding.binding === undefined ? finding.check : `${finding.check} · ${finding.binding}`;
}

/** The interfaces of a run, each with the binding and the A2A version spoken on it, for the report headers. */
export function interfacesOf(target: ConformanceReport['target']): { binding: string; protocolVersion: string; endpoint: string }[] {
  return target.interfaces ?? [{ binding: target.binding, protocolVersion: versionsOf(target)[0] ?? '', endpoint: target.endpoint }];
}

/** The A2A versions a run tested, the current one first: every report says which. */
export function versionsOf(target: ConformanceReport['target']): readonly string[] {
  return target.protocolVersions;
}

/** `JSONRPC 0.3`: a binding and the version spoken on it, as the reports name an interface. */
export function interfaceLabel(entry: { binding: string; protocolVersion: string }): string {
  return `${entry.binding} ${entry.protocolVersion}`;
}

/** How many exchanges backed a verdict, in words: `3 exchanges`, `no exchange` (a PASS on nothing shows). */
export function exchangesOf(result: Pick<RequirementResult, 'evidence'>): string {
  if (result.evidence === 0) return 'no exchange';
  return `${result.evidence} exchange${result.evidence === 1 ? '' : 's'}`;
}
