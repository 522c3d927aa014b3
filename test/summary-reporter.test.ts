import type { UserConsoleLog } from 'vitest';
import type { TestModule } from 'vitest/node';
import { afterEach, describe, expect, it, vi } from 'vitest';
import SummaryReporter from './summary-reporter.js';

/** A module as the reporter reads it: one suite holding the given passing tests. */
function fakeModule(id: string, path: string, tests: readonly { id: string; fullName: string }[]): TestModule {
  const cases = tests.map((test) => ({ ...test, result: () => ({ state: 'passed' }) }));
  return {
    id,
    relativeModuleId: path,
    errors: () => [],
    state: () => 'passed',
    children: { allTests: () => cases, allSuites: () => [{ id: `${id}-suite`, fullName: 'suite' }] },
  } as unknown as TestModule;
}

function log(type: UserConsoleLog['type'], taskId?: string): UserConsoleLog {
  return { type, content: 'a line\n', time: 0, size: 7, ...(taskId === undefined ? {} : { taskId }) };
}

/** What the reporter writes at the end of the run. */
function endOfRun(reporter: SummaryReporter, modules: readonly TestModule[]): string {
  const write = vi.spyOn(process.stdout, 'write').mockImplementation(() => true);
  reporter.onTestRunEnd(modules, []);
  const text = write.mock.calls.map(([chunk]) => String(chunk)).join('');
  write.mockRestore();
  return text;
}

describe('the summary reporter', () => {
  afterEach(() => vi.restoreAllMocks());
  const module = fakeModule('m1', 'test/a.test.ts', [
    { id: 't1', fullName: 'suite > writes a warning' },
    { id: 't2', fullName: 'suite > is quiet' },
  ]);

  it('ends with the counts only when nothing wrote to stderr', () => {
    const reporter = new SummaryReporter();
    reporter.onUserConsoleLog(log('stdout', 't2'));
    expect(endOfRun(reporter, [module])).toBe('\n2 passed, 0 failed, 0 skipped\n');
  });

  it('names every test, suite and file that wrote to stderr, above the counts', () => {
    const reporter = new SummaryReporter();
    reporter.onUserConsoleLog(log('stderr', 't1'));
    reporter.onUserConsoleLog(log('stderr', 't1'));
    reporter.onUserConsoleLog(log('stderr', 'm1-suite'));
    reporter.onUserConsoleLog(log('stderr', 'm1'));
    reporter.onUserConsoleLog(log('stderr'));
    const lines = endOfRun(reporter, [module]).split('\n');
    expect(lines.at(-2)).toBe('2 passed, 0 failed, 0 skipped');
    expect(lines).toContain('wrote to stderr (a clean run writes nothing; see the "stderr |" blocks above):');
    expect(lines).toEqual(
      expect.arrayContaining([
        '  test/a.test.ts > suite > writes a warning: 2',
        '  test/a.test.ts > suite: 1',
        '  test/a.test.ts: 1',
        '  (outside any test file): 1',
      ]),
    );
    expect(lines.join('\n')).not.toContain('is quiet');
  });
});
