import { randomBytes } from 'node:crypto';
import { DEFAULTS } from '../../generated/control/defaults.js';
import type { SkillOverrides } from '../../generated/control/types.js';

/** Per-call timeout of a connection that names none (spec/control): long, because remote agents may think for a while. */
export const DEFAULT_OUTBOUND_TIMEOUT_MS = DEFAULTS.OutboundCreateAction.timeoutMs;

/**
 * An outbound connection's configuration as persisted. A token set with outbound.setAuth has
 * to be sent to the remote, so unlike an inbound token it cannot be kept as a digest: it is
 * stored in clear in the data dir's SQLite file. It is never shown, logged or echoed.
 */
export interface OutboundConfig {
  /** `out-<8 hex>-<3 hex>`, the shape seed 001 §1.1 shows. */
  readonly id: string;
  readonly name: string;
  readonly agentCardUrl: string;
  /** Name of the environment variable holding the bearer token. */
  readonly bearerTokenEnv?: string;
  /** A token set with outbound.setAuth; takes precedence over bearerTokenEnv. */
  readonly token?: string;
  /** Recorded for a future local hand-off session (seed 001 §4); tools call the remote directly. */
  readonly preset?: string;
  readonly enabled: boolean;
  readonly timeoutMs: number;
  readonly disabledSkills: readonly string[];
  readonly skillOverrides: Readonly<SkillOverrides>;
  readonly createdAt: string;
  readonly updatedAt: string;
}

export interface OutboundInput {
  readonly name: string;
  readonly agentCardUrl: string;
  readonly bearerTokenEnv?: string;
  readonly preset?: string;
  readonly enabled?: boolean;
  readonly timeoutMs?: number;
  readonly disabledSkills?: readonly string[];
  readonly skillOverrides?: Readonly<SkillOverrides>;
}

export type OutboundPatch = Partial<Pick<OutboundConfig, 'name' | 'preset' | 'timeoutMs' | 'disabledSkills' | 'skillOverrides'>>;

export function newOutboundId(): string {
  const hex = randomBytes(6).toString('hex');
  return `out-${hex.slice(0, 8)}-${hex.slice(8, 11)}`;
}

export function newOutboundConfig(input: OutboundInput, now: string): OutboundConfig {
  return {
    id: newOutboundId(),
    name: input.name,
    agentCardUrl: input.agentCardUrl,
    // An empty variable name would make every connect fail for no visible reason: treat it as none.
    ...(input.bearerTokenEnv === undefined || input.bearerTokenEnv === '' ? {} : { bearerTokenEnv: input.bearerTokenEnv }),
    ...(input.preset === undefined ? {} : { preset: input.preset }),
    enabled: input.enabled ?? DEFAULTS.OutboundCreateAction.enabled,
    timeoutMs: input.timeoutMs ?? DEFAULT_OUTBOUND_TIMEOUT_MS,
    disabledSkills: [...(input.disabledSkills ?? [])],
    skillOverrides: { ...input.skillOverrides },
    createdAt: now,
    updatedAt: now,
  };
}

/** Reads a stored configuration, filling what older rows may lack. */
export function outboundFromStored(stored: Record<string, unknown>): OutboundConfig {
  const config = stored as unknown as OutboundConfig;
  return {
    ...config,
    timeoutMs: config.timeoutMs ?? DEFAULT_OUTBOUND_TIMEOUT_MS,
    disabledSkills: config.disabledSkills ?? [],
    skillOverrides: config.skillOverrides ?? {},
  };
}
