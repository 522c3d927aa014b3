import { spawn } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AgentCard } from '../../generated/a2a/1.0/types.js';
import { A2AClient } from '../../src/client/a2a-client.js';
import { fillRoute, routeOf } from '../../src/protocol/rest-routes.js';
import { startTestHub, type TestHub } from '../helpers/hub.js';
import { startSdkAgent } from '../interop/sdk-agent.js';
import { startWebhookReceiver } from '../../conformance/core/webhook-receiver.js';
import { WEBHOOK_SECRET_HEADER } from '../../src/client/a2a-client.js';
import { fakeAgent, fakeRestAgent, fakeRestCard, reply, replyRest, taskFrame, type RestHandler } from './fake-agent.js';

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
  reverser = `${hub.url}${(await hub.inbounds.create({ name: 'reverser', description: 'not the default agent', version: '2.0.0' })).endpointPath}`;
  const guardedId = (await hub.inbounds.create({ name: 'guarded', description: 'needs a token', version: '1.0.0' })).id;
  await hub.inbounds.setAuth(guardedId, 'cli-secret');
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
    expect(JSON.parse(card.stdout)).toMatchObject({
      name: 'reverser',
      supportedInterfaces: [{ url: reverser }, { url: reverser }, { url: reverser }, { url: reverser }],
    });
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

