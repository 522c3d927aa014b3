import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ProfileId } from '../../conformance/core/profiles.js';
import { startTestHub, type TestHub } from '../helpers/hub.js';
import { REPO_ROOT } from '../helpers/paths.js';
import { verdicts } from './harness.js';
import {
  ALL_FAULTS,
  detect,
  DETECTION_PROFILES,
  detectionTable,
  totals,
  withDetectionTable,
  type DetectionRow,
  type Outcome,
} from './detection.js';

/*
 * The suite's self-test and its published power (detection.ts): each fault planted in front of
 * the hub, the suite run behind it under every profile. With the test directives every fault is
 * caught on every requirement it names; black-box, every fault that needs nothing asked of the
 * agent is caught; and docs/conformance.md shows the table this run produces.
 */

let hub: TestHub;
const rows: DetectionRow[] = [];
beforeAll(async () => {
  hub = await startTestHub();
});
afterAll(() => hub.dispose());

function describeOutcome(outcome: Outcome): string {
  return outcome.kind === 'out-of-reach' ? `out of reach (${outcome.missing.join(', ')})` : outcome.kind;
}

describe('the suite against every fault, under every profile', () => {
  it.each(ALL_FAULTS)('$fault.id', async ({ fault, binding }) => {
    const outcomes = {} as Record<ProfileId, Outcome>;
    for (const profile of DETECTION_PROFILES) outcomes[profile] = await detect(hub.url, fault, profile);
    rows.push({ fault, binding, outcomes });

    // The test directives reach every lifecycle: every requirement the fault names is violated, with a curl reproduction.
    const directed = outcomes.directives;
    const report = directed.kind === 'out-of-reach' ? undefined : directed.report;
    expect(directed.kind === 'caught' ? [...directed.by] : verdicts(report as never, fault.expect), describeOutcome(directed)).toEqual([
      ...fault.expect,
    ]);
    for (const id of fault.expect) {
      const findings = report?.results.find((result) => result.id === id)?.findings.filter((finding) => finding.verdict !== 'PASS') ?? [];
      expect(
        findings.some((finding) => finding.curl?.startsWith('curl ') === true),
        `${id}: a finding of the violation with a curl command`,
      ).toBe(true);
    }
    // A fault that needs nothing asked of the agent shows on any agent, so a black-box run catches it.
    if (fault.needs === undefined) expect(describeOutcome(outcomes.none)).toBe('caught');
    // The TCK profile never misses a fault it meets.
    expect(outcomes.tck.kind).not.toBe('missed');
  });

  it('catches at least 95 % of all faults with a cooperation profile', () => {
    expect(rows).toHaveLength(ALL_FAULTS.length);
    const { caught, all } = totals(rows, 'directives');
    expect(caught / all).toBeGreaterThanOrEqual(0.95);
  });

  it('docs/conformance.md shows the table this run measured (npm run detection rewrites it)', () => {
    const path = join(REPO_ROOT, 'docs', 'conformance.md');
    const document = readFileSync(path, 'utf8');
    expect(withDetectionTable(document, detectionTable(rows))).toBe(document);
  });
});
