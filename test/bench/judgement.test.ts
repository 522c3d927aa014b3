import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { bareLimit, roundOrder, roundRatios, targetVerdicts, type ScenarioResult } from './judgement.js';
import type { LoadResult } from './load.js';
import type { ScenarioName, SideResult } from './measure.js';
import { summarize } from './profile.js';
import { parseWrkOutput } from './wrk.js';

// The bench's verdicts, given measurements: none of these time anything.

function side(load: Partial<LoadResult>, cpu: { server?: number; generator?: number } = {}): SideResult {
  const full: LoadResult = {
    reqPerSec: 1000,
    p50: 1,
    p99: 2,
    p999: 3,
    p99Steady: 2,
    completed: 5000,
    sent: 5000,
    ok2xx: 5000,
    non2xx: 0,
    errors: 0,
    timeouts: 0,
    mismatches: 0,
    durationSeconds: 5,
    ...load,
  };
  return { load: full, serverCpuMicros: cpu.server ?? 0, loadgenCpuMicros: cpu.generator ?? 0, otherCpuMicros: 0 };
}

/** A scenario whose rounds had these hub and bare req/s (and hub p99 over all rounds). */
function scenario(rounds: readonly (readonly [hub: number, bare: number])[], p99 = 5): ScenarioResult {
  return {
    rounds: rounds.map(([hub, bare]) => ({ hub: side({ reqPerSec: hub }), bare: side({ reqPerSec: bare }) })),
    hub: side({ reqPerSec: rounds[0]?.[0] ?? 0, p99 }),
    bare: side({ reqPerSec: rounds[0]?.[1] ?? 0 }),
  };
}

describe('the ratio of a scenario', () => {
  it('is the median of the rounds’ ratios, not the ratio of the totals', () => {
    const result = scenario([
      [3000, 10_000],
      [9000, 10_000],
      [4000, 10_000],
    ]);
    expect(roundRatios(result).ratio).toBeCloseTo(0.4);
    expect(roundRatios(result).each.map((ratio) => Number(ratio.toFixed(2)))).toEqual([0.3, 0.9, 0.4]);
  });

  it('compares CPU per request, bare over hub', () => {
    const result: ScenarioResult = {
      rounds: [{ hub: side({ completed: 1000 }, { server: 200_000 }), bare: side({ completed: 1000 }, { server: 25_000 }) }],
      hub: side({}),
      bare: side({}),
    };
    expect(roundRatios(result).cpuRatio).toBeCloseTo(0.125);
  });
});

describe('the order of a round', () => {
  it.each([
    [1, true, ['bare', 'hub', 'sdk']],
    [2, true, ['sdk', 'hub', 'bare']],
    [3, true, ['bare', 'hub', 'sdk']],
    [1, false, ['bare', 'hub']],
    [2, false, ['hub', 'bare']],
  ] as const)('round %i (a2a-js %s): %j', (round, withSdk, want) => {
    expect(roundOrder(round, withSdk)).toEqual(want);
  });
});

describe('issue 21’s targets', () => {
  const verdictsOf = (results: [ScenarioName, ScenarioResult][]): Record<string, boolean> =>
    Object.fromEntries(targetVerdicts(new Map(results)).map((verdict) => [verdict.target, verdict.met]));

  it.each([
    ['a send at 0.30 of bare meets its ratio', 'send', scenario([[3000, 10_000]]), 'blocking SendMessage at least 0.30 of bare', true],
    ['a send at 0.29 of bare misses it', 'send', scenario([[2900, 10_000]]), 'blocking SendMessage at least 0.30 of bare', false],
    ['a send p99 of 9.9 ms meets', 'send', scenario([[1, 1]], 9.9), 'blocking SendMessage p99 under 10 ms', true],
    ['a send p99 of 10 ms misses', 'send', scenario([[1, 1]], 10), 'blocking SendMessage p99 under 10 ms', false],
    ['a stream at 0.25 meets', 'stream', scenario([[2500, 10_000]]), 'SendStreamingMessage at least 0.25 of bare', true],
    ['a stream p99 of 15 ms misses', 'stream', scenario([[1, 1]], 15), 'SendStreamingMessage p99 under 15 ms', false],
    ['a card at 0.45 meets', 'card', scenario([[4500, 10_000]]), 'agent card at least 0.45 of bare', true],
    ['a card at 0.44 misses', 'card', scenario([[4400, 10_000]]), 'agent card at least 0.45 of bare', false],
  ] as const)('%s', (_, name, result, target, met) => {
    expect(verdictsOf([[name, result]])[target]).toBe(met);
  });

  it('judges HTTP+JSON against JSON-RPC only when both ran, within 10 %', () => {
    expect(verdictsOf([['rest-send', scenario([[900, 10_000]])]])).not.toHaveProperty('rest-send within 10 % of JSON-RPC');
    const pair = (rest: number): Record<string, boolean> =>
      verdictsOf([
        ['send', scenario([[1000, 10_000]])],
        ['rest-send', scenario([[rest, 10_000]])],
      ]);
    expect(pair(900)['rest-send within 10 % of JSON-RPC']).toBe(true);
    expect(pair(899)['rest-send within 10 % of JSON-RPC']).toBe(false);
  });

  it('says nothing of a scenario that did not run', () => {
    expect(targetVerdicts(new Map())).toEqual([]);
  });
});

