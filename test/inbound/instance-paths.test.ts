import { describe, expect, it } from 'vitest';
import type { InboundInput } from '../../src/inbound/inbound-registry.js';
import { OperationError } from '../../src/support/operation-error.js';
import { registryOver, storedInbound } from '../helpers/inbound-registry.js';

/**
 * Where an inbound instance's bindings live (endpointPath, jsonRpcPath, restPath), the routing
 * tables the HTTP edge looks them up in, and the rules that keep one instance's paths from
 * answering for another's or the hub's own.
 */

const instance = (id: string, paths: Partial<InboundInput> = {}): InboundInput => ({
  id,
  name: id,
  description: 'd',
  version: '1',
  ...paths,
});

/** Seed 002's layout: card base /a2a, JSON-RPC at /a2a/jsonrpc, REST below /a2a/rest. */
const DATA_AGENT = { endpointPath: '/a2a', jsonRpcPath: '/a2a/jsonrpc', restPath: '/a2a/rest' };

async function refusal(action: () => unknown): Promise<string> {
  try {
    await action();
  } catch (error) {
    expect(error).toBeInstanceOf(OperationError);
    return (error as Error).message;
  }
  throw new Error('the action was not refused');
}

describe('the paths of an instance', () => {
  it('default to endpointPath and follow it when it moves', async () => {
    const { registry } = await registryOver([]);
    await registry.create(instance('plain'));
    expect(registry.agent('plain')).toMatchObject({ endpointPath: '/a2a/plain', jsonRpcPath: '/a2a/plain', restPath: '/a2a/plain' });
    expect(registry.agent('plain')).not.toHaveProperty('tenants');
    await registry.update('plain', { endpointPath: '/agents/plain' });
    expect(registry.agent('plain')).toMatchObject({ jsonRpcPath: '/agents/plain', restPath: '/agents/plain' });
    expect(registry.get('plain')).not.toHaveProperty('restPath');
  });

  it('are set apart on create, kept when endpointPath moves, and cleared back to the default by an empty value', async () => {
    const { registry } = await registryOver([]);
    await registry.create(instance('data', { ...DATA_AGENT, tenants: ['research', 'ops'] }));
    expect(registry.agent('data')).toMatchObject({ ...DATA_AGENT, tenants: ['research', 'ops'] });
    await registry.update('data', { endpointPath: '/agents/data' });
    expect(registry.agent('data')).toMatchObject({ endpointPath: '/agents/data', jsonRpcPath: '/a2a/jsonrpc', restPath: '/a2a/rest' });
    await registry.update('data', { restPath: '', jsonRpcPath: '', tenants: [] });
    expect(registry.get('data')).not.toHaveProperty('restPath');
    expect(registry.get('data')).not.toHaveProperty('jsonRpcPath');
    expect(registry.get('data')).not.toHaveProperty('tenants');
    expect(registry.agent('data')).toMatchObject({ jsonRpcPath: '/agents/data', restPath: '/agents/data' });
    expect(registry.agent('data')).not.toHaveProperty('tenants');
  });

  it('an empty tenant list on create accepts any tenant, like none', async () => {
    const { registry } = await registryOver([]);
    expect(await registry.create(instance('open', { tenants: [] }))).not.toHaveProperty('tenants');
  });

  it('are saved, so the next start finds them; rows stored before them load with the defaults', async () => {
    const { store, registry } = await registryOver([{ id: 'reports', config: storedInbound({}) }]);
    await registry.create(instance('data', { ...DATA_AGENT, tenants: ['research'] }));
    expect(store.loadInstances().find((row) => row.id === 'data')?.config).toMatchObject({ ...DATA_AGENT, tenants: ['research'] });
    const next = await registryOver(store.loadInstances());
    expect(next.logged).toEqual([]);
    expect(next.registry.agent('data')).toMatchObject({ ...DATA_AGENT, tenants: ['research'] });
    expect(next.registry.agent('reports')).toMatchObject({ jsonRpcPath: '/a2a/reports', restPath: '/a2a/reports' });
  });
});

