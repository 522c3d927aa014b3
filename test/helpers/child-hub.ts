import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { REPO_ROOT } from '../../codegen/paths.js';
import { TSX_LOADER } from './run.js';

export interface ChildHub {
  readonly process: ChildProcess;
  readonly url: string;
  readonly output: () => string;
  /** Resolves with the exit code (or signal) once the process has ended. */
  readonly exited: Promise<number | NodeJS.Signals>;
}

/**
 * Runs `a2a-hub serve` in a separate process, as a user would, so a test can kill -9 it or
 * send it SIGTERM. Resolves once the banner has printed the URL.
 */
export function spawnHub(dataDir: string, extraArgs: string[] = []): Promise<ChildHub> {
  return spawnUntilUrl(
    [join(REPO_ROOT, 'src', 'cli', 'bin.js'), 'serve', '--port', '0', '--data-dir', dataDir, ...extraArgs],
    REPO_ROOT,
    /Server URL:\s+(\S+)/,
  );
}

/** Runs `a2a-hub <args>` in a separate process; resolves once `urlLine` has matched its stdout. */
export function spawnCliUntilUrl(args: string[], urlLine: RegExp): Promise<ChildHub> {
  return spawnUntilUrl([join(REPO_ROOT, 'src', 'cli', 'bin.js'), ...args], REPO_ROOT, urlLine);
}

/** Runs a TypeScript file with tsx in `cwd`, as `npx tsx <file>` would; resolves once `urlLine` has matched. */
export function spawnTsUntilUrl(file: string, cwd: string, urlLine: RegExp): Promise<ChildHub> {
  return spawnUntilUrl(['--import', TSX_LOADER, file], cwd, urlLine);
}

/** Starts Node with `args` and resolves with the first capture of `urlLine` in its stdout. */
async function spawnUntilUrl(args: string[], cwd: string, urlLine: RegExp): Promise<ChildHub> {
  const child = spawn(process.execPath, args, {
    cwd,
    env: { ...process.env, A2A_HUB_LOG_LEVEL: 'warn' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let text = '';
  child.stdout.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
  child.stderr.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
  const exited = new Promise<number | NodeJS.Signals>((resolve) => child.once('exit', (code, signal) => resolve(signal ?? code ?? -1)));
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the process did not start in time:\n${text}`)), 30_000);
    const check = (): void => {
      const match = urlLine.exec(text);
      if (match?.[1]) {
        clearTimeout(timer);
        child.stdout.off('data', check);
        resolve(match[1]);
      }
    };
    child.stdout.on('data', check);
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`the process exited (${code}) before it started:\n${text}`));
    });
  });
  return { process: child, url, output: () => text, exited };
}
