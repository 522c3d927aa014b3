import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { DEFAULTS as SCHEMA_DEFAULTS } from '../generated/hub/defaults.js';
import type { HubConfig, StoreKind } from '../generated/hub/types.js';
import { validateHubConfig } from '../generated/hub/validators.js';
import { DestinationPolicyError, pushDestinationPolicy, resolveUrlPolicy } from './net/destination-policy.js';
import { toFieldViolations, violationPhrases } from './protocol/violations.js';
import { isRecord } from './support/records.js';
import document from '../generated/hub/schema.json' with { type: 'json' };

/**
 * The configuration with every default filled in; `outbound`, `push` and `connections` fill their
 * own defaults (src/outbound/outbound-registry.ts, src/push/push-settings.ts, src/http/connection-gate.ts).
 */
export type ResolvedHubConfig = Required<
  Omit<HubConfig, 'store' | 'publicUrl' | 'databaseUrl' | 'provider' | 'outbound' | 'push' | 'connections' | DeprecatedMember>
> &
  Pick<HubConfig, 'publicUrl' | 'databaseUrl' | 'provider' | 'outbound' | 'push' | 'connections'> & { store: StoreKind };

/** Members still read for old configs, each turned into its replacement by `current`. */
type DeprecatedMember = 'strictVersion';

/** A layer in the one form the hub reads: `store` as its kind alone, its database in `databaseUrl`. */
type CurrentLayer = Omit<HubConfig, DeprecatedMember | 'store'> & { store?: StoreKind };

/** Every default of spec/hub/config.schema.json, the one place they are written. */
export const DEFAULTS: ResolvedHubConfig = { ...SCHEMA_DEFAULTS.HubConfig, store: SCHEMA_DEFAULTS.HubConfig.store as StoreKind };

/** Environment variables and the member each sets; values are parsed as the member's schema type. */
const ENV: Record<string, keyof HubConfig> = {
  A2A_HUB_HOST: 'host',
  A2A_HUB_PORT: 'port',
  A2A_HUB_DATA_DIR: 'dataDir',
  A2A_HUB_STORE: 'store',
  A2A_HUB_DATABASE_URL: 'databaseUrl',
  A2A_HUB_DATABASE_POOL_SIZE: 'databasePoolSize',
  A2A_HUB_DATABASE_LEASE_MS: 'databaseLeaseMs',
  A2A_HUB_PUBLIC_URL: 'publicUrl',
  A2A_HUB_TRUST_PROXY: 'trustProxy',
  A2A_HUB_ABSENT_VERSION: 'absentVersion',
  A2A_HUB_STRICT_VERSION: 'strictVersion',
  A2A_HUB_BODY_LIMIT_BYTES: 'bodyLimitBytes',
  A2A_HUB_LOG_LEVEL: 'logLevel',
};

export class ConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ConfigError';
  }
}

/** A setting written as text: the member it sets, the flag or variable it was written as, and the text. */
export interface TextSetting {
  readonly member: keyof HubConfig;
  readonly name: string;
  readonly text: string;
}

/**
 * Defaults, then the config file, then A2A_HUB_* variables, then the command line (`args` as
 * typed, then `flags` as values): each layer is checked against spec/hub/config.schema.json so a
 * typo is an error that names the member, or the flag or variable it was given as.
 */
