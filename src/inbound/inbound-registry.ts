import { prunes, type RetentionRule } from '../store/retention.js';
import { randomBytes } from 'node:crypto';
import type { AgentProvider } from '../../generated/a2a/1.0/types.js';
import type { ModelOptions, SessionOrder } from '../../generated/control/types.js';
import { DEFAULTS } from '../../generated/control/defaults.js';
import { DEFAULTS as HUB_DEFAULTS } from '../../generated/hub/defaults.js';
import { DEFAULT_PRESET, type PresetRegistry } from '../executors/presets.js';
import type { AgentDirectory, InboundAgent, RestTarget, UnavailableAgent } from '../server/hosted-agent.js';
import type { InstanceConfigs, MetaStore, StoredInstance } from '../store/task-store.js';
import type { LogFunction } from '../support/log.js';
import { OperationError } from '../support/operation-error.js';
import { tokenDigest } from '../support/token-digest.js';
import { buildAgentCard, capabilitiesOf } from './agent-card.js';
import { clashWith, isReserved, ownPathProblem, pathsOf, samePaths } from './instance-paths.js';
import { inboundConfigOf, readStoredInbound, type InboundConfig } from './stored-inbound.js';
import { trimLeading, trimTrailing } from '../support/trim.js';

export type { InboundConfig } from './stored-inbound.js';

export interface InboundInput {
  readonly id?: string;
  readonly name: string;
  readonly description: string;
  readonly version: string;
  readonly endpointPath?: string;
  /** Where JSON-RPC is POSTed; default (and following it) endpointPath. */
  readonly jsonRpcPath?: string;
  /** The HTTP+JSON base; default (and following it) endpointPath. */
  readonly restPath?: string;
  /** The only tenants accepted; absent or empty: any. */
  readonly tenants?: readonly string[];
  readonly preset?: string;
  readonly authTokenEnv?: string;
  readonly enabled?: boolean;
  /** Skills to advertise instead of the preset's: each is checked as an A2A 1.0 AgentSkill when saved. */
  readonly skills?: readonly unknown[];
  readonly relayTo?: string;
  /** Whether the instance serves push notifications; default true. */
  readonly pushNotifications?: boolean;
  /** The model endpoint of the standard preset. */
  readonly model?: ModelOptions;
  /** The standard preset's system prompt. */
  readonly instructions?: string;
  /** The outbound tools the standard preset's model may call; absent: every enabled tool. */
  readonly tools?: readonly string[];
  readonly maxToolRounds?: number;
  /** How long one run of the executor may take; 0: no limit. */
  readonly executionTimeoutMs?: number;
  /** fifo or concurrent; absent: the preset's default. */
  readonly sessionOrder?: SessionOrder;
  /** How long its terminal tasks are kept; absent (or empty): all of them. */
  readonly retention?: RetentionRule;
}

/**
 * Members to change; an empty `jsonRpcPath`, `restPath`, `authTokenEnv`, `relayTo`,
 * `instructions` or `sessionOrder`, or empty `tenants` or `skills`, clears the member, and so does
 * null for `model` and `tools` (whose empty list means something: no tool).
 */
export type InboundPatch = Partial<
  Pick<
    InboundConfig,
    | 'name'
    | 'description'
    | 'version'
    | 'endpointPath'
    | 'jsonRpcPath'
    | 'restPath'
    | 'preset'
    | 'authTokenEnv'
    | 'relayTo'
    | 'pushNotifications'
    | 'retention'
    | 'instructions'
    | 'maxToolRounds'
    | 'executionTimeoutMs'
  > & {
    readonly tenants: readonly string[];
    readonly skills: readonly unknown[];
    readonly tools: readonly string[] | null;
    readonly model: ModelOptions | null;
    readonly sessionOrder: SessionOrder | '';
  }
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
  /** Told after every stored change (with replicas sharing the store, the hub tells the others). */
  readonly changed?: () => void;
}

/**
 * What an instance this hub cannot run may change without a registered preset: nothing its
 * preset would check. So an operator can disable, protect or rename it as it is.
 */
const PRESET_FREE_MEMBERS: ReadonlySet<string> = new Set([
  'name',
  'description',
  'version',
  'endpointPath',
  'jsonRpcPath',
  'restPath',
  'tenants',
  'authTokenEnv',
  'pushNotifications',
  'executionTimeoutMs',
  'sessionOrder',
  'retention',
]);

