import { startSdkAgent } from '../interop/sdk-agent.js';
import { cpuNow, memoryNow, serveIpc, type ServerOps } from './ipc.js';

/**
 * The second reference: an agent built only with the official @a2a-js/sdk server (its
 * DefaultRequestHandler over the InMemoryTaskStore, Express, the JSON-RPC middleware), the one
 * the interop tests run (test/interop/sdk-agent.ts), in its own process like the hub. Its echo
 * answers the bench's message with a COMPLETED task whose artifact is `echo: hello`, streamed in
 * two chunks, as the hub's does; it keeps tasks in memory, where the hub writes each to SQLite.
 */
const agent = await startSdkAgent({ convention: 'none' });
const close = (): Promise<void> => agent.close();

serveIpc<ServerOps>(
  agent.url,
  {
    cpu: () => cpuNow(),
    memory: () => memoryNow(),
    async close() {
      await close();
      setTimeout(() => process.exit(0), 50);
      return null;
    },
  },
  () => void close().finally(() => process.exit(0)),
);
