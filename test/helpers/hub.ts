import type { LookupFunction } from 'node:net';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { startHub, type Hub, type HubOptions } from '../../src/hub.js';

export interface TestHub extends Hub {
  /** JSON-RPC endpoint of the default echo agent. */
  readonly endpoint: string;
  readonly dataDir: string;
  /** Closes the hub and deletes its data dir. */
  dispose(): Promise<void>;
}

/** A hub on 127.0.0.1 port 0 with SQLite in a fresh temp dir, quiet, without rate limiting. */
export async function startTestHub(options: HubOptions = {}): Promise<TestHub> {
  const dataDir = options.dataDir ?? mkdtempSync(join(tmpdir(), 'a2a-hub-test-'));
  const hub = await startHub({
    host: '127.0.0.1',
    port: 0,
    dataDir,
    rateLimit: false,
    logger: pino({ level: 'silent' }),
    shutdownGraceMs: 2000,
    lookup: hermeticLookup,
    ...options,
  });
  return Object.assign(hub, {
    endpoint: `${hub.url}/a2a/default`,
    dataDir,
    async dispose() {
      await hub.close();
      if (options.dataDir === undefined) rmSync(dataDir, { recursive: true, force: true });
    },
  });
}

/**
 * The resolver test hubs use unless a test gives its own: localhost is loopback and every other
 * name does not exist, so no test sends a DNS query off the machine.
 */
export const hermeticLookup: LookupFunction = (hostname, options, callback) => {
  const all = typeof options === 'object' && options.all === true;
  if (hostname !== 'localhost') {
    const error: NodeJS.ErrnoException = Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND', hostname });
    callback(error, all ? [] : '', 4);
    return;
  }
  if (all) callback(null, [{ address: '127.0.0.1', family: 4 }]);
  else callback(null, '127.0.0.1', 4);
};
