import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { DEFAULTS as SCHEMA_DEFAULTS } from '../generated/hub/defaults.js';
import type { HubConfig } from '../generated/hub/types.js';
import { validateHubConfig } from '../generated/hub/validators.js';
import { toFieldViolations, violationPhrases } from './protocol/violations.js';
import document from '../generated/hub/schema.json' with { type: 'json' };

/** The configuration with every default filled in; `outbound` fills its own defaults (src/outbound/outbound-registry.ts). */
export type ResolvedHubConfig = Required<Omit<HubConfig, 'publicUrl' | 'provider' | 'outbound'>> &
  Pick<HubConfig, 'publicUrl' | 'provider' | 'outbound'>;

/** Every default of spec/hub/config.schema.json, the one place they are written. */
export const DEFAULTS: ResolvedHubConfig = { ...SCHEMA_DEFAULTS.HubConfig };

/** Environment variables and the member each sets; values are parsed as the member's type. */
const ENV: Record<string, keyof HubConfig> = {
  A2A_HUB_HOST: 'host',
  A2A_HUB_PORT: 'port',
  A2A_HUB_DATA_DIR: 'dataDir',
  A2A_HUB_STORE: 'store',
  A2A_HUB_PUBLIC_URL: 'publicUrl',
  A2A_HUB_TRUST_PROXY: 'trustProxy',
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

/**
 * Defaults, then the config file, then A2A_HUB_* variables, then flags: each layer is
 * checked against spec/hub/config.schema.json so a typo is an error that names the member.
 */
export function resolveConfig(layers: { file?: string; env?: NodeJS.ProcessEnv; flags?: HubConfig }): ResolvedHubConfig {
  const fromFile = layers.file === undefined ? {} : checked(readConfigFile(layers.file), `config file ${layers.file}`);
  const fromEnv = checked(envLayer(layers.env ?? {}), 'environment');
  const fromFlags = checked(layers.flags ?? {}, 'command line');
  const merged = { ...DEFAULTS, ...fromFile, ...fromEnv, ...fromFlags };
  return { ...merged, dataDir: resolve(merged.dataDir) };
}

function readConfigFile(path: string): unknown {
  try {
    return JSON.parse(readFileSync(path, 'utf8')) as unknown;
  } catch (error) {
    throw new ConfigError(`cannot read config file ${path}: ${(error as Error).message}`);
  }
}

function envLayer(env: NodeJS.ProcessEnv): Record<string, unknown> {
  const layer: Record<string, unknown> = {};
  for (const [name, member] of Object.entries(ENV)) {
    const raw = env[name];
    if (raw === undefined || raw === '') continue;
    layer[member] = /^(port|bodyLimitBytes)$/.test(member)
      ? Number(raw)
      : /^(trustProxy|strictVersion)$/.test(member)
        ? raw === 'true' || raw === '1'
        : raw;
  }
  return layer;
}

function checked(value: unknown, where: string): HubConfig {
  if (validateHubConfig(value)) return value;
  const violations = toFieldViolations(validateHubConfig.errors ?? [], { document, def: 'HubConfig', data: value });
  throw new ConfigError(`invalid configuration (${where}): ${violationPhrases(violations, 'config').join('; ')}`);
}
