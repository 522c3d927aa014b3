import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestHub, type TestHub } from '../helpers/hub.js';

const BIN = fileURLToPath(new URL('../../src/cli/bin.js', import.meta.url));

interface Run {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs the CLI asynchronously: the hub lives in this process, so a sync spawn would deadlock. */
function runCli(args: string[]): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

let hub: TestHub;
beforeAll(async () => {
  hub = await startTestHub();
});
afterAll(async () => {
  await hub.dispose();
});

describe('a2a-hub card / send', () => {
  it('card prints the validated card', async () => {
    const run = await runCli(['card', hub.url]);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    const card = JSON.parse(run.stdout) as { name: string };
    expect(card.name).toBeTruthy();
  });

  it('send prints the echo text and the ids', async () => {
    const run = await runCli(['send', hub.url, 'hello']);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('state: COMPLETED');
    expect(run.stdout).toContain('echo: hello');
    expect(run.stdout).toMatch(/task: \S+/);
    expect(run.stdout).toMatch(/context: \S+/);
  });

  it('send --stream shows the text as it arrives', async () => {
    const run = await runCli(['send', `${hub.endpoint}/agent-card.json`, 'hello stream\n::chunks 3', '--stream']);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('echo: hello stream');
    expect(run.stdout).toContain('final state: COMPLETED');
  });

  it('send "::fail" exits 1', async () => {
    const run = await runCli(['send', hub.url, '::fail']);
    expect(run.code).toBe(1);
    expect(run.stdout).toContain('state: FAILED');
  });

  it('an unreachable URL exits 2 with one line', async () => {
    const run = await runCli(['send', 'http://127.0.0.1:9/', 'hello']);
    expect(run.code).toBe(2);
    expect(run.stderr.trim().split('\n')).toHaveLength(1);
    expect(run.stderr).toMatch(/not reachable/);
    const card = await runCli(['card', 'http://127.0.0.1:9/']);
    expect(card.code).toBe(2);
  });
});
