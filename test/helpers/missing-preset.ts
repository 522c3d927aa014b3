import { echoExecutor } from '../../src/executors/echo.js';
import { PresetRegistry } from '../../src/executors/presets.js';
import type { HubOptions } from '../../src/hub.js';
import type { InboundConfig } from '../../src/inbound/inbound-registry.js';
import { startTestHub } from './hub.js';

/**
 * Stores instances on a preset (`shout`) that only the hub started here registers, then closes
 * that hub: the next hub on `dataDir` (or on the store the options name) finds instances whose
 * preset it does not have.
 */
export async function storeOnMissingPreset(where: string | HubOptions, names: readonly string[]): Promise<InboundConfig[]> {
  const presets = new PresetRegistry();
  presets.register({
    id: 'shout',
    name: 'Shout',
    description: 'registered by the first process only',
    executor: echoExecutor,
    skills: [{ id: 'chat', name: 'chat', description: 'shouts', tags: ['demo'] }],
    inputModes: ['text/plain'],
    outputModes: ['text/plain'],
    extensions: [],
  });
  const hub = await startTestHub({ ...(typeof where === 'string' ? { dataDir: where } : where), presets });
  try {
    const created = [];
    for (const name of names) created.push(await hub.inbounds.create({ name, description: 'shouts', version: '1.0.0', preset: 'shout' }));
    return created;
  } finally {
    await hub.close();
  }
}
