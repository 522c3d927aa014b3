import type { AgentCard, AgentSkill } from '../../generated/a2a/1.0/types.js';
import type { DiscoverPreview } from '../../generated/control/types.js';
import { DEFAULTS } from '../../generated/hub/defaults.js';
import type { OutboundSettings } from '../../generated/hub/types.js';
import type { A2AClient } from '../client/a2a-client.js';
import type { UrlPolicy } from '../net/destination-policy.js';
import type { OutboundConfigs, StoredOutbound } from '../store/task-store.js';
import { describeError } from '../support/describe-error.js';
import type { LogFunction } from '../support/log.js';
import { OperationError } from '../support/operation-error.js';
import { ConnectionSupervisor, type ConnectOutcome, type OutboundState } from './connection-supervisor.js';
import {
  DEFAULT_OUTBOUND_TIMEOUT_MS,
  newOutboundConfig,
  outboundConfigOf,
  readStoredOutbound,
  type OutboundConfig,
  type OutboundInput,
  type OutboundPatch,
} from './outbound-config.js';
import { ConnectError, connectRemote, discoverRemote, type RemoteSettings } from './remote-connect.js';

export type { ConnectOutcome, OutboundState } from './connection-supervisor.js';

/** What a caller of the remote needs: the connected client and when to stop. */
export interface OutboundConnection {
  readonly config: OutboundConfig;
  readonly client: A2AClient;
  readonly card: AgentCard;
  /** Aborts when the connection is disabled or removed, or the hub closes. */
  readonly signal: AbortSignal;
  /** Replaces the connection's token in text from the remote, which may quote what it was sent. */
  readonly redact: (text: string) => string;
}

/** A connection as the snapshot shows it. */
export interface OutboundView {
  readonly config: OutboundConfig;
  readonly state: OutboundState;
  /** Set exactly when state is error. */
  readonly error?: string;
  /** Skills of the last card read (kept while in error, so the row still says what was there). */
  readonly skills: readonly AgentSkill[];
  /** Skills exposed as tools: none unless connected. */
  readonly toolSkills: readonly AgentSkill[];
}

export interface OutboundRegistryOptions {
  readonly store: OutboundConfigs;
  readonly now: () => string;
  /** Environment for `bearerTokenEnv` lookups (default: process.env). */
  readonly env?: NodeJS.ProcessEnv;
  readonly settings?: OutboundSettings;
  readonly log?: LogFunction;
  /** Told after every stored change (with replicas sharing the store, the hub tells the others). */
  readonly changed?: () => void;
}

/**
 * The outbound connections: their persisted configuration, and (through the
 * ConnectionSupervisor) each one's connection state. Every configuration change is written to
 * the store first, so a restart finds it; start() then reconnects without making the hub wait
 * for remotes.
 */
export class OutboundRegistry {
  readonly #options: OutboundRegistryOptions;
  readonly #configs = new Map<string, OutboundConfig>();
  /** Stored rows that do not form a configuration: kept in the store and not connected, until removed. */
  readonly #unreadable = new Set<string>();
  readonly #connections: ConnectionSupervisor;
  readonly #urlPolicy: UrlPolicy | undefined;
  #version = 0;

  /** Reads the stored connections; start() connects the enabled ones. */
  static async open(options: OutboundRegistryOptions): Promise<OutboundRegistry> {
    return new OutboundRegistry(options, await options.store.loadOutbounds());
  }

