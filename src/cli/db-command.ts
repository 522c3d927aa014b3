import type { Command } from 'commander';
import { resolveConfig } from '../config.js';
import { databaseStatus, migrateDatabase, type DatabaseReport } from '../hub-database.js';
import { pruneStore } from '../hub-prune.js';

/**
 * `a2a-hub db status|migrate`: the PostgreSQL schema of store postgres. Replicas migrate when
 * they start (under a lock, so once); these let an operator look first, or migrate before a
 * rolling restart. The URL comes from --database-url, A2A_HUB_DATABASE_URL or --config.
 */
export function addDbCommand(program: Command, setExitCode: (code: number) => void): void {
  const db = program.command('db').description('the task store: the PostgreSQL schema (status, migrate) and retention (prune)');
  addPruneCommand(db, setExitCode);
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

/**
 * `a2a-hub db prune`: one retention sweep, run to its end, over the store a hub with the same
 * options would open (docs/server.md, Retention). By each instance's stored retention, or by the
 * rule the flags give. On a SQLite data dir a running hub holds, use its control API instead.
 */
function addPruneCommand(db: Command, setExitCode: (code: number) => void): void {
  db.command('prune')
    .description("delete the terminal tasks instances' retentions no longer keep, now (a running hub also does it every minute)")
    .option('--data-dir <dir>', 'the SQLite data dir [env A2A_HUB_DATA_DIR] (default .a2a-hub)')
    .option('--database-url <url>', 'postgres://user:password@host:port/database [env A2A_HUB_DATABASE_URL]')
    .option('--config <file>', 'a hub config file naming the store')
    .option('--instance <id>', 'prune one instance only')
    .option('--older-than <duration>', 'instead of the stored retention: delete terminal tasks older than this (90s, 45m, 12h, 30d)')
    .option('--max-tasks <n>', 'instead of the stored retention: keep the newest n terminal tasks')
    .action(
      async (options: {
        dataDir?: string;
        databaseUrl?: string;
        config?: string;
        instance?: string;
        olderThan?: string;
        maxTasks?: string;
      }) => {
        const maxAgeMs = options.olderThan === undefined ? undefined : durationMs(options.olderThan);
        const maxTasks = options.maxTasks === undefined ? undefined : Number(options.maxTasks);
        if (maxAgeMs !== undefined && (maxAgeMs === null || maxAgeMs < 60_000)) {
          console.error(
            `a2a-hub db prune: --older-than takes a duration of at least a minute (90s, 45m, 12h, 30d), got ${JSON.stringify(options.olderThan)}`,
          );
          setExitCode(2);
          return;
        }
        if (maxTasks !== undefined && !(Number.isSafeInteger(maxTasks) && maxTasks >= 1)) {
          console.error(`a2a-hub db prune: --max-tasks takes a whole number of at least 1, got ${JSON.stringify(options.maxTasks)}`);
          setExitCode(2);
          return;
        }
        try {
          const config = resolveConfig({
            ...(options.config === undefined ? {} : { file: options.config }),
            env: process.env,
            args: [
              ...(options.dataDir === undefined ? [] : [{ member: 'dataDir' as const, name: '--data-dir', text: options.dataDir }]),
              ...(options.databaseUrl === undefined
                ? []
                : [{ member: 'databaseUrl' as const, name: '--database-url', text: options.databaseUrl }]),
            ],
          });
          const rule =
            maxAgeMs === undefined && maxTasks === undefined
              ? undefined
              : { ...(maxAgeMs ? { maxAgeMs } : {}), ...(maxTasks ? { maxTasks } : {}) };
          const report = await pruneStore(config, {
            ...(options.instance === undefined ? {} : { instanceId: options.instance }),
            ...(rule ? { rule } : {}),
          });
          const total = Object.values(report.pruned).reduce((sum, count) => sum + count, 0);
          const lines = [
            `Store:   ${report.store}`,
            ...Object.entries(report.pruned).map(([id, count]) => `  ${id}: ${count} terminal task${count === 1 ? '' : 's'} deleted`),
            ...(report.keptAll.length === 0 ? [] : [`  keeps every task (no retention): ${report.keptAll.join(', ')}`]),
            ...(report.heldElsewhere.length === 0
              ? []
              : [`  another replica was sweeping ${report.heldElsewhere.join(', ')}: run again later for the rest`]),
            `Pruned:  ${total}`,
          ];
          process.stdout.write(`${lines.join('\n')}\n`);
        } catch (error) {
          console.error(`a2a-hub db prune: ${error instanceof Error ? error.message : String(error)}`);
          setExitCode(1);
        }
      },
    );
}

/** `90s`, `45m`, `12h`, `30d` or plain milliseconds, in milliseconds; null when it is none of those. */
function durationMs(text: string): number | null {
  const match = /^(\d+)(ms|s|m|h|d)?$/.exec(text.trim());
  if (match === null) return null;
  const unit = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 }[match[2] ?? 'ms'] ?? 1;
  const value = Number(match[1]) * unit;
  return Number.isSafeInteger(value) ? value : null;
}