describe('the routing tables', () => {
  it('find the card base, the JSON-RPC path and the REST base of each instance, each by its own kind only', async () => {
    const { registry } = await registryOver([]);
    await registry.create(instance('data', DATA_AGENT));
    expect(registry.byEndpointPath('/a2a')?.id).toBe('data');
    expect(registry.byJsonRpcPath('/a2a/jsonrpc')?.id).toBe('data');
    expect(registry.byJsonRpcPath('/a2a')).toBeUndefined();
    expect(registry.byEndpointPath('/a2a/jsonrpc')).toBeUndefined();
    const target = registry.byRestPath('/a2a/rest/tasks/t-1:cancel');
    expect(target).toMatchObject({ subpath: '/tasks/t-1:cancel' });
    expect(target !== undefined && 'agent' in target ? target.agent.id : undefined).toBe('data');
    expect(registry.byRestPath('/a2a/rest/research/message:send')).toMatchObject({ subpath: '/research/message:send' });
    // Strictly below the base: the base itself, or a path beside it, is no route.
    expect(registry.byRestPath('/a2a/rest')).toBeUndefined();
    expect(registry.byRestPath('/a2a/restful/tasks')).toBeUndefined();
    expect(registry.byRestPath('/a2a/jsonrpc/tasks')).toBeUndefined();
  });

  it('serve nothing of a disabled instance and name an unavailable one at each of its paths', async () => {
    const { registry } = await registryOver([
      { id: 'gone', config: storedInbound({ id: 'gone', endpointPath: '/a2a/gone', restPath: '/v1/gone', preset: 'shout' }) },
    ]);
    await registry.create(instance('off', { restPath: '/v1/off', enabled: false }));
    expect(registry.byRestPath('/v1/off/tasks')).toBeUndefined();
    expect(registry.byJsonRpcPath('/a2a/off')).toBeUndefined();
    expect(registry.byRestPath('/v1/gone/tasks')).toMatchObject({ unavailable: { id: 'gone' }, subpath: '/tasks' });
    expect(registry.unavailableAt('/a2a/gone')?.id).toBe('gone');
    await registry.update('gone', { jsonRpcPath: '/a2a/gone/rpc' });
    expect(registry.unavailableAt('/a2a/gone/rpc')?.id).toBe('gone');
  });

  it('pick the longest REST base among stored rows that nest, warn of them, and never route the hub’s own paths', async () => {
    const { registry, logged } = await registryOver([
      { id: 'outer', config: storedInbound({ id: 'outer', endpointPath: '/a2a' }) },
      { id: 'inner', config: storedInbound({ id: 'inner', endpointPath: '/a2a/inner' }) },
    ]);
    const agentAt = (path: string) => {
      const target = registry.byRestPath(path);
      return target !== undefined && 'agent' in target ? target.agent.id : undefined;
    };
    expect(agentAt('/a2a/inner/tasks')).toBe('inner');
    expect(agentAt('/a2a/inner/research/tasks')).toBe('inner');
    expect(agentAt('/a2a/research/tasks')).toBe('outer');
    expect(registry.byRestPath('/a2a/api/tasks')).toBeUndefined();
    expect(registry.byRestPath('/a2a/panel/x')).toBeUndefined();
    const warned = new Map(logged.map((line) => [line.details?.['instance'], line.message]));
    expect([...warned.keys()].sort()).toEqual(['inner', 'outer']);
    expect(warned.get('outer')).toMatch(/lies above the hub's own \/a2a\/api/);
    // A save that keeps the paths is not refused for the clash stored before the rules.
    await registry.update('outer', { name: 'renamed' });
    await registry.update('inner', { description: 'still nested' });
    expect(registry.get('outer')?.name).toBe('renamed');
  });
});

describe('path clash rules', () => {
  const withDefault = async () => {
    const made = await registryOver([]);
    await made.registry.create(instance('default', { endpointPath: '/a2a/default' }));
    return made.registry;
  };

  it('let seed 002 and 003 layouts live beside the default instance', async () => {
    const registry = await withDefault();
    await registry.create(instance('data', DATA_AGENT));
    await registry.create(instance('awaken', { endpointPath: '/a2a/awaken', restPath: '/v1/a2a' }));
    expect(registry.list().map((config) => config.id)).toEqual(['default', 'data', 'awaken']);
  });

  it.each([
    ['jsonRpcPath', 'rpc'],
    ['restPath', '/v1/a2a/'],
    ['restPath', '/a2a/panel'],
    ['jsonRpcPath', '/.well-known/rpc'],
  ] as const)('refuse a %s "%s" that is not a path of their own', async (member, path) => {
    expect(await refusal(async () => (await withDefault()).create(instance('x', { [member]: path })))).toBe(
      `${member} "${path}" is not usable: give an absolute path like /a2a/reports outside /.well-known, /a2a/api, /a2a/panel, /livez, /readyz`,
    );
  });

  it('refuse a REST base holding the hub’s own paths, also the default one of endpointPath /a2a', async () => {
    expect(await refusal(async () => (await withDefault()).create(instance('x', { endpointPath: '/x', restPath: '/a2a' })))).toMatch(
      /^restPath \/a2a lies above the hub's own \/a2a\/api, which its HTTP\+JSON routes would hide/,
    );
    expect(await refusal(async () => (await withDefault()).create(instance('x', { endpointPath: '/a2a' })))).toMatch(
      /^restPath \/a2a \(the default: endpointPath\) lies above the hub's own \/a2a\/api.*like \/a2a\/rest$/,
    );
  });

  it('refuse a JSON-RPC path or a REST base another instance has', async () => {
    const registry = await withDefault();
    await registry.create(instance('data', DATA_AGENT));
    expect(await refusal(async () => await registry.create(instance('x', { jsonRpcPath: '/a2a/jsonrpc' })))).toBe(
      'jsonRpcPath /a2a/jsonrpc is already used by instance "data"',
    );
    expect(await refusal(async () => await registry.create(instance('x', { restPath: '/a2a/rest' })))).toBe(
      'restPath /a2a/rest is already used by instance "data"',
    );
    expect(await refusal(async () => await registry.create(instance('x', { jsonRpcPath: '/a2a/default' })))).toBe(
      'jsonRpcPath /a2a/default is already used by instance "default"',
    );
    expect(await refusal(async () => await registry.create(instance('x', { endpointPath: '/a2a/jsonrpc' })))).toBe(
      'endpointPath /a2a/jsonrpc is already used by instance "data" (its jsonRpcPath)',
    );
  });

  it('refuse any path below another instance’s REST base', async () => {
    const registry = await withDefault();
    expect(await refusal(async () => await registry.create(instance('x', { endpointPath: '/a2a/default/sub' })))).toBe(
      'endpointPath /a2a/default/sub lies below the restPath /a2a/default of instance "default", whose HTTP+JSON routes sit there: choose a path outside it',
    );
    expect(
      await refusal(async () => await registry.create(instance('x', { endpointPath: '/x', jsonRpcPath: '/a2a/default/rpc' }))),
    ).toMatch(/^jsonRpcPath \/a2a\/default\/rpc lies below the restPath \/a2a\/default of instance "default"/);
    expect(await refusal(async () => await registry.create(instance('x', { endpointPath: '/x', restPath: '/a2a/default/v2' })))).toMatch(
      /^restPath \/a2a\/default\/v2 lies below the restPath \/a2a\/default/,
    );
  });

  it('refuse a REST base above another instance’s paths, whose routes it would shadow', async () => {
    const registry = await withDefault();
    await registry.create(instance('deep', { endpointPath: '/v1/a2a/deep' }));
    expect(await refusal(async () => await registry.create(instance('x', { endpointPath: '/x', restPath: '/v1/a2a' })))).toBe(
      'restPath /v1/a2a lies above the endpointPath /v1/a2a/deep of instance "deep", which its HTTP+JSON routes would shadow: choose a restPath outside it',
    );
    await registry.create(instance('rpc', { endpointPath: '/y', jsonRpcPath: '/v2/a2a/rpc' }));
    await registry.create(instance('other', { endpointPath: '/z' }));
    expect(await refusal(async () => await registry.update('other', { restPath: '/v2' }))).toBe(
      'restPath /v2 lies above the jsonRpcPath /v2/a2a/rpc of instance "rpc", which its HTTP+JSON routes would shadow: choose a restPath outside it',
    );
  });

  it('refuse a JSON-RPC path or a card that is one of the instance’s own REST routes', async () => {
    const registry = await withDefault();
    expect(
      await refusal(async () => await registry.create(instance('x', { restPath: '/v1/a2a', jsonRpcPath: '/v1/a2a/extendedAgentCard' }))),
    ).toBe(
      "jsonRpcPath /v1/a2a/extendedAgentCard is also the path of the HTTP+JSON route of GetExtendedAgentCard (GET /extendedAgentCard) below the instance's restPath /v1/a2a: move one of them",
    );
    expect(await refusal(async () => await registry.create(instance('x', { restPath: '/v1/a2a', jsonRpcPath: '/v1/a2a/tasks' })))).toMatch(
      /^jsonRpcPath \/v1\/a2a\/tasks is also the path of the HTTP\+JSON route of ListTasks \(GET \/tasks\)/,
    );
    expect(
      await refusal(
        async () =>
          await registry.create(instance('x', { endpointPath: '/v1/a2a/tasks', jsonRpcPath: '/v1/a2a/rpc', restPath: '/v1/a2a' })),
      ),
    ).toMatch(
      /^cardPath \/v1\/a2a\/tasks\/agent-card\.json is also the path of the HTTP\+JSON route of GetTask \(GET \/tasks\/\{id=\*\}\)/,
    );
    // 0.3's routes below /v1 of the REST base count too: a 0.3 client's GET /v1/card would find the JSON-RPC endpoint.
    expect(await refusal(async () => await registry.create(instance('x', { restPath: '/v1/a2a', jsonRpcPath: '/v1/a2a/v1/card' })))).toBe(
      "jsonRpcPath /v1/a2a/v1/card is also the path of the HTTP+JSON route of agent/getAuthenticatedExtendedCard (GET /v1/card) below the instance's restPath /v1/a2a: move one of them",
    );
    // Below its own REST base, a path that is no route is fine: the JSON-RPC path and the card are matched first.
    expect(
      (await registry.create(instance('ok', { endpointPath: '/v1/a2a/ok', restPath: '/v1/a2a', jsonRpcPath: '/v1/a2a/jsonrpc' }))).id,
    ).toBe('ok');
  });

  it('are checked one change at a time: of two creates of one path made at once, the second is refused', async () => {
    const { registry } = await registryOver([]);
    const results = await Promise.allSettled([
      registry.create(instance('first', { endpointPath: '/a2a/same' })),
      registry.create(instance('second', { endpointPath: '/a2a/same' })),
    ]);
    expect(results.map((result) => result.status)).toEqual(['fulfilled', 'rejected']);
    expect(registry.list().map((config) => config.id)).toEqual(['first']);
  });

  it('change nothing when they refuse', async () => {
    const registry = await withDefault();
    await registry.create(instance('data', DATA_AGENT));
    await expect(registry.update('data', { restPath: '/a2a/default' })).rejects.toThrow(OperationError);
    expect(registry.agent('data')).toMatchObject(DATA_AGENT);
    expect(registry.byRestPath('/a2a/rest/tasks')).toMatchObject({ subpath: '/tasks' });
  });
});
