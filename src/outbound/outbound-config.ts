import { randomBytes } from 'node:crypto';
import { DEFAULTS } from '../../generated/control/defaults.js';
import type { OutboundBinding, SkillOverrides, StoredOutbound } from '../../generated/control/types.js';
import { CONTROL } from '../protocol/control-schema.js';
import { projectToSchema } from '../protocol/project.js';
import { checkValue } from '../protocol/validation.js';
import { violationPhrases } from '../protocol/violations.js';
import { readStoredRow, type ReadConfig } from '../support/read-config.js';

/** Per-call timeout of a connection that names none (spec/control): long, because remote agents may think for a while. */
export const DEFAULT_OUTBOUND_TIMEOUT_MS = DEFAULTS.OutboundCreateAction.timeoutMs;

/** How often a task of a remote that does not stream is polled, for a connection that names no interval. */
export const DEFAULT_POLL_INTERVAL_MS = DEFAULTS.OutboundCreateAction.pollIntervalMs;

/**
 * An outbound connection's configuration as persisted (spec/control/stored.schema.json), with
 * the members older rows may lack filled in. A token set with outbound.setAuth has to be sent to
 * the remote, so unlike an inbound token it cannot be kept as a digest: it is stored in clear in
 * the data dir's SQLite file. It is never shown, logged or echoed.
 */
export type OutboundConfig = Readonly<Omit<StoredOutbound, 'timeoutMs' | 'pollIntervalMs' | 'disabledSkills' | 'skillOverrides'>> & {
  readonly timeoutMs: number;
  readonly pollIntervalMs: number;
  readonly disabledSkills: readonly string[];
  readonly skillOverrides: Readonly<SkillOverrides>;
};

export interface OutboundInput {
  readonly name: string;
  readonly agentCardUrl: string;
  readonly bearerTokenEnv?: string;
  readonly preset?: string;
  readonly enabled?: boolean;
  readonly timeoutMs?: number;
  readonly pollIntervalMs?: number;
  readonly disabledSkills?: readonly string[];
  readonly skillOverrides?: Readonly<SkillOverrides>;
  readonly binding?: OutboundBinding;
}

/** Members to change; `binding: ""` goes back to the card's first binding. */
export type OutboundPatch = Partial<
  Pick<OutboundConfig, 'name' | 'preset' | 'timeoutMs' | 'pollIntervalMs' | 'disabledSkills' | 'skillOverrides'> & {
    readonly binding: OutboundBinding | '';
  }
>;

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
    pollIntervalMs: input.pollIntervalMs ?? DEFAULT_POLL_INTERVAL_MS,
    disabledSkills: [...(input.disabledSkills ?? [])],
    skillOverrides: { ...input.skillOverrides },
    ...(input.binding === undefined ? {} : { binding: input.binding }),
    createdAt: now,
    updatedAt: now,
  };
}

/**
 * A configuration the hub can use, made of `value`, filling what rows of earlier versions lack:
 * checked tolerantly, then stripped of the members it does not declare, like a request, so a row
 * from another version loads and what is saved is exactly what this version reads back.
 */
export function outboundConfigOf(value: unknown): ReadConfig<OutboundConfig> {
  const checked = checkValue(CONTROL, 'StoredOutbound', value, { flavour: 'input' });
  if (!checked.ok) return { ok: false, problems: violationPhrases(checked.violations, '(the configuration)') };
  const config = projectToSchema(CONTROL.document, 'StoredOutbound', checked.value);
  return {
    ok: true,
    config: {
      ...config,
      timeoutMs: config.timeoutMs ?? DEFAULT_OUTBOUND_TIMEOUT_MS,
      pollIntervalMs: config.pollIntervalMs ?? DEFAULT_POLL_INTERVAL_MS,
      disabledSkills: config.disabledSkills ?? [],
      skillOverrides: config.skillOverrides ?? {},
    },
  };
}

/** A stored row as a configuration, or why it cannot be one. */
export function readStoredOutbound(id: string, value: unknown): ReadConfig<OutboundConfig> {
  return readStoredRow(id, value, outboundConfigOf);
}
