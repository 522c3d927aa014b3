import type { Reporter, TestModule } from 'vitest/node';

/**
 * Prints the closing line CI reads: `N passed, N failed, N skipped`. A module that fails
 * before its tests run (an import error, a failing beforeAll) counts as one failure, so a
 * broken file can never look like a green run.
 */
export default class SummaryReporter implements Reporter {
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
    process.stdout.write(`\n${passed} passed, ${failed} failed, ${skipped} skipped\n`);
  }
}
