import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AgentSkill } from '../../generated/a2a/1.0/types.js';
import type { AnthropicToolList, HubToolList, OpenAiToolList } from '../../generated/control/types.js';
import { toolHash } from '../../src/outbound/tool-names.js';
import { startTestHub, type TestHub } from '../helpers/hub.js';
import {
  cardUrl,
  closedPort,
  createOutbound,
  fails,
  ok,
  outboundRow,
  post,
  snapshot,
  startLocalHub,
  toolList,
  toolNames,
  until,
  valid,
} from './helpers.js';

/**
 * Outbound connections through the control API, against a second hub as the remote: discover,
 * create, the tools they expose and their names, every change action, and the error state with
 * its background recovery.
 */

const skill = (id: string, description = `the ${id} skill`): AgentSkill => ({ id, name: id, description, tags: ['test'] });

let remote: TestHub;
let hub: TestHub;
let base: string;
/** An instance of the remote with three skills. */
let multiId: string;

beforeAll(async () => {
  remote = await startTestHub();
  hub = await startLocalHub();
  base = hub.url;
  multiId = (
    await remote.inbounds.create({
      name: 'multi',
      description: 'three skills',
      version: '2.0.0',
      skills: [skill('alpha'), skill('beta'), skill('gamma')],
    })
  ).id;
});
afterAll(async () => {
  await hub.dispose();
  await remote.dispose();
});

describe('outbound.discover', () => {
  it('previews the remote card and creates nothing', async () => {
    const before = (await snapshot(base)).outbounds.length;
    const answer = await ok(base, { action: 'outbound.discover', agentCardUrl: cardUrl(remote) });
    expect(answer.preview).toEqual({
      name: 'a2a-hub echo',
      version: '1.0.0',
      description: remote.inbounds.get('default')?.description,
      endpoint: `${remote.url}/a2a/default`,
      protocolVersion: '1.0',
      skills: [{ id: 'chat', name: 'chat', description: 'Echoes the message back as an artifact.', tags: ['echo', 'test'] }],
    });
    expect(answer.message).toBe('read the agent card of "a2a-hub echo" 1.0.0: 1 skill; nothing was created');
    expect(answer.id).toBeUndefined();
    expect((await snapshot(base)).outbounds).toHaveLength(before);
  });

  it('takes a base URL too (the card is then at /.well-known/agent-card.json)', async () => {
    const answer = await ok(base, { action: 'outbound.discover', agentCardUrl: remote.url });
    expect(answer.preview?.name).toBe('a2a-hub echo');
  });

  it('fails with 409 and the reason when no card can be read', async () => {
    const port = await closedPort();
    const failure = await fails(base, { action: 'outbound.discover', agentCardUrl: `http://127.0.0.1:${port}/a2a/x/agent-card.json` });
    expect(failure.message).toMatch(
      new RegExp(`^could not read an agent card from http://127\\.0\\.0\\.1:${port}/a2a/x/agent-card\\.json: .*not reachable`),
    );
    // The client would fall back to the origin's well-known card, which describes another agent.
    const missing = await fails(base, { action: 'outbound.discover', agentCardUrl: `${remote.url}/a2a/nobody/agent-card.json` });
    expect(missing.message).toBe(
      `could not read an agent card from ${remote.url}/a2a/nobody/agent-card.json: no agent card at ${remote.url}/a2a/nobody/agent-card.json; ${remote.url}/.well-known/agent-card.json has one, so use that URL if you mean the agent it describes`,
    );
  });
});

