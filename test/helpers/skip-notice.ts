/**
 * Says which tests a machine cannot run and how to make it able to: on stdout, since a
 * documented skip is not a problem, and the reporter counts every stderr write as one
 * (test/summary-reporter.ts). The skipped tests show in the closing line's skip count.
 */
export function skipNotice(text: string): void {
  process.stdout.write(`skipped: ${text}\n`);
}
