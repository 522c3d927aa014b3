import { PresetRegistry } from '../../src/executors/presets.js';
import { InboundRegistry } from '../../src/inbound/inbound-registry.js';
import type { LogFunction } from '../../src/support/log.js';
import { MemoryTaskStore } from '../../src/store/memory-store.js';

export const STORED_AT = '2026-12-01T10:00:00.000Z';

/** A stored inbound row as the data dir keeps it (instance `reports` on the echo preset), with `overrides`; an undefined member is left out. */
export function storedInbound(overrides: Record<string, unknown>): Record<string, unknown> {
  return {
    id: 'reports',
    name: 'reports',
    description: 'r',
    version: '1',
    endpointPath: '/a2a/reports',
    preset: 'echo',
    enabled: true,
    createdAt: STORED_AT,
    updatedAt: STORED_AT,
    ...overrides,
  };
}

/** An inbound registry over a memory store holding `rows`, with the default presets, and every line it logs. */
export async function registryOver(rows: { id: string; config: Record<string, unknown> }[]) {
  const store = new MemoryTaskStore();
  for (const row of rows) store.saveInstance(row);
  const logged: { message: string; details?: Record<string, unknown> }[] = [];
  const log: LogFunction = (_level, message, details) => logged.push({ message, ...(details === undefined ? {} : { details }) });
  const registry = await InboundRegistry.open({ store, presets: new PresetRegistry(), now: () => STORED_AT, log });
  return { store, registry, logged };
}
