import { PROTOCOL_VERSION } from '../../generated/a2a/1.0/protocol.js';
import type { Capability } from '../../generated/a2a/1.0/methods.js';
import type { AgentCard, AgentProvider, AgentSkill } from '../../generated/a2a/1.0/types.js';
import { versionsServedBy } from '../server/hosted-agent.js';

export interface CardSource {
  readonly name: string;
  readonly description: string;
  readonly version: string;
  readonly endpointPath: string;
  /** Where the JSON-RPC binding is POSTed. */
  readonly jsonRpcPath: string;
  /** The base of the HTTP+JSON routes. */
  readonly restPath: string;
  /** The only tenants served, if the instance names them. */
  readonly tenants?: readonly string[];
  readonly skills: readonly AgentSkill[];
  readonly presetId: string;
  readonly inputModes: readonly string[];
  readonly outputModes: readonly string[];
  readonly extensions: readonly string[];
  readonly requiresToken: boolean;
  readonly provider?: AgentProvider;
  readonly capabilities: InstanceCapabilities;
}

/** What an instance's card declares in `capabilities` (extensions aside), which is also what its endpoints serve. */
export type InstanceCapabilities = Readonly<Record<Capability, boolean>>;

/** Streaming and the extended card are always served; push notifications unless the instance turns them off. */
export function capabilitiesOf(instance: { readonly pushNotifications?: boolean }): InstanceCapabilities {
  return Object.freeze({ streaming: true, pushNotifications: instance.pushNotifications !== false, extendedAgentCard: true });
}

/**
 * The AgentCard of an inbound instance in A2A 1.0.1 ProtoJSON form, listing both bindings the
 * instance serves. With a token the card
 * names a bearer scheme and requires it, but never carries the token itself.
 */
/**
 * Both bindings, JSON-RPC first: a client that takes the first interface it knows keeps the
 * binding it always had. An instance that serves named tenants only refuses a request under
 * none, so each binding is listed once per tenant with `tenant` set (AgentInterface.tenant: a
 * client sends the tenant of the interface it picked); without them every client would be refused.
 * Both bindings also serve A2A 0.3, chosen per request (HTTP+JSON at the same URL, with 0.3's
 * routes below /v1), so each is listed a second time with that version, last, where 1.0 clients
 * skip them and the 0.3 card finds them (docs/spec-policy.md 5.1). 0.3 has no tenants, so an
 * instance that needs one serves 1.0 only.
 */
function interfacesOf(source: CardSource, baseUrl: string): AgentCard['supportedInterfaces'] {
  const jsonRpcUrl = `${baseUrl}${source.jsonRpcPath}`;
  const bindings = [
    { url: jsonRpcUrl, protocolBinding: 'JSONRPC', protocolVersion: PROTOCOL_VERSION },
    { url: `${baseUrl}${source.restPath}`, protocolBinding: 'HTTP+JSON', protocolVersion: PROTOCOL_VERSION },
  ];
  if (source.tenants !== undefined) return source.tenants.flatMap((tenant) => bindings.map((entry) => ({ ...entry, tenant })));
  const legacy = versionsServedBy(source)
    .filter((version) => version !== PROTOCOL_VERSION)
    .flatMap((protocolVersion) => bindings.map((entry) => ({ ...entry, protocolVersion })));
  return [...bindings, ...legacy];
}

export function buildAgentCard(source: CardSource, baseUrl: string): AgentCard {
  const auth = source.requiresToken
    ? {
        securitySchemes: { bearer: { httpAuthSecurityScheme: { scheme: 'Bearer', description: 'Send Authorization: Bearer <token>.' } } },
        securityRequirements: [{ schemes: { bearer: {} } }],
      }
    : {};
  return {
    name: source.name,
    description: source.description,
    supportedInterfaces: interfacesOf(source, baseUrl),
    ...(source.provider === undefined ? {} : { provider: source.provider }),
    version: source.version,
    capabilities: {
      ...source.capabilities,
      ...(source.extensions.length === 0
        ? {}
        : { extensions: source.extensions.map((uri) => ({ uri, description: `Implemented by the ${source.presetId} preset.` })) }),
    },
    ...auth,
    defaultInputModes: [...source.inputModes],
    defaultOutputModes: [...source.outputModes],
    skills: source.skills.map((skill) => ({ ...skill })),
  };
}
