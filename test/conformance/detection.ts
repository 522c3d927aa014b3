import { REQUIREMENT_BY_ID } from '../../generated/conformance/requirements.js';
import type { ConformanceReport } from '../../generated/conformance/types.js';
import { PROFILES, type ProfileId } from '../../conformance/core/profiles.js';
import { ALL_CHECKS, runConformance } from '../../conformance/suite.js';
import type { ExchangeBinding } from './fault-binding.js';
import { bindingsOf, FAULTS, REST_FAULTS, startFaultProxy, type Fault } from './fault-proxy.js';

/*
 * The suite's power, measured: every fault of fault-proxy.ts is planted in front of a correct
 * agent (the hub, which serves JSON-RPC and HTTP+JSON, follows the test directives and the TCK
 * prefixes), and the suite runs behind it on both bindings once per cooperation profile. A
 * fault is caught on a binding when a requirement it names gets its violation verdict there
 * (FAIL for a MUST, WARN for a SHOULD or MAY): a finding made on that binding's run. `npm run detection` writes
 * the table into docs/conformance.md; detection.test.ts checks the targets and that the table
 * is current.
 */

export const DETECTION_PROFILES: readonly ProfileId[] = ['none', 'directives', 'tck'];

/** Every fault: those in JSON-RPC shapes are planted on every binding their requirements apply to, the HTTP+JSON ones on that binding. */
export const ALL_FAULTS: readonly Fault[] = [...FAULTS, ...REST_FAULTS];

/** The binding a row judges: a binding, or `card` for requirements judged once for the whole agent (the card, a comparison). */
export type RowBinding = ExchangeBinding | 'card';

/** Requirements only checks that run once (not per binding) judge. */
const JUDGED_ONCE = new Set<string>(
  [...new Set(ALL_CHECKS.flatMap((check) => check.requirements))].filter((id) =>
    ALL_CHECKS.filter((check) => check.requirements.includes(id)).every((check) => check.once === true),
  ),
);

/**
 * What a fault is judged on: per binding it is planted on, the requirements it names that apply
 * to that binding; the requirements judged once go to the one binding the fault is planted on,
 * or to `card` when it is planted on both.
 */
export function judgedOn(fault: Fault): { readonly binding: RowBinding; readonly expect: readonly string[] }[] {
  const bindings = bindingsOf(fault);
  const once = fault.expect.filter((id) => JUDGED_ONCE.has(id));
  const rows: { binding: RowBinding; expect: string[] }[] = bindings.map((binding) => ({
    binding,
    expect: fault.expect.filter(
      (id) =>
        (!JUDGED_ONCE.has(id) && REQUIREMENT_BY_ID.get(id)?.bindings.includes(binding) === true) ||
        (bindings.length === 1 && once.includes(id)),
    ),
  }));
  if (bindings.length !== 1 && once.length > 0) rows.unshift({ binding: 'card', expect: once });
  return rows.filter((row) => row.expect.length > 0);
}

export type Outcome =
  | { readonly kind: 'caught'; readonly by: readonly string[]; readonly report: ConformanceReport }
  | { readonly kind: 'missed'; readonly report: ConformanceReport }
  /** The run never met the fault on this binding (the proxy changed nothing there): neither caught nor missed. */
  | { readonly kind: 'not-planted'; readonly report: ConformanceReport }
  /** The profile cannot ask for what the fault needs, so the run was not made. */
  | { readonly kind: 'out-of-reach'; readonly missing: readonly string[] };

export interface DetectionRow {
  readonly fault: Fault;
  readonly binding: RowBinding;
  /** The requirements the fault must violate on this binding. */
  readonly expect: readonly string[];
  readonly outcomes: Readonly<Record<ProfileId, Outcome>>;
}

/** The requirements of `expect` a report gives their violation verdict on `binding` (any finding for `card`). */
export function violatedBy(expect: readonly string[], binding: RowBinding, report: ConformanceReport): string[] {
  return expect.filter((id) => {
    const violation = REQUIREMENT_BY_ID.get(id)?.violation;
    const findings = report.results.find((result) => result.id === id)?.findings ?? [];
    return findings.some(
      (finding) => finding.verdict === violation && (binding === 'card' || finding.binding === binding || finding.binding === undefined),
    );
  });
}

