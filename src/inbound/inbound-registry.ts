import { randomBytes } from 'node:crypto';
import { WELL_KNOWN_AGENT_CARD_PATH } from '../../generated/a2a/1.0/protocol.js';
import type { AgentProvider, AgentSkill } from '../../generated/a2a/1.0/types.js';
import { CONTROL_API } from '../../generated/control/api.js';
import { DEFAULTS } from '../../generated/control/defaults.js';
import { DEFAULTS as HUB_DEFAULTS } from '../../generated/hub/defaults.js';
import { validateEndpointPath } from '../../generated/control/validators.js';
import { DEFAULT_PRESET, type PresetRegistry } from '../executors/presets.js';
import type { AgentDirectory, InboundAgent, RestTarget, UnavailableAgent } from '../server/hosted-agent.js';
import type { InstanceConfigs, MetaStore } from '../store/task-store.js';
import type { LogFunction } from '../support/log.js';
import { OperationError } from '../support/operation-error.js';
import { tokenDigest } from '../support/token-digest.js';
import { buildAgentCard, CAPABILITIES } from './agent-card.js';
import { inboundConfigOf, readStoredInbound, type InboundConfig } from './stored-inbound.js';

export type { InboundConfig } from './stored-inbound.js';

export interface InboundInput {
  readonly id?: string;
  readonly name: string;
  readonly description: string;
  readonly version: string;
  readonly endpointPath?: string;
  readonly preset?: string;
  readonly authTokenEnv?: string;
  readonly enabled?: boolean;
  readonly skills?: readonly AgentSkill[];
  readonly relayTo?: string;
}

export type InboundPatch = Partial<
  Pick<InboundConfig, 'name' | 'description' | 'version' | 'endpointPath' | 'preset' | 'authTokenEnv' | 'skills' | 'relayTo'>
>;

export interface InboundRegistryOptions {
  readonly store: InstanceConfigs & Pick<MetaStore, 'getMeta' | 'setMeta'>;
  readonly presets: PresetRegistry;
  readonly now: () => string;
  readonly env?: NodeJS.ProcessEnv;
  readonly provider?: AgentProvider;
  readonly log?: LogFunction;
  /**
   * Changes whenever something a preset's profile reads changes (outbound connections): the
   * routing table is rebuilt on the next lookup, so cards follow their remotes.
   */
  readonly revision?: () => number;
  /** Where the configurations are stored, named in the warning about an instance that cannot run. */
  readonly dataDir?: string;
  /** The instance whose card /.well-known/agent-card.json serves, or false for none (HubConfig.wellKnownInstance). */
  readonly wellKnownInstance?: string | false;
}

/** Paths the hub itself serves, with everything below them; no instance may take them. */
const RESERVED_PATHS: readonly string[] = [
  WELL_KNOWN_AGENT_CARD_PATH.slice(0, WELL_KNOWN_AGENT_CARD_PATH.lastIndexOf('/')),
  CONTROL_API.basePath,
  CONTROL_API.panelPath,
];

/**
 * What an instance this hub cannot run may change without a registered preset: nothing its
 * preset would check. So an operator can disable, protect or rename it as it is.
 */
const PRESET_FREE_MEMBERS: ReadonlySet<string> = new Set(['name', 'description', 'version', 'endpointPath', 'authTokenEnv']);

function isReserved(path: string): boolean {
  return RESERVED_PATHS.some((reserved) => path === reserved || path.startsWith(`${reserved}/`));
}
const FIRST_START_KEY = 'inbound.defaultCreated';

/**
 * The inbound instances: their persisted configuration, and the live routing table built
 * from it. Every change is written to the store first and then swapped into the table, so
 * the next request sees it and a restart finds it.
 */
export class InboundRegistry implements AgentDirectory {
  readonly #options: InboundRegistryOptions;
  readonly #configs = new Map<string, InboundConfig>();
  /** Stored rows that do not form a configuration: kept in the store, not served, and their ids kept taken. */
  readonly #unreadable = new Map<string, string[]>();
  #byPath = new Map<string, InboundAgent>();
  /**
   * Configurations that are stored and valid but cannot run in this process (their preset is
   * not registered), with the reason: listed and editable, never routed. Rebuilt with the table.
   */
  #unavailable = new Map<string, UnavailableAgent>();
  #unavailableByPath = new Map<string, UnavailableAgent>();
  #builtAt: number | undefined;