describe('a2a-hub card / send with a choice of bindings', () => {
  const completed = {
    id: 't1',
    contextId: 'c1',
    status: { state: 'TASK_STATE_COMPLETED' },
    artifacts: [{ artifactId: 'a1', parts: [{ text: 'over rest' }] }],
  };
  /** A card listing HTTP+JSON first, then JSON-RPC at <url>/rpc, both answered by one scripted agent. */
  const bothBindings = (rest: string): AgentCard => ({
    ...fakeRestCard(rest),
    supportedInterfaces: [
      { url: rest, protocolBinding: 'HTTP+JSON', protocolVersion: '1.0', tenant: 'acme' },
      { url: rest.replace(/\/rest$/, '/rpc'), protocolBinding: 'JSONRPC', protocolVersion: '1.0' },
    ],
  });
  const answerBoth: RestHandler = (call, res) => {
    if (call.path !== '/rpc') replyRest(res, { task: completed });
    else replyRest(res, { jsonrpc: '2.0', id: (call.body as { id: unknown }).id, result: { task: completed } });
  };

  it('send talks HTTP+JSON to a REST-only agent, and --binding picks an interface of a card that lists both', async () => {
    const restOnly = await fakeRestAgent((_call, res) => replyRest(res, { task: completed }));
    const both = await fakeRestAgent(answerBoth, bothBindings);
    try {
      const rest = await runCli(['send', restOnly.url, 'hello']);
      expect(rest.stderr).toBe('');
      expect(rest.code).toBe(0);
      expect(rest.stdout).toContain('over rest');
      expect(restOnly.calls.map((call) => `${call.verb} ${call.path}`)).toEqual([`POST ${fillRoute(routeOf('SendMessage', false), {})}`]);
      const viaJsonRpc = await runCli(['send', both.url, 'hello', '--binding', 'JSONRPC']);
      expect(viaJsonRpc.code).toBe(0);
      const viaRest = await runCli(['send', both.url, 'hello', '--binding', 'http+json']);
      expect(viaRest.code).toBe(0);
      expect(both.calls.map((call) => call.path)).toEqual(['/rpc', fillRoute(routeOf('SendMessage', true), { tenant: 'acme' })]);
    } finally {
      await restOnly.close();
      await both.close();
    }
  });

  it('--binding with a value it does not know is a usage error; one the card does not declare is refused naming what it declares', async () => {
    const restOnly = await fakeRestAgent((_call, res) => replyRest(res, { task: completed }));
    try {
      const unknown = await runCli(['send', restOnly.url, 'hello', '--binding', 'grpc']);
      expect(unknown.code).toBe(2);
      expect(unknown.stderr).toBe('a2a-hub send: --binding takes jsonrpc or http+json, not "grpc"\n');
      const undeclared = await runCli(['send', restOnly.url, 'hello', '--binding', 'jsonrpc']);
      expect(undeclared.code).toBe(1);
      expect(undeclared.stderr.trim().split('\n')).toHaveLength(1);
      expect(undeclared.stderr).toMatch(/declares no JSONRPC interface for protocol version 1\.x or 0\.3; it declares HTTP\+JSON 1\.0/);
      const card = await runCli(['card', restOnly.url, '--binding', 'jsonrpc']);
      expect(card.code).toBe(1);
      expect(card.stderr).toMatch(/declares no JSONRPC interface .*it declares HTTP\+JSON 1\.0/);
      expect(restOnly.calls).toHaveLength(0);
    } finally {
      await restOnly.close();
    }
  });

  it('send --stream streams from a REST-only @a2a-js/sdk agent', async () => {
    const sdk = await startSdkAgent({ bindings: ['HTTP+JSON'] });
    try {
      const run = await runCli(['send', sdk.url, 'streamed over rest', '--stream']);
      expect(run.stderr).toBe('');
      expect(run.code).toBe(0);
      expect(run.stdout).toContain('echo: streamed over rest');
      expect(run.stdout).toContain('final state: COMPLETED');
    } finally {
      await sdk.close();
    }
  });

  it('card --interfaces lists every interface in the card order, marking the one send would use', async () => {
    const both = await fakeRestAgent(answerBoth, bothBindings);
    try {
      const listed = await runCli(['card', both.url, '--interfaces']);
      expect(listed.code).toBe(0);
      expect(listed.stdout).toBe(`* HTTP+JSON 1.0 ${both.interfaceUrl} tenant=acme\n  JSONRPC 1.0 ${both.url}/rpc\n`);
      const preferred = await runCli(['card', both.url, '--interfaces', '--binding', 'jsonrpc']);
      expect(preferred.stdout).toBe(`  HTTP+JSON 1.0 ${both.interfaceUrl} tenant=acme\n* JSONRPC 1.0 ${both.url}/rpc\n`);
      const none03 = await runCli(['card', both.url, '--interfaces', '--protocol', '0.3']);
      expect([none03.code, none03.stderr]).toEqual([
        1,
        expect.stringMatching(
          /declares no JSONRPC or HTTP\+JSON interface for protocol version 0\.3; it declares HTTP\+JSON 1\.0, JSONRPC 1\.0; send cannot use it\n$/,
        ),
      ]);
    } finally {
      await both.close();
    }
  });

  it('--protocol 0.3 speaks 0.3 to a dual-stack agent, on the binding --binding names; a version the client does not speak is a usage error', async () => {
    const listed = await runCli(['card', hub.url, '--interfaces', '--protocol', '0.3', '--binding', 'http+json']);
    expect(listed.stdout.split('\n').filter((line) => line.startsWith('*'))).toEqual([`* HTTP+JSON 0.3 ${hub.endpoint}`]);
    const sent = await runCli(['send', hub.url, 'in 0.3', '--protocol', '0.3', '--binding', 'http+json']);
    expect(sent.code, sent.stderr).toBe(0);
    expect(sent.stdout).toContain('echo: in 0.3');
    // The task it made is the one a 1.0 caller reads: the hub holds one task whichever version made it.
    const taskId = /task: (\S+)/.exec(sent.stdout)?.[1] ?? '';
    const as10 = await fetch(`${hub.endpoint}/tasks/${taskId}`, { headers: { 'a2a-version': '1.0' } });
    expect(((await as10.json()) as { status: { state: string } }).status.state).toBe('TASK_STATE_COMPLETED');
    const wrong = await runCli(['send', hub.url, 'x', '--protocol', '2.0']);
    expect([wrong.code, wrong.stderr]).toEqual([2, 'a2a-hub send: --protocol takes 1.0 or 0.3, not "2.0"\n']);
  });
});