/** One run of the suite on every binding, restricted to the fault's requirements, behind the fault planted in front of `upstream`; an outcome per row. */
export async function detect(upstream: string, fault: Fault, profile: ProfileId): Promise<Map<RowBinding, Outcome>> {
  const rows = judgedOn(fault);
  const missing = (fault.needs ?? []).filter((ask) => !PROFILES[profile].asks.has(ask));
  if (missing.length > 0) return new Map(rows.map((row) => [row.binding, { kind: 'out-of-reach', missing }]));
  const proxy = await startFaultProxy(upstream, fault);
  try {
    const { report } = await runConformance(proxy.url, {
      runs: 10,
      seed: 1,
      profile,
      // The faults break 1.0's rules; the hub's 0.3 side has faults of its own (v03-suite.test.ts).
      protocol: '1.0',
      timeoutMs: fault.timeoutMs ?? 5000,
      only: fault.expect,
      ...(fault.headers === undefined ? {} : { headers: fault.headers }),
    });
    return new Map(
      rows.map((row): [RowBinding, Outcome] => {
        const by = violatedBy(row.expect, row.binding, report);
        if (by.length > 0) return [row.binding, { kind: 'caught', by, report }];
        const planted = row.binding === 'card' ? proxy.planted() : proxy.planted(row.binding) + proxy.planted('card');
        return [row.binding, planted === 0 ? { kind: 'not-planted', report } : { kind: 'missed', report }];
      }),
    );
  } finally {
    await proxy.close();
  }
}

/** The rows of one fault: each profile's run, judged per binding. */
export async function detectFault(upstream: string, fault: Fault): Promise<DetectionRow[]> {
  const runs = new Map<ProfileId, Map<RowBinding, Outcome>>();
  for (const profile of DETECTION_PROFILES) runs.set(profile, await detect(upstream, fault, profile));
  return judgedOn(fault).map((row) => ({
    fault,
    ...row,
    outcomes: Object.fromEntries(DETECTION_PROFILES.map((profile) => [profile, runs.get(profile)?.get(row.binding)])) as Record<
      ProfileId,
      Outcome
    >,
  }));
}

export async function detectAll(upstream: string, onRows?: (rows: readonly DetectionRow[]) => void): Promise<DetectionRow[]> {
  const rows: DetectionRow[] = [];
  for (const fault of ALL_FAULTS) {
    const found = await detectFault(upstream, fault);
    onRows?.(found);
    rows.push(...found);
  }
  return rows;
}

const ASK_WORDS: Readonly<Record<string, string>> = {
  slow: 'slow work',
  timed: 'timed slow work',
  chunks: 'chunked artifacts',
  message: 'a direct Message',
};

function cell(outcome: Outcome): string {
  switch (outcome.kind) {
    case 'caught':
      return `caught (${outcome.by.join(', ')})`;
    case 'missed':
      return '**missed**';
    case 'not-planted':
      return 'not met';
    case 'out-of-reach':
      return `needs ${outcome.missing.map((ask) => ASK_WORDS[ask] ?? ask).join(', ')}`;
  }
}

const ROW_BINDINGS: readonly RowBinding[] = ['JSONRPC', 'HTTP+JSON', 'card'];

/** Caught of all rows, and of those the profile's runs met. */
export function totals(rows: readonly DetectionRow[], profile: ProfileId): { caught: number; met: number; all: number } {
  const outcomes = rows.map((row) => row.outcomes[profile]);
  return {
    caught: outcomes.filter((outcome) => outcome.kind === 'caught').length,
    met: outcomes.filter((outcome) => outcome.kind === 'caught' || outcome.kind === 'missed').length,
    all: rows.length,
  };
}

function percent(part: number, whole: number): string {
  return whole === 0 ? '–' : `${((100 * part) / whole).toFixed(1)} %`;
}

/** The markdown table of docs/conformance.md (between the detection markers). */
export function detectionTable(rows: readonly DetectionRow[]): string {
  const lines = [
    '| fault | judged on | what it plants | black-box (`--profile none`) | `--profile directives` | `--profile tck` |',
    '|---|---|---|---|---|---|',
    ...rows.map(
      (row) =>
        `| \`${row.fault.id}\` | ${row.binding} | ${row.fault.description.replaceAll('|', '\\|')} | ${DETECTION_PROFILES.map((profile) => cell(row.outcomes[profile])).join(' | ')} |`,
    ),
    '',
    '| profile | judged on | caught | of all rows | of the rows its runs met |',
    '|---|---|---|---|---|',
    ...DETECTION_PROFILES.flatMap((profile) =>
      [...ROW_BINDINGS, undefined].map((binding) => {
        const { caught, met, all } = totals(
          rows.filter((row) => binding === undefined || row.binding === binding),
          profile,
        );
        return `| ${profile} | ${binding ?? '**every row**'} | ${caught} | ${percent(caught, all)} (${caught}/${all}) | ${percent(caught, met)} (${caught}/${met}) |`;
      }),
    ),
  ];
  return lines.join('\n');
}

export const DETECTION_START = '<!-- detection table: generated by `npm run detection`, do not edit -->';
export const DETECTION_END = '<!-- end of detection table -->';

/** The document with the table between the markers replaced. */
export function withDetectionTable(document: string, table: string): string {
  const start = document.indexOf(DETECTION_START);
  const end = document.indexOf(DETECTION_END);
  if (start === -1 || end < start) throw new Error('docs/conformance.md has no detection table markers');
  return `${document.slice(0, start + DETECTION_START.length)}\n\n${table}\n\n${document.slice(end)}`;
}
