import { PROFILES } from '../../conformance/core/profiles.js';
import type { ConformanceReport, RequirementResult } from '../../generated/conformance/types.js';
import type { Check } from '../../conformance/core/check.js';
import { transportsFor, type BindingSelection, type ProtocolSelection } from '../../conformance/core/bindings.js';
import { runSuite, type RunOptions } from '../../conformance/core/runner.js';
import { resolveTarget, type Target } from '../../conformance/core/target.js';

/** Runs checks against the agent at `url` (card or base URL), or a target resolved before, and returns the report. */
export async function runChecks(
  url: string | Target,
  checks: readonly Check[],
  options: Partial<RunOptions> & { headers?: Record<string, string>; binding?: BindingSelection; protocol?: ProtocolSelection } = {},
): Promise<ConformanceReport> {
  const timeoutMs = options.timeoutMs ?? 5000;
  const target =
    typeof url === 'string' ? await resolveTarget(url, { timeoutMs, ...(options.headers ? { headers: options.headers } : {}) }) : url;
  // JSON-RPC in 1.0 unless asked: most harness tests plant faults in one binding's answers.
  const transports = transportsFor(
    target,
    options.binding ?? 'JSONRPC',
    { timeoutMs, ...(options.headers ? { headers: options.headers } : {}) },
    options.protocol ?? '1.0',
  );
  return runSuite(target, transports, checks, {
    level: 'may',
    runs: 20,
    seed: 42,
    timeoutMs,
    profile: PROFILES.directives,
    toolVersion: 'test',
    ...options,
  });
}

/** The results for some requirements, as `id: VERDICT — first finding` lines: readable in a failed assertion. */
export function verdicts(report: ConformanceReport, ids: readonly string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const result of report.results.filter((entry: RequirementResult) => ids.includes(entry.id))) {
    const bad = result.findings.find((finding) => finding.verdict === result.verdict);
    out[result.id] =
      result.verdict === 'PASS'
        ? 'PASS'
        : `${result.verdict} — ${bad?.message ?? ''}${bad?.observed ? ` (observed: ${bad.observed})` : ''}`;
  }
  return out;
}
