import { afterAll } from 'vitest';
import type { HubOptions } from '../../src/hub.js';
import { postgresBinDir, POSTGRES_REQUIRED, startTestPostgres, withClient, type TestPostgres } from './postgres-cluster.js';

export { postgresBinDir, POSTGRES_REQUIRED, startTestPostgres, withClient, type TestPostgres } from './postgres-cluster.js';

/** Whether the PostgreSQL cases run here: the server is installed, or CI requires it (and then a missing one fails). */
export const POSTGRES_AVAILABLE = postgresBinDir() !== undefined || POSTGRES_REQUIRED;

/**
 * One cluster per test file, started on first use and stopped after the file's tests, with a
 * fresh schema for every database a test asks for: `databaseUrl()` is a URL whose connections
 * work in a schema of their own, as an empty database would.
 */
export function sharedTestPostgres(): { databaseUrl(): Promise<string> } {
  let cluster: Promise<TestPostgres> | undefined;
  let schemas = 0;
  // The file's own hook: a test worker may be ended without its 'exit' event, leaving the server running.
  afterAll(async () => {
    if (cluster !== undefined) (await cluster.catch(() => undefined))?.stop();
  });
  return {
    async databaseUrl() {
      if (cluster === undefined) {
        cluster = startTestPostgres();
        const started = await cluster;
        process.once('exit', () => started.stop());
      }
      const { url } = await cluster;
      const schema = `test_${process.pid}_${(schemas += 1)}`;
      await withClient(url, (client) => client.query(`CREATE SCHEMA ${schema}`));
      return `${url}?options=${encodeURIComponent(`-c search_path=${schema}`)}`;
    },
  };
}

/** A store a hub-level case table runs on, with the hub options that choose it. */
export interface HubStore {
  readonly name: string;
  /** False for PostgreSQL where it is not installed (CI requires it: then it fails instead). */
  readonly available: boolean;
  /** `dataDir`: the SQLite data dir (ignored by PostgreSQL's). */
  options(dataDir?: string): Promise<HubOptions>;
}

/** SQLite and PostgreSQL (a fresh schema of the file's shared cluster per hub), for `describe.each`. */
export function hubStores(postgres: { databaseUrl(): Promise<string> }): readonly HubStore[] {
  const dir = (dataDir: string | undefined): HubOptions => (dataDir === undefined ? {} : { dataDir });
  return [
    { name: 'SQLite', available: true, options: (dataDir) => Promise.resolve(dir(dataDir)) },
    {
      name: 'PostgreSQL',
      available: POSTGRES_AVAILABLE,
      options: async (dataDir) => ({ ...dir(dataDir), store: 'postgres', databaseUrl: await postgres.databaseUrl() }),
    },
  ];
}