export function resolveConfig(layers: {
  file?: string;
  env?: NodeJS.ProcessEnv;
  args?: readonly TextSetting[];
  flags?: HubConfig;
  /** Told once per deprecated member a layer uses, with what to write instead. */
  onDeprecated?: (message: string) => void;
}): ResolvedHubConfig {
  const current = (layer: HubConfig, where: string, written: string): CurrentLayer =>
    storeOf(currentOf(layer, written, layers.onDeprecated), where);
  const fromFile =
    layers.file === undefined ? {} : current(checkedFile(layers.file), `config file ${layers.file}`, `strictVersion in ${layers.file}`);
  const envSettings = Object.entries(ENV).flatMap(([name, member]) => {
    const text = layers.env?.[name];
    // An empty variable is how shells and compose files leave one unset.
    return text === undefined || text === '' ? [] : [{ member, name, text }];
  });
  const fromEnv = current(checkedText(envSettings, 'environment'), 'environment', 'A2A_HUB_STRICT_VERSION');
  const fromArgs = current(checkedText(layers.args ?? [], 'command line'), 'command line', 'strictVersion');
  const fromFlags = current(checked(layers.flags ?? {}, 'command line'), 'command line', 'strictVersion');
  const layered = [fromFile, fromEnv, fromArgs, fromFlags];
  const merged = { ...DEFAULTS, ...fromFile, ...fromEnv, ...fromArgs, ...fromFlags };
  // A database URL alone says where the tasks go; a store named anywhere says it instead.
  const store = layered.some((layer) => layer.store !== undefined)
    ? merged.store
    : merged.databaseUrl === undefined
      ? merged.store
      : 'postgres';
  if (store === 'postgres' && merged.databaseUrl === undefined)
    throw new ConfigError(
      'invalid configuration: store postgres needs databaseUrl (A2A_HUB_DATABASE_URL), e.g. postgres://a2ahub@127.0.0.1:5432/a2ahub',
    );
  return { ...merged, store, dataDir: resolve(merged.dataDir) };
}

/**
 * `store: {kind, url}` (the form replicas' configs often take) as `store: kind` and
 * `databaseUrl: url`, so the rest of the hub reads one form; a url beside another kind, or
 * beside a different databaseUrl, is refused rather than one of them silently winning.
 */
function storeOf(layer: Omit<HubConfig, DeprecatedMember>, where: string): CurrentLayer {
  const { store, ...rest } = layer;
  if (store === undefined || typeof store === 'string') return { ...rest, ...(store === undefined ? {} : { store }) };
  if (store.url === undefined) return { ...rest, store: store.kind };
  const refuse = (problem: string): never => {
    throw new ConfigError(`invalid configuration (${where}): ${problem}`);
  };
  if (store.kind !== 'postgres')
    refuse(`store.url names a PostgreSQL database, but store.kind is "${store.kind}": set kind "postgres" or drop url`);
  if (rest.databaseUrl !== undefined && rest.databaseUrl !== store.url)
    refuse('store.url and databaseUrl name different databases: give the database once');
  return { ...rest, store: store.kind, databaseUrl: store.url };
}

/**
 * A layer in today's members. `strictVersion` predates serving 0.3: true refused a request
 * without A2A-Version, which is what absentVersion "0.3" does on a 1.0-only binding; false
 * served it as 1.0. Each layer is translated by itself, so a later layer's absentVersion or
 * strictVersion overrides an earlier one's either way.
 */
function currentOf(
  layer: HubConfig,
  written: string,
  onDeprecated: ((message: string) => void) | undefined,
): Omit<HubConfig, DeprecatedMember> {
  const { strictVersion, ...rest } = layer;
  if (strictVersion === undefined) return rest;
  const translated = strictVersion ? '0.3' : '1.0';
  onDeprecated?.(
    rest.absentVersion === undefined
      ? `${written} is deprecated; read as absentVersion "${translated}" (A2A_HUB_ABSENT_VERSION), set that instead`
      : `${written} is deprecated and ignored, since absentVersion is set beside it; remove it`,
  );
  return { absentVersion: translated, ...rest };
}

/**
 * A config file: JSON, or YAML (`.yaml`/`.yml`, or any file that is not JSON: YAML reads JSON
 * too, so the fallback changes nothing for a JSON file).
 */
function readConfigFile(path: string): unknown {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new ConfigError(`cannot read config file ${path}: ${(error as Error).message}`);
  }
  let value: unknown;
  try {
    value = /\.ya?ml$/i.test(path) ? parseYaml(text) : JSON.parse(text);
  } catch (jsonError) {
    try {
      value = parseYaml(text);
    } catch {
      throw new ConfigError(`cannot read config file ${path}: it is neither JSON nor YAML (${(jsonError as Error).message})`);
    }
  }
  return value;
}

