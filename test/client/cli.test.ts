import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { A2AClient } from '../../src/client/a2a-client.js';
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

/** Runs the CLI and sends it SIGINT once its stdout matches `when`. */
function runCliInterrupted(args: string[], when: RegExp): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    let sent = false;
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
      if (!sent && when.test(stdout)) {
        sent = true;
        child.kill('SIGINT');
      }
    });
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

  it('Ctrl-C during send --stream cancels the remote task and exits 130', async () => {
    const run = await runCliInterrupted(['send', hub.url, '::slow 100', '--stream'], /status: WORKING/);
    expect(run.code).toBe(130);
    const match = /^a2a-hub send: interrupted; task (\S+) canceled$/m.exec(run.stderr);
    expect(match, run.stderr).not.toBeNull();
    const client = await A2AClient.connect(hub.url);
    const task = await client.getTask({ id: match?.[1] ?? '' });
    expect(task.status.state).toBe('TASK_STATE_CANCELED');
  });

  it('refuses private and link-local targets with one line naming the flag that allows them', async () => {
    const metadata = await runCli(['card', 'http://169.254.169.254/latest/meta-data/']);
    expect(metadata.code).toBe(2);
    expect(metadata.stderr.trim().split('\n')).toHaveLength(1);
    expect(metadata.stderr).toMatch(/^a2a-hub card: URL policy: .*169\.254\.169\.254.*link-local.*; pass --allow-link-local to allow it$/m);
    const internal = await runCli(['send', 'http://10.0.0.5:8080/', 'hello']);
    expect(internal.code).toBe(2);
    expect(internal.stderr).toMatch(/^a2a-hub send: URL policy: .*10\.0\.0\.5.*private.*; pass --allow-private to allow it$/m);
  });

  it('accepts --allow-private and --allow-link-local and keeps loopback allowed', async () => {
    const run = await runCli(['card', hub.url, '--allow-private', '--allow-link-local']);
    expect(run.code).toBe(0);
    expect((JSON.parse(run.stdout) as { name: string }).name).toBeTruthy();
  });
});
