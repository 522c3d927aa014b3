import pg from 'pg';
import { migrate, migrationStatus, SCHEMA_VERSION, type MigrationStatus } from './store/postgres-schema.js';
import { shownUrl } from './support/shown-url.js';

/** What `a2a-hub db status` and `db migrate` report about a PostgreSQL database. */
export interface DatabaseReport {
  /** The database without its password. */
  readonly database: string;
  /** The schema version this a2a-hub writes. */
  readonly schemaVersion: number;
  readonly status: MigrationStatus;
  /** Versions this call applied (db migrate). */
  readonly applied: readonly number[];
}

/** The migrations applied to the database and those pending, changing nothing. */
export async function databaseStatus(url: string): Promise<DatabaseReport> {
  return withPool(url, async (pool) => ({
    database: shownUrl(url),
    schemaVersion: SCHEMA_VERSION,
    status: await migrationStatus(pool),
    applied: [],
  }));
}

/** Applies the pending migrations (what every replica does when it starts) and reports. */
export async function migrateDatabase(url: string): Promise<DatabaseReport> {
  return withPool(url, async (pool) => {
    const applied = await migrate(pool);
    return { database: shownUrl(url), schemaVersion: SCHEMA_VERSION, status: await migrationStatus(pool), applied };
  });
}

async function withPool<T>(url: string, work: (pool: pg.Pool) => Promise<T>): Promise<T> {
  const pool = new pg.Pool({ connectionString: url, max: 1 });
  pool.on('error', () => undefined);
  try {
    return await work(pool);
  } catch (error) {
    throw new Error(`${shownUrl(url)}: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
  } finally {
    await pool.end();
  }
}