/** The config file checked; a file none of whose members is a hub setting is, besides, pointed to --agent. */
function checkedFile(path: string): HubConfig {
  const value = readConfigFile(path);
  try {
    return checked(value, `config file ${path}`);
  } catch (error) {
    const foreign = isRecord(value) && Object.keys(value).length > 0 && !Object.keys(value).some((key) => Object.hasOwn(HUB_MEMBERS, key));
    if (!(error instanceof ConfigError) || !foreign) throw error;
    throw new ConfigError(
      `${error.message}. It holds no hub setting (a hub config has members such as port, dataDir and store, docs/server.md#configuration); ` +
        `if it declares an agent (seed 002's DataAgent YAML), serve it with --agent ${path}, and a file of several agents with --agents.`,
    );
  }
}

/** The members a hub config file may hold. */
const HUB_MEMBERS = document.$defs.HubConfig.properties as Record<string, unknown>;

/** Parses each setting as its member's schema type, then checks the layer, naming each problem by the flag or variable. */
function checkedText(settings: readonly TextSetting[], where: string): HubConfig {
  const layer: Record<string, unknown> = {};
  const names = new Map<string, string>();
  const problems: string[] = [];
  for (const setting of settings) {
    names.set(setting.member, setting.name);
    const parsed = parseText(setting);
    if (parsed.ok) layer[setting.member] = parsed.value;
    else problems.push(`${setting.name} ${parsed.problem}`);
  }
  if (problems.length > 0) throw new ConfigError(`invalid configuration (${where}): ${problems.join('; ')}`);
  return checked(layer, where, (member) => names.get(member) ?? member);
}

type Parsed = { readonly ok: true; readonly value: unknown } | { readonly ok: false; readonly problem: string };

function parseText({ member, text }: TextSetting): Parsed {
  const got = text === '' ? 'got an empty value' : `got ${JSON.stringify(text)}`;
  switch (memberType(member)) {
    case 'integer':
      // Number() would take "", "0x10" and "1e3"; a port or a size is written in decimal.
      return /^-?\d+$/.test(text)
        ? { ok: true, value: Number(text) }
        : { ok: false, problem: `must be a whole number such as ${JSON.stringify(DEFAULTS[member as keyof ResolvedHubConfig])}, ${got}` };
    case 'boolean':
      if (text === 'true' || text === '1') return { ok: true, value: true };
      if (text === 'false' || text === '0') return { ok: true, value: false };
      return { ok: false, problem: `must be true, false, 1 or 0, ${got}` };
    default:
      if (text === '') return { ok: false, problem: `must not be empty${member === 'host' ? HOST_EXAMPLES : ''}` };
      return { ok: true, value: text };
  }
}

const HOST_EXAMPLES = ': give an address such as 127.0.0.1 (this machine only) or 0.0.0.0 (every interface)';

function memberType(member: keyof HubConfig): unknown {
  return (document.$defs.HubConfig.properties as Record<string, { type?: unknown }>)[member]?.type;
}

/** `named` says what to call a top-level member: the flag or variable it was written as. */
function checked(value: unknown, where: string, named: (member: string) => string = (member) => member): HubConfig {
  if (validateHubConfig(value)) {
    checkDestinationPolicies(value, where);
    return value;
  }
  const violations = toFieldViolations(validateHubConfig.errors ?? [], { document, def: 'HubConfig', data: value }).map((violation) => {
    const [member = '', ...rest] = violation.field.split('.');
    return { ...violation, field: [named(member), ...rest].join('.') };
  });
  throw new ConfigError(`invalid configuration (${where}): ${violationPhrases(violations, 'config').join('; ')}`);
}

/** Address ranges are beyond JSON Schema: the policies parse them, and a bad one is refused here, naming its member, rather than at the first request. */
function checkDestinationPolicies(config: HubConfig, where: string): void {
  try {
    if (config.outbound?.urlPolicy !== undefined) resolveUrlPolicy({ ...config.outbound.urlPolicy, configuredAt: 'outbound.urlPolicy' });
    if (config.push?.destinations !== undefined) pushDestinationPolicy(config.push.destinations);
  } catch (error) {
    if (error instanceof DestinationPolicyError) throw new ConfigError(`invalid configuration (${where}): ${error.message}`);
    throw error;
  }
}
