import type { AgentSkill } from '../../generated/a2a/1.0/types.js';
import type { OutboundRegistry } from '../outbound/outbound-registry.js';
import type { MetaStore } from '../store/task-store.js';
import type { Preset, PresetInstance } from './presets.js';
import { relayExecutor } from './relay.js';

export const RELAY_PRESET = 'relay';

/** Advertised while the remote's card is not known (never connected since the hub started). */
const PLACEHOLDER_SKILL: AgentSkill = {
  id: 'chat',
  name: 'chat',
  description: 'Forwards the message to the remote agent this instance relays to.',
  tags: ['relay'],
};

/**
 * The `relay` preset: an inbound instance that forwards every message to the outbound
 * connection named by its `relayTo`. Its card advertises the remote's skills, media types and
 * extensions, so clients address it as they would the remote.
 */
export interface RelayPresetDeps {
  readonly outbounds: OutboundRegistry;
  /** Durable key/value storage for the remote ids of relayed tasks (the store's meta table). */
  readonly meta: MetaStore;
  /** The relayTo of an inbound instance, read when a message arrives (it can change at run time). */
  readonly relayToOf: (instanceId: string) => string | undefined;
}

export function relayPreset({ outbounds, meta, relayToOf }: RelayPresetDeps): Preset {
  const viewOf = (instance: PresetInstance) => (instance.relayTo === undefined ? undefined : outbounds.view(instance.relayTo));
  return {
    id: RELAY_PRESET,
    name: 'Relay',
    description:
      "Forwards every message to one outbound connection and mirrors the remote task; adds the hub's auth, rate limit, durable tasks and replay.",
    executor: relayExecutor({
      target: (instanceId) => {
        const relayTo = relayToOf(instanceId);
        if (relayTo === undefined) return { unavailable: 'the instance names no outbound connection (relayTo)' };
        const connection = outbounds.client(relayTo);
        if (connection !== undefined) return connection;
        const view = outbounds.view(relayTo);
        if (view === undefined) return { unavailable: `outbound connection "${relayTo}" does not exist` };
        return {
          unavailable: `outbound connection "${view.config.name}" is ${view.state}${view.error === undefined ? '' : `: ${view.error}`}`,
        };
      },
      get: (key) => meta.getMeta(key),
      set: (key, value) => meta.setMeta(key, value),
      delete: (key) => meta.deleteMeta(key),
    }),
    skills: [PLACEHOLDER_SKILL],
    inputModes: ['*/*'],
    outputModes: ['*/*'],
    extensions: [],
    validate(instance) {
      if (instance.relayTo === undefined || instance.relayTo === '')
        return 'the relay preset needs relayTo: the id of an outbound connection';
      if (outbounds.get(instance.relayTo) === undefined) return `relayTo names no outbound connection: "${instance.relayTo}"`;
      return undefined;
    },
    profile(instance) {
      const view = viewOf(instance);
      if (view === undefined || view.skills.length === 0) return undefined;
      const card = outbounds.client(view.config.id)?.card;
      return {
        skills: view.skills,
        ...(card === undefined
          ? {}
          : {
              inputModes: card.defaultInputModes,
              outputModes: card.defaultOutputModes,
              extensions: (card.capabilities.extensions ?? []).flatMap((extension) => (extension.uri === undefined ? [] : [extension.uri])),
            }),
      };
    },
  };
}
