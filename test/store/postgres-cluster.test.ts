import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { POSTGRES_REQUIRED, postgresBinDir, startTestPostgres, type TestPostgres } from '../helpers/postgres.js';

/**
 * The throwaway PostgreSQL cluster the replica tests run on (issue 20): it starts on loopback
 * with its own data dir and port, answers SQL, and is gone after stop(). CI installs PostgreSQL
 * and sets A2A_HUB_REQUIRE_POSTGRES=1, so there a missing server fails instead of skipping.
 */

const available = postgresBinDir() !== undefined;

describe.skipIf(!available && !POSTGRES_REQUIRED)('a throwaway PostgreSQL cluster', () => {
  let cluster: TestPostgres;
  beforeAll(async () => {
    cluster = await startTestPostgres();
  }, 120_000);
  afterAll(() => cluster?.stop());

  it('listens on loopback only and answers as the test role', async () => {
    const client = new pg.Client({ connectionString: cluster.url });
    await client.connect();
    try {
      const { rows } = await client.query<{ user: string; listen: string; version: string }>(
        "SELECT current_user AS user, current_setting('listen_addresses') AS listen, current_setting('server_version_num') AS version",
      );
      expect(rows[0]?.user).toBe('a2ahub');
      expect(rows[0]?.listen).toBe('127.0.0.1');
      expect(Number(rows[0]?.version)).toBeGreaterThanOrEqual(130000);
      await client.query('CREATE TABLE probe (id integer PRIMARY KEY)');
      await client.query('INSERT INTO probe VALUES (1)');
      expect((await client.query('SELECT count(*)::int AS n FROM probe')).rows[0]).toEqual({ n: 1 });
    } finally {
      await client.end();
    }
  });

  it('is gone after stop(): its port refuses connections', async () => {
    const other = await startTestPostgres();
    other.stop();
    const client = new pg.Client({ connectionString: other.url, connectionTimeoutMillis: 2000 });
    await expect(client.connect()).rejects.toThrow(/ECONNREFUSED/);
  }, 120_000);
});
