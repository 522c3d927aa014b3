import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { agentsOf, readAgentsFile, readSingleAgentFile, type DeclaredAgent } from '../../src/inbound/agents-file/declarations.js';
import { reconcileAgents } from '../../src/inbound/agents-file/reconcile.js';
import { AgentsFileError, parseSourceText } from '../../src/inbound/agents-file/source.js';
import { PresetRegistry } from '../../src/executors/presets.js';
import { tokenDigest } from '../../src/support/token-digest.js';
import { startTestHub } from '../helpers/hub.js';
import { registryOver, storedInbound } from '../helpers/inbound-registry.js';

/** The agents file of `serve --agents` and the one-agent file of `serve --agent`: reading, checking with lines, reconciling. */

const dir = mkdtempSync(join(tmpdir(), 'a2a-hub-agents-file-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function declared(text: string, name = 'agents.yaml'): readonly DeclaredAgent[] {
  return agentsOf(parseSourceText(text, name)).agents;
}

/** The problems an AgentsFileError lists, one per line. */
function problemsOf(read: () => unknown): string[] {
  try {
    read();
  } catch (error) {
    if (error instanceof AgentsFileError) return [...error.problems];
    throw error;
  }
  throw new Error('no AgentsFileError was thrown');
}

/** problemsOf for what answers later (a reconcile). */
async function problemsOfLater(read: () => Promise<unknown>): Promise<string[]> {
  try {
    await read();
  } catch (error) {
    if (error instanceof AgentsFileError) return [...error.problems];
    throw error;
  }
  throw new Error('no AgentsFileError was thrown');
}

function fileWith(name: string, text: string): string {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
}

const THREE = `version: 1
agents:
  - id: reports
    name: Reports
    description: Builds reports
    version: "1.2.0"
    skills:
      - id: summarize
        name: Summarize
        description: Summarizes a report
        tags: [reports]
  - id: support
    name: Support
    description: Answers support questions
    version: "0.1.0"
    endpointPath: /agents/support
    restPath: /agents/support/rest
    authTokenEnv: SUPPORT_TOKEN
  - id: quiet
    name: Quiet
    description: Not yet
    version: "1"
    enabled: false
`;

describe('reading an agents file', () => {
  it('reads YAML into declarations, each with the line it starts on', () => {
    const agents = declared(THREE);
    expect(agents.map((agent) => [agent.declaration.id, agent.at])).toEqual([
      ['reports', 'agents.yaml:3'],
      ['support', 'agents.yaml:12'],
      ['quiet', 'agents.yaml:19'],
    ]);
    expect(agents[0]?.declaration.skills).toEqual([
      { id: 'summarize', name: 'Summarize', description: 'Summarizes a report', tags: ['reports'] },
    ]);
    expect(agents[1]?.declaration).toMatchObject({
      endpointPath: '/agents/support',
      restPath: '/agents/support/rest',
      authTokenEnv: 'SUPPORT_TOKEN',
    });
  });

  it('reads JSON the same way, and from a file', () => {
    const path = fileWith('agents.json', JSON.stringify({ agents: [{ id: 'a', name: 'A', description: 'd', version: '1' }] }, null, 2));
    const { agents } = readAgentsFile(path);
    expect(agents).toEqual([{ declaration: { id: 'a', name: 'A', description: 'd', version: '1' }, at: `${path}:3` }]);
  });

  it('names the line and the field of each problem', () => {
    const text = `agents:
  - id: a
    name: A
    description: d
    version: 1.0
  - id: b
    description: d
    version: "1"
    colour: blue
  - id: c
    name: C
    description: d
    version: "1"
    model:
      baseURL: ftp://models.example
      model: m
`;
    expect(problemsOf(() => declared(text))).toEqual([
      'agents.yaml:5: agents[0].version must be a string, got a number: write it in quotes, version: "1.0"',
      'agents.yaml:6: agents[1].name is required',
      'agents.yaml:9: agents[1].colour is not a member of this object; known members: id, name, description, version, endpointPath, jsonRpcPath, restPath, tenants, preset, authTokenEnv, relayTo, skills, model, instructions, tools, maxToolRounds, executionTimeoutMs, sessionOrder, pushNotifications, retention, enabled',
      'agents.yaml:15: agents[2].model.baseURL must be an http or https URL such as http://127.0.0.1:11434/v1, with no user:password@ in it, got "ftp://models.example"',
    ]);
  });

  it('checks custom skills as A2A AgentSkill, exactly', () => {
    const text = `agents:
  - id: a
    name: A
    description: d
    version: "1"
    skills:
      - id: s
        name: S
        description: d
        tag: [x]
`;
    const problems = problemsOf(() => declared(text));
    expect(problems).toContain('agents.yaml:7: agents[0].skills[0].tags is required');
    expect(problems.some((problem) => problem.startsWith('agents.yaml:10: agents[0].skills[0].tag is not a member'))).toBe(true);
  });

  it('refuses an id declared twice, and an id that cannot be a path segment', () => {
    const agent = (id: string) => `  - id: ${id}\n    name: A\n    description: d\n    version: "1"\n`;
    expect(problemsOf(() => declared(`agents:\n${agent('a')}${agent('b')}${agent('a')}`))).toEqual([
      'agents.yaml:10: agents[2].id "a" is declared already, at line 2: each id once',
    ]);
    expect(problemsOf(() => declared(`agents:\n${agent('"a/b"')}`))[0]).toBe(
      'agents.yaml:2: agents[0].id must be an id such as reports or data-agent: 1 to 64 letters, digits, - and _, starting with a letter or digit, got "a/b"',
    );
  });

  it('reports YAML and JSON syntax errors with line and column', () => {
    expect(problemsOf(() => declared('agents:\n  - id: a\n    name: [A\n'))[0]).toMatch(/^agents\.yaml:\d+:\d+: .+ \(YAML syntax\)$/);
    expect(problemsOf(() => declared('agents: []\nagents: []\n'))[0]).toMatch(/^agents\.yaml:2:1: Map keys must be unique/);
    expect(problemsOf(() => declared('{\n  "agents": [\n    {"id": "a",}\n  ]\n}\n', 'agents.json'))[0]).toMatch(
      /^agents\.json:3:16: not valid JSON: /,
    );
    expect(problemsOf(() => declared('', 'agents.yaml'))).toEqual(['agents.yaml: the file is empty']);
    expect(problemsOf(() => readAgentsFile(join(dir, 'missing.yaml')))).toEqual([
      `cannot read agents file ${join(dir, 'missing.yaml')}: no such file`,
    ]);
  });

  it('a file that is not an object of agents says what it must be', () => {
    expect(problemsOf(() => declared('- id: a\n'))).toEqual(['agents.yaml:1: the file must be an object, got an array']);
    expect(problemsOf(() => declared('agent: []\n'))[0]).toBe('agents.yaml:1: agents is required');
  });
});

describe('the one-agent file of serve --agent', () => {
  it('is one declaration whose id defaults to agent', () => {
    const path = fileWith('one.yaml', 'name: One\ndescription: d\nversion: "2"\npreset: echo\n');
    expect(readSingleAgentFile(path).agents[0]?.declaration).toEqual({
      id: 'agent',
      name: 'One',
      description: 'd',
      version: '2',
      preset: 'echo',
    });
  });

  it('points an agents file given to --agent at --agents', () => {
    const path = fileWith('many.yaml', THREE);
    expect(problemsOf(() => readSingleAgentFile(path))[0]).toContain(
      'this is an agents file (a list under agents:): serve it with --agents',
    );
  });

  it('reads seed 002 DataAgent YAML as the standard preset on the provider endpoint', () => {
    const path = fileWith(
      'data-agent.yaml',
      `AGENT_CONFIG:
  name: "My Agent"
  version: "1.0.0"
  description: "My data analysis agent"
  backend: "langgraph"
  type: "react"

MODEL:
  deepseek:
    model_type: "chat"
    provider: "deepseek"
    params:
      model: "deepseek-chat"

SCENARIO:
  chat:
    instructions: "You are a helpful data analysis assistant."
`,
    );
    const { agents, notes } = readSingleAgentFile(path);
    expect(agents[0]?.declaration).toEqual({
      id: 'agent',
      name: 'My Agent',
      description: 'My data analysis agent',
      version: '1.0.0',
      preset: 'standard',
      model: { baseURL: 'https://api.deepseek.com', model: 'deepseek-chat', apiKeyEnv: 'DEEPSEEK_API_KEY' },
      instructions: 'You are a helpful data analysis assistant.',
    });
    expect(notes).toEqual([
      `${path}:1: AGENT_CONFIG backend "langgraph" and type "react" choose DataAgent's runtime and are ignored: a2a-hub serves the agent on its standard preset (a model behind an OpenAI-compatible endpoint)`,
    ]);
  });

  it('maps openai and ollama, takes params.base_url and api_key_env, and never reads an api_key', () => {
    const model = (entries: string) => {
      const path = fileWith('m.yaml', `AGENT_CONFIG:\n  name: A\n  version: "1"\n  description: d\nMODEL:\n${entries}`);
      const read = readSingleAgentFile(path);
      return { model: read.agents[0]?.declaration.model, notes: read.notes };
    };
    expect(model('  gpt:\n    provider: openai\n    params:\n      model: gpt-4o-mini\n      temperature: 0.2\n').model).toEqual({
      baseURL: 'https://api.openai.com/v1',
      model: 'gpt-4o-mini',
      apiKeyEnv: 'OPENAI_API_KEY',
      temperature: 0.2,
    });
    expect(model('  local:\n    provider: Ollama\n    params:\n      model: llama3.2\n').model).toEqual({
      baseURL: 'http://127.0.0.1:11434/v1',
      model: 'llama3.2',
    });
    const custom = model(
      '  embed:\n    model_type: embedding\n    provider: acme\n    params:\n      model: e\n      base_url: https://e.example/v1\n' +
        '  chat:\n    model_type: chat\n    provider: acme\n    params:\n      model: c\n      base_url: https://acme.example/v1\n      api_key_env: ACME_KEY\n      api_key: sk-not-read\n      max_tokens: 512\n',
    );
    expect(custom.model).toEqual({ baseURL: 'https://acme.example/v1', model: 'c', apiKeyEnv: 'ACME_KEY', maxTokens: 512 });
    expect(custom.notes.join('\n')).toContain('MODEL has 2 entries; the agent uses chat (model_type chat)');
    expect(custom.notes.join('\n')).toContain('MODEL.chat.params.api_key is not read');
    expect(custom.notes.join('\n')).not.toContain('sk-not-read');
  });

  it('names the seed 002 member at fault', () => {
    const path = (entries: string) =>
      fileWith('bad.yaml', `AGENT_CONFIG:\n  name: A\n  version: "1"\n  description: d\nMODEL:\n${entries}`);
    expect(problemsOf(() => readSingleAgentFile(path('  x:\n    provider: acme\n    params:\n      model: m\n')))).toEqual([
      `${join(dir, 'bad.yaml')}:7: MODEL.x.provider "acme" has no endpoint a2a-hub knows (it knows deepseek, openai, ollama): give MODEL.x.params.base_url, the provider's OpenAI-compatible API base, and params.api_key_env, the environment variable holding its key`,
    ]);
    expect(
      problemsOf(() => readSingleAgentFile(path('  x:\n    provider: acme\n    params:\n      model: m\n      base_url: ftp://nope\n'))),
    ).toEqual([
      `${join(dir, 'bad.yaml')}:10: MODEL.x.params.base_url must be an http or https URL such as http://127.0.0.1:11434/v1, with no user:password@ in it, got "ftp://nope"`,
    ]);
    expect(problemsOf(() => readSingleAgentFile(path('  x:\n    provider: deepseek\n    params: {}\n')))).toEqual([
      `${join(dir, 'bad.yaml')}:8: MODEL.x.params.model is required`,
    ]);
    const noName = fileWith(
      'noname.yaml',
      'AGENT_CONFIG:\n  version: "1"\n  description: d\nMODEL:\n  x:\n    provider: deepseek\n    params:\n      model: m\n',
    );
    expect(problemsOf(() => readSingleAgentFile(noName))).toEqual([`${noName}:1: AGENT_CONFIG.name is required`]);
  });
});

describe('reconciling the stored instances with the declared agents', () => {
  const presets = new PresetRegistry();

  it('creates what is missing, updates what differs, leaves the rest, and says so', async () => {
    const { registry } = await registryOver([
      { id: 'reports', config: storedInbound({ description: 'old' }) },
      {
        id: 'quiet',
        config: storedInbound({
          id: 'quiet',
          name: 'Quiet',
          description: 'Not yet',
          version: '1',
          endpointPath: '/a2a/quiet',
          enabled: false,
        }),
      },
      { id: 'other', config: storedInbound({ id: 'other', endpointPath: '/a2a/other' }) },
    ]);
    const summary = await reconcileAgents(registry, presets, declared(THREE));
    expect(summary).toEqual({
      created: ['support'],
      updated: [{ id: 'reports', members: ['name', 'description', 'version', 'skills'] }],
      unchanged: ['quiet'],
      disabled: [],
      undeclared: ['other'],
    });
    expect(registry.get('reports')).toMatchObject({ name: 'Reports', description: 'Builds reports', version: '1.2.0' });
    expect(registry.get('support')).toMatchObject({
      endpointPath: '/agents/support',
      restPath: '/agents/support/rest',
      authTokenEnv: 'SUPPORT_TOKEN',
    });
    expect(registry.get('other')?.enabled).toBe(true);
    expect((await reconcileAgents(registry, presets, declared(THREE))).unchanged).toEqual(['reports', 'support', 'quiet']);
  });

  it('a member the declaration no longer has goes back to its default', async () => {
    const { registry } = await registryOver([]);
    const base = 'agents:\n  - id: a\n    name: A\n    description: d\n    version: "1"\n';
    await reconcileAgents(
      registry,
      presets,
      declared(
        `${base}    restPath: /a2a/a/rest\n    instructions: be brief\n    tools: []\n    maxToolRounds: 2\n    pushNotifications: false\n    retention: {maxTasks: 5}\n    model: {baseURL: "http://127.0.0.1:1/v1", model: m}\n`,
      ),
    );
    expect(registry.get('a')).toMatchObject({
      restPath: '/a2a/a/rest',
      instructions: 'be brief',
      tools: [],
      maxToolRounds: 2,
      pushNotifications: false,
      retention: { maxTasks: 5 },
    });
    const summary = await reconcileAgents(registry, presets, declared(base));
    expect(summary.updated).toEqual([
      { id: 'a', members: ['restPath', 'model', 'instructions', 'tools', 'maxToolRounds', 'pushNotifications', 'retention'] },
    ]);
    const after = registry.get('a');
    for (const member of ['restPath', 'model', 'instructions', 'tools', 'retention'] as const)
      expect(after?.[member], member).toBeUndefined();
    expect(after?.maxToolRounds ?? 8).toBe(8);
    expect(after?.pushNotifications ?? true).toBe(true);
    expect((await reconcileAgents(registry, presets, declared(base))).unchanged).toEqual(['a']);
  });

  it('is all or nothing: a declaration the registry refuses changes nothing and names its line', async () => {
    const { registry } = await registryOver([]);
    const text = `agents:
  - id: a
    name: A
    description: d
    version: "1"
  - id: b
    name: B
    description: d
    version: "1"
    endpointPath: /a2a/a
  - id: c
    name: C
    description: d
    version: "1"
    preset: nowhere
`;
    expect(await problemsOfLater(async () => await reconcileAgents(registry, presets, declared(text)))).toEqual([
      'agents.yaml:6: agent "b": endpointPath /a2a/a is already used by instance "a"',
    ]);
    expect(registry.list()).toEqual([]);
    const unknown = text.replace('    endpointPath: /a2a/a\n', '');
    expect((await problemsOfLater(async () => await reconcileAgents(registry, presets, declared(unknown))))[0]).toMatch(
      /^agents\.yaml:10: agent "c": unknown preset "nowhere"; available: echo/,
    );
    expect(registry.list()).toEqual([]);
  });

  it('with exclusive, disables what is not declared (kept, with its tasks), and enables it again once declared', async () => {
    const { registry } = await registryOver([{ id: 'reports', config: storedInbound({}) }]);
    const other = 'agents:\n  - id: b\n    name: B\n    description: d\n    version: "1"\n';
    expect(await reconcileAgents(registry, presets, declared(other), { exclusive: true })).toMatchObject({
      created: ['b'],
      disabled: ['reports'],
    });
    expect(registry.get('reports')?.enabled).toBe(false);
    expect(await reconcileAgents(registry, presets, declared(other), { exclusive: true })).toMatchObject({
      disabled: [],
      undeclared: ['reports'],
    });
    const both = `${other}  - id: reports\n    name: reports\n    description: r\n    version: "1"\n`;
    expect((await reconcileAgents(registry, presets, declared(both))).updated).toEqual([{ id: 'reports', members: ['enabled'] }]);
    expect(registry.get('reports')?.enabled).toBe(true);
  });

  it('keeps a token set at run time unless the declaration names authTokenEnv or settles the token', async () => {
    const { registry } = await registryOver([]);
    const [agent] = declared('agents:\n  - id: a\n    name: A\n    description: d\n    version: "1"\n');
    if (agent === undefined) throw new Error('no agent');
    await reconcileAgents(registry, presets, [agent]);
    await registry.setAuth('a', 'runtime-token');
    expect((await reconcileAgents(registry, presets, [agent])).unchanged).toEqual(['a']);
    expect(registry.get('a')?.tokenDigest).toBe(tokenDigest('runtime-token'));
    expect((await reconcileAgents(registry, presets, [{ ...agent, token: 'flag-token', settlesToken: true }])).updated).toEqual([
      { id: 'a', members: ['tokenDigest'] },
    ]);
    expect(registry.get('a')?.tokenDigest).toBe(tokenDigest('flag-token'));
    const withEnv = { ...agent, declaration: { ...agent.declaration, authTokenEnv: 'A_TOKEN' } };
    expect((await reconcileAgents(registry, presets, [withEnv])).updated).toEqual([{ id: 'a', members: ['authTokenEnv', 'tokenDigest'] }]);
    expect(registry.get('a')).toMatchObject({ authTokenEnv: 'A_TOKEN' });
    expect(registry.get('a')?.tokenDigest).toBeUndefined();
    await registry.setAuth('a', 'again');
    expect((await reconcileAgents(registry, presets, [{ ...agent, settlesToken: true }])).updated).toEqual([
      { id: 'a', members: ['tokenDigest'] },
    ]);
    expect(registry.authOf('a')).toEqual({ enabled: false });
  });

  it('checks presets as the hub has them: a relay needs its connection', async () => {
    const hub = await startTestHub({ setUpInstances: () => undefined });
    try {
      expect(hub.inbounds.list()).toEqual([]);
      const relay = 'agents:\n  - id: r\n    name: R\n    description: d\n    version: "1"\n    preset: relay\n';
      expect((await problemsOfLater(async () => await reconcileAgents(hub.inbounds, hub.presets, declared(relay))))[0]).toMatch(
        /^agents\.yaml:2: agent "r": .*relayTo/,
      );
      expect(hub.inbounds.list()).toEqual([]);
    } finally {
      await hub.dispose();
    }
  });
});
