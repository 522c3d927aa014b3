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