  constructor(options: InboundRegistryOptions) {
    this.#options = options;
    for (const stored of options.store.loadInstances()) {
      const loaded = readStoredInbound(stored.id, stored.config);
      if (loaded.ok) {
        this.#configs.set(stored.id, loaded.config);
        continue;
      }
      this.#unreadable.set(stored.id, loaded.problems);
      options.log?.(
        'error',
        'a stored inbound instance is not a valid configuration: it is not served until fixed or removed (inbound.remove)',
        { instance: stored.id, problems: loaded.problems },
      );
    }
    this.#rebuild();
    for (const { id } of this.#unavailable.values()) {
      const config = this.#configs.get(id);
      const dataDir = options.dataDir ?? 'the task store';
      options.log?.(
        'warn',
        `stored inbound instance "${id}" in ${dataDir} names preset "${config?.preset}", which this hub has not registered: its endpoint answers AgentUnavailableError until inbound.update gives it a registered preset or inbound.remove deletes it`,
        { instance: id, preset: config?.preset, dataDir, registered: this.#registeredPresets() },
      );
    }
  }

  /** On the very first start of a data dir, creates the `default` instance on the echo preset. */
  ensureDefault(): void {
    const { store } = this.#options;
    if (store.getMeta(FIRST_START_KEY) !== undefined) return;
    // An unreadable row under the id was logged when loaded; creating over it would fail the start.
    if (!this.#configs.has('default') && !this.#unreadable.has('default')) {
      this.create({
        id: 'default',
        name: 'a2a-hub echo',
        description: 'The default a2a-hub agent: echoes what it is sent, and follows the a2a-hub test directives.',
        version: '1.0.0',
        preset: DEFAULT_PRESET,
      });
    }
    store.setMeta(FIRST_START_KEY, this.#options.now());
  }

  list(): InboundConfig[] {
    return [...this.#configs.values()];
  }

  get(id: string): InboundConfig | undefined {
    return this.#configs.get(id);
  }

  /** The live agent for an id, also when disabled (the control API reads its card); none while unavailable. */
  agent(id: string): InboundAgent | undefined {
    const config = this.#configs.get(id);
    return config === undefined || this.#unavailable.has(id) ? undefined : this.#agentOf(config);
  }

  /** Why a stored instance cannot run in this hub; undefined when it can (or does not exist). */
  unavailableReason(id: string): string | undefined {
    return this.#unavailable.get(id)?.reason;
  }

  /** The routing table, rebuilt first if a profile's source changed since it was built. */
  #table(): Map<string, InboundAgent> {
    if (this.#options.revision !== undefined && this.#options.revision() !== this.#builtAt) this.#rebuild();
    return this.#byPath;
  }

  create(input: InboundInput): InboundConfig {
    const id = input.id ?? `${slug(input.name)}-${randomBytes(4).toString('hex')}`;
    if (this.#configs.has(id)) throw new OperationError(`an inbound instance with id "${id}" already exists`);
    const unreadable = this.#unreadable.get(id);
    if (unreadable !== undefined) {
      throw new OperationError(
        `an inbound instance with id "${id}" is stored but its configuration is not valid (${unreadable.join('; ')}); inbound.remove deletes it`,
      );
    }
    const now = this.#options.now();
    const config: InboundConfig = {
      id,
      name: input.name,
      description: input.description,
      version: input.version,
      endpointPath: input.endpointPath ?? `/a2a/${id}`,
      preset: input.preset ?? DEFAULT_PRESET,
      enabled: input.enabled ?? DEFAULTS.InboundCreateAction.enabled,
      ...(input.authTokenEnv === undefined ? {} : { authTokenEnv: input.authTokenEnv }),
      ...(input.skills === undefined ? {} : { skills: input.skills }),
      ...(input.relayTo === undefined || input.relayTo === '' ? {} : { relayTo: input.relayTo }),
      createdAt: now,
      updatedAt: now,
    };
    return this.#save(config);
  }

  update(id: string, patch: InboundPatch): InboundConfig {
    const { authTokenEnv: _env, ...current } = this.#require(id);
    const defined = Object.fromEntries(Object.entries(patch).filter(([, value]) => value !== undefined));
    // An empty authTokenEnv means "stop reading the token from the environment".
    const env = patch.authTokenEnv === undefined ? _env : patch.authTokenEnv === '' ? undefined : patch.authTokenEnv;
    const { authTokenEnv: _ignored, relayTo: _relayTo, ...rest } = defined;
    void _ignored;
    void _relayTo;
    // An empty relayTo, like an empty authTokenEnv, clears it.
    const { relayTo: currentRelay, ...others } = current;
    const relayTo = patch.relayTo === undefined ? currentRelay : patch.relayTo === '' ? undefined : patch.relayTo;
    const presetFree =
      this.#unavailable.has(id) &&
      Object.entries(defined).every(
        ([member, value]) => PRESET_FREE_MEMBERS.has(member) || (member === 'preset' && value === current.preset),
      );
    return this.#save(
      {
        ...others,
        ...rest,
        ...(env === undefined ? {} : { authTokenEnv: env }),
        ...(relayTo === undefined ? {} : { relayTo }),
        updatedAt: this.#options.now(),
      },
      { presetFree },
    );
  }

  setEnabled(id: string, enabled: boolean): InboundConfig {
    return this.#save({ ...this.#require(id), enabled, updatedAt: this.#options.now() }, { presetFree: this.#unavailable.has(id) });
  }

  /** Sets a bearer token, or with an empty or absent token clears every form of auth. */
  setAuth(id: string, token: string | undefined): InboundConfig {
    const { tokenDigest: _digest, authTokenEnv: _env, ...rest } = this.#require(id);
    void _digest;
    void _env;
    const auth = token === undefined || token === '' ? {} : { tokenDigest: tokenDigest(token) };
    return this.#save({ ...rest, ...auth, updatedAt: this.#options.now() }, { presetFree: this.#unavailable.has(id) });
  }

  /** Deletes an instance, also one whose stored configuration could not be read. */
  remove(id: string): void {
    if (!this.#unreadable.delete(id)) this.#require(id);
    this.#options.store.deleteInstance(id);
    this.#configs.delete(id);
    this.#rebuild();
  }

  byEndpointPath(path: string): InboundAgent | undefined {
    return this.#table().get(path);
  }

  byJsonRpcPath(path: string): InboundAgent | undefined {
    const agent = this.#table().get(path);
    return agent?.jsonRpcPath === path ? agent : undefined;
  }

  byRestPath(path: string): RestTarget | undefined {
    const table = this.#table();
    // Longest base first: walk up the path one segment at a time.
    for (let cut = path.lastIndexOf('/'); cut > 0; cut = path.lastIndexOf('/', cut - 1)) {
      const base = path.slice(0, cut);
      const agent = table.get(base);
      if (agent !== undefined && agent.restPath === base) return { agent, subpath: path.slice(cut) };
      const unavailable = this.#unavailableByPath.get(base);
      if (unavailable !== undefined) return { unavailable, subpath: path.slice(cut) };
    }
    return undefined;
  }

  unavailableAt(path: string): UnavailableAgent | undefined {
    return this.#unavailableByPath.get(path);
  }

  /** The id configured for the well-known card, or undefined when none is. */
  get wellKnownInstance(): string | undefined {
    const chosen = this.#options.wellKnownInstance ?? HUB_DEFAULTS.HubConfig.wellKnownInstance;
    return chosen === false ? undefined : chosen;
  }

  /** The configured instance's agent while it is enabled and can run; no other instance stands in for it. */
  defaultAgent(): InboundAgent | undefined {
    const id = this.wellKnownInstance;
    const config = id === undefined ? undefined : this.#configs.get(id);
    return config === undefined ? undefined : this.#table().get(config.endpointPath);
  }

  /** Whether the instance requires a token, and where it comes from; never the token. */
  authOf(id: string): { enabled: boolean; authTokenEnv?: string } {
    const config = this.#require(id);
    return {
      enabled: this.#digestOf(config) !== undefined,
      ...(config.authTokenEnv === undefined ? {} : { authTokenEnv: config.authTokenEnv }),
    };
  }

  #require(id: string): InboundConfig {
    const config = this.#configs.get(id);
    if (config === undefined) throw new OperationError(`no inbound instance has id "${id}"`);
    return config;
  }

  /** `presetFree`: the change is one an unavailable instance may make (PRESET_FREE_MEMBERS), so its preset is not checked. */
  #save(given: InboundConfig, { presetFree = false } = {}): InboundConfig {
    this.#check(given, presetFree);
    // What is saved is what the next start reads back: the same check and projection as a stored row.
    const read = inboundConfigOf(given);
    if (!read.ok) throw new OperationError(`the instance configuration is not valid: ${read.problems.join('; ')}`);
    const config = read.config;
    this.#options.store.saveInstance({ id: config.id, config });
    this.#configs.set(config.id, config);
    this.#rebuild();
    return config;
  }

  #check(config: InboundConfig, presetFree: boolean): void {
    if (!validateEndpointPath(config.endpointPath) || isReserved(config.endpointPath)) {
      throw new OperationError(
        `endpointPath "${config.endpointPath}" is not usable: give an absolute path like /a2a/reports outside ${RESERVED_PATHS.join(', ')}`,
      );
    }
    if (!presetFree) this.#checkPreset(config);
    for (const other of this.#configs.values()) {
      if (other.id !== config.id && other.endpointPath === config.endpointPath) {
        throw new OperationError(`endpointPath ${config.endpointPath} is already used by instance "${other.id}"`);
      }
    }
  }

  #checkPreset(config: InboundConfig): void {
    const preset = this.#options.presets.get(config.preset);
    if (preset === undefined) {
      throw new OperationError(`unknown preset "${config.preset}"; available: ${this.#registeredPresets().join(', ')}`);
    }
    const problem = preset.validate?.(config);
    if (problem !== undefined) throw new OperationError(problem);
  }

