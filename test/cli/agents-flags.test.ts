import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { agentsSourceOf, summaryLine, type AgentsFlags } from '../../src/cli/agents-flags.js';
import { ConfigError } from '../../src/config.js';

/** The agent flags of `serve`: which go together, what --agent's flags add to its file, the reconcile line. */

const dir = mkdtempSync(join(tmpdir(), 'a2a-hub-agents-flags-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const one = join(dir, 'one.yaml');
writeFileSync(one, 'name: One\ndescription: d\nversion: "1"\n');

function source(flags: AgentsFlags, env: NodeJS.ProcessEnv = {}) {
  const warnings: string[] = [];
  return { source: agentsSourceOf(flags, env, (message) => warnings.push(message)), warnings };
}

function refused(flags: AgentsFlags): string {
  try {
    source(flags).source?.read();
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return (error as Error).message;
  }
  throw new Error('not refused');
}

describe('serve agent flags', () => {
  it('declare nothing without a file, and refuse flags out of place', () => {
    expect(source({}).source).toBeUndefined();
    expect(refused({ agents: 'a.yaml', agent: 'b.yaml' })).toBe('give --agents (a file of agents) or --agent (one agent), not both');
    expect(refused({ agents: 'a.yaml', jsonrpcPath: '/rpc', authToken: 't' })).toBe(
      '--jsonrpc-path, --auth-token go with --agent FILE, the one-agent form',
    );
    expect(refused({ watch: true })).toBe('--watch needs --agents FILE or --agent FILE');
    expect(refused({ agent: one, authToken: 't', authTokenEnv: 'T' })).toBe('give --auth-token-env NAME or --auth-token TOKEN, not both');
    // `--auth-token "$TOKEN"` with TOKEN unset must not start an agent without auth.
    expect(refused({ agent: one, authToken: '' })).toMatch(/^--auth-token is empty/);
  });

  it('take A2A_HUB_AGENTS for --agents, unless --agent is given', () => {
    expect(source({}, { A2A_HUB_AGENTS: 'agents.yaml' }).source).toMatchObject({ file: 'agents.yaml', single: false });
    expect(source({ agent: one }, { A2A_HUB_AGENTS: 'agents.yaml' }).source).toMatchObject({ file: one, single: true });
  });

  it('give the one agent seed 002 paths, the flags over its file, and its token', () => {
    const { source: given, warnings } = source({ agent: one, restPath: '/rest', authToken: 'tok' });
    const [agent] = given?.read().agents ?? [];
    expect(agent?.declaration).toEqual({
      id: 'agent',
      name: 'One',
      description: 'd',
      version: '1',
      jsonRpcPath: '/a2a/jsonrpc',
      restPath: '/rest',
    });
    expect(agent).toMatchObject({ token: 'tok', settlesToken: true });
    expect(warnings).toEqual([
      '--auth-token puts the token on the command line, where other users of this machine can read it (ps, /proc): put it in an environment variable and pass --auth-token-env NAME instead. The hub stores only its SHA-256 digest.',
    ]);
    expect(refused({ agent: one, jsonrpcPath: 'rpc' })).toMatch(
      /^invalid command line: --jsonrpc-path must be an absolute path such as \/a2a\/my-agent/,
    );
    expect(refused({ agent: one, authTokenEnv: 'NOT-A-NAME' })).toMatch(
      /^invalid command line: --auth-token-env must be an environment variable name/,
    );
  });

  it('warn of a token variable that is not set, and note a model key variable that is not set', () => {
    expect(source({ agent: one, authTokenEnv: 'ONE_TOKEN' }, { ONE_TOKEN: 'x' }).warnings).toEqual([]);
    expect(source({ agent: one, authTokenEnv: 'ONE_TOKEN' }).warnings).toEqual([
      "--auth-token-env ONE_TOKEN: that variable is not set, so every request but the card's is refused (401) until it is",
    ]);
    const withModel = join(dir, 'model.yaml');
    writeFileSync(
      withModel,
      'name: M\ndescription: d\nversion: "1"\nmodel: {baseURL: "http://127.0.0.1:1/v1", model: m, apiKeyEnv: M_KEY}\n',
    );
    expect(source({ agent: withModel }).source?.read().notes).toEqual([
      `${withModel}:1: agent "agent" reads its model's API key from M_KEY, which is not set: its turns fail until it is`,
    ]);
    expect(source({ agent: withModel }, { M_KEY: 'k' }).source?.read().notes).toEqual([]);
  });

  it('say what a reconcile did in one line', () => {
    expect(
      summaryLine('agents.yaml', {
        created: ['a', 'b'],
        updated: [{ id: 'c', members: ['description', 'model'] }],
        unchanged: ['d'],
        disabled: ['e'],
        undeclared: ['f'],
      }),
    ).toBe(
      'agents.yaml: created a, b; updated c (description, model); unchanged d; disabled e (not declared; --agents-exclusive); not declared, left as they are: f',
    );
    expect(summaryLine('agents.yaml', { created: [], updated: [], unchanged: [], disabled: [], undeclared: [] })).toBe(
      'agents.yaml: declares none',
    );
  });
});
