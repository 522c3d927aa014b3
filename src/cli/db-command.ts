import type { Command } from 'commander';
import { resolveConfig } from '../config.js';
import { databaseStatus, migrateDatabase, type DatabaseReport } from '../hub-database.js';

/**
 * `a2a-hub db status|migrate`: the PostgreSQL schema of store postgres. Replicas migrate when
 * they start (under a lock, so once); these let an operator look first, or migrate before a
 * rolling restart. The URL comes from --database-url, A2A_HUB_DATABASE_URL or --config.
 */
export function addDbCommand(program: Command, setExitCode: (code: number) => void): void {
  const db = program.command('db').description('the PostgreSQL schema of store postgres (docs/deployment.md)');
  for (const [name, description, run] of [
    ['status', 'show the migrations applied and pending; changes nothing', databaseStatus],
    ['migrate', 'apply the pending migrations (replicas also do this when they start)', migrateDatabase],
  ] as const) {
    db.command(name)
      .description(description)
      .option('--database-url <url>', 'postgres://user:password@host:port/database [env A2A_HUB_DATABASE_URL]')
      .option('--config <file>', 'a hub config file whose databaseUrl to use')
      .action(async (options: { databaseUrl?: string; config?: string }) => {
        const config = resolveConfig({
          ...(options.config === undefined ? {} : { file: options.config }),
          env: process.env,
          args: options.databaseUrl === undefined ? [] : [{ member: 'databaseUrl', name: '--database-url', text: options.databaseUrl }],
        });
        if (config.databaseUrl === undefined) {
          console.error('a2a-hub db needs a database: give --database-url or set A2A_HUB_DATABASE_URL');
          setExitCode(2);
          return;
        }
        try {
          process.stdout.write(`${reportLines(await run(config.databaseUrl)).join('\n')}\n`);
        } catch (error) {
          console.error(error instanceof Error ? error.message : String(error));
          setExitCode(1);
        }
      });
  }
}

function reportLines(report: DatabaseReport): string[] {
  const { status } = report;
  const latest = status.applied.at(-1)?.version ?? 0;
  return [
    `Database:        ${report.database}`,
    `Schema version:  ${latest} (this a2a-hub writes ${report.schemaVersion})`,
    ...(report.applied.length > 0 ? [`Applied now:     ${report.applied.join(', ')}`] : []),
    ...status.applied.map((migration) => `  applied ${migration.version}  ${migration.appliedAt}  ${migration.name}`),
    ...status.pending.map((migration) => `  pending ${migration.version}  ${migration.name}`),
    ...(status.ahead ? ['The database is newer than this a2a-hub: upgrade a2a-hub before starting it on this database.'] : []),
    status.pending.length === 0 && !status.ahead ? 'Up to date.' : status.ahead ? '' : 'Run a2a-hub db migrate, or start a replica.',
  ].filter((line) => line !== '');
}
