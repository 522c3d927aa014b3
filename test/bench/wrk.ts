import { execFile, execFileSync, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { LoadGenerator, LoadResult, LoadSpec } from './load.js';

/**
 * wrk as the bench's load generator: C, one thread, and it keeps up with the bare responder on
 * these 2 cores where autocannon (JavaScript, in the bench's own process) became the limit.
 * Bodies are numbered and every response is checked by test/bench/wrk.lua; the CPU wrk used
 * is read from its parent shell's /proc stat once wrk has exited (cutime + cstime).
 */

const SCRIPT = fileURLToPath(new URL('./wrk.lua', import.meta.url));

/** The wrk binary, installed from Debian when missing and this process may (root with apt-get); undefined when it cannot be had. */
export function findWrk(log: (line: string) => void): string | undefined {
  const found = spawnSync('sh', ['-c', 'command -v wrk'], { encoding: 'utf8' }).stdout.trim();
  if (found !== '') return found;
  if (process.getuid?.() !== 0 || !existsSync('/usr/bin/apt-get')) return undefined;
  log('installing wrk (apt-get install wrk)…');
  try {
    execFileSync('apt-get', ['install', '-y', '-qq', '--no-install-recommends', 'wrk'], { stdio: 'ignore', timeout: 180_000 });
  } catch {
    return undefined;
  }
  return existsSync('/usr/bin/wrk') ? '/usr/bin/wrk' : undefined;
}

interface WrkResult {
  readonly requests: number;
  readonly durationUs: number;
  readonly sent: number;
  readonly mismatches: number;
  readonly connect: number;
  readonly read: number;
  readonly write: number;
  readonly status: number;
  readonly timeout: number;
  readonly p50: number;
  readonly p99: number;
  readonly p999: number;
}

let ticksPerSecond: number | undefined;

export function wrkGenerator(wrk: string): LoadGenerator {
  return { name: 'wrk', describe: `wrk (${wrk}), 1 thread, its own process`, run: (spec) => runWrk(wrk, spec) };
}

function runWrk(wrk: string, spec: LoadSpec): Promise<LoadResult> {
  ticksPerSecond ??= Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
  const ticks = ticksPerSecond;
  const headers = Object.entries(spec.headers ?? {}).flatMap(([name, value]) => ['-H', `${name}: ${value}`]);
  const args = [
    '-t1',
    `-c${spec.connections}`,
    `-d${spec.durationSeconds}s`,
    '--timeout',
    '10s',
    '-s',
    SCRIPT,
    ...headers,
    spec.url,
    '--',
    spec.method,
    spec.body?.prefix ?? '',
    spec.body?.suffix ?? '',
    spec.verify.marker,
    spec.verify.ending ?? '',
  ];
  // The shell reports its own stat after waiting for wrk: cutime and cstime are wrk's CPU.
  const script = `"${wrk}" "$@"; status=$?; echo; cat /proc/$$/stat; exit $status`;
  return new Promise((resolve, reject) => {
    execFile(
      'sh',
      ['-c', script, 'sh', ...args],
      { encoding: 'utf8', timeout: (spec.durationSeconds + 30) * 1000, maxBuffer: 1 << 20 },
      (error, stdout, stderr) => {
        const result = error === null ? parseWrkOutput(stdout, ticks) : undefined;
        if (result === undefined) {
          reject(new Error(`wrk failed (${error?.message ?? 'no result line'}): ${stderr || stdout}`.slice(0, 2000)));
          return;
        }
        resolve(result);
      },
    );
  });
}

/**
 * What one wrk run printed: the WRK_RESULT line of test/bench/wrk.lua (counts, errors, latency
 * percentiles in µs) and, last, its parent shell's /proc stat line, whose cutime and cstime
 * (fields 16 and 17, in clock ticks) are wrk's CPU. Undefined without a result line.
 */
export function parseWrkOutput(stdout: string, ticks: number): LoadResult | undefined {
  const line = stdout.split('\n').find((one) => one.startsWith('WRK_RESULT '));
  if (line === undefined) return undefined;
  const result = JSON.parse(line.slice('WRK_RESULT '.length)) as WrkResult;
  const stat = stdout.trimEnd().split('\n').at(-1) ?? '';
  // After the command name in parentheses, which may hold spaces: field 3 on.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const loadgenCpuMicros = ((Number(fields[13]) + Number(fields[14])) / ticks) * 1e6;
  const durationSeconds = result.durationUs / 1e6;
  return {
    reqPerSec: result.requests / durationSeconds,
    p50: result.p50 / 1000,
    p99: result.p99 / 1000,
    p999: result.p999 / 1000,
    // wrk keeps no record per connection to leave first requests out by.
    p99Steady: result.p99 / 1000,
    completed: result.requests,
    sent: result.sent,
    ok2xx: result.requests - result.status,
    non2xx: result.status,
    errors: result.connect + result.read + result.write,
    timeouts: result.timeout,
    mismatches: result.mismatches,
    durationSeconds,
    loadgenCpuMicros,
  };
}
