import type { AgentSkill } from '../../generated/a2a/1.0/types.js';
import type { StoredInbound } from '../../generated/control/types.js';
import { A2A_1_0 } from '../protocol/a2a-schema.js';
import { CONTROL } from '../protocol/control-schema.js';
import { projectToSchema } from '../protocol/project.js';
import { checkValue } from '../protocol/validation.js';
import { violationPhrases } from '../protocol/violations.js';
import { readStoredRow, type ReadConfig } from '../support/read-config.js';

/** An inbound instance's configuration as persisted (spec/control/stored.schema.json). It holds a token's digest, never the token. */
export type InboundConfig = Readonly<Omit<StoredInbound, 'skills'>> & {
  /** Skills to advertise instead of the preset's. */
  readonly skills?: readonly AgentSkill[];
};

/**
 * A configuration the hub can serve, made of `value`: the stored shape, with each custom skill
 * an A2A 1.0 AgentSkill. Like a request, it is checked tolerantly and then stripped of the
 * members it does not declare, so a row from another version loads, and what is saved is exactly
 * what this version reads back. Problems come as `field description` phrases.
 */
export function inboundConfigOf(value: unknown): ReadConfig<InboundConfig> {
  const shape = checkValue(CONTROL, 'StoredInbound', value, { flavour: 'input' });
  if (!shape.ok) return { ok: false, problems: violationPhrases(shape.violations, '(the configuration)') };
  const skills: AgentSkill[] = [];
  const problems: string[] = [];
  (shape.value.skills ?? []).forEach((skill, index) => {
    const checked = checkValue(A2A_1_0, 'AgentSkill', skill, { flavour: 'input', fieldPrefix: `skills[${index}]` });
    if (checked.ok) skills.push(projectToSchema(A2A_1_0.document, 'AgentSkill', checked.value));
    else problems.push(...violationPhrases(checked.violations, `skills[${index}]`));
  });
  if (problems.length > 0) return { ok: false, problems };
  const { skills: _given, ...known } = projectToSchema(CONTROL.document, 'StoredInbound', shape.value);
  return { ok: true, config: shape.value.skills === undefined ? known : { ...known, skills } };
}

/** A stored row as a configuration, or why it cannot be one. */
export function readStoredInbound(id: string, value: unknown): ReadConfig<InboundConfig> {
  return readStoredRow(id, value, inboundConfigOf);
}
