import { spawn } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
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
/** A second instance beside the default one, and a bearer-protected third. */
let reverser: string;
let guarded: string;
beforeAll(async () => {
  hub = await startTestHub();
  reverser = `${hub.url}${hub.inbounds.create({ name: 'reverser', description: 'not the default agent', version: '2.0.0' }).endpointPath}`;
  const guardedId = hub.inbounds.create({ name: 'guarded', description: 'needs a token', version: '1.0.0' }).id;
  hub.inbounds.setAuth(guardedId, 'cli-secret');
  guarded = `${hub.url}${hub.inbounds.get(guardedId)?.endpointPath ?? ''}`;
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

describe('a2a-hub card / send talk to the agent of the URL given', () => {
  it("an instance's endpoint URL reads that instance's card, not the default agent's", async () => {
    const card = await runCli(['card', reverser]);
    expect(card.stderr).toBe('');
    expect(card.code).toBe(0);
    expect(JSON.parse(card.stdout)).toMatchObject({ name: 'reverser', supportedInterfaces: [{ url: reverser }, { url: reverser }] });
    const sent = await runCli(['send', reverser, 'hello']);
    expect(sent.code).toBe(0);
    const taskId = /^task: (\S+)$/m.exec(sent.stdout)?.[1] ?? '';
    const onReverser = await A2AClient.connect(`${reverser}/agent-card.json`);
    expect((await onReverser.getTask({ id: taskId })).status.state).toBe('TASK_STATE_COMPLETED');
  });

  it("the card URL itself and the origin's well-known card still work", async () => {
    const byCardUrl = await runCli(['card', `${reverser}/agent-card.json`]);
    expect(byCardUrl.code).toBe(0);
    expect((JSON.parse(byCardUrl.stdout) as { name: string }).name).toBe('reverser');
    const byOrigin = await runCli(['card', `${hub.url}/`]);
    expect(byOrigin.code).toBe(0);
    expect((JSON.parse(byOrigin.stdout) as { supportedInterfaces: { url: string }[] }).supportedInterfaces[0]?.url).toBe(hub.endpoint);
  });

  it('a path no agent is at is refused with one line naming the card that does exist', async () => {
    for (const command of [
      ['card', `${hub.url}/a2a/nope`],
      ['send', `${hub.url}/a2a/nope`, 'hello'],
    ]) {
      const run = await runCli(command);
      expect(run.code, run.stderr).toBe(2);
      expect(run.stdout).toBe('');
      expect(run.stderr.trim().split('\n')).toHaveLength(1);
      expect(run.stderr).toContain(`no agent card at ${hub.url}/a2a/nope or ${hub.url}/a2a/nope/agent-card.json;`);
      expect(run.stderr).toContain(`${hub.url}/.well-known/agent-card.json has one, so use that URL if you mean the agent it describes`);
    }
  });

  it('a bearer-protected instance without --token is an UnauthenticatedError with the hint, never a COMPLETED task', async () => {
    for (const extra of [[], ['--stream']]) {
      const run = await runCli(['send', guarded, 'hello', ...extra]);
      expect(run.code, run.stderr).toBe(1);
      expect(run.stdout).not.toContain('COMPLETED');
      expect(run.stderr).toMatch(/^a2a-hub send: UnauthenticatedError \(-32000\): .*; pass --token <token>$/m);
    }
    const refused = await runCli(['send', guarded, 'hello', '--token', 'wrong']);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/UnauthenticatedError .*; the token given with --token was refused$/m);
    const allowed = await runCli(['send', guarded, 'hello', '--token', 'cli-secret']);
    expect(allowed.code, allowed.stderr).toBe(0);
    expect(allowed.stdout).toContain('state: COMPLETED');
  });

  it('a bare JSON-RPC URL with no card anywhere is refused: the client needs a card', async () => {
    let posts = 0;
    const bare: Server = createServer((request, response) => {
      if (request.method !== 'POST') return void response.writeHead(404, { 'content-type': 'text/plain' }).end('not here');
      posts += 1;
      response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ jsonrpc: '2.0', id: 1, result: {} }));
    });
    await new Promise<void>((resolve) => bare.listen(0, '127.0.0.1', resolve));
    const origin = `http://127.0.0.1:${(bare.address() as AddressInfo).port}`;
    const url = `${origin}/rpc`;
    try {
      const run = await runCli(['send', url, 'hello']);
      expect(run.code).toBe(2);
      expect(run.stderr).toBe(
        `a2a-hub send: no agent card found for ${url}: ${url}, ${url}/agent-card.json and ${origin}/.well-known/agent-card.json answered HTTP 404\n`,
      );
      expect(posts).toBe(0);
    } finally {
      await new Promise((resolve) => bare.close(resolve));
    }
  });
});
