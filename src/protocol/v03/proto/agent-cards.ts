import type * as V03 from '../../../../generated/a2a/0.3/types.js';
import type * as P from '../../../../generated/a2a/0.3/rest/types.js';
import { mapValues, withoutUndefined } from '../../../support/records.js';
import { UntranslatableError } from '../../untranslatable.js';

/**
 * The agent card as 0.3's HTTP+JSON binding serves it (GET /v1/card): the same members in
 * ProtoJSON, with security schemes wrapped in a member named after their kind (as 1.0 later
 * did), security requirements as `{schemes: {name: {list}}}`, and one OAuth flow per scheme.
 *
 * Lossy toward ProtoJSON: `iconUrl` and `capabilities.stateTransitionHistory`, which the 0.3
 * proto lacks, and every OAuth flow of a scheme but the first of authorizationCode,
 * clientCredentials, implicit, password.
 */
export function agentCardToProto(card: V03.AgentCard): P.AgentCard {
  return withoutUndefined({
    protocolVersion: card.protocolVersion,
    name: card.name,
    description: card.description,
    url: card.url,
    preferredTransport: card.preferredTransport,
    additionalInterfaces: card.additionalInterfaces?.map((entry) => ({ url: entry.url, transport: entry.transport })),
    provider: card.provider === undefined ? undefined : { url: card.provider.url, organization: card.provider.organization },
    version: card.version,
    documentationUrl: card.documentationUrl,
    capabilities: withoutUndefined({
      streaming: card.capabilities.streaming,
      pushNotifications: card.capabilities.pushNotifications,
      extensions: card.capabilities.extensions?.map((extension) => withoutUndefined({ ...extension })),
    }),
    securitySchemes: card.securitySchemes === undefined ? undefined : mapValues(card.securitySchemes, securitySchemeToProto),
    security: card.security?.map(requirementToProto),
    defaultInputModes: card.defaultInputModes,
    defaultOutputModes: card.defaultOutputModes,
    skills: card.skills.map(({ security, ...skill }) => withoutUndefined({ ...skill, security: security?.map(requirementToProto) })),
    supportsAuthenticatedExtendedCard: card.supportsAuthenticatedExtendedCard,
    signatures: card.signatures?.map((signature) => withoutUndefined({ ...signature })),
  });
}

export function agentCardFromProto(card: P.AgentCard): V03.AgentCard {
  const required = (member: 'protocolVersion' | 'name' | 'description' | 'url' | 'version'): string => {
    const value = card[member];
    if (value === undefined || value === '') throw new UntranslatableError(member, 'is required');
    return value;
  };
  const capabilities = card.capabilities ?? {};
  return withoutUndefined({
    protocolVersion: required('protocolVersion'),
    name: required('name'),
    description: required('description'),
    url: required('url'),
    preferredTransport: card.preferredTransport === '' ? undefined : card.preferredTransport,
    additionalInterfaces: card.additionalInterfaces?.map((entry, index) => {
      if (entry.url === undefined || entry.transport === undefined)
        throw new UntranslatableError(`additionalInterfaces[${index}]`, 'needs url and transport');
      return { url: entry.url, transport: entry.transport };
    }),
    provider: card.provider === undefined ? undefined : { url: card.provider.url ?? '', organization: card.provider.organization ?? '' },
    version: required('version'),
    documentationUrl: card.documentationUrl === '' ? undefined : card.documentationUrl,
    capabilities: withoutUndefined({
      streaming: capabilities.streaming,
      pushNotifications: capabilities.pushNotifications,
      extensions: capabilities.extensions?.map((extension, index) => {
        if (extension.uri === undefined) throw new UntranslatableError(`capabilities.extensions[${index}].uri`, 'is required');
        return withoutUndefined({ ...extension, uri: extension.uri });
      }),
    }),
    securitySchemes:
      card.securitySchemes === undefined
        ? undefined
        : mapValues(card.securitySchemes, (scheme, name) => securitySchemeFromProto(scheme, `securitySchemes.${name}`)),
    security: card.security?.map(requirementFromProto),
    defaultInputModes: card.defaultInputModes ?? [],
    defaultOutputModes: card.defaultOutputModes ?? [],
    skills: (card.skills ?? []).map(({ security, ...skill }, index) => {
      if (skill.id === undefined || skill.name === undefined || skill.description === undefined)
        throw new UntranslatableError(`skills[${index}]`, 'needs id, name and description');
      return withoutUndefined({
        ...skill,
        id: skill.id,
        name: skill.name,
        description: skill.description,
        tags: skill.tags ?? [],
        security: security?.map(requirementFromProto),
      });
    }),
    supportsAuthenticatedExtendedCard: card.supportsAuthenticatedExtendedCard,
    signatures: card.signatures?.map((signature) => withoutUndefined({ ...signature })),
  });
}

type Requirement03 = NonNullable<V03.AgentCard['security']>[number];

function requirementToProto(requirement: Requirement03): P.Security {
  return { schemes: mapValues(requirement, (scopes) => ({ list: scopes ?? [] })) };
}

function requirementFromProto(requirement: P.Security): Requirement03 {
  return mapValues(requirement.schemes ?? {}, (scopes) => scopes.list ?? []);
}