describe('outbound.create', () => {
  it('connects, counts skills and tools, and exposes a2a__<name>__<skill>', async () => {
    const created = await ok(base, { action: 'outbound.create', name: 'echo', agentCardUrl: cardUrl(remote) });
    expect(created.message).toBe('outbound connection "echo" created and connected: 1 skill, 1 tool');
    const id = created.id ?? '';
    expect(await outboundRow(base, id)).toEqual({
      id,
      name: 'echo',
      agentCardUrl: cardUrl(remote),
      enabled: true,
      timeoutMs: 60000,
      pollIntervalMs: 1000,
      state: 'connected',
      skillCount: 1,
      toolCount: 1,
      authEnabled: false,
      disabledSkills: [],
      skillOverrides: {},
    });
    const tool = ((await toolList(base)) as HubToolList).tools.find((entry) => entry.connectionId === id);
    expect(tool).toEqual({
      name: 'a2a__echo__chat',
      description: 'Echoes the message back as an artifact.',
      inputSchema: {
        type: 'object',
        properties: {
          prompt: { type: 'string', minLength: 1, description: 'The task or instruction to send to the remote agent.' },
          taskId: {
            type: 'string',
            minLength: 1,
            description: expect.stringMatching(/continue a remote task that asked for input or authentication/) as unknown,
          },
        },
        required: ['prompt'],
        additionalProperties: false,
      },
      connectionId: id,
      connectionName: 'echo',
      skillId: 'chat',
    });
    expect(hub.tools.get('a2a__echo__chat')?.connectionId).toBe(id);
  });

  it('keeps preset, timeoutMs, pollIntervalMs and bearerTokenEnv as given and shows them', async () => {
    const id = await createOutbound(base, 'kept', cardUrl(remote), {
      preset: 'echo',
      timeoutMs: 5000,
      pollIntervalMs: 250,
      enabled: false,
      bearerTokenEnv: 'SOME_TOKEN_VAR',
    });
    const row = await outboundRow(base, id);
    expect(row).toMatchObject({
      preset: 'echo',
      timeoutMs: 5000,
      pollIntervalMs: 250,
      enabled: false,
      state: 'disabled',
      bearerTokenEnv: 'SOME_TOKEN_VAR',
      authEnabled: true,
      skillCount: 0,
      toolCount: 0,
    });
    await ok(base, { action: 'outbound.remove', id });
  });

  it('fails with 409 and creates nothing when the remote cannot be reached', async () => {
    const before = (await snapshot(base)).outbounds.length;
    const port = await closedPort();
    const failure = await fails(base, {
      action: 'outbound.create',
      name: 'nowhere',
      agentCardUrl: `http://127.0.0.1:${port}/a2a/x/agent-card.json`,
    });
    expect(failure.message).toMatch(
      /^could not connect to http:\/\/127\.0\.0\.1:\d+\/a2a\/x\/agent-card\.json: .*not reachable.*; nothing was created\. .*"enabled": false/,
    );
    expect((await snapshot(base)).outbounds).toHaveLength(before);
  });

  it('still checks the body against the schema first (400)', async () => {
    const failure = await fails(base, { action: 'outbound.create', name: 'x', agentCardUrl: cardUrl(remote), timeoutMs: 50 }, 400);
    expect(failure.violations).toEqual([{ field: 'timeoutMs', description: 'must be >= 100, got 50' }]);
    const polled = await fails(base, { action: 'outbound.create', name: 'x', agentCardUrl: cardUrl(remote), pollIntervalMs: 5 }, 400);
    expect(polled.violations).toEqual([{ field: 'pollIntervalMs', description: 'must be >= 10, got 5' }]);
  });
});

