import type { ExecutorTools } from '../executors/executor.js';

/**
 * The tools the runtime hands its executors, as it needs them: the hub's tool registry
 * (src/outbound/tool-registry.ts) provides them, and the runtime does not depend on where
 * tools come from. Calls carry the caller (instance and conversation) so a remote sees one
 * conversation per local one.
 */
export interface ToolProvider {
  list(): ReturnType<ExecutorTools['list']>;
  call(
    name: string,
    args: unknown,
    options: { readonly callerId: string; readonly signal?: AbortSignal },
  ): ReturnType<ExecutorTools['call']>;
}