describe('a2a-hub send --push-url and a2a-hub push', () => {
  it('send --push-url registers an inline config the webhook then hears from, and push list / get / delete manage it', async () => {
    const sdk = await startSdkAgent({ push: true, bindings: ['JSONRPC', 'HTTP+JSON'] });
    const receiver = await startWebhookReceiver();
    try {
      const inbox = receiver.inbox();
      const sent = await runCli([
        'send',
        sdk.url,
        'hello',
        '--push-url',
        inbox.url,
        '--push-token',
        'tok',
        '--push-auth',
        'Bearer hook-secret',
      ]);
      expect(sent.stderr).toBe('');
      expect(sent.code).toBe(0);
      const taskId = /^task: (\S+)$/m.exec(sent.stdout)?.[1] ?? '';
      const configId = /^push config: (\S+)$/m.exec(sent.stdout)?.[1] ?? '';
      expect(configId).toMatch(/^[0-9a-f-]{36}$/);
      const deliveries = await inbox.waitFor((list) => list.some((delivery) => delivery.bodyText.includes('TASK_STATE_COMPLETED')), 10_000);
      expect(deliveries.map((delivery) => delivery.headers['authorization'])).toContain('Bearer hook-secret');

      const listed = await runCli(['push', 'list', sdk.url, taskId, '--binding', 'http+json']);
      expect(listed.code).toBe(0);
      expect((JSON.parse(listed.stdout) as { id: string; url: string }[]).map((config) => [config.id, config.url])).toEqual([
        [configId, inbox.url],
      ]);
      const got = await runCli(['push', 'get', sdk.url, taskId, configId]);
      expect(got.code).toBe(0);
      expect(JSON.parse(got.stdout)).toMatchObject({ id: configId, taskId, url: inbox.url });
      const deleted = await runCli(['push', 'delete', sdk.url, taskId, configId]);
      expect(deleted.stdout).toBe(`deleted push config ${configId} of task ${taskId}\n`);
      const gone = await runCli(['push', 'get', sdk.url, taskId, configId]);
      expect(gone.code).toBe(1);
      expect(gone.stderr).toMatch(/^a2a-hub push get: TaskNotFoundError \(-32001\): /);
    } finally {
      await receiver.close();
      await sdk.close();
    }
  });

  it('send --push-url --stream prints the signing secret an a2a-hub answer carries, once, on stderr', async () => {
    const task = taskFrame('TASK_STATE_COMPLETED').task;
    const fake = await fakeAgent((call, res) => {
      res.setHeader(WEBHOOK_SECRET_HEADER, 'whsec_cli');
      if (call.method === 'SendMessage') return reply(res, call, { task });
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.end(`data: ${JSON.stringify({ jsonrpc: '2.0', id: call.id, result: { task } })}\n\n`);
    });
    try {
      for (const stream of [[], ['--stream']]) {
        const run = await runCli(['send', fake.url, 'hello', '--push-url', 'https://hooks.example/a2a', ...stream]);
        expect(run.code).toBe(0);
        const configId = /^push config: (\S+)$/m.exec(run.stdout)?.[1] ?? '';
        expect(run.stderr).toBe(`a2a-hub send: webhook signing secret of push config ${configId} (shown once, keep it): whsec_cli\n`);
        expect(run.stdout).not.toContain('whsec_cli');
      }
      expect(
        fake.calls.map((call) => (call.params['configuration'] as { taskPushNotificationConfig?: unknown }).taskPushNotificationConfig),
      ).toEqual([
        expect.objectContaining({ url: 'https://hooks.example/a2a' }),
        expect.objectContaining({ url: 'https://hooks.example/a2a' }),
      ]);
    } finally {
      await fake.close();
    }
  });

  it.each([
    [['--push-url', 'ftp://hooks.example/'], '--push-url takes an http or https URL, got ftp'],
    [['--push-url', 'hooks.example'], '--push-url takes an absolute http(s) URL, got "hooks.example"'],
    [
      ['--push-url', 'https://user:pw@hooks.example/'],
      '--push-url must not carry credentials; give them with --push-auth "SCHEME CREDENTIALS"',
    ],
    [['--push-token', 'tok'], '--push-token and --push-auth describe the webhook of --push-url, which is missing'],
    [
      ['--push-url', 'https://hooks.example/', '--push-auth', 'Bad/Scheme x'],
      '--push-auth takes "SCHEME CREDENTIALS" with an HTTP auth scheme such as Bearer or Basic, got scheme "Bad/Scheme"',
    ],
  ])('send %j is a usage error that sends nothing', async (flags, message) => {
    const fake = await fakeAgent((call, res) => reply(res, call, { task: taskFrame('TASK_STATE_COMPLETED').task }));
    try {
      const run = await runCli(['send', fake.url, 'hello', ...flags]);
      expect(run.code).toBe(2);
      expect(run.stderr).toBe(`a2a-hub send: ${message}\n`);
      expect(fake.calls).toEqual([]);
    } finally {
      await fake.close();
    }
  });
});