describe('tool names', () => {
  it('replace characters outside [A-Za-z0-9_-] with _', async () => {
    const id = await createOutbound(base, 'Weather Bot! (v2)', cardUrl(remote));
    expect(hub.tools.list().find((tool) => tool.connectionId === id)?.name).toBe('a2a__Weather_Bot___v2___chat');
    await ok(base, { action: 'outbound.remove', id });
  });

  it('are cut to 64 characters', async () => {
    const id = await createOutbound(base, 'l'.repeat(80), cardUrl(remote));
    const name = hub.tools.list().find((tool) => tool.connectionId === id)?.name;
    expect(name).toBe(`a2a__${'l'.repeat(59)}`);
    expect(await toolNames(base)).toContain(name);
    await ok(base, { action: 'outbound.remove', id });
  });

  it('get a short stable hash on a collision; the older connection keeps the plain name', async () => {
    const first = await createOutbound(base, 'twin', cardUrl(remote));
    const second = await createOutbound(base, 'twin', cardUrl(remote));
    const names = new Map(hub.tools.list().map((tool) => [tool.connectionId, tool.name]));
    expect(names.get(first)).toBe('a2a__twin__chat');
    expect(names.get(second)).toBe(`a2a__twin__chat_${toolHash(second, 'chat').slice(0, 6)}`);
    // Truncation and collision together: the hash still fits in 64 characters.
    const longFirst = await createOutbound(base, 'z'.repeat(70), cardUrl(remote));
    const longSecond = await createOutbound(base, 'z'.repeat(70), cardUrl(remote));
    const long = new Map(hub.tools.list().map((tool) => [tool.connectionId, tool.name]));
    expect(long.get(longFirst)).toBe(`a2a__${'z'.repeat(59)}`);
    expect(long.get(longSecond)).toBe(`a2a__${'z'.repeat(52)}_${toolHash(longSecond, 'chat').slice(0, 6)}`);
    for (const id of [first, second, longFirst, longSecond]) await ok(base, { action: 'outbound.remove', id });
  });
});

describe('disabledSkills, skillOverrides and outbound.update', () => {
  it('leave out disabled skills, change descriptions, and follow updates', async () => {
    const id = await createOutbound(base, 'multi', cardUrl(remote, multiId), {
      disabledSkills: ['beta'],
      skillOverrides: { alpha: { description: 'Our own words for alpha.' } },
    });
    expect(await outboundRow(base, id)).toMatchObject({
      state: 'connected',
      skillCount: 3,
      toolCount: 2,
      disabledSkills: ['beta'],
      skillOverrides: { alpha: { description: 'Our own words for alpha.' } },
    });
    const described = () =>
      Object.fromEntries(
        hub.tools
          .list()
          .filter((tool) => tool.connectionId === id)
          .map((tool) => [tool.name, tool.description]),
      );
    expect(described()).toEqual({ a2a__multi__alpha: 'Our own words for alpha.', a2a__multi__gamma: 'the gamma skill' });

    const updated = await ok(base, { action: 'outbound.update', id, name: 'several', disabledSkills: [], skillOverrides: {} });
    expect(updated.message).toBe('outbound connection "several" updated');
    expect(described()).toEqual({
      a2a__several__alpha: 'the alpha skill',
      a2a__several__beta: 'the beta skill',
      a2a__several__gamma: 'the gamma skill',
    });
    expect(await outboundRow(base, id)).toMatchObject({ name: 'several', toolCount: 3 });

    const retimed = await ok(base, { action: 'outbound.update', id, timeoutMs: 9000 });
    expect(retimed.message).toBe('outbound connection "several" updated; reconnected: 3 skills, 3 tools');
    expect(await outboundRow(base, id)).toMatchObject({ timeoutMs: 9000, state: 'connected' });

    // The poll interval is read at each turn: no reconnect.
    const repolled = await ok(base, { action: 'outbound.update', id, pollIntervalMs: 200 });
    expect(repolled.message).toBe('outbound connection "several" updated');
    expect(await outboundRow(base, id)).toMatchObject({ pollIntervalMs: 200, state: 'connected' });
    await ok(base, { action: 'outbound.remove', id });
  });

  it('fails with 409 on an unknown id', async () => {
    expect((await fails(base, { action: 'outbound.update', id: 'out-00000000-000', name: 'x' })).message).toBe(
      'no outbound connection has id "out-00000000-000"; GET /a2a/api lists them under outbounds',
    );
  });
});

