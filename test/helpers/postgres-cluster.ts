import pg from 'pg';
import { execFile, execFileSync, spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * A throwaway PostgreSQL cluster for tests: its own data dir in a temp folder, its own port on
 * 127.0.0.1 (no Unix socket outside that folder), trust authentication for loopback, stopped and
 * deleted by `stop()`. The server binaries come from Debian's `postgresql` package, which
 * `.ci/run` installs; PostgreSQL refuses to run as root, so under root the cluster runs as the
 * package's `postgres` user. No vitest here: the bench starts its cluster with this too.
 */
export interface TestPostgres {
  /** postgres://a2ahub@127.0.0.1:<port>/postgres */
  readonly url: string;
  readonly port: number;
  /**
   * Stops the server as an operator's `pg_ctl restart -m fast` does (every session is ended,
   * 57P01) and starts it again on the same port; resolves once it accepts connections.
   */
  restart(): Promise<void>;
  stop(): void;
}

/** The folder of initdb and pg_ctl, or undefined when PostgreSQL is not installed. */
export function postgresBinDir(): string | undefined {
  const root = '/usr/lib/postgresql';
  if (!existsSync(root)) return undefined;
  const versions = readdirSync(root)
    .filter((name) => existsSync(join(root, name, 'bin', 'initdb')))
    .sort((a, b) => Number(b) - Number(a));
  return versions[0] === undefined ? undefined : join(root, versions[0], 'bin');
}

/** Whether a test must fail, rather than skip, when PostgreSQL is missing (CI sets it). */
export const POSTGRES_REQUIRED = process.env['A2A_HUB_REQUIRE_POSTGRES'] === '1';

export interface ClusterOptions {
  /**
   * Whether commits are flushed to disk, as PostgreSQL does by default (the bench); the tests'
   * clusters skip it (`fsync=off`), since nothing they check depends on a power cut.
   */
  readonly durable?: boolean;
}

export async function startTestPostgres(options: ClusterOptions = {}): Promise<TestPostgres> {
  const bin = postgresBinDir();
  if (bin === undefined) throw new Error('PostgreSQL is not installed (Debian: apt-get install postgresql); .ci/run installs it');
  const folder = mkdtempSync(join(tmpdir(), 'a2a-hub-pg-'));
  const dataDir = join(folder, 'data');
  const asRoot = process.getuid?.() === 0;
  // The postgres user must be able to reach and own its folder.
  if (asRoot) {
    chmodSync(folder, 0o755);
    execFileSync('chown', ['postgres:postgres', folder]);
  }
  const run = (command: string, args: readonly string[]): void => {
    const [file, argv] = asRoot ? ['runuser', ['-u', 'postgres', '--', join(bin, command), ...args]] : [join(bin, command), [...args]];
    const result = spawnSync(file, argv, { encoding: 'utf8', timeout: 60_000 });
    if (result.status !== 0) throw new Error(`${command} failed (${result.status ?? result.signal}): ${result.stderr || result.stdout}`);
  };
  run('initdb', ['-D', dataDir, '-U', 'a2ahub', '--auth=trust', '--encoding=UTF8', '--locale=C', '--no-sync']);
  const port = await freePort();
  const settings = [
    `-p ${port}`,
    "-c listen_addresses='127.0.0.1'",
    `-c unix_socket_directories='${folder}'`,
    ...(options.durable === true ? [] : ['-c fsync=off']),
  ].join(' ');
  run('pg_ctl', ['-D', dataDir, '-o', settings, '-l', join(folder, 'server.log'), '-w', '-t', '60', 'start']);
  let stopped = false;
  return {
    url: `postgres://a2ahub@127.0.0.1:${port}/postgres`,
    port,
    async restart() {
      // Asynchronous, so the hub under test keeps serving (and failing) while the server is down.
      const [file, argv] = asRoot
        ? [
            'runuser',
            [
              '-u',
              'postgres',
              '--',
              join(bin, 'pg_ctl'),
              '-D',
              dataDir,
              '-l',
              join(folder, 'server.log'),
              '-m',
              'fast',
              '-w',
              '-t',
              '60',
              'restart',
            ],
          ]
        : [join(bin, 'pg_ctl'), ['-D', dataDir, '-l', join(folder, 'server.log'), '-m', 'fast', '-w', '-t', '60', 'restart']];
      await new Promise<void>((resolve, reject) =>
        execFile(file, argv, { timeout: 90_000 }, (error, _stdout, stderr) =>
          error === null ? resolve() : reject(new Error(`pg_ctl restart failed: ${String(stderr) || error.message}`)),
        ),
      );
    },
    stop() {
      if (stopped) return;
      stopped = true;
      try {
        run('pg_ctl', ['-D', dataDir, '-m', 'immediate', '-w', 'stop']);
      } finally {
        rmSync(folder, { recursive: true, force: true });
      }
    },
  };
}

/** A port free on 127.0.0.1 now (bound, then released). */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address !== null ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

/** Runs `work` on a connection of its own to `url`, closed afterwards. */
export async function withClient<T>(url: string, work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}