describe('what limited the bare reference', () => {
  it.each([
    [1.0, 0.6, 'server'],
    [0.9, 0.89, 'server'],
    [0.7, 0.95, 'generator'],
    [0.95, 0.95, 'generator'],
    [0.5, 0.5, 'neither'],
  ] as const)('server %f of a core, generator %f: %s', (server, generator, want) => {
    const bare = side({ durationSeconds: 5 }, { server: server * 5e6, generator: generator * 5e6 });
    expect(bareLimit(bare).limit).toBe(want);
  });
});

describe('a wrk run’s output', () => {
  const result =
    'WRK_RESULT {"requests":30000,"durationUs":5000000,"sent":30032,"mismatches":0,"connect":0,"read":0,"write":0,"status":3,"timeout":0,"p50":4100,"p99":15800,"p999":35600}';
  // A shell's /proc stat: its name in parentheses (with a space here), then fields 3 on; cutime 280, cstime 20.
  const stat = '4242 (s h) S 1 4242 4242 0 -1 4194304 100 0 0 0 0 0 280 20 20 0 1 0 100 1000 100';

  it('gives rates, latencies in ms, non-2xx and wrk’s own CPU', () => {
    const parsed = parseWrkOutput(`Running 5s test\n${result}\n\n${stat}\n`, 100);
    expect(parsed).toMatchObject({
      reqPerSec: 6000,
      p50: 4.1,
      p99: 15.8,
      p999: 35.6,
      completed: 30000,
      sent: 30032,
      ok2xx: 29997,
      non2xx: 3,
      durationSeconds: 5,
      loadgenCpuMicros: 3_000_000,
    });
  });

  it('is nothing without a result line', () => {
    expect(parseWrkOutput(`unable to connect\n\n${stat}\n`, 100)).toBeUndefined();
  });
});

describe('a CPU profile’s summary', () => {
  const dir = mkdtempSync(join(tmpdir(), 'a2a-hub-profile-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const url = (path: string): string => pathToFileURL(join(process.cwd(), path)).href;

  it('takes the busiest window and shares its time by module and function', () => {
    const nodes = [
      { id: 1, callFrame: { functionName: '(root)', url: '' }, children: [2, 3, 4] },
      { id: 2, callFrame: { functionName: '(idle)', url: '' } },
      { id: 3, callFrame: { functionName: 'commit', url: url('src/store/sqlite-store.ts') }, children: [5] },
      { id: 4, callFrame: { functionName: '(garbage collector)', url: '' } },
      { id: 5, callFrame: { functionName: 'run', url: url('node_modules/better-sqlite3/lib/methods/wrappers.js') } },
    ];
    // 1 ms samples: 2 s idle, then 1 s busy (60 % store, 30 % SQLite under it, 10 % GC), then 2 s idle.
    const samples = [
      ...Array<number>(2000).fill(2),
      ...Array.from({ length: 1000 }, (_, n) => (n % 10 < 6 ? 3 : n % 10 < 9 ? 5 : 4)),
      ...Array<number>(2000).fill(2),
    ];
    const file = join(dir, 'CPU.test.cpuprofile');
    writeFileSync(file, JSON.stringify({ nodes, startTime: 0, samples, timeDeltas: samples.map(() => 1000), endTime: 5e6 }));
    const summary = summarize(file, 1);
    expect(summary.busy).toBeGreaterThan(0.99);
    // The window's edge may hold one idle sample (a thousandth); the rest is the busy second.
    const shares = summary.byModule.filter(([, share]) => share >= 0.01);
    expect(Object.fromEntries(shares.map(([name, share]) => [name, Number(share.toFixed(2))]))).toEqual({
      'src/store': 0.6,
      'better-sqlite3': 0.3,
      '(garbage collector)': 0.1,
    });
    const inclusive = Object.fromEntries(summary.inclusive.map(([name, share]) => [name, Number(share.toFixed(2))]));
    expect(inclusive['commit src/store/sqlite-store.ts']).toBe(0.9);
  });
});
