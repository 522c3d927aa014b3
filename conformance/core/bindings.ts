import { JsonRpcTransport } from './jsonrpc-transport.js';
import { Rest03Transport } from './rest03-transport.js';
import { RestTransport } from './rest-transport.js';
import { isThisProtocolVersion as is03 } from '../../generated/a2a/0.3/protocol.js';
import { CATALOG_VERSIONS, type ProtocolVersion } from '../../generated/conformance/requirements.js';
import type { Target } from './target.js';
import type { Binding, Transport } from './transport.js';

/** Which bindings a run tests: one, or every one the card declares that the suite speaks. */
export type BindingSelection = Binding | 'all';

/** Which protocol versions a run tests: one, or every one the card declares that the suite has a catalog of. */
export type ProtocolSelection = ProtocolVersion | 'all';

/** The versions `--protocol` takes. */
export const PROTOCOL_FLAGS: Readonly<Record<string, ProtocolSelection>> = {
  ...Object.fromEntries(CATALOG_VERSIONS.map((version) => [version, version])),
  all: 'all',
};

export interface TransportOptions {
  readonly headers?: Readonly<Record<string, string>>;
  readonly timeoutMs: number;
}

/** The binding names `--binding` takes, lower-case as users type them. */
export const BINDING_FLAGS: Readonly<Record<string, BindingSelection>> = { jsonrpc: 'JSONRPC', 'http+json': 'HTTP+JSON', all: 'all' };

/**
 * One transport per selected interface of the target, in the target's order (the 1.x bindings,
 * JSON-RPC first, then 0.3's, JSON-RPC first). Empty when the card declares none of the selected
 * bindings and versions: the caller says so.
 */
export function transportsFor(
  target: Target,
  selection: BindingSelection,
  options: TransportOptions,
  protocol: ProtocolSelection = 'all',
): Transport[] {
  return target.interfaces
    .filter((entry) => (selection === 'all' || entry.binding === selection) && (protocol === 'all' || entry.protocolVersion === protocol))
    .map((entry) => {
      const common = {
        endpoint: entry.url,
        timeoutMs: options.timeoutMs,
        ...(options.headers ? { headers: options.headers } : {}),
        ...(entry.tenant === undefined ? {} : { tenant: entry.tenant }),
      };
      if (entry.binding === 'HTTP+JSON') {
        return is03(entry.protocolVersion) ? new Rest03Transport(common) : new RestTransport(common);
      }
      return new JsonRpcTransport({ ...common, protocolVersion: entry.protocolVersion });
    });
}
