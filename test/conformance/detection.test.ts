import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestHub, type TestHub } from '../helpers/hub.js';
import { REPO_ROOT } from '../helpers/paths.js';
import { verdicts } from './harness.js';
import { ALL_FAULTS, detectFault, detectionTable, totals, withDetectionTable, type DetectionRow, type Outcome } from './detection.js';

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

describe('the suite against every fault, under every profile, on every binding it is planted on', () => {
  it.each(ALL_FAULTS)('$id', async (fault) => {
    const found = await detectFault(hub.url, fault);
    rows.push(...found);
    expect(found.map((row) => row.binding)).not.toHaveLength(0);
    for (const row of found) {
      const on = `${fault.id} on ${row.binding}`;
      // The test directives reach every lifecycle: every requirement the fault names is violated, with a curl reproduction.
      const directed = row.outcomes.directives;
      const report = directed.kind === 'out-of-reach' ? undefined : directed.report;
      expect(
        directed.kind === 'caught' ? [...directed.by] : verdicts(report as never, [...row.expect]),
        `${on}: ${describeOutcome(directed)}`,
      ).toEqual([...row.expect]);
      for (const id of row.expect) {
        const findings =
          report?.results
            .find((result) => result.id === id)
            ?.findings.filter(
              (finding) =>
                finding.verdict !== 'PASS' &&
                (row.binding === 'card' || finding.binding !== (row.binding === 'JSONRPC' ? 'HTTP+JSON' : 'JSONRPC')),
            ) ?? [];
        expect(
          findings.some((finding) => finding.curl?.startsWith('curl ') === true),
          `${on}: ${id} has a finding of the violation with a curl command`,
        ).toBe(true);
      }
      // A fault that needs nothing asked of the agent shows on any agent, so a black-box run catches it.
      if (fault.needs === undefined) expect(describeOutcome(row.outcomes.none), on).toBe('caught');
      // The TCK profile never misses a fault it meets.
      expect(row.outcomes.tck.kind, on).not.toBe('missed');
    }
  });

  it('plants the faults written in JSON-RPC shapes on HTTP+JSON too', () => {
    const rest = rows.filter((row) => row.binding === 'HTTP+JSON' && row.fault.view !== 'wire');
    expect(rest.length).toBeGreaterThanOrEqual(50);
  });

  it('catches at least 95 % of all rows with a cooperation profile, on each binding', () => {
    expect(new Set(rows.map((row) => row.fault.id)).size).toBe(ALL_FAULTS.length);
    for (const binding of ['JSONRPC', 'HTTP+JSON'] as const) {
      const { caught, all } = totals(
        rows.filter((row) => row.binding === binding),
        'directives',
      );
      expect(caught / all, binding).toBeGreaterThanOrEqual(0.95);
    }
  });

  it('docs/conformance.md shows the table this run measured (npm run detection rewrites it)', () => {
    const path = join(REPO_ROOT, 'docs', 'conformance.md');
    const document = readFileSync(path, 'utf8');
    expect(withDetectionTable(document, detectionTable(rows))).toBe(document);
  });
});
