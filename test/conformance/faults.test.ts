import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ConformanceReport, RequirementResult } from '../../generated/conformance/types.js';
import { runConformance, type ConformOptions } from '../../conformance/suite.js';
import { startTestHub, type TestHub } from '../helpers/hub.js';
import { startSdkAgent, type SdkAgent } from '../interop/sdk-agent.js';
import { FAULTS, REST_FAULTS, startFaultProxy, type Fault } from './fault-proxy.js';
import { verdicts } from './harness.js';

/*
 * The suite's self-test: a proxy in front of the hub (a correct agent) plants one fault at a
 * time (detection.test.ts runs every fault under every profile). Here: the clean proxy makes
 * no requirement FAIL under any profile, each whole run within a minute, and the HTTP+JSON
 * faults are caught in front of another implementation too.
 */

let hub: TestHub;
beforeAll(async () => {
  hub = await startTestHub();
});
afterAll(async () => {
  await hub.dispose();
});

async function throughProxy(fault: Fault | undefined, options: ConformOptions, upstream = hub.url): Promise<ConformanceReport> {
  const proxy = await startFaultProxy(upstream, fault);
  try {
    return (await runConformance(proxy.url, options)).report;
  } finally {
    await proxy.close();
  }
}

describe('the conformance suite against a fault-injecting proxy in front of the hub', () => {
  it.each(['none', 'directives', 'tck'] as const)(
    'finds nothing wrong through the clean proxy under --profile %s, within a minute',
    async (profile) => {
      const report = await throughProxy(undefined, { runs: 10, seed: 1, profile });
      const bad = report.results
        .filter((result: RequirementResult) => result.verdict === 'FAIL' || result.verdict === 'ERROR')
        .map((result) => result.id);
      expect(verdicts(report, bad)).toEqual({});
      expect(report.summary.PASS).toBeGreaterThan(profile === 'none' ? 80 : 90);
      expect(report.durationMs).toBeLessThan(60_000);
    },
    120_000,
  );

  // Each fault is planted under every profile in detection.test.ts.
  it('lists distinct faults, at least 25', () => {
    const ids = [...FAULTS, ...REST_FAULTS].map((fault) => fault.id);
    expect(new Set(ids).size).toBe(ids.length);
    expect(FAULTS.length).toBeGreaterThanOrEqual(25);
  });
});

/*
 * The HTTP+JSON faults, planted in front of sdk-echo's REST interface (the @a2a-js/sdk agent of
 * test/interop/sdk-agent.ts) until the hub serves that binding itself. Each requirement a fault
 * names passes through the clean proxy, so its FAIL is the fault's.
 */
describe('the conformance suite over HTTP+JSON against a fault-injecting proxy in front of an @a2a-js/sdk agent', () => {
  let agent: SdkAgent;
  beforeAll(async () => {
    agent = await startSdkAgent({ bindings: ['JSONRPC', 'HTTP+JSON'] });
  });
  afterAll(() => agent?.close());
  const restRun = (fault: Fault | undefined, only: readonly string[]): ConformOptions => ({
    runs: 10,
    seed: 1,
    cooperative: true,
    timeoutMs: 5000,
    // Both bindings, so that REST-ENV-008 can compare them; the REST checks run on HTTP+JSON only.
    binding: 'all',
    only,
  });

  it('fails no requirement a REST fault names through the clean proxy', async () => {
    const named = [...new Set(REST_FAULTS.flatMap((fault) => fault.expect))];
    const report = await throughProxy(undefined, restRun(undefined, named), agent.url);
    // REST-ENV-003 warns: the SDK sends no BadRequest with its validation errors (docs/conformance.md).
    const bad = report.results.filter((result) => named.includes(result.id) && !['PASS', 'WARN'].includes(result.verdict));
    expect(
      verdicts(
        report,
        bad.map((result) => result.id),
      ),
    ).toEqual({});
    expect(report.target.interfaces?.map((entry) => entry.binding)).toEqual(['JSONRPC', 'HTTP+JSON']);
  });

  it.each(REST_FAULTS)('$id: $description → FAIL $expect', async (fault) => {
    const report = await throughProxy(fault, restRun(fault, fault.expect), agent.url);
    expect(verdicts(report, fault.expect)).toEqual(Object.fromEntries(fault.expect.map((id) => [id, expect.stringMatching(/^FAIL/)])));
    for (const id of fault.expect) {
      const failures = report.results.find((result) => result.id === id)?.findings.filter((finding) => finding.verdict === 'FAIL') ?? [];
      // Made on the HTTP+JSON run, or by the comparison of the two (which belongs to neither).
      expect(failures.some((finding) => finding.binding !== 'JSONRPC' && finding.curl?.startsWith('curl ') === true)).toBe(true);
    }
  });
});