describe('outbound.disable, outbound.enable and outbound.remove', () => {
  it('disable removes the tools, enable brings them back, remove forgets the connection', async () => {
    const id = await createOutbound(base, 'toggle', cardUrl(remote));
    expect(await toolNames(base)).toContain('a2a__toggle__chat');

    expect((await ok(base, { action: 'outbound.disable', id })).message).toBe(
      'outbound connection "toggle" disabled; its tools are gone until outbound.enable',
    );
    expect(await outboundRow(base, id)).toMatchObject({ enabled: false, state: 'disabled', toolCount: 0 });
    expect(await toolNames(base)).not.toContain('a2a__toggle__chat');
    await expect(hub.tools.call('a2a__toggle__chat', { prompt: 'hi' })).rejects.toMatchObject({ name: 'ToolError', kind: 'unknown-tool' });

    expect((await ok(base, { action: 'outbound.enable', id })).message).toBe(
      'outbound connection "toggle" enabled and connected: 1 skill, 1 tool',
    );
    expect(await outboundRow(base, id)).toMatchObject({ enabled: true, state: 'connected', toolCount: 1 });
    expect(await toolNames(base)).toContain('a2a__toggle__chat');

    expect((await ok(base, { action: 'outbound.remove', id })).message).toBe('outbound connection "toggle" removed with its tools');
    expect(await outboundRow(base, id)).toBeUndefined();
    expect(await toolNames(base)).not.toContain('a2a__toggle__chat');
    for (const action of ['outbound.remove', 'outbound.enable', 'outbound.disable', 'outbound.refresh', 'outbound.setAuth']) {
      expect((await fails(base, { action, id })).message).toBe(
        `no outbound connection has id "${id}"; GET /a2a/api lists them under outbounds`,
      );
    }
  });
});

describe('outbound.refresh', () => {
  it('picks up skills the remote added', async () => {
    const instance = (
      await remote.inbounds.create({ name: 'growing', description: 'gains a skill', version: '1.0.0', skills: [skill('one')] })
    ).id;
    const id = await createOutbound(base, 'growing', cardUrl(remote, instance));
    expect(await outboundRow(base, id)).toMatchObject({ skillCount: 1, toolCount: 1 });
    await remote.inbounds.update(instance, { skills: [skill('one'), skill('two')] });
    // Nothing changes until the card is read again.
    expect(await outboundRow(base, id)).toMatchObject({ skillCount: 1, toolCount: 1 });
    expect((await ok(base, { action: 'outbound.refresh', id })).message).toBe('outbound connection "growing" refreshed: 2 skills, 2 tools');
    expect(await toolNames(base)).toEqual(expect.arrayContaining(['a2a__growing__one', 'a2a__growing__two']));
    await ok(base, { action: 'outbound.remove', id });
  });

  it('fails with 409 on a disabled connection', async () => {
    const id = await createOutbound(base, 'off', cardUrl(remote), { enabled: false });
    expect((await fails(base, { action: 'outbound.refresh', id })).message).toBe(
      'outbound connection "off" is disabled; outbound.enable enables and connects it',
    );
    await ok(base, { action: 'outbound.remove', id });
  });

  it('fails with 409 when the remote is gone, leaving state error with the reason', async () => {
    const instance = (await remote.inbounds.create({ name: 'leaving', description: 'goes away', version: '1.0.0' })).id;
    const id = await createOutbound(base, 'leaving', cardUrl(remote, instance));
    await remote.inbounds.remove(instance);
    const failure = await fails(base, { action: 'outbound.refresh', id });
    expect(failure.message).toMatch(
      /^refreshing outbound connection "leaving" failed: no agent card at .*\. It is in state error and is retried in the background$/,
    );
    const row = await outboundRow(base, id);
    expect(row).toMatchObject({ state: 'error', toolCount: 0, skillCount: 1 });
    expect(row?.error).toMatch(/^no agent card at /);
    expect(await toolNames(base)).not.toContain('a2a__leaving__chat');
    await ok(base, { action: 'outbound.remove', id });
  });
});

