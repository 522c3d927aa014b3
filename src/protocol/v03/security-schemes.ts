import type * as V03 from '../../../generated/a2a/0.3/types.js';
import type * as V10 from '../../../generated/a2a/1.0/types.js';
import { withoutUndefined } from '../../support/records.js';
import { UntranslatableError } from '../untranslatable.js';

/**
 * Security schemes. 0.3 discriminates by `type` (OpenAPI's names, `in` for the API key's
 * location); 1.0 wraps each scheme in a member named after it and makes OAuthFlows a oneof.
 *
 * Lossy toward 0.3: `pkceRequired`, and absent `scopes` of an implicit or password flow become
 * `{}` (0.3 requires them); a device-code flow, an implicit flow without authorizationUrl or a
 * password flow without tokenUrl cannot be written at all. Lossy toward 1.0: every OAuth flow
 * but the first of authorizationCode, clientCredentials, implicit, password (1.0 holds one).
 */
export function securitySchemeTo03(scheme: V10.SecurityScheme, path = 'securityScheme'): V03.SecurityScheme {
  if (scheme.apiKeySecurityScheme !== undefined) {
    const { location, ...rest } = scheme.apiKeySecurityScheme;
    return withoutUndefined({ type: 'apiKey', in: location, ...rest });
  }
  if (scheme.httpAuthSecurityScheme !== undefined) return withoutUndefined({ type: 'http', ...scheme.httpAuthSecurityScheme });
  if (scheme.oauth2SecurityScheme !== undefined) {
    const { flows, ...rest } = scheme.oauth2SecurityScheme;
    return withoutUndefined({ type: 'oauth2', ...rest, flows: flowsTo03(flows, `${path}.oauth2SecurityScheme.flows`) });
  }
  if (scheme.openIdConnectSecurityScheme !== undefined)
    return withoutUndefined({ type: 'openIdConnect', ...scheme.openIdConnectSecurityScheme });
  return withoutUndefined({ type: 'mutualTLS', ...scheme.mtlsSecurityScheme });
}

export function securitySchemeFrom03(scheme: V03.SecurityScheme, path = 'securityScheme'): V10.SecurityScheme {
  switch (scheme.type) {
    case 'apiKey': {
      const { type: _type, in: location, ...rest } = scheme;
      return { apiKeySecurityScheme: withoutUndefined({ ...rest, location }) };
    }
    case 'http': {
      const { type: _type, ...rest } = scheme;
      return { httpAuthSecurityScheme: withoutUndefined(rest) };
    }
    case 'oauth2': {
      const { type: _type, flows, ...rest } = scheme;
      return { oauth2SecurityScheme: withoutUndefined({ ...rest, flows: flowsFrom03(flows, `${path}.flows`) }) };
    }
    case 'openIdConnect': {
      const { type: _type, ...rest } = scheme;
      return { openIdConnectSecurityScheme: withoutUndefined(rest) };
    }
    case 'mutualTLS': {
      const { type: _type, ...rest } = scheme;
      return { mtlsSecurityScheme: withoutUndefined(rest) };
    }
  }
}

function flowsTo03(flows: V10.OAuthFlows, path: string): V03.OAuthFlows {
  if (flows.authorizationCode !== undefined) {
    const { pkceRequired: _pkce, ...flow } = flows.authorizationCode;
    return { authorizationCode: withoutUndefined(flow) };
  }
  if (flows.clientCredentials !== undefined) return { clientCredentials: withoutUndefined(flows.clientCredentials) };
  if (flows.implicit !== undefined) {
    const { authorizationUrl, scopes, refreshUrl } = flows.implicit;
    if (authorizationUrl === undefined) throw new UntranslatableError(`${path}.implicit.authorizationUrl`, 'is required in A2A 0.3');
    return { implicit: withoutUndefined({ authorizationUrl, refreshUrl, scopes: scopes ?? {} }) };
  }
  if (flows.password !== undefined) {
    const { tokenUrl, scopes, refreshUrl } = flows.password;
    if (tokenUrl === undefined) throw new UntranslatableError(`${path}.password.tokenUrl`, 'is required in A2A 0.3');
    return { password: withoutUndefined({ tokenUrl, refreshUrl, scopes: scopes ?? {} }) };
  }
  throw new UntranslatableError(`${path}.deviceCode`, 'A2A 0.3 has no device code flow');
}

function flowsFrom03(flows: V03.OAuthFlows, path: string): V10.OAuthFlows {
  if (flows.authorizationCode !== undefined) return { authorizationCode: withoutUndefined(flows.authorizationCode) };
  if (flows.clientCredentials !== undefined) return { clientCredentials: withoutUndefined(flows.clientCredentials) };
  if (flows.implicit !== undefined) return { implicit: withoutUndefined(flows.implicit) };
  if (flows.password !== undefined) return { password: withoutUndefined(flows.password) };
  throw new UntranslatableError(path, 'names no OAuth flow, and A2A 1.0 needs one');
}

/** `[{"schemes": {"oauth": {"list": ["read"]}}}]` in 1.0 is `[{"oauth": ["read"]}]` in 0.3. */
export function requirementsTo03(requirements: V10.SecurityRequirement[]): NonNullable<V03.AgentCard['security']> {
  return requirements.map((requirement) =>
    Object.fromEntries(Object.entries(requirement.schemes ?? {}).map(([name, scopes]) => [name, scopes?.list ?? []])),
  );
}

/** Empty scope lists, and an empty requirement's schemes, stay absent in 1.0, as ProtoJSON writes empty fields. */
export function requirementsFrom03(requirements: NonNullable<V03.AgentCard['security']>): V10.SecurityRequirement[] {
  return requirements.map((requirement) => {
    const entries = Object.entries(requirement).map(([name, scopes]) => [
      name,
      scopes === undefined || scopes.length === 0 ? {} : { list: scopes },
    ]);
    return entries.length === 0 ? {} : { schemes: Object.fromEntries(entries) as NonNullable<V10.SecurityRequirement['schemes']> };
  });
}
