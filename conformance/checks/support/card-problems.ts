import { isThisProtocolVersion, PROTOCOL_VERSION } from '../../../generated/a2a/1.0/protocol.js';
import { A2A_1_0 } from '../../../src/protocol/a2a-schema.js';
import { oneofMembers } from '../../../src/protocol/json-schema.js';
import { isRecord } from '../../../src/support/records.js';

/*
 * What is wrong with an agent card beyond its schema, as {path, problem} lists: missing members
 * (CARD-003), 0.3-only shapes (CARD-007) and names that are not ProtoJSON (CARD-006). The card
 * checks apply them to the public card and to the extended card alike.
 */

/** The members of the SecurityScheme oneof: a 1.0 scheme holds exactly one of them. */
const SECURITY_WRAPPERS = oneofMembers(A2A_1_0.document.$defs['SecurityScheme'] ?? {});
/** Members only a 0.3 card has. */
const LEGACY_CARD_MEMBERS = [
  'url',
  'preferredTransport',
  'protocolVersion',
  'additionalInterfaces',
  'supportsAuthenticatedExtendedCard',
  'security',
];
/** Values that are free-form JSON (Struct, Value): their keys are not member names. */
export const FREE_FORM = new Set(['metadata', 'params', 'header', 'data']);
/** Maps: their keys are names chosen by the agent, their values are messages again. */
const MAPS = new Set(['securitySchemes', 'schemes', 'scopes']);

/** Missing members that CARD-003 names; also applied to extended cards (XCARD-004). */
export function cardStructureProblems(card: unknown): { path: string; problem: string }[] {
  const problems: { path: string; problem: string }[] = [];
  if (!isRecord(card)) return [{ path: '', problem: 'the card is not a JSON object' }];
  const nonEmptyString = (value: unknown): boolean => typeof value === 'string' && value !== '';
  const interfaces = Array.isArray(card['supportedInterfaces']) ? (card['supportedInterfaces'] as unknown[]) : [];
  interfaces.forEach((entry, index) => {
    for (const member of ['url', 'protocolBinding', 'protocolVersion']) {
      if (!isRecord(entry) || !nonEmptyString(entry[member]))
        problems.push({ path: `supportedInterfaces[${index}].${member}`, problem: `supportedInterfaces[${index}] has no ${member}` });
    }
    const version = isRecord(entry) ? entry['protocolVersion'] : undefined;
    // A card names the version Major.Minor; a patch in it ("1.0.0") breaks clients that compare it.
    if (typeof version === 'string' && version !== PROTOCOL_VERSION && isThisProtocolVersion(version))
      problems.push({
        path: `supportedInterfaces[${index}].protocolVersion`,
        problem: `supportedInterfaces[${index}].protocolVersion is ${JSON.stringify(version)}: a protocol version is Major.Minor (${JSON.stringify(PROTOCOL_VERSION)})`,
      });
  });
  const skills = Array.isArray(card['skills']) ? (card['skills'] as unknown[]) : [];
  skills.forEach((skill, index) => {
    for (const member of ['id', 'name', 'description']) {
      if (!isRecord(skill) || typeof skill[member] !== 'string' || (member === 'id' && skill[member] === ''))
        problems.push({ path: `skills[${index}].${member}`, problem: `skills[${index}] has no ${member}` });
    }
    const tags = isRecord(skill) ? skill['tags'] : undefined;
    if (!Array.isArray(tags) || tags.length === 0 || !tags.every((tag) => typeof tag === 'string'))
      problems.push({ path: `skills[${index}].tags`, problem: `skills[${index}].tags is not a non-empty array of strings` });
  });
  if ('provider' in card) {
    const provider = card['provider'];
    for (const member of ['url', 'organization']) {
      if (!isRecord(provider) || !nonEmptyString(provider[member]))
        problems.push({ path: `provider.${member}`, problem: `provider has no ${member}` });
    }
  }
  return problems;
}

/** 0.3-only shapes (CARD-007); also applied to extended cards. */
export function legacyCardProblems(card: unknown): { path: string; problem: string }[] {
  if (!isRecord(card)) return [];
  const problems = LEGACY_CARD_MEMBERS.filter((member) => member in card).map((member) => ({
    path: member,
    problem: `the 0.3 member ${member} is present (${JSON.stringify(card[member]).slice(0, 80)})`,
  }));
  const capabilities = card['capabilities'];
  if (isRecord(capabilities) && 'stateTransitionHistory' in capabilities)
    problems.push({
      path: 'capabilities.stateTransitionHistory',
      problem: 'the 0.3 member capabilities.stateTransitionHistory is present',
    });
  const schemes = card['securitySchemes'];
  if (isRecord(schemes)) {
    for (const [name, scheme] of Object.entries(schemes)) {
      if (!isRecord(scheme)) {
        problems.push({ path: `securitySchemes.${name}`, problem: `securitySchemes.${name} is not an object` });
        continue;
      }
      if ('type' in scheme)
        problems.push({
          path: `securitySchemes.${name}.type`,
          problem: `securitySchemes.${name} has the 0.3 discriminator type ${JSON.stringify(scheme['type'])}`,
        });
      const wrappers = Object.keys(scheme).filter((key) => SECURITY_WRAPPERS.includes(key));
      if (wrappers.length !== 1)
        problems.push({
          path: `securitySchemes.${name}`,
          problem: `securitySchemes.${name} holds ${wrappers.length} wrapper members (${wrappers.join(', ') || 'none'}), not exactly one`,
        });
    }
  }
  return problems;
}

/** Member names that are not lowerCamelCase, and enums sent as numbers or 0.3 strings (CARD-006). */
export function namingProblems(value: unknown, path = ''): { path: string; problem: string }[] {
  if (Array.isArray(value)) return value.flatMap((item, index) => namingProblems(item, `${path}[${index}]`));
  if (!isRecord(value)) return [];
  const problems: { path: string; problem: string }[] = [];
  for (const [key, member] of Object.entries(value)) {
    const at = path === '' ? key : `${path}.${key}`;
    if (key.includes('_') || /^[A-Z]/.test(key)) problems.push({ path: at, problem: `member name ${key} is not lowerCamelCase` });
    if ((key === 'state' || key === 'role') && member !== undefined && (typeof member !== 'string' || !/^[A-Z][A-Z0-9_]*$/.test(member))) {
      problems.push({ path: at, problem: `${key} is ${JSON.stringify(member)}, not a proto enum name string` });
    }
    if (FREE_FORM.has(key)) continue;
    if (MAPS.has(key) && isRecord(member)) {
      for (const [name, entry] of Object.entries(member)) problems.push(...namingProblems(entry, `${at}.${name}`));
      continue;
    }
    problems.push(...namingProblems(member, at));
  }
  return problems;
}