describe('state error and background reconnects', () => {
  it('an unreachable remote leaves the connection in error; it connects by itself once the remote is up', async () => {
    const port = await closedPort();
    const url = `http://127.0.0.1:${port}/a2a/default/agent-card.json`;
    const id = await createOutbound(base, 'later', url, { enabled: false });
    const failure = await fails(base, { action: 'outbound.enable', id });
    expect(failure.message).toMatch(
      /^outbound connection "later" is enabled but could not connect: .*not reachable.*It stays in state error and is retried in the background; outbound.refresh retries now$/,
    );
    const row = await outboundRow(base, id);
    expect(row).toMatchObject({ enabled: true, state: 'error', toolCount: 0 });
    expect(row?.error).toMatch(/not reachable/);

    const late = await startTestHub({ port });
    try {
      await until(async () => (await outboundRow(base, id))?.state === 'connected', 'the connection to come up by itself');
      expect(await outboundRow(base, id)).toMatchObject({ state: 'connected', skillCount: 1, toolCount: 1 });
      expect(await toolNames(base)).toContain('a2a__later__chat');
    } finally {
      await ok(base, { action: 'outbound.remove', id });
      await late.dispose();
    }
  });
});

describe('GET /a2a/api/tools', () => {
  let id: string;
  beforeAll(async () => {
    id = await createOutbound(base, 'formats', cardUrl(remote));
  });
  afterAll(async () => {
    await ok(base, { action: 'outbound.remove', id });
  });

  it('answers the hub format by default and with ?format=hub, ordered by name', async () => {
    const plain = (await toolList(base)) as HubToolList;
    expect(valid('HubToolList', plain)).toBeDefined();
    expect(((await toolList(base, 'hub')) as HubToolList).tools).toEqual(plain.tools);
    const names = plain.tools.map((tool) => tool.name);
    expect(names).toEqual([...names].sort());
    expect(plain.tools.find((tool) => tool.connectionId === id)).toMatchObject({
      name: 'a2a__formats__chat',
      skillId: 'chat',
      connectionName: 'formats',
    });
  });

  it('answers OpenAI-style tools with ?format=openai', async () => {
    const list = (await toolList(base, 'openai')) as OpenAiToolList;
    const tool = list.tools.find((entry) => entry.function.name === 'a2a__formats__chat');
    expect(tool).toEqual({
      type: 'function',
      function: {
        name: 'a2a__formats__chat',
        description: 'Echoes the message back as an artifact.',
        parameters: hub.tools.get('a2a__formats__chat')?.inputSchema,
      },
    });
    expect(valid('OpenAiToolList', list)).toBeDefined();
  });

  it('answers Anthropic-style tools with ?format=anthropic', async () => {
    const list = (await toolList(base, 'anthropic')) as AnthropicToolList;
    const tool = list.tools.find((entry) => entry.name === 'a2a__formats__chat');
    expect(tool).toEqual({
      name: 'a2a__formats__chat',
      description: 'Echoes the message back as an artifact.',
      input_schema: hub.tools.get('a2a__formats__chat')?.inputSchema,
    });
    expect(valid('AnthropicToolList', list)).toBeDefined();
  });

  it('refuses an unknown format (400) and other methods (405)', async () => {
    const response = await fetch(`${base}/a2a/api/tools?format=xml`);
    expect(response.status).toBe(400);
    const body = valid('ReadError', await response.json());
    expect(body.violations).toEqual([{ field: 'format', description: 'must be one of hub, openai, anthropic, got "xml"' }]);
    const wrong = await fetch(`${base}/a2a/api/tools`, { method: 'POST' });
    expect(wrong.status).toBe(405);
    expect(wrong.headers.get('allow')).toBe('GET');
  });
});

describe('the URL policy of the hub configuration', () => {
  it('applies to discover and create: a hub that refuses loopback connects nowhere local', async () => {
    const strict = await startLocalHub({ outbound: { urlPolicy: { allowLoopback: false } } });
    try {
      const discover = await fails(strict.url, { action: 'outbound.discover', agentCardUrl: cardUrl(remote) });
      expect(discover.message).toMatch(
        /URL policy: .* is refused: .*set urlPolicy\.allowLoopback: true, or add its range to urlPolicy\.allowedCidrs, to allow it/,
      );
      const create = await post(strict.url, { action: 'outbound.create', name: 'local', agentCardUrl: cardUrl(remote) });
      expect(create.status).toBe(409);
      expect(valid('ActionFailure', create.body).message).toMatch(/URL policy/);
      expect((await snapshot(strict.url)).outbounds).toEqual([]);
    } finally {
      await strict.dispose();
    }
  });
});
