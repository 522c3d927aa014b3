import { describe, expect, it } from 'vitest';
import { SCHEMA_VERSION } from '../../src/store/postgres-schema.js';
import { POSTGRES_AVAILABLE, sharedTestPostgres } from '../helpers/postgres.js';
import { runCli } from '../helpers/run.js';

const postgres = sharedTestPostgres();

/** The URL with a password the server does not need (trust authentication), to see that it is never shown. */
async function urlWithPassword(): Promise<string> {
  return (await postgres.databaseUrl()).replace('://a2ahub@', '://a2ahub:secret-pw@');
}

describe.skipIf(!POSTGRES_AVAILABLE)('a2a-hub db', () => {
  it('status shows the pending migrations of an empty database, migrate applies them once, and neither shows the password', async () => {
    const url = await urlWithPassword();
    const before = runCli(['db', 'status', '--database-url', url]);
    expect(before.status, before.stderr).toBe(0);
    expect(before.stdout).toContain('Schema version:  0');
    expect(before.stdout).toMatch(/pending 1 /);
    expect(before.stdout).toContain('Run a2a-hub db migrate');
    const migrated = runCli(['db', 'migrate'], { env: { A2A_HUB_DATABASE_URL: url } });
    expect(migrated.status, migrated.stderr).toBe(0);
    expect(migrated.stdout).toContain(`Applied now:     ${Array.from({ length: SCHEMA_VERSION }, (_, n) => n + 1).join(', ')}`);
    const after = runCli(['db', 'status', '--database-url', url]);
    expect(after.stdout).toContain(`Schema version:  ${SCHEMA_VERSION}`);
    expect(after.stdout).toContain('Up to date.');
    for (const output of [before, migrated, after]) expect(output.stdout + output.stderr).not.toContain('secret-pw');
  });

  it('says what is missing without a database, and names an unreachable one without its password', () => {
    const none = runCli(['db', 'status'], { env: { A2A_HUB_DATABASE_URL: '' } });
    expect(none.status).toBe(2);
    expect(none.stderr).toContain('give --database-url or set A2A_HUB_DATABASE_URL');
    const down = runCli(['db', 'status', '--database-url', 'postgres://a2ahub:secret-pw@127.0.0.1:9/nowhere']);
    expect(down.status).toBe(1);
    expect(down.stderr).toContain('postgres://a2ahub@127.0.0.1:9/nowhere');
    expect(down.stderr).toMatch(/ECONNREFUSED/);
    expect(down.stderr).not.toContain('secret-pw');
  });
});
