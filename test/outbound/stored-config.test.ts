import { describe, expect, it } from 'vitest';
import { OutboundRegistry } from '../../src/outbound/outbound-registry.js';
import { MemoryTaskStore } from '../../src/store/memory-store.js';
import type { LogFunction } from '../../src/support/log.js';

const NOW = '2026-12-01T10:00:00.000Z';

function row(overrides: Record<string, unknown>): Record<string, unknown> {
  return {
    id: 'out-00000000-000',
    name: 'weather',
    agentCardUrl: 'http://127.0.0.1:9/',
    enabled: false,
    createdAt: NOW,
    updatedAt: NOW,
    ...overrides,
  };
}

async function registryOver(config: Record<string, unknown>) {
  const store = new MemoryTaskStore();
  store.saveOutbound({ id: 'out-00000000-000', config });
  const logged: { message: string; details?: Record<string, unknown> }[] = [];
  const log: LogFunction = (_level, message, details) => logged.push({ message, ...(details === undefined ? {} : { details }) });
  return { store, logged, registry: await OutboundRegistry.open({ store, now: () => NOW, log }) };
}

describe('stored outbound connections are checked when the hub loads them', () => {
  it('fills the members rows of earlier versions lack', async () => {
    const { registry, logged } = await registryOver(row({}));
    expect(registry.get('out-00000000-000')).toMatchObject({ timeoutMs: 60_000, disabledSkills: [], skillOverrides: {} });
    expect(logged).toEqual([]);
  });

  it('drops the members it does not know, so a loaded row can be changed and saved again', async () => {
    const { store, registry } = await registryOver(row({ someFutureMember: true }));
    expect(registry.get('out-00000000-000')).not.toHaveProperty('someFutureMember');
    await registry.update('out-00000000-000', { name: 'weather-2' });
    const saved = store.loadOutbounds()[0]?.config;
    expect(saved).toMatchObject({ name: 'weather-2', timeoutMs: 60_000 });
    expect(saved).not.toHaveProperty('someFutureMember');
  });

  it.each([
    ['a timeout out of range', row({ timeoutMs: 5 }), 'timeoutMs must be >= 100'],
    ['no agentCardUrl', row({ agentCardUrl: undefined }), 'agentCardUrl is required'],
    ['a skill override without a description', row({ skillOverrides: { chat: {} } }), 'skillOverrides.chat.description is required'],
  ])('does not load a row with %s, logs why, keeps it, and lets outbound.remove delete it', async (_what, config, problem) => {
    const { store, registry, logged } = await registryOver(config);
    expect(registry.get('out-00000000-000')).toBeUndefined();
    expect(registry.list()).toEqual([]);
    expect((logged[0]?.details?.['problems'] as string[]).join('; ')).toContain(problem);
    expect(store.loadOutbounds()).toHaveLength(1);
    expect(await registry.remove('out-00000000-000')).toEqual({ id: 'out-00000000-000', name: 'out-00000000-000' });
    expect(store.loadOutbounds()).toEqual([]);
  });
});
