import { afterAll } from 'vitest';
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
