import { METHODS } from '../../generated/a2a/1.0/methods.js';
import { HEADERS, MEDIA_TYPES, PROTOCOL_VERSION } from '../../generated/a2a/1.0/protocol.js';
import { interfaceTenant, withInterfaceTenant } from './interface-tenant.js';
import { getTaskUrl } from './rest-url.js';

/**
 * GetTask for a task that cannot exist, sent to one interface of a card: an agent's answer in
 * its binding (TaskNotFoundError) shows the interface is there and serves requests under its
 * tenant. The outbound connect check and the suite's discovery and interface checks all probe
 * this way, so each gets the interface's route, tenant and query alike (a 0.3 interface:
 * v03/interface-probe.ts).
 */
export interface InterfaceProbe {
  readonly method: 'GET' | 'POST';
  readonly url: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly body?: string;
}

export interface ProbedInterface {
  readonly protocolBinding: string;
  readonly url: string;
  readonly tenant?: string | undefined;
}

export interface ProbeOptions {
  /** The A2A-Version sent: the protocol's unless the interface declares another. */
  readonly version?: string;
  /** The JSON-RPC request id, so the probe reads as its sender's in a log. */
  readonly rpcId?: string | number;
}

/** The probe of `entry` for task `id`; undefined for a binding other than JSON-RPC and HTTP+JSON. */
export function interfaceProbe(entry: ProbedInterface, id: string, options: ProbeOptions = {}): InterfaceProbe | undefined {
  const version = { [HEADERS.version.toLowerCase()]: options.version ?? PROTOCOL_VERSION };
  if (entry.protocolBinding === 'HTTP+JSON') {
    return {
      method: 'GET',
      url: getTaskUrl(entry.url, id, interfaceTenant(entry.tenant)),
      headers: { accept: `${MEDIA_TYPES.a2aJson}, ${MEDIA_TYPES.json}`, ...version },
    };
  }
  if (entry.protocolBinding !== 'JSONRPC') return undefined;
  const envelope = {
    jsonrpc: '2.0',
    id: options.rpcId ?? 1,
    method: METHODS.GetTask.name,
    params: withInterfaceTenant({ id }, entry.tenant),
  };
  return {
    method: 'POST',
    url: entry.url,
    headers: { 'content-type': MEDIA_TYPES.json, accept: MEDIA_TYPES.json, ...version },
    body: JSON.stringify(envelope),
  };
}
