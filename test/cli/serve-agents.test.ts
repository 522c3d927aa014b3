import { spawn } from 'node:child_process';
import { mkdtempSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../../codegen/paths.js';
import { HEADERS, PROTOCOL_VERSION, WELL_KNOWN_AGENT_CARD_PATH } from '../../generated/a2a/1.0/protocol.js';
import type { AgentCard } from '../../generated/a2a/1.0/types.js';
import { startTestHub } from '../helpers/hub.js';
import { runCli } from '../helpers/run.js';
import { until } from '../helpers/wait.js';

/**
 * `a2a-hub serve --agents FILE` and `serve --agent FILE` as a user runs them: the declared agents
 * start with their cards, a reload (SIGHUP, --watch) applies edits, a bad file is refused.
 */

const dir = mkdtempSync(join(tmpdir(), 'a2a-hub-serve-agents-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

interface Served {
  readonly url: string;
  readonly output: () => string;
  signal(signal: NodeJS.Signals): void;
  stop(): Promise<void>;
}

/** `a2a-hub serve …` on port 0 in its own process with `env` added; resolves once its banner names the URL. */
async function serve(args: string[], env: Record<string, string> = {}): Promise<Served> {
  const child = spawn(process.execPath, [join(REPO_ROOT, 'src', 'cli', 'bin.js'), 'serve', '--port', '0', ...args], {
    cwd: REPO_ROOT,
    env: { ...process.env, A2A_HUB_LOG_LEVEL: 'error', NO_COLOR: '1', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let text = '';
  child.stdout.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
  child.stderr.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  let ended = false;
  void exited.then(() => (ended = true));
  await until(() => /Stop with Ctrl-C/.test(text) || ended, 'the banner', 30_000);
  const url = /Server URL:\s+(\S+)/.exec(text)?.[1];
  if (url === undefined || ended) throw new Error(`serve did not start:\n${text}`);
  return {
    url,
    output: () => text,
    signal: (signal) => void child.kill(signal),
    async stop() {
      child.kill('SIGTERM');
      await exited;
    },
  };
}

async function cardAt(url: string): Promise<AgentCard> {
  const response = await fetch(url);
  expect(response.status, url).toBe(200);
  return (await response.json()) as AgentCard;
}

/** The card's A2A 1.0 interfaces as binding → URL. */
function interfacesOf(card: AgentCard): Record<string, string> {
  return Object.fromEntries(
    card.supportedInterfaces
      .filter((entry) => entry.protocolVersion === PROTOCOL_VERSION)
      .map((entry) => [entry.protocolBinding, entry.url]),
  );
}

function agent(id: string, members: string): string {
  return `  - id: ${id}\n${members
    .trim()
    .split('\n')
    .map((line) => `    ${line.trim()}`)
    .join('\n')}\n`;
}

const THREE_AGENTS = `version: 1
agents:
${agent('reports', 'name: Reports\ndescription: Builds reports\nversion: "1.2.0"')}    skills:
      - id: summarize
        name: Summarize
        description: Summarizes a report
        tags: [reports]
${agent('support', 'name: Support\ndescription: Answers support questions\nversion: "0.1.0"\nendpointPath: /agents/support\nrestPath: /agents/support/rest')}${agent('triage', 'name: Triage\ndescription: Sorts incoming work\nversion: "3"\njsonRpcPath: /triage/rpc')}`;

function write(path: string, text: string): void {
  // As an editor saves: a new file renamed over the old one.
  writeFileSync(`${path}.tmp`, text);
  renameSync(`${path}.tmp`, path);
}

async function sendText(url: string, text: string, token?: string): Promise<Response> {
  return fetch(url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      [HEADERS.version]: PROTOCOL_VERSION,
      ...(token === undefined ? {} : { authorization: `Bearer ${token}` }),
    },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'SendMessage',
      params: { message: { messageId: `m-${Math.random()}`, role: 'ROLE_USER', parts: [{ text }] } },
    }),
  });
}

describe('serve --agents FILE', () => {
  it('starts the three declared agents with their cards, and applies an edit on SIGHUP', async () => {
    const file = join(dir, 'three.yaml');
    write(file, THREE_AGENTS);
    const hub = await serve(['--agents', file, '--data-dir', join(dir, 'three-data')]);
    try {
      expect(hub.output()).toContain(`Agents:       ${file}: created reports, support, triage`);
      // A data dir first started with declared agents gets no default echo agent.
      expect(hub.output()).not.toContain('/a2a/default');

      const reports = await cardAt(`${hub.url}/a2a/reports/agent-card.json`);
      expect(reports).toMatchObject({ name: 'Reports', description: 'Builds reports', version: '1.2.0' });
      expect(reports.skills).toEqual([{ id: 'summarize', name: 'Summarize', description: 'Summarizes a report', tags: ['reports'] }]);
      expect(interfacesOf(reports)).toEqual({ JSONRPC: `${hub.url}/a2a/reports`, 'HTTP+JSON': `${hub.url}/a2a/reports` });

      const support = await cardAt(`${hub.url}/agents/support/agent-card.json`);
      expect(support).toMatchObject({ name: 'Support', description: 'Answers support questions', version: '0.1.0' });
      expect(support.skills.map((skill) => skill.id)).toEqual(['chat']);
      expect(interfacesOf(support)).toEqual({ JSONRPC: `${hub.url}/agents/support`, 'HTTP+JSON': `${hub.url}/agents/support/rest` });

      const triage = await cardAt(`${hub.url}/a2a/triage/agent-card.json`);
      expect(triage).toMatchObject({ name: 'Triage', description: 'Sorts incoming work', version: '3' });
      expect(interfacesOf(triage)).toEqual({ JSONRPC: `${hub.url}/triage/rpc`, 'HTTP+JSON': `${hub.url}/a2a/triage` });
      expect((await sendText(`${hub.url}/triage/rpc`, 'hello')).status).toBe(200);

      write(file, THREE_AGENTS.replace('Builds reports', 'Builds weekly reports').replace(/ {2}- id: triage[\s\S]*$/, ''));
      hub.signal('SIGHUP');
      await until(() => hub.output().includes('SIGHUP: reloaded'), 'the reload');
      expect(hub.output()).toContain(
        `SIGHUP: reloaded ${file}: updated reports (description); unchanged support; not declared, left as they are: triage`,
      );
      expect((await cardAt(`${hub.url}/a2a/reports/agent-card.json`)).description).toBe('Builds weekly reports');

      // A file that cannot be applied changes nothing: the hub serves on as it was.
      write(file, THREE_AGENTS.replace('endpointPath: /agents/support', 'endpointPath: /a2a/reports'));
      hub.signal('SIGHUP');
      await until(() => hub.output().includes('not applied'), 'the refused reload');
      expect(hub.output()).toContain(`SIGHUP: ${file} not applied; still serving the agents as they were:`);
      expect(hub.output()).toMatch(/three\.yaml:\d+: agent "support": endpointPath \/a2a\/reports is already used by instance "reports"/);
      expect((await cardAt(`${hub.url}/agents/support/agent-card.json`)).name).toBe('Support');
    } finally {
      await hub.stop();
    }
  });

  it('with --watch applies a saved edit, and with --agents-exclusive disables what it does not declare', async () => {
    const file = join(dir, 'watched.yaml');
    const dataDir = join(dir, 'watched-data');
    // A data dir started plainly first: it has the default echo agent.
    const plain = await serve(['--data-dir', dataDir]);
    await plain.stop();
    write(file, THREE_AGENTS);
    const hub = await serve(['--agents', file, '--agents-exclusive', '--watch', '--data-dir', dataDir]);
    try {
      expect(hub.output()).toContain(`${file}: created reports, support, triage; disabled default (not declared; --agents-exclusive)`);
      expect((await fetch(`${hub.url}/a2a/default/agent-card.json`)).status).toBe(404);
      write(file, THREE_AGENTS.replace('name: Triage', 'name: Triage Desk'));
      await until(() => hub.output().includes('changed: reloaded'), 'the reload on save');
      expect(hub.output()).toContain(`changed: reloaded ${file}: updated triage (name); unchanged reports, support`);
      expect((await cardAt(`${hub.url}/a2a/triage/agent-card.json`)).name).toBe('Triage Desk');
    } finally {
      await hub.stop();
    }
  });

  it('refuses to start on a file with mistakes, naming the line and field, with exit code 2', () => {
    const file = join(dir, 'bad.yaml');
    write(file, THREE_AGENTS.replace('version: "0.1.0"', 'version: 0.1').replace('name: Triage', 'nmae: Triage'));
    const result = runCli(['serve', '--agents', file, '--port', '0', '--data-dir', join(dir, 'bad-data')]);
    expect(result.status).toBe(2);
    expect(result.stdout).not.toContain('Server URL');
    expect(result.stderr).toContain(`${file}:15: agents[1].version must be a string, got a number: write it in quotes, version: "0.1"`);
    expect(result.stderr).toMatch(/bad\.yaml:18: agents\[2\]\.name is required/);
    expect(result.stderr).toMatch(/bad\.yaml:19: agents\[2\]\.nmae is not a member of this object/);
  });

  it('refuses to start when the registry refuses an agent, and leaves the data dir usable', () => {
    const file = join(dir, 'unknown-preset.yaml');
    const dataDir = join(dir, 'unknown-preset-data');
    write(file, THREE_AGENTS.replace('name: Triage', 'name: Triage\n    preset: nowhere'));
    const result = runCli(['serve', '--agents', file, '--port', '0', '--data-dir', dataDir]);
    expect(result.status).toBe(2);
    expect(result.stderr).toMatch(/unknown-preset\.yaml:\d+: agent "triage": unknown preset "nowhere"; available: /);
    expect(result.stderr).not.toMatch(/\n\s+at /);
    // Nothing was applied, and the lock is released: a usage error on the same data dir is the next thing it says.
    const again = runCli(['serve', '--agents', file, '--watch', '--agent', file, '--data-dir', dataDir]);
    expect(again.status).toBe(2);
    expect(again.stderr.trim()).toBe('give --agents (a file of agents) or --agent (one agent), not both');
  });
});

describe('serve --agent FILE, the one-agent form of seed 002', () => {
  it('serves the agent at the well-known card with seed 002 paths, its token from --auth-token-env, and seed 002 banner', async () => {
    const file = join(dir, 'one.yaml');
    write(file, 'name: DataAgent\ndescription: DataAgent data analysis agent\nversion: "0.1.0"\npreset: echo\n');
    const hub = await serve(['--agent', file, '--auth-token-env', 'ONE_TOKEN', '--data-dir', join(dir, 'one-data')], {
      ONE_TOKEN: 's3cret',
    });
    try {
      const lines = hub.output().split('\n');
      const first = lines.indexOf('DataAgent A2A 1.0 Server');
      expect(lines.slice(first, first + 5)).toEqual([
        'DataAgent A2A 1.0 Server',
        `Server URL: ${hub.url}`,
        `AgentCard:  ${hub.url}${WELL_KNOWN_AGENT_CARD_PATH}`,
        `JSON-RPC:   ${hub.url}/a2a/jsonrpc`,
        `REST:       ${hub.url}/a2a/rest`,
      ]);
      expect(lines).toContain('Auth:       bearer token from $ONE_TOKEN, on every request but the card');
      const card = await cardAt(`${hub.url}${WELL_KNOWN_AGENT_CARD_PATH}`);
      expect(card).toMatchObject({ name: 'DataAgent', description: 'DataAgent data analysis agent', version: '0.1.0' });
      expect(interfacesOf(card)).toEqual({ JSONRPC: `${hub.url}/a2a/jsonrpc`, 'HTTP+JSON': `${hub.url}/a2a/rest` });
      expect((await sendText(`${hub.url}/a2a/jsonrpc`, 'hello')).status).toBe(401);
      expect((await sendText(`${hub.url}/a2a/jsonrpc`, 'hello', 'wrong')).status).toBe(401);
      const answered = await sendText(`${hub.url}/a2a/jsonrpc`, 'hello', 's3cret');
      expect(answered.status).toBe(200);
      expect(JSON.stringify(await answered.json())).toContain('hello');
    } finally {
      await hub.stop();
    }
  });

  it('reads seed 002 DataAgent YAML; --auth-token works with a warning and is kept as a digest only', async () => {
    const probe = await startTestHub();
    const standard = probe.presets.get('standard') !== undefined;
    await probe.dispose();
    const file = join(dir, 'agent.yaml');
    write(
      file,
      `AGENT_CONFIG:\n  name: "My Agent"\n  version: "1.0.0"\n  description: "My data analysis agent"\n  backend: "langgraph"\n  type: "react"\n\n` +
        `MODEL:\n  deepseek:\n    model_type: "chat"\n    provider: "deepseek"\n    params:\n      model: "deepseek-chat"\n\n` +
        `SCENARIO:\n  chat:\n    instructions: "You are a helpful data analysis assistant."\n`,
    );
    const args = ['--agent', file, '--auth-token', 'my-secret-token', '--jsonrpc-path', '/rpc', '--data-dir', join(dir, 'seed-data')];
    if (!standard) {
      // Until the standard preset is registered by startHub, the one clear error.
      const result = runCli(['serve', '--port', '0', ...args]);
      expect(result.status).toBe(2);
      expect(result.stderr).toMatch(/agent\.yaml:1: agent "agent": unknown preset "standard"/);
      return;
    }
    const hub = await serve(args, { DEEPSEEK_API_KEY: 'sk-test' });
    try {
      expect(hub.output()).toContain('warning: --auth-token puts the token on the command line');
      expect(hub.output()).toContain('AGENT_CONFIG backend "langgraph" and type "react" choose DataAgent\'s runtime and are ignored');
      expect(hub.output()).toContain('My Agent A2A 1.0 Server');
      expect(hub.output()).toContain(`JSON-RPC:   ${hub.url}/rpc`);
      const card = await cardAt(`${hub.url}${WELL_KNOWN_AGENT_CARD_PATH}`);
      expect(card).toMatchObject({ name: 'My Agent', description: 'My data analysis agent', version: '1.0.0' });
      expect(interfacesOf(card)).toEqual({ JSONRPC: `${hub.url}/rpc`, 'HTTP+JSON': `${hub.url}/a2a/rest` });
      expect((await fetch(`${hub.url}/a2a/rest/tasks/nope`, { headers: { [HEADERS.version]: PROTOCOL_VERSION } })).status).toBe(401);
      const known = await fetch(`${hub.url}/a2a/rest/tasks/nope`, {
        headers: { [HEADERS.version]: PROTOCOL_VERSION, authorization: 'Bearer my-secret-token' },
      });
      expect(known.status).toBe(404);
    } finally {
      await hub.stop();
    }
  });
});