/** The members an empty value clears instead of setting. */
const CLEARED_BY_EMPTY = [
  'jsonRpcPath',
  'restPath',
  'tenants',
  'authTokenEnv',
  'relayTo',
  'instructions',
  'sessionOrder',
  'skills',
] as const;

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
  #tables: RoutingTables = emptyTables();
  /**
   * Configurations that are stored and valid but cannot run in this process (their preset is
   * not registered), with the reason: listed and editable, never routed. Rebuilt with the tables.
   */
  #unavailable = new Map<string, UnavailableAgent>();
  #builtAt: number | undefined;

  /** Changes, one at a time: each is checked against the table the one before it left. */
  #changes: Promise<unknown> = Promise.resolve();

  /** Reads the stored instances and builds the routing table from them. */
  static async open(options: InboundRegistryOptions): Promise<InboundRegistry> {
    return new InboundRegistry(options, await options.store.loadInstances());
  }

  private constructor(options: InboundRegistryOptions, stored: readonly StoredInstance[]) {
    this.#options = options;
    this.#load(stored);
    this.#rebuild();
    this.#warnOfStoredClashes();
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

  /**
   * Reads the stored instances again and serves them: another replica sharing the store changed
   * them through its control API. A worker whose instance changed is disconnected, as after a
   * change made here.
   */
  reload(): Promise<void> {
    return this.#change(async () => {
      const stored = await this.#options.store.loadInstances();
      const before = new Map(this.#configs);
      const unreadableBefore = new Set(this.#unreadable.keys());
      this.#configs.clear();
      this.#unreadable.clear();
      this.#load(stored, unreadableBefore);
      this.#rebuild();
      for (const [id, config] of before) {
        const after = this.#configs.get(id);
        if (after === undefined || JSON.stringify(after) !== JSON.stringify(config)) this.#disconnectWorkers(config, after);
      }
    });
  }

  /** Takes the stored rows that form a configuration; logs the others, except those `known` to be unreadable already. */
  #load(stored: readonly StoredInstance[], known: ReadonlySet<string> = new Set()): void {
    for (const row of stored) {
      const loaded = readStoredInbound(row.id, row.config);
      if (loaded.ok) {
        this.#configs.set(row.id, loaded.config);
        continue;
      }
      this.#unreadable.set(row.id, loaded.problems);
      if (known.has(row.id)) continue;
      this.#options.log?.(
        'error',
        'a stored inbound instance is not a valid configuration: it is not served until fixed or removed (inbound.remove)',
        { instance: row.id, problems: loaded.problems },
      );
    }
  }

  /**
   * On the very first start of a data dir, creates the `default` instance on the echo preset;
   * with `create: false` (the instances are declared elsewhere: serve --agents) only records that
   * the first start is past, so a later plain start does not add it either.
   */
  async ensureDefault({ create = true }: { readonly create?: boolean } = {}): Promise<void> {
    const { store } = this.#options;
    if ((await store.getMeta(FIRST_START_KEY)) !== undefined) return;
    // An unreadable row under the id was logged when loaded; creating over it would fail the start.
    if (create && !this.#configs.has('default') && !this.#unreadable.has('default')) {
      await this.create({
        id: 'default',
        name: 'a2a-hub echo',
        description: 'The default a2a-hub agent: echoes what it is sent, and follows the a2a-hub test directives.',
        version: '1.0.0',
        preset: DEFAULT_PRESET,
      });
    }
    await store.setMeta(FIRST_START_KEY, this.#options.now());
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

  /** The routing tables, rebuilt first if a profile's source changed since they were built. */
  #routes(): RoutingTables {
    if (this.#options.revision !== undefined && this.#options.revision() !== this.#builtAt) this.#rebuild();
    return this.#tables;
  }

  create(input: InboundInput): Promise<InboundConfig> {
    return this.#change(() => this.#create(input));
  }

  update(id: string, patch: InboundPatch): Promise<InboundConfig> {
    return this.#change(() => this.#update(id, patch));
  }

  setEnabled(id: string, enabled: boolean): Promise<InboundConfig> {
    return this.#change(() =>
      this.#save({ ...this.#require(id), enabled, updatedAt: this.#options.now() }, { presetFree: this.#unavailable.has(id) }),
    );
  }

  /** Sets a bearer token, or with an empty or absent token clears every form of auth. */
  setAuth(id: string, token: string | undefined): Promise<InboundConfig> {
    return this.#change(() => {
      const { tokenDigest: _digest, authTokenEnv: _env, ...rest } = this.#require(id);
      void _digest;
      void _env;
      const auth = token === undefined || token === '' ? {} : { tokenDigest: tokenDigest(token) };
      return this.#save({ ...rest, ...auth, updatedAt: this.#options.now() }, { presetFree: this.#unavailable.has(id) });
    });
  }

  /** Deletes an instance, also one whose stored configuration could not be read. */
  remove(id: string): Promise<void> {
    return this.#change(async () => {
      const before = this.#configs.get(id);
      if (!this.#unreadable.has(id)) this.#require(id);
      await this.#options.store.deleteInstance(id);
      this.#unreadable.delete(id);
      this.#configs.delete(id);
      this.#rebuild();
      this.#disconnectWorkers(before, undefined);
      this.#options.changed?.();
    });
  }

  /** Runs one change after those before it have finished, whether they succeeded or not. */
  #change<T>(work: () => Promise<T>): Promise<T> {
    const next = this.#changes.then(work, work);
    this.#changes = next.catch(() => undefined);
    return next;
  }

  #create(input: InboundInput): Promise<InboundConfig> {
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
      endpointPath: input.endpointPath ?? defaultEndpointPath(id),
      ...(input.jsonRpcPath === undefined ? {} : { jsonRpcPath: input.jsonRpcPath }),
      ...(input.restPath === undefined ? {} : { restPath: input.restPath }),
      ...(input.tenants === undefined || input.tenants.length === 0 ? {} : { tenants: [...input.tenants] }),
      preset: input.preset ?? DEFAULT_PRESET,
      enabled: input.enabled ?? DEFAULTS.InboundCreateAction.enabled,
      ...(input.authTokenEnv === undefined ? {} : { authTokenEnv: input.authTokenEnv }),
      ...(input.skills === undefined || input.skills.length === 0 ? {} : { skills: input.skills as InboundConfig['skills'] }),
      ...(input.relayTo === undefined || input.relayTo === '' ? {} : { relayTo: input.relayTo }),
      // Stored only when off, so rows written before the member existed read as they always served.
      ...(input.pushNotifications === false ? { pushNotifications: false } : {}),
      ...(prunes(input.retention) ? { retention: { ...input.retention } } : {}),
      ...(definedMembers(input, PRESET_OPTIONS) as Partial<InboundConfig>),
      createdAt: now,
      updatedAt: now,
    };
    return this.#save(config);
  }

  #update(id: string, patch: InboundPatch): Promise<InboundConfig> {
    const current = this.#require(id);
    const defined = Object.entries(patch).filter(([, value]) => value !== undefined);
    const next: Record<string, unknown> = { ...current, updatedAt: this.#options.now() };
    for (const [member, value] of defined) {
      const clears =
        value === null ||
        ((CLEARED_BY_EMPTY as readonly string[]).includes(member) && (value === '' || (Array.isArray(value) && value.length === 0))) ||
        // An empty retention keeps every task, as none does.
        (member === 'retention' && !prunes(value as RetentionRule));
      if (clears) delete next[member];
      else next[member] = value;
    }
    const presetFree =
      this.#unavailable.has(id) &&
      defined.every(([member, value]) => PRESET_FREE_MEMBERS.has(member) || (member === 'preset' && value === current.preset));
    return this.#save(next as InboundConfig, { presetFree });
  }

  byEndpointPath(path: string): InboundAgent | undefined {
    return this.#routes().byEndpointPath.get(path);
  }

  byJsonRpcPath(path: string): InboundAgent | undefined {
    return this.#routes().byJsonRpcPath.get(path);
  }

  byRestPath(path: string): RestTarget | undefined {
    // The hub's own paths are never an instance's routes, even under a stored REST base above them.
    if (isReserved(path)) return undefined;
    const { byRestPath, unavailableByRestPath, longestRestBase } = this.#routes();
    // Longest base first: walk up the path one segment at a time, from the longest prefix that
    // could be a base (from the path's end, a path of thousands of slashes cost a slice per slash:
    // quadratic in what a client sent).
    for (let cut = path.lastIndexOf('/', longestRestBase); cut > 0; cut = path.lastIndexOf('/', cut - 1)) {
      const base = path.slice(0, cut);
      const agent = byRestPath.get(base);
      if (agent !== undefined) return { agent, subpath: path.slice(cut) };
      const unavailable = unavailableByRestPath.get(base);
      if (unavailable !== undefined) return { unavailable, subpath: path.slice(cut) };
    }
    return undefined;
  }

  unavailableAt(path: string): UnavailableAgent | undefined {
    return this.#routes().unavailableByPath.get(path);
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
    return config === undefined ? undefined : this.#routes().byEndpointPath.get(config.endpointPath);
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
  async #save(given: InboundConfig, { presetFree = false } = {}): Promise<InboundConfig> {
    this.#check(given, presetFree);
    // What is saved is what the next start reads back: the same check and projection as a stored row.
    const read = inboundConfigOf(given);
    if (!read.ok) throw new OperationError(`the instance configuration is not valid: ${read.problems.join('; ')}`);
    const config = read.config;
    const before = this.#configs.get(config.id);
    await this.#options.store.saveInstance({ id: config.id, config });
    this.#configs.set(config.id, config);
    this.#rebuild();
    this.#disconnectWorkers(before, config);
    this.#options.changed?.();
    return config;
  }

  /**
   * A connected worker was let in with the instance's token at its feed's URL: a change of
   * either, or the instance going away or off, disconnects it (it reconnects if it still may,
   * and the tasks it held wait for the next worker).
   */
  #disconnectWorkers(before: InboundConfig | undefined, after: InboundConfig | undefined): void {
    const board = before === undefined ? undefined : this.#options.presets.get(before.preset)?.workerOf?.(before.id);
    if (board === undefined || before === undefined) return;
    const unchanged =
      after !== undefined &&
      after.enabled !== false &&
      after.preset === before.preset &&
      after.endpointPath === before.endpointPath &&
      after.tokenDigest === before.tokenDigest &&
      after.authTokenEnv === before.authTokenEnv;
    if (!unchanged) board.closeFeeds();
  }

  #check(config: InboundConfig, presetFree: boolean): void {
    // Paths a save keeps were checked when they were set; a clash stored before these rules is not this save's to refuse.
    const stored = this.#configs.get(config.id);
    if (stored === undefined || !samePaths(stored, config)) this.#checkPaths(config);
    if (!presetFree) this.#checkPreset(config);
  }

  #checkPaths(config: InboundConfig): void {
    const own = ownPathProblem(config);
    if (own !== undefined) throw new OperationError(own);
    for (const other of this.#configs.values()) {
      const clash = other.id === config.id ? undefined : clashWith(config, other);
      if (clash !== undefined) throw new OperationError(clash);
    }
  }

  /** Stored rows are served as they are; one that a save would refuse is worth a warning. */
  #warnOfStoredClashes(): void {
    const configs = [...this.#configs.values()];
    configs.forEach((config, index) => {
      const problem =
        ownPathProblem(config) ??
        configs
          .slice(index + 1)
          .map((other) => clashWith(config, other))
          .find((clash) => clash !== undefined);
      if (problem === undefined) return;
      this.#options.log?.(
        'warn',
        `the paths of stored inbound instance "${config.id}" clash: ${problem}. Exact paths are served first and the longest REST base wins; inbound.update can move it`,
        { instance: config.id, ...pathsOf(config) },
      );
    });
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
    const tables = emptyTables();
    const unavailable = new Map<string, UnavailableAgent>();
    for (const config of this.#configs.values()) {
      const paths = pathsOf(config);
      // Saves check a new preset, so only a row stored by a process that had more presets gets here.
      if (this.#options.presets.get(config.preset) === undefined) {
        const digest = config.enabled ? this.#digestOf(config) : undefined;
        const entry = {
          id: config.id,
          reason: `its preset "${config.preset}" is not registered in this hub (registered: ${this.#registeredPresets().join(', ')})`,
          ...(digest === undefined ? {} : { tokenDigest: digest }),
        };
        unavailable.set(config.id, entry);
        if (!config.enabled) continue;
        tables.unavailableByPath.set(paths.endpointPath, entry);
        tables.unavailableByPath.set(paths.jsonRpcPath, entry);
        tables.unavailableByRestPath.set(paths.restPath, entry);
        tables.longestRestBase = Math.max(tables.longestRestBase, paths.restPath.length);
      } else if (config.enabled) {
        const agent = this.#agentOf(config);
        tables.byEndpointPath.set(paths.endpointPath, agent);
        tables.byJsonRpcPath.set(paths.jsonRpcPath, agent);
        tables.byRestPath.set(paths.restPath, agent);
        tables.longestRestBase = Math.max(tables.longestRestBase, paths.restPath.length);
      }
    }
    this.#tables = tables;
    this.#unavailable = unavailable;
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
    const { jsonRpcPath, restPath } = pathsOf(config);
    const capabilities = capabilitiesOf(config);
    const source = {
      name: config.name,
      description: config.description,
      version: config.version,
      endpointPath: config.endpointPath,
      jsonRpcPath,
      restPath,
      ...(config.tenants === undefined ? {} : { tenants: config.tenants }),
      skills,
      presetId: preset.id,
      ...media,
      requiresToken: digest !== undefined,
      capabilities,
      ...(this.#options.provider === undefined ? {} : { provider: this.#options.provider }),
    };
    return {
      id: config.id,
      name: config.name,
      endpointPath: config.endpointPath,
      jsonRpcPath,
      restPath,
      ...(config.tenants === undefined ? {} : { tenants: config.tenants }),
      executor: preset.executor,
      skills: skillIds,
      defaultSkill: skillIds.includes('chat') ? 'chat' : (skillIds[0] ?? 'chat'),
      sessionOrder: config.sessionOrder ?? preset.sessionOrder ?? 'concurrent',
      executionTimeoutMs: config.executionTimeoutMs ?? DEFAULTS.InboundCreateAction.executionTimeoutMs,
      capabilities,
      extensions: media.extensions,
      inputModes: media.inputModes,
      card: (baseUrl) => buildAgentCard(source, baseUrl),
      ...(digest === undefined ? {} : { tokenDigest: digest }),
      ...(preset.workerOf === undefined ? {} : { worker: preset.workerOf(config.id) }),
    };
  }
}

