import type { AgentSkill, FieldViolation } from '../../generated/a2a/1.0/types.js';
import type { StoredInbound } from '../../generated/control/types.js';
import { A2A_1_0 } from '../protocol/a2a-schema.js';
import { CONTROL } from '../protocol/control-schema.js';
import { checkValue } from '../protocol/validation.js';

/** An inbound instance's configuration as persisted (spec/control/stored.schema.json). It holds a token's digest, never the token. */
export type InboundConfig = Readonly<Omit<StoredInbound, 'skills'>> & {
  /** Skills to advertise instead of the preset's. */
  readonly skills?: readonly AgentSkill[];
};

/**
 * What is wrong with a configuration, as `field description` phrases, or [] when it is one the
 * hub can serve: the stored shape, and each custom skill as an A2A 1.0 AgentSkill. Rows
 * written by this hub always pass, since every save is checked the same way.
 */
export function inboundConfigProblems(config: unknown, flavour: 'exact' | 'input'): string[] {
  const shape = checkValue(CONTROL, 'StoredInbound', config, { flavour });
  if (!shape.ok) return phrases(shape.violations);
  return (shape.value.skills ?? []).flatMap((skill, index) => {
    const checked = checkValue(A2A_1_0, 'AgentSkill', skill, { flavour, fieldPrefix: `skills[${index}]` });
    return checked.ok ? [] : phrases(checked.violations);
  });
}

/** A stored row as a configuration, or why it cannot be one. */
export function readStoredInbound(id: string, config: unknown): { ok: true; config: InboundConfig } | { ok: false; problems: string[] } {
  const problems = inboundConfigProblems(config, 'input');
  if (problems.length === 0 && (config as StoredInbound).id !== id)
    problems.push(`id is ${JSON.stringify((config as StoredInbound).id)}, but the row is stored under ${JSON.stringify(id)}`);
  return problems.length === 0 ? { ok: true, config: config as InboundConfig } : { ok: false, problems };
}

function phrases(violations: readonly FieldViolation[]): string[] {
  return violations.map((violation) => `${violation.field || '(the configuration)'} ${violation.description}`);
}
