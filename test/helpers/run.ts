import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { REPO_ROOT } from '../../codegen/paths.js';

export interface RunResult {
  status: number | null;
  stdout: string;
  stderr: string;
}

/** tsx's loader by absolute URL, so a child started in another directory still finds it. */
export const TSX_LOADER = pathToFileURL(join(REPO_ROOT, 'node_modules', 'tsx', 'dist', 'loader.mjs')).href;

/** Runs a TypeScript entry point of this repository in a child process, as a user would. */
export function runTs(entry: string, args: string[], options: { cwd?: string } = {}): RunResult {
  const result = spawnSync(process.execPath, ['--import', TSX_LOADER, join(REPO_ROOT, entry), ...args], {
    cwd: options.cwd ?? REPO_ROOT,
    encoding: 'utf8',
    env: { ...process.env, NO_COLOR: '1' },
    timeout: 120_000,
  });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

export interface CliOptions {
  cwd?: string;
  /** Variables added to this process's environment. */
  env?: Record<string, string>;
  /** Run as a user without root's power to ignore file permissions (nobody, when the tests run as root). */
  unprivileged?: boolean;
}

/** The uid and gid a child runs as so that file permissions apply to it. */
export function unprivilegedIds(): { uid: number; gid: number } | undefined {
  return process.getuid?.() === 0 ? { uid: 65534, gid: 65534 } : undefined;
}

/** Runs the `a2a-hub` executable (src/cli/bin.js) with Node, as `npx a2a-hub` would. */
export function runCli(args: string[], options: CliOptions = {}): RunResult {
  const ids = options.unprivileged ? unprivilegedIds() : undefined;
  const result = spawnSync(process.execPath, [join(REPO_ROOT, 'src', 'cli', 'bin.js'), ...args], {
    cwd: options.cwd ?? REPO_ROOT,
    encoding: 'utf8',
    env: { ...process.env, NO_COLOR: '1', ...options.env },
    timeout: 120_000,
    ...ids,
  });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}
