import { describe, expect, it } from 'vitest';
import { OperationError } from '../../src/support/operation-error.js';
import { registryOver, storedInbound as stored } from '../helpers/inbound-registry.js';

describe('stored inbound configurations are checked when the hub loads them', () => {
  it('loads rows that conform, including ones written with members of an earlier or later version', async () => {
    const { registry, logged } = await registryOver([{ id: 'reports', config: stored({ someFutureMember: true }) }]);
    expect(registry.get('reports')?.endpointPath).toBe('/a2a/reports');
    expect(registry.byEndpointPath('/a2a/reports')?.id).toBe('reports');
    expect(logged).toEqual([]);
  });

  it('drops the members it does not know, so a loaded row can be changed and saved again', async () => {
    const { store, registry } = await registryOver([
      {
        id: 'reports',
        config: stored({ someFutureMember: true, skills: [{ id: 's', name: 's', description: 'd', tags: ['t'], later: 1 }] }),
      },
    ]);
    expect(registry.get('reports')).not.toHaveProperty('someFutureMember');
    await registry.setEnabled('reports', false);
    const saved = store.loadInstances()[0]?.config;
    expect(saved).toMatchObject({ id: 'reports', enabled: false, skills: [{ id: 's', name: 's', description: 'd', tags: ['t'] }] });
    expect(saved).not.toHaveProperty('someFutureMember');
    expect((saved?.['skills'] as object[])[0]).not.toHaveProperty('later');
  });

  it.each([
    ['a missing endpointPath', stored({ endpointPath: undefined }), 'endpointPath is required'],
    [
      'an endpointPath that is not a path',
      stored({ endpointPath: 'reports' }),
      'endpointPath must be an absolute path such as /a2a/my-agent',
    ],
    ['enabled as a string', stored({ enabled: 'yes' }), 'enabled must be a boolean'],
    ['a restPath that is not a path', stored({ restPath: 'v1' }), 'restPath must be an absolute path such as /a2a/my-agent'],
    ['an empty tenants list', stored({ tenants: [] }), 'tenants must'],
    ['a tenant that is no path segment', stored({ tenants: ['a/b'] }), 'tenants[0] must be a tenant name such as research'],
    ['a custom skill that is not an AgentSkill', stored({ skills: [{ id: 'x' }] }), 'skills[0].name is required'],
    ['an id other than its row', stored({ id: 'other' }), 'id is "other", but the row is stored under "reports"'],
  ])('does not serve a row with %s, logs why, and keeps the row', async (_what, config, problem) => {
    const { store, registry, logged } = await registryOver([
      { id: 'reports', config },
      { id: 'fine', config: stored({ id: 'fine', endpointPath: '/a2a/fine' }) },
    ]);
    expect(registry.get('reports')).toBeUndefined();
    expect(registry.byEndpointPath('/a2a/reports')).toBeUndefined();
    expect(registry.get('fine')).toBeDefined();
    expect(logged).toHaveLength(1);
    expect(logged[0]?.details?.['instance']).toBe('reports');
    expect((logged[0]?.details?.['problems'] as string[]).join('; ')).toContain(problem);
    expect(
      store
        .loadInstances()
        .map((row) => row.id)
        .sort(),
    ).toEqual(['fine', 'reports']);
  });

  it('keeps the id of an unreadable row taken until inbound.remove deletes the row', async () => {
    const { store, registry } = await registryOver([{ id: 'reports', config: stored({ enabled: 'yes' }) }]);
    await expect(registry.create({ id: 'reports', name: 'again', description: 'd', version: '1' })).rejects.toThrow(OperationError);
    await expect(registry.create({ id: 'reports', name: 'again', description: 'd', version: '1' })).rejects.toThrow(
      /is stored but its configuration is not valid \(enabled must be a boolean/,
    );
    await registry.remove('reports');
    expect(store.loadInstances()).toEqual([]);
    expect((await registry.create({ id: 'reports', name: 'again', description: 'd', version: '1' })).id).toBe('reports');
  });

  it('on the first start of a data dir, an unreadable row named default does not stop the hub', async () => {
    const { store, registry, logged } = await registryOver([{ id: 'default', config: stored({ id: 'default', enabled: 'yes' }) }]);
    await expect(registry.ensureDefault()).resolves.toBeUndefined();
    expect(registry.get('default')).toBeUndefined();
    expect(logged[0]?.details?.['instance']).toBe('default');
    expect(store.loadInstances().map((row) => row.id)).toEqual(['default']);
  });

  it('keeps a row whose preset is not registered, unavailable with the reason, until it is updated or removed', async () => {
    const { registry, logged } = await registryOver([
      { id: 'reports', config: stored({ preset: 'shout' }) },
      { id: 'spare', config: stored({ id: 'spare', endpointPath: '/a2a/spare', preset: 'shout' }) },
    ]);
    expect(registry.get('reports')?.preset).toBe('shout');
    expect(registry.byEndpointPath('/a2a/reports')).toBeUndefined();
    expect(registry.agent('reports')).toBeUndefined();
    expect(registry.unavailableReason('reports')).toBe('its preset "shout" is not registered in this hub (registered: echo)');
    expect(registry.unavailableAt('/a2a/reports')).toEqual({ id: 'reports', reason: registry.unavailableReason('reports') });
    expect(logged.map((line) => line.details?.['instance'])).toEqual(['reports', 'spare']);
    // Metadata needs no preset, and leaves it unavailable; what a preset would check still does.
    await registry.update('reports', { name: 'renamed', authTokenEnv: 'REPORTS_TOKEN' });
    expect(registry.get('reports')).toMatchObject({ name: 'renamed', authTokenEnv: 'REPORTS_TOKEN' });
    expect(registry.unavailableReason('reports')).toBeDefined();
    await expect(registry.update('reports', { name: 'again', relayTo: 'somewhere' })).rejects.toThrow(
      /unknown preset "shout"; available: echo/,
    );
    await registry.update('reports', { preset: 'echo' });
    expect(registry.unavailableReason('reports')).toBeUndefined();
    expect(registry.unavailableAt('/a2a/reports')).toBeUndefined();
    expect(registry.byEndpointPath('/a2a/reports')?.id).toBe('reports');
    await registry.remove('spare');
    expect(registry.unavailableAt('/a2a/spare')).toBeUndefined();
    expect(registry.list().map((config) => config.id)).toEqual(['reports']);
  });

  it('refuses to save a configuration it could not load again', async () => {
    const { registry } = await registryOver([]);
    await expect(registry.create({ name: 'skilled', description: 'd', version: '1', skills: [{ id: 'x' }] })).rejects.toThrow(
      /the instance configuration is not valid: skills\[0\]\.name is required/,
    );
  });
});