  #rebuild(): void {
    this.#builtAt = this.#options.revision?.();
    const table = new Map<string, InboundAgent>();
    const unavailable = new Map<string, UnavailableAgent>();
    const unavailableByPath = new Map<string, UnavailableAgent>();
    for (const config of this.#configs.values()) {
      // Saves check a new preset, so only a row stored by a process that had more presets gets here.
      if (this.#options.presets.get(config.preset) === undefined) {
        const digest = config.enabled ? this.#digestOf(config) : undefined;
        const entry = {
          id: config.id,
          reason: `its preset "${config.preset}" is not registered in this hub (registered: ${this.#registeredPresets().join(', ')})`,
          ...(digest === undefined ? {} : { tokenDigest: digest }),
        };
        unavailable.set(config.id, entry);
        if (config.enabled) unavailableByPath.set(config.endpointPath, entry);
      } else if (config.enabled) table.set(config.endpointPath, this.#agentOf(config));
    }
    this.#byPath = table;
    this.#unavailable = unavailable;
    this.#unavailableByPath = unavailableByPath;
  }

  #registeredPresets(): string[] {
    return this.#options.presets.list().map((entry) => entry.id);
  }

  #digestOf(config: InboundConfig): string | undefined {
    if (config.tokenDigest !== undefined) return config.tokenDigest;
    if (config.authTokenEnv === undefined) return undefined;
    const token = (this.#options.env ?? process.env)[config.authTokenEnv];
    if (token === undefined || token === '') {
      this.#options.log?.('warn', 'the token variable of an inbound instance is empty: every request will be refused', {
        instance: config.id,
        authTokenEnv: config.authTokenEnv,
      });
      // Fail closed: a digest no token can match.
      return '0'.repeat(64);
    }
    return tokenDigest(token);
  }

  #agentOf(config: InboundConfig): InboundAgent {
    const preset = this.#options.presets.get(config.preset);
    if (preset === undefined) throw new OperationError(`unknown preset "${config.preset}"`);
    const profile = preset.profile?.(config);
    const skills = config.skills ?? profile?.skills ?? preset.skills;
    const media = {
      inputModes: profile?.inputModes ?? preset.inputModes,
      outputModes: profile?.outputModes ?? preset.outputModes,
      extensions: profile?.extensions ?? preset.extensions,
    };
    const digest = this.#digestOf(config);
    const skillIds = skills.map((skill) => skill.id);
    // Both bindings sit at the instance's base path until an instance configures its own.
    const paths = { jsonRpcPath: config.endpointPath, restPath: config.endpointPath };
    const source = {
      name: config.name,
      description: config.description,
      version: config.version,
      endpointPath: config.endpointPath,
      ...paths,
      skills,
      presetId: preset.id,
      ...media,
      requiresToken: digest !== undefined,
      ...(this.#options.provider === undefined ? {} : { provider: this.#options.provider }),
    };
    return {
      id: config.id,
      name: config.name,
      endpointPath: config.endpointPath,
      ...paths,
      executor: preset.executor,
      skills: skillIds,
      defaultSkill: skillIds.includes('chat') ? 'chat' : (skillIds[0] ?? 'chat'),
      capabilities: CAPABILITIES,
      extensions: media.extensions,
      inputModes: media.inputModes,
      card: (baseUrl) => buildAgentCard(source, baseUrl),
      ...(digest === undefined ? {} : { tokenDigest: digest }),
    };
  }
}

/** `Reports Agent!` → `reports-agent`: the readable half of a generated instance id. */
function slug(name: string): string {
  const text = name
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 40);
  return text === '' ? 'agent' : text;
}
