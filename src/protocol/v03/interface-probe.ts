import type { MethodName as Method03 } from '../../../generated/a2a/0.3/methods.js';
import { isThisProtocolVersion as is03, PROTOCOL_VERSION as VERSION_03 } from '../../../generated/a2a/0.3/protocol.js';
import { HEADERS, MEDIA_TYPES } from '../../../generated/a2a/1.0/protocol.js';
import { interfaceProbe, type InterfaceProbe, type ProbedInterface, type ProbeOptions } from '../interface-probe.js';
import { urlBelow } from '../rest-url.js';
import { rest03Request } from './rest-requests.js';

/**
 * The probe of an interface of either version: a 1.x one as ../interface-probe.ts makes it, a
 * 0.3 one with tasks/get (on its `/v1` route for HTTP+JSON), whose answer is a 0.3 error
 * object (TaskNotFound, -32001). 0.3 has no tenants.
 */
export function versionedInterfaceProbe(
  entry: ProbedInterface & { readonly protocolVersion: string },
  id: string,
  options: ProbeOptions = {},
): InterfaceProbe | undefined {
  if (!is03(entry.protocolVersion)) return interfaceProbe(entry, id, options);
  const version = { [HEADERS.version.toLowerCase()]: VERSION_03 };
  if (entry.protocolBinding === 'HTTP+JSON') {
    const request = rest03Request(GET_TASK_03, { id });
    return { method: 'GET', url: urlBelow(entry.url, request.path, request.query), headers: { accept: MEDIA_TYPES.json, ...version } };
  }
  if (entry.protocolBinding !== 'JSONRPC') return undefined;
  return {
    method: 'POST',
    url: entry.url,
    headers: { 'content-type': MEDIA_TYPES.json, accept: MEDIA_TYPES.json, ...version },
    body: JSON.stringify({ jsonrpc: '2.0', id: options.rpcId ?? 1, method: GET_TASK_03, params: { id } }),
  };
}

const GET_TASK_03: Method03 = 'tasks/get';
