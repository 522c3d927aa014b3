import {
  PROTOCOL_VERSION as VERSION_03,
  SPEC_VERSION as SPEC_03,
  isThisProtocolVersion as is03,
} from '../../../generated/a2a/0.3/protocol.js';
import type * as V03 from '../../../generated/a2a/0.3/types.js';
import type * as V10 from '../../../generated/a2a/1.0/types.js';
import { mapValues, withoutUndefined } from '../../support/records.js';
import { requirementsFrom03, requirementsTo03, securitySchemeFrom03, securitySchemeTo03 } from './security-schemes.js';
import { UntranslatableError } from '../untranslatable.js';

/**
 * Agent cards. A 0.3 card speaks one version on a main `url` with its `preferredTransport`,
 * plus `additionalInterfaces` (which by the 0.3 best practice repeat the main one); a 1.0 card
 * lists `supportedInterfaces`, each with its own protocolVersion and tenant. The 0.3 view of a
 * 1.0 card is made of its 0.3 interfaces only, the first one main.
 *
 * Lossy either way: interface tenants (0.3 has none), `signatures` (they sign the other
 * document, so carrying them over would make a valid card fail verification), 0.3's
 * `capabilities.stateTransitionHistory` (1.0 dropped it), and what the security schemes lose.
 */
export function agentCardTo03(card: V10.AgentCard): V03.AgentCard {
  const interfaces = card.supportedInterfaces.filter((entry) => is03(entry.protocolVersion));
  const main = interfaces[0];
  if (main === undefined) throw new UntranslatableError('supportedInterfaces', `no interface speaks A2A ${VERSION_03}`);
  const { extendedAgentCard, ...capabilities } = card.capabilities;
  return withoutUndefined({
    protocolVersion: SPEC_03,
    name: card.name,
    description: card.description,
    url: main.url,
    preferredTransport: main.protocolBinding,
    additionalInterfaces: interfaces.map((entry) => ({ url: entry.url, transport: entry.protocolBinding })),
    provider: card.provider,
    version: card.version,
    documentationUrl: card.documentationUrl,
    iconUrl: card.iconUrl,
    capabilities: withoutUndefined({
      ...capabilities,
      extensions: capabilities.extensions?.map((extension, index) => {
        if (extension.uri === undefined) throw new UntranslatableError(`capabilities.extensions[${index}].uri`, 'is required in A2A 0.3');
        return withoutUndefined({ ...extension, uri: extension.uri });
      }),
    }),
    supportsAuthenticatedExtendedCard: extendedAgentCard,
    securitySchemes:
      card.securitySchemes === undefined
        ? undefined
        : mapValues(card.securitySchemes, (scheme, name) => securitySchemeTo03(scheme, `securitySchemes.${name}`)),
    security: card.securityRequirements === undefined ? undefined : requirementsTo03(card.securityRequirements),
    defaultInputModes: card.defaultInputModes,
    defaultOutputModes: card.defaultOutputModes,
    skills: card.skills.map(({ securityRequirements, ...skill }) =>
      withoutUndefined({ ...skill, security: securityRequirements === undefined ? undefined : requirementsTo03(securityRequirements) }),
    ),
  });
}

/** Whether the card lists an interface in 0.3: only then has it a 0.3 form. */
export function servesVersion03(card: V10.AgentCard): boolean {
  return card.supportedInterfaces.some((entry) => is03(entry.protocolVersion));
}

/** The card a caller that names no version (or 0.3) gets: every member of both forms. */
export type DualStackCard = V03.AgentCard & V10.AgentCard;

/**
 * The card a dual-stack agent gives a caller that names no version or 0.3: the whole 1.0 card
 * and the whole 0.3 card in one document, so that a reader of either generation that ignores
 * members it does not know (as both must, spec §5.7) reads exactly its own card: a 1.0 client
 * (the official TCK reads the card without a header) finds `supportedInterfaces`,
 * `capabilities.extendedAgentCard` and `securityRequirements`; a 0.3 client its `url`,
 * `supportsAuthenticatedExtendedCard` and `security`. The two forms name members apart
 * everywhere but inside a security scheme, where 1.0 wraps the scheme in a oneof member
 * (`httpAuthSecurityScheme`) and 0.3 tags it (`type: "http"`) beside its fields: each scheme
 * carries both, which no member of one form contradicts (docs/spec-policy.md 5.1).
 */
export function dualStackCard(card: V10.AgentCard): DualStackCard {
  const card03 = agentCardTo03(card);
  const securitySchemes =
    card.securitySchemes === undefined || card03.securitySchemes === undefined
      ? undefined
      : mapValues(card.securitySchemes, (scheme, name) => ({ ...card03.securitySchemes?.[name], ...scheme }));
  return withoutUndefined({
    ...card03,
    ...card,
    capabilities: { ...card03.capabilities, ...card.capabilities },
    skills: card.skills.map((skill, index) => ({ ...card03.skills[index], ...skill })),
    securitySchemes,
  }) as DualStackCard;
}

export function agentCardFrom03(card: V03.AgentCard): V10.AgentCard {
  const version = card.protocolVersion.split('.').slice(0, 2).join('.');
  const main = { url: card.url, transport: card.preferredTransport ?? 'JSONRPC' };
  const others = (card.additionalInterfaces ?? []).filter((entry) => entry.url !== main.url || entry.transport !== main.transport);
  const { stateTransitionHistory: _history, ...capabilities } = card.capabilities;
  return withoutUndefined({
    name: card.name,
    description: card.description,
    supportedInterfaces: [main, ...others].map((entry) => ({ url: entry.url, protocolBinding: entry.transport, protocolVersion: version })),
    provider: card.provider,
    version: card.version,
    documentationUrl: card.documentationUrl,
    iconUrl: card.iconUrl,
    capabilities: withoutUndefined({ ...capabilities, extendedAgentCard: card.supportsAuthenticatedExtendedCard }),
    securitySchemes:
      card.securitySchemes === undefined
        ? undefined
        : mapValues(card.securitySchemes, (scheme, name) => securitySchemeFrom03(scheme, `securitySchemes.${name}`)),
    securityRequirements: card.security === undefined ? undefined : requirementsFrom03(card.security),
    defaultInputModes: card.defaultInputModes,
    defaultOutputModes: card.defaultOutputModes,
    skills: card.skills.map(({ security, ...skill }) =>
      withoutUndefined({ ...skill, securityRequirements: security === undefined ? undefined : requirementsFrom03(security) }),
    ),
  });
}