  private constructor(options: OutboundRegistryOptions, rows: readonly StoredOutbound[]) {
    this.#options = options;
    this.#urlPolicy = options.settings?.urlPolicy;
    const reconnectMinMs = options.settings?.reconnectMinMs ?? DEFAULTS.OutboundSettings.reconnectMinMs;
    this.#connections = new ConnectionSupervisor({
      host: {
        config: (id) => this.#configs.get(id),
        connect: (config, signal) => connectRemote(config.agentCardUrl, this.#settingsOf(config, signal)),
        failure: (error, config) => this.#scrub(describeError(error), config),
        changed: () => this.#changed(),
        log: (level, message, config, details) => this.#log(level, message, config, details),
      },
      reconnectMinMs,
      reconnectMaxMs: Math.max(reconnectMinMs, options.settings?.reconnectMaxMs ?? DEFAULTS.OutboundSettings.reconnectMaxMs),
    });
    for (const stored of rows) {
      const loaded = readStoredOutbound(stored.id, stored.config);
      if (!loaded.ok) {
        this.#unreadable.add(stored.id);
        options.log?.(
          'error',
          'a stored outbound connection is not a valid configuration: it is not connected until fixed or removed (outbound.remove)',
          { outbound: stored.id, problems: loaded.problems },
        );
        continue;
      }
      this.#configs.set(loaded.config.id, loaded.config);
      this.#connections.add(loaded.config.id, loaded.config.enabled ? 'connecting' : 'disabled');
    }
  }

  /**
   * Reads the stored connections again: another replica sharing the store changed them through
   * its control API. New enabled ones connect, removed ones are dropped with their tools, and a
   * changed one reconnects (or is disabled), each in the background.
   */
  async reload(): Promise<void> {
    const rows = await this.#options.store.loadOutbounds();
    if (this.#connections.closed) return;
    const stored = new Set<string>();
    this.#unreadable.clear();
    for (const row of rows) {
      stored.add(row.id);
      const loaded = readStoredOutbound(row.id, row.config);
      if (!loaded.ok) {
        this.#unreadable.add(row.id);
        if (this.#configs.delete(row.id)) this.#connections.remove(row.id, `outbound connection "${row.id}" can no longer be read`);
        continue;
      }
      const config = loaded.config;
      const current = this.#configs.get(config.id);
      if (current !== undefined && JSON.stringify(current) === JSON.stringify(config)) continue;
      this.#configs.set(config.id, config);
      if (current === undefined) this.#connections.add(config.id, config.enabled ? 'connecting' : 'disabled');
      if (config.enabled) void this.#connections.connect(config);
      else if (current?.enabled === true) this.#connections.disable(config.id, `outbound connection "${config.name}" was disabled`);
      this.#changed();
    }
    for (const config of [...this.#configs.values()]) {
      if (stored.has(config.id)) continue;
      this.#connections.remove(config.id, `outbound connection "${config.name}" was removed`);
      this.#configs.delete(config.id);
      this.#changed();
    }
  }

  /** Connects every enabled connection in the background; call once the hub listens (a remote may be the hub itself). */
  start(): void {
    for (const config of this.#configs.values()) if (config.enabled) void this.#connections.connect(config);
  }

  /** Increases with every change of a configuration or a state, so that derived tables know when to rebuild. */
  get version(): number {
    return this.#version;
  }

  list(): OutboundConfig[] {
    return [...this.#configs.values()];
  }

  get(id: string): OutboundConfig | undefined {
    return this.#configs.get(id);
  }

  view(id: string): OutboundView | undefined {
    const config = this.#configs.get(id);
    const live = this.#connections.status(id);
    if (config === undefined || live === undefined) return undefined;
    const skills = uniqueSkills(live.card?.skills ?? []);
    const disabled = new Set(config.disabledSkills);
    return {
      config,
      state: live.state,
      ...(live.state === 'error' ? { error: live.reason ?? 'unknown error' } : {}),
      skills,
      toolSkills: live.state === 'connected' ? skills.filter((skill) => !disabled.has(skill.id)) : [],
    };
  }

  /** The connected client of a connection, for callers of the remote (tools, relay executors). */
  client(id: string): OutboundConnection | undefined {
    const config = this.#configs.get(id);
    const live = this.#connections.status(id);
    if (config === undefined || live?.state !== 'connected' || live.client === undefined || live.card === undefined) return undefined;
    return { config, client: live.client, card: live.card, signal: live.scope.signal, redact: (text) => this.#scrub(text, config) };
  }

  /** Whether a token is sent, and where it comes from; never the token. */
  authOf(id: string): { enabled: boolean; bearerTokenEnv?: string } {
    const config = this.#require(id);
    return {
      enabled: config.token !== undefined || config.bearerTokenEnv !== undefined,
      ...(config.bearerTokenEnv === undefined ? {} : { bearerTokenEnv: config.bearerTokenEnv }),
    };
  }

  /**
   * Creates a connection. An enabled one is connected first and stored only when that works,
   * so a mistyped URL leaves nothing behind; a disabled one is stored as given.
   */
  async create(input: OutboundInput): Promise<OutboundConfig> {
    this.#requireOpen();
    if (!URL.canParse(input.agentCardUrl))
      throw new OperationError(
        `agentCardUrl ${JSON.stringify(input.agentCardUrl)} is not a URL; give the agent card's URL or the agent's base URL`,
      );
    const config = newOutboundConfig(input, this.#options.now());
    if (!config.enabled) {
      await this.#save(config);
      this.#connections.add(config.id, 'disabled');
      this.#changed();
      return config;
    }
    let client: A2AClient;
    try {
      client = await connectRemote(config.agentCardUrl, this.#settingsOf(config));
    } catch (error) {
      throw new OperationError(
        `could not connect to ${config.agentCardUrl}: ${this.#scrub(describeError(error), config)}; nothing was created. Check the URL with outbound.discover, or create the connection with "enabled": false and connect it later with outbound.enable`,
      );
    }
    this.#requireOpen();
    await this.#save(config);
    this.#connections.addConnected(config.id, client);
    this.#log('info', 'outbound connection created and connected', config);
    this.#changed();
    return config;
  }

  /** Changes the given members; a new timeoutMs reconnects an enabled connection, whose outcome is returned. */
  async update(id: string, patch: OutboundPatch): Promise<{ config: OutboundConfig; outcome?: ConnectOutcome }> {
    const current = this.#require(id);
    const { binding, ...rest } = patch;
    const defined = Object.fromEntries(Object.entries(rest).filter(([, value]) => value !== undefined)) as OutboundPatch;
    const { binding: _binding, ...unbound } = current;
    void _binding;
    const kept = binding === undefined ? current : binding === '' ? unbound : { ...unbound, binding };
    const config: OutboundConfig = { ...kept, ...defined, updatedAt: this.#options.now() } as OutboundConfig;
    await this.#save(config);
    // The client's per-request timeout and its binding are fixed when it connects.
    if (config.enabled && (config.timeoutMs !== current.timeoutMs || config.binding !== current.binding))
      return { config, outcome: await this.#connections.connect(config) };
    this.#changed();
    return { config };
  }

  /** Deletes a connection with its tools, also one whose stored configuration could not be read. */
  async remove(id: string): Promise<Pick<OutboundConfig, 'id' | 'name'>> {
    if (this.#unreadable.has(id)) {
      await this.#options.store.deleteOutbound(id);
      this.#unreadable.delete(id);
      this.#options.changed?.();
      return { id, name: id };
    }
    const config = this.#require(id);
    await this.#options.store.deleteOutbound(id);
    this.#options.changed?.();
    this.#connections.remove(id, `outbound connection "${config.name}" was removed`);
    this.#configs.delete(id);
    this.#log('info', 'outbound connection removed', config);
    this.#changed();
    return config;
  }

  /** Enabling connects, and throws when that fails: the connection then stays enabled in error and is retried. */
  async setEnabled(id: string, enabled: boolean): Promise<OutboundConfig> {
    const current = this.#require(id);
    const config: OutboundConfig = { ...current, enabled, updatedAt: this.#options.now() };
    await this.#save(config);
    if (!enabled) {
      this.#connections.disable(id, `outbound connection "${config.name}" was disabled`);
      this.#changed();
      return config;
    }
    const outcome = await this.#connections.connect(config);
    if (!outcome.ok) {
      throw new OperationError(
        `outbound connection "${config.name}" is enabled but could not connect: ${outcome.reason}. It stays in state error and is retried in the background; outbound.refresh retries now`,
      );
    }
    return config;
  }

  /** Re-reads the card and rebuilds the tools; throws when that fails (the state is then error). */
  async refresh(id: string): Promise<OutboundConfig> {
    const config = this.#require(id);
    if (!config.enabled)
      throw new OperationError(`outbound connection "${config.name}" is disabled; outbound.enable enables and connects it`);
    const outcome = await this.#connections.connect(config);
    if (!outcome.ok) {
      throw new OperationError(
        `refreshing outbound connection "${config.name}" failed: ${outcome.reason}. It is in state error and is retried in the background`,
      );
    }
    return config;
  }

  /**
   * Sets the token sent to the remote, or with an empty or absent token clears every form of
   * auth (bearerTokenEnv too). An enabled connection reconnects with it; the outcome is returned.
   */
  async setAuth(id: string, token: string | undefined): Promise<{ config: OutboundConfig; outcome?: ConnectOutcome }> {
    const { token: _token, bearerTokenEnv: _env, ...rest } = this.#require(id);
    void _token;
    void _env;
    const config: OutboundConfig = { ...rest, ...(token === undefined || token === '' ? {} : { token }), updatedAt: this.#options.now() };
    await this.#save(config);
    if (!config.enabled) {
      this.#changed();
      return { config };
    }
    return { config, outcome: await this.#connections.connect(config) };
  }

  /** Reads and checks a card, sending `token` when given; stores nothing. */
  async discover(agentCardUrl: string, token: string | undefined): Promise<DiscoverPreview> {
    this.#requireOpen();
    const settings: RemoteSettings = {
      timeoutMs: DEFAULT_OUTBOUND_TIMEOUT_MS,
      ...(token === undefined || token === '' ? {} : { token }),
      ...(this.#urlPolicy === undefined ? {} : { urlPolicy: this.#urlPolicy }),
    };
    try {
      return await discoverRemote(agentCardUrl, settings);
    } catch (error) {
      throw new OperationError(`could not read an agent card from ${agentCardUrl}: ${scrub(describeError(error), token)}`);
    }
  }

  /** Stops every attempt, retry timer and tool call. The registry answers nothing useful afterwards. */
  close(): void {
    this.#connections.close('the hub is shutting down');
  }

  /** Throws ConnectError for a token variable that is not set: connecting without it would only earn a 401. */
  #settingsOf(config: OutboundConfig, signal?: AbortSignal): RemoteSettings {
    const token = this.#tokenOf(config);
    return {
      timeoutMs: config.timeoutMs,
      ...(token === undefined ? {} : { token }),
      ...(this.#urlPolicy === undefined ? {} : { urlPolicy: this.#urlPolicy }),
      ...(signal === undefined ? {} : { signal }),
      ...(config.binding === undefined ? {} : { binding: config.binding }),
    };
  }

  #tokenOf(config: OutboundConfig): string | undefined {
    if (config.token !== undefined) return config.token;
    if (config.bearerTokenEnv === undefined) return undefined;
    const token = (this.#options.env ?? process.env)[config.bearerTokenEnv];
    if (token === undefined || token === '') {
      throw new ConnectError(
        `bearerTokenEnv names ${config.bearerTokenEnv}, which is not set in the hub's environment; set it and run outbound.refresh, or set a token with outbound.setAuth`,
      );
    }
    return token;
  }

  /** A remote may quote what it was sent; a token must not reach a row, a message or a log that way. */
  #scrub(text: string, config: OutboundConfig): string {
    let token: string | undefined;
    try {
      token = this.#tokenOf(config);
    } catch {
      token = undefined;
    }
    return scrub(text, token);
  }

  async #save(given: OutboundConfig): Promise<void> {
    // What is saved is what the next start reads back: the same check and projection as a stored row.
    const read = outboundConfigOf(given);
    if (!read.ok) throw new OperationError(`the outbound configuration is not valid: ${read.problems.join('; ')}`);
    await this.#options.store.saveOutbound({ id: read.config.id, config: read.config });
    this.#configs.set(read.config.id, read.config);
    this.#options.changed?.();
  }

  #require(id: string): OutboundConfig {
    const config = this.#configs.get(id);
    if (config === undefined) throw new OperationError(`no outbound connection has id "${id}"; GET /a2a/api lists them under outbounds`);
    return config;
  }

  #requireOpen(): void {
    if (this.#connections.closed) throw new OperationError('the hub is shutting down');
  }

  #changed(): void {
    this.#version += 1;
  }

  #log(level: 'info' | 'warn', message: string, config: OutboundConfig, details: Record<string, unknown> = {}): void {
    this.#options.log?.(level, message, { outbound: config.id, name: config.name, agentCardUrl: config.agentCardUrl, ...details });
  }
}

/** A card may list a skill id twice; one tool per id, the first entry wins. */
function uniqueSkills(skills: readonly AgentSkill[]): AgentSkill[] {
  const byId = new Map<string, AgentSkill>();
  for (const skill of skills) if (!byId.has(skill.id)) byId.set(skill.id, skill);
  return [...byId.values()];
}

function scrub(text: string, token: string | undefined): string {
  return token === undefined || token === '' ? text : text.split(token).join('[redacted]');
}
