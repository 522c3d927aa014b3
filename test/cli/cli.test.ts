import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../../codegen/paths.js';
import { runCli } from '../helpers/run.js';

describe('the a2a-hub command', () => {
  it('--help lists the generate command', () => {
    const result = runCli(['--help']);
    expect(result.status).toBe(0);
    expect(result.stdout).toContain('Usage: a2a-hub');
    expect(result.stdout).toMatch(/generate \[options\]\s+compile spec\/ into generated\//);
  });

  it('--version prints the package version', () => {
    const { version } = JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as { version: string };
    const result = runCli(['--version']);
    expect(result.status).toBe(0);
    expect(result.stdout.trim()).toBe(version);
  });

  it('generate --check passes on this checkout', () => {
    const result = runCli(['generate', '--check']);
    expect(result.stderr).toBe('');
    expect(result.stdout).toMatch(/generated\/ is up to date with spec\/ \(\d+ files\)/);
    expect(result.status).toBe(0);
  });

  it('an unknown command fails with a message, not a stack trace', () => {
    const result = runCli(['serve-everything']);
    expect(result.status).not.toBe(0);
    expect(result.stderr).toContain("unknown command 'serve-everything'");
    expect(result.stderr).not.toMatch(/\n\s+at /);
  });
});

/** Runs the CLI in a child without blocking the others: the usage errors below run side by side. */
function runCliAsync(args: string[]): Promise<{ status: number | null; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [join(REPO_ROOT, 'src', 'cli', 'bin.js'), ...args],
      { env: { ...process.env, NO_COLOR: '1' } },
      (error, _stdout, stderr) => {
        resolve({ status: error === null ? 0 : typeof error.code === 'number' ? error.code : null, stderr });
      },
    );
  });
}

/** Given a usage error, want exit 2 (1 is a MUST failure's code for conform, and a failed task's for send) and what commander says. */
const USAGE_ERRORS: readonly { readonly args: readonly string[]; readonly says: RegExp }[] = [
  { args: ['conform', 'http://127.0.0.1:9', '--no-such-option'], says: /unknown option '--no-such-option'/ },
  { args: ['conform'], says: /missing required argument 'url'/ },
  { args: ['send', 'http://127.0.0.1:9', 'hi', '--no-such-option'], says: /unknown option '--no-such-option'/ },
  { args: ['send'], says: /missing required argument 'url'/ },
  { args: ['card', '--no-such-option', 'http://127.0.0.1:9'], says: /unknown option '--no-such-option'/ },
  { args: ['card'], says: /missing required argument 'url'/ },
  { args: ['serve', '--no-such-option'], says: /unknown option '--no-such-option'/ },
  { args: ['serve', 'surplus'], says: /too many arguments/ },
  { args: ['push'], says: /Usage: a2a-hub push/ },
  { args: ['serve-everything'], says: /unknown command 'serve-everything'/ },
];

describe('usage errors', () => {
  it('exit 2 on every command, with what was wrong and no stack trace', { timeout: 120_000 }, async () => {
    const results = await Promise.all(USAGE_ERRORS.map(({ args }) => runCliAsync([...args])));
    USAGE_ERRORS.forEach(({ args, says }, index) => {
      const result = results[index];
      expect({ args, status: result?.status }).toEqual({ args, status: 2 });
      expect(result?.stderr, args.join(' ')).toMatch(says);
      expect(result?.stderr, args.join(' ')).not.toMatch(/\n\s+at \S+:\d+:\d+/);
    });
  });
});
