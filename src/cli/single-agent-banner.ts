import { PROTOCOL_VERSION, WELL_KNOWN_AGENT_CARD_PATH } from '../../generated/a2a/1.0/protocol.js';
import { CONTROL_API } from '../../generated/control/api.js';
import { storeLocation, type Hub } from '../hub.js';

/**
 * The banner of `serve --agent`: seed 002 §1.4's five lines first (name, server, card, JSON-RPC,
 * REST; the card at the path A2A 1.0 gives it), then how requests are authorized and what else
 * this hub serves.
 */
export function singleAgentBannerLines(hub: Pick<Hub, 'url' | 'inbounds' | 'config'>, id: string): string[] {
  const config = hub.inbounds.get(id);
  const agent = hub.inbounds.agent(id);
  if (config === undefined || agent === undefined) return [`a2a-hub (A2A ${PROTOCOL_VERSION}): agent "${id}" is not available`];
  const auth = hub.inbounds.authOf(id);
  const others = hub.inbounds.list().filter((inbound) => inbound.enabled && inbound.id !== id);
  return [
    `${config.name} A2A ${PROTOCOL_VERSION} Server`,
    `Server URL: ${hub.url}`,
    `AgentCard:  ${hub.url}${WELL_KNOWN_AGENT_CARD_PATH}`,
    `JSON-RPC:   ${hub.url}${agent.jsonRpcPath}`,
    `REST:       ${hub.url}${agent.restPath}`,
    `Auth:       ${
      !auth.enabled
        ? 'none: every request is served'
        : auth.authTokenEnv === undefined
          ? 'bearer token (only its digest is kept), on every request but the card'
          : `bearer token from $${auth.authTokenEnv}, on every request but the card`
    }`,
    ...(config.enabled ? [] : ['Disabled:   the agent file says enabled: false; nothing is served']),
    `Preset:     ${config.preset}   (instance ${id})`,
    ...others.map(
      (inbound) =>
        `Also:       ${hub.url}${hub.inbounds.agent(inbound.id)?.jsonRpcPath ?? inbound.endpointPath}   (${inbound.id}, stored earlier)`,
    ),
    `Control:    ${hub.url}${CONTROL_API.basePath}   (loopback peers only; panel ${hub.url}${CONTROL_API.panelPath})`,
    `Data:       ${storeLocation(hub.config)}`,
    'Stop with Ctrl-C (running tasks get a grace period).',
  ];
}
