import type { ConformanceReport } from '../../generated/conformance/types.js';
import { validateConformanceReport } from '../../generated/conformance/validators.js';

/**
 * The machine-readable report (`--json FILE`), pretty-printed with a trailing newline. What is
 * written is parsed back and checked against spec/conformance/report.schema.json: a report we
 * emit must match our own published format, so a mismatch throws instead of writing it.
 * Counterexamples JSON cannot hold are made representable first (bigint → `"12n"`).
 */
export function renderJson(report: ConformanceReport): string {
  const text = `${JSON.stringify(report, (_key, value: unknown) => (typeof value === 'bigint' ? `${value}n` : value), 2)}\n`;
  const parsed: unknown = JSON.parse(text);
  if (!validateConformanceReport(parsed)) {
    const problems = (validateConformanceReport.errors ?? []).map(
      (error) => `${error.instancePath || '(root)'} ${error.message ?? 'is invalid'}`,
    );
    throw new Error(
      `internal error: the conformance report does not match spec/conformance/report.schema.json: ${problems.join('; ') || 'unknown reason'}`,
    );
  }
  return text;
}
