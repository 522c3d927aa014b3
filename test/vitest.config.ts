import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    root: new URL('..', import.meta.url).pathname,
    include: ['test/**/*.test.ts'],
    reporters: ['default', './test/summary-reporter.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // Two test files at a time even on two cores (vitest's default would be one there): most files
    // wait on child processes, sockets and timers rather than compute, and the whole run takes
    // about 10 minutes instead of 18, which keeps CI inside its 20.
    maxWorkers: 2,
  },
});