/** The live routes, one table per kind of path, so a request costs one lookup per path segment at most. */
interface RoutingTables {
  readonly byEndpointPath: Map<string, InboundAgent>;
  readonly byJsonRpcPath: Map<string, InboundAgent>;
  readonly byRestPath: Map<string, InboundAgent>;
  /** Enabled instances that cannot run, by their endpoint and JSON-RPC paths. */
  readonly unavailableByPath: Map<string, UnavailableAgent>;
  readonly unavailableByRestPath: Map<string, UnavailableAgent>;
  /** The longest REST base of either REST table: no longer prefix of a path can name one. */
  longestRestBase: number;
}

function emptyTables(): RoutingTables {
  return {
    byEndpointPath: new Map(),
    byJsonRpcPath: new Map(),
    byRestPath: new Map(),
    unavailableByPath: new Map(),
    unavailableByRestPath: new Map(),
    longestRestBase: 0,
  };
}

/** Where an instance that names no endpointPath is served. */
export function defaultEndpointPath(id: string): string {
  return `/a2a/${id}`;
}

/** Members an instance keeps for its preset and runtime, stored as given when given. */
const PRESET_OPTIONS = ['model', 'instructions', 'tools', 'maxToolRounds', 'executionTimeoutMs', 'sessionOrder'] as const;

function definedMembers<T extends object, K extends keyof T>(source: T, members: readonly K[]): Partial<Pick<T, K>> {
  const picked: Partial<Pick<T, K>> = {};
  for (const member of members) {
    const value = source[member];
    if (value !== undefined && value !== '') picked[member] = value;
  }
  return picked;
}

/** `Reports Agent!` → `reports-agent`: the readable half of a generated instance id. */
function slug(name: string): string {
  const text = trimLeading(trimTrailing(name.toLowerCase().replace(/[^a-z0-9]+/g, '-'), '-'), '-').slice(0, 40);
  return text === '' ? 'agent' : text;
}
