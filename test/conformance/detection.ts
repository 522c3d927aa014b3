import { REQUIREMENT_BY_ID } from '../../generated/conformance/requirements.js';
import type { ConformanceReport } from '../../generated/conformance/types.js';
import { PROFILES, type ProfileId } from '../../conformance/core/profiles.js';
import { runConformance } from '../../conformance/suite.js';
import { FAULTS, REST_FAULTS, startFaultProxy, type Fault } from './fault-proxy.js';

/*
 * The suite's power, measured: every fault of fault-proxy.ts is planted in front of a correct
 * agent (the hub, which follows the test directives and the TCK prefixes), and the suite runs
 * behind it once per cooperation profile. A fault is caught when a requirement it names gets
 * its violation verdict (FAIL for a MUST, WARN for a SHOULD or MAY). `npm run detection` writes
 * the table into docs/conformance.md; detection.test.ts checks the targets and that the table
 * is current.
 */

export const DETECTION_PROFILES: readonly ProfileId[] = ['none', 'directives', 'tck'];

/** Every fault, with the binding whose answers it changes. */
export const ALL_FAULTS: readonly { readonly fault: Fault; readonly binding: 'JSONRPC' | 'HTTP+JSON' }[] = [
  ...FAULTS.map((fault) => ({ fault, binding: 'JSONRPC' as const })),
  ...REST_FAULTS.map((fault) => ({ fault, binding: 'HTTP+JSON' as const })),
];

export type Outcome =
  | { readonly kind: 'caught'; readonly by: readonly string[]; readonly report: ConformanceReport }
  | { readonly kind: 'missed'; readonly report: ConformanceReport }
  /** The run never met the fault (the proxy changed nothing): neither caught nor missed. */
  | { readonly kind: 'not-planted'; readonly report: ConformanceReport }
  /** The profile cannot ask for what the fault needs, so the run was not made. */
  | { readonly kind: 'out-of-reach'; readonly missing: readonly string[] };

export interface DetectionRow {
  readonly fault: Fault;
  readonly binding: 'JSONRPC' | 'HTTP+JSON';
  readonly outcomes: Readonly<Record<ProfileId, Outcome>>;
}

/** The requirements of a report that carry their violation verdict among those the fault names. */
export function violatedBy(fault: Fault, report: ConformanceReport): string[] {
  return fault.expect.filter((id) => report.results.find((result) => result.id === id)?.verdict === REQUIREMENT_BY_ID.get(id)?.violation);
}

/** One run of the suite, restricted to the fault's requirements, behind the fault planted in front of `upstream`. */
export async function detect(upstream: string, fault: Fault, profile: ProfileId): Promise<Outcome> {
  const missing = (fault.needs ?? []).filter((ask) => !PROFILES[profile].asks.has(ask));
  if (missing.length > 0) return { kind: 'out-of-reach', missing };
  const proxy = await startFaultProxy(upstream, fault);
  try {
    const { report } = await runConformance(proxy.url, {
      runs: 10,
      seed: 1,
      profile,
      timeoutMs: fault.timeoutMs ?? 5000,
      only: fault.expect,
      ...(fault.headers === undefined ? {} : { headers: fault.headers }),
    });
    const by = violatedBy(fault, report);
    if (by.length > 0) return { kind: 'caught', by, report };
    return proxy.planted() === 0 ? { kind: 'not-planted', report } : { kind: 'missed', report };
  } finally {
    await proxy.close();
  }
}

export async function detectAll(upstream: string, onRow?: (row: DetectionRow) => void): Promise<DetectionRow[]> {
  const rows: DetectionRow[] = [];
  for (const { fault, binding } of ALL_FAULTS) {
    const outcomes = {} as Record<ProfileId, Outcome>;
    for (const profile of DETECTION_PROFILES) outcomes[profile] = await detect(upstream, fault, profile);
    const row = { fault, binding, outcomes };
    onRow?.(row);
    rows.push(row);
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

/** Caught of all faults, and of those the profile's runs met. */
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
    '| fault | binding | what it plants | black-box (`--profile none`) | `--profile directives` | `--profile tck` |',
    '|---|---|---|---|---|---|',
    ...rows.map(
      (row) =>
        `| \`${row.fault.id}\` | ${row.binding} | ${row.fault.description.replaceAll('|', '\\|')} | ${DETECTION_PROFILES.map((profile) => cell(row.outcomes[profile])).join(' | ')} |`,
    ),
    '',
    '| profile | caught | of all faults | of the faults its runs met |',
    '|---|---|---|---|',
    ...DETECTION_PROFILES.map((profile) => {
      const { caught, met, all } = totals(rows, profile);
      return `| ${profile} | ${caught} | ${percent(caught, all)} (${caught}/${all}) | ${percent(caught, met)} (${caught}/${met}) |`;
    }),
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
