import type { UserConsoleLog } from 'vitest';
import type { Reporter, TestModule } from 'vitest/node';

/**
 * Prints the closing line CI reads: `N passed, N failed, N skipped`. A module that fails
 * before its tests run (an import error, a failing beforeAll) counts as one failure, so a
 * broken file can never look like a green run.
 *
 * A green run writes nothing to stderr: expected output (a warning under test, the errors an
 * @a2a-js/sdk agent logs) is captured and asserted by the test that causes it. So that a new
 * `stderr |` block is noticed rather than read past, the reporter names, just above that line,
 * every test, suite or file that wrote to stderr.
 */
export default class SummaryReporter implements Reporter {
  /** Task id (test, suite or module) → how many stderr writes it made. */
  readonly #stderrWrites = new Map<string, number>();

  onUserConsoleLog(log: UserConsoleLog): void {
    if (log.type !== 'stderr') return;
    const key = log.taskId ?? '';
    this.#stderrWrites.set(key, (this.#stderrWrites.get(key) ?? 0) + 1);
  }

  onTestRunEnd(testModules: ReadonlyArray<TestModule>, unhandledErrors: ReadonlyArray<unknown>): void {
    let passed = 0;
    let failed = unhandledErrors.length;
    let skipped = 0;
    for (const module of testModules) {
      let failedInModule = 0;
      for (const test of module.children.allTests()) {
        const state = test.result().state;
        if (state === 'passed') passed += 1;
        else if (state === 'failed') failedInModule += 1;
        else skipped += 1;
      }
      const moduleBroken = module.errors().length > 0 || (module.state() === 'failed' && failedInModule === 0);
      failed += failedInModule + (moduleBroken ? 1 : 0);
    }
    process.stdout.write(this.#stderrReport(testModules));
    process.stdout.write(`\n${passed} passed, ${failed} failed, ${skipped} skipped\n`);
  }

  #stderrReport(testModules: ReadonlyArray<TestModule>): string {
    if (this.#stderrWrites.size === 0) return '';
    const names = new Map<string, string>();
    for (const module of testModules) {
      names.set(module.id, module.relativeModuleId);
      for (const task of [...module.children.allSuites(), ...module.children.allTests()])
        names.set(task.id, `${module.relativeModuleId} > ${task.fullName}`);
    }
    const writers = [...this.#stderrWrites].map(([id, count]) => `  ${names.get(id) ?? '(outside any test file)'}: ${count}`).sort();
    return `\nwrote to stderr (a clean run writes nothing; see the "stderr |" blocks above):\n${writers.join('\n')}\n`;
  }
}