export function securitySchemeToProto(scheme: V03.SecurityScheme): P.SecurityScheme {
  switch (scheme.type) {
    case 'apiKey':
      return { apiKeySecurityScheme: withoutUndefined({ description: scheme.description, location: scheme.in, name: scheme.name }) };
    case 'http':
      return {
        httpAuthSecurityScheme: withoutUndefined({
          description: scheme.description,
          scheme: scheme.scheme,
          bearerFormat: scheme.bearerFormat,
        }),
      };
    case 'oauth2':
      return {
        oauth2SecurityScheme: withoutUndefined({
          description: scheme.description,
          flows: flowsToProto(scheme.flows),
          oauth2MetadataUrl: scheme.oauth2MetadataUrl,
        }),
      };
    case 'openIdConnect':
      return {
        openIdConnectSecurityScheme: withoutUndefined({ description: scheme.description, openIdConnectUrl: scheme.openIdConnectUrl }),
      };
    case 'mutualTLS':
      return { mtlsSecurityScheme: withoutUndefined({ description: scheme.description }) };
  }
}

const API_KEY_LOCATIONS: readonly V03.APIKeySecurityScheme['in'][] = ['cookie', 'header', 'query'];

export function securitySchemeFromProto(scheme: P.SecurityScheme, path: string): V03.SecurityScheme {
  const needed = (value: string | undefined, member: string): string => {
    if (value === undefined || value === '') throw new UntranslatableError(`${path}.${member}`, 'is required');
    return value;
  };
  if (scheme.apiKeySecurityScheme !== undefined) {
    const { description, location, name } = scheme.apiKeySecurityScheme;
    const where = API_KEY_LOCATIONS.find((candidate) => candidate === location);
    if (where === undefined)
      throw new UntranslatableError(`${path}.apiKeySecurityScheme.location`, `must be ${API_KEY_LOCATIONS.join(', ')}`);
    return withoutUndefined({ type: 'apiKey', description, in: where, name: needed(name, 'apiKeySecurityScheme.name') });
  }
  if (scheme.httpAuthSecurityScheme !== undefined) {
    const { description, scheme: name, bearerFormat } = scheme.httpAuthSecurityScheme;
    return withoutUndefined({ type: 'http', description, scheme: needed(name, 'httpAuthSecurityScheme.scheme'), bearerFormat });
  }
  if (scheme.oauth2SecurityScheme !== undefined) {
    const { description, flows, oauth2MetadataUrl } = scheme.oauth2SecurityScheme;
    return withoutUndefined({
      type: 'oauth2',
      description,
      flows: flows === undefined ? {} : flowsFromProto(flows, `${path}.oauth2SecurityScheme.flows`),
      oauth2MetadataUrl,
    });
  }
  if (scheme.openIdConnectSecurityScheme !== undefined) {
    const { description, openIdConnectUrl } = scheme.openIdConnectSecurityScheme;
    return withoutUndefined({
      type: 'openIdConnect',
      description,
      openIdConnectUrl: needed(openIdConnectUrl, 'openIdConnectSecurityScheme.openIdConnectUrl'),
    });
  }
  if (scheme.mtlsSecurityScheme !== undefined)
    return withoutUndefined({ type: 'mutualTLS', description: scheme.mtlsSecurityScheme.description });
  throw new UntranslatableError(path, 'names no scheme');
}

/** The first flow the scheme has; none (0.3's flows are all optional) leaves `flows` out. */
function flowsToProto(flows: V03.OAuthFlows): P.OAuthFlows | undefined {
  if (flows.authorizationCode !== undefined) return { authorizationCode: withoutUndefined({ ...flows.authorizationCode }) };
  if (flows.clientCredentials !== undefined) return { clientCredentials: withoutUndefined({ ...flows.clientCredentials }) };
  if (flows.implicit !== undefined) return { implicit: withoutUndefined({ ...flows.implicit }) };
  if (flows.password !== undefined) return { password: withoutUndefined({ ...flows.password }) };
  return undefined;
}

function flowsFromProto(flows: P.OAuthFlows, path: string): V03.OAuthFlows {
  const url = (value: string | undefined, member: string): string => {
    if (value === undefined || value === '') throw new UntranslatableError(`${path}.${member}`, 'is required');
    return value;
  };
  const optional = (value: string | undefined): string | undefined => (value === '' ? undefined : value);
  if (flows.authorizationCode !== undefined) {
    const flow = flows.authorizationCode;
    return {
      authorizationCode: withoutUndefined({
        authorizationUrl: url(flow.authorizationUrl, 'authorizationCode.authorizationUrl'),
        tokenUrl: url(flow.tokenUrl, 'authorizationCode.tokenUrl'),
        refreshUrl: optional(flow.refreshUrl),
        scopes: flow.scopes ?? {},
      }),
    };
  }
  if (flows.clientCredentials !== undefined) {
    const flow = flows.clientCredentials;
    return {
      clientCredentials: withoutUndefined({
        tokenUrl: url(flow.tokenUrl, 'clientCredentials.tokenUrl'),
        refreshUrl: optional(flow.refreshUrl),
        scopes: flow.scopes ?? {},
      }),
    };
  }
  if (flows.implicit !== undefined) {
    const flow = flows.implicit;
    return {
      implicit: withoutUndefined({
        authorizationUrl: url(flow.authorizationUrl, 'implicit.authorizationUrl'),
        refreshUrl: optional(flow.refreshUrl),
        scopes: flow.scopes ?? {},
      }),
    };
  }
  if (flows.password !== undefined) {
    const flow = flows.password;
    return {
      password: withoutUndefined({
        tokenUrl: url(flow.tokenUrl, 'password.tokenUrl'),
        refreshUrl: optional(flow.refreshUrl),
        scopes: flow.scopes ?? {},
      }),
    };
  }
  return {};
}
