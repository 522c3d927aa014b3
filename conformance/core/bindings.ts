import { JsonRpcTransport } from './jsonrpc-transport.js';
import { RestTransport } from './rest-transport.js';
import type { Target } from './target.js';
import type { Binding, Transport } from './transport.js';

/** Which bindings a run tests: one, or every one the card declares that the suite speaks. */
export type BindingSelection = Binding | 'all';

export interface TransportOptions {
  readonly headers?: Readonly<Record<string, string>>;
  readonly timeoutMs: number;
}

/** The binding names `--binding` takes, lower-case as users type them. */
export const BINDING_FLAGS: Readonly<Record<string, BindingSelection>> = { jsonrpc: 'JSONRPC', 'http+json': 'HTTP+JSON', all: 'all' };

/**
 * One transport per selected binding of the target, in the target's order (JSON-RPC first).
 * Empty when the card declares none of the selected bindings: the caller says so.
 */
export function transportsFor(target: Target, selection: BindingSelection, options: TransportOptions): Transport[] {
  return target.interfaces
    .filter((entry) => selection === 'all' || entry.binding === selection)
    .map((entry) => {
      const common = {
        endpoint: entry.url,
        timeoutMs: options.timeoutMs,
        ...(options.headers ? { headers: options.headers } : {}),
        ...(entry.tenant === undefined ? {} : { tenant: entry.tenant }),
      };
      return entry.binding === 'JSONRPC' ? new JsonRpcTransport(common) : new RestTransport(common);
    });
}
