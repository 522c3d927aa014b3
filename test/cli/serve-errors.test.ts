import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, type CliOptions, type RunResult } from '../helpers/run.js';

const dir = mkdtempSync(join(tmpdir(), 'a2a-hub-serve-errors-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/**
 * `a2a-hub serve` that must refuse to start: port 0 and a fresh data dir unless the case sets
 * them, so a wrongly accepted setting shows as a hub that listens instead of a clash.
 */
function refusedServe(args: string[], options: CliOptions = {}): RunResult {
  const result = runCli(['serve', ...args], {
    ...options,
    env: { A2A_HUB_PORT: '0', A2A_HUB_DATA_DIR: join(dir, 'data'), ...options.env },
  });
  expect(result.stdout).not.toContain('listening');
  expect(result.stderr).not.toMatch(/\n\s+at /);
  expect(result.status).toBe(2);
  return result;
}

describe('a2a-hub serve refuses bad settings with a message and exit code 2', () => {
  it('a --port that is not a decimal number', () => {
    expect(refusedServe(['--port', 'abc']).stderr.trim()).toBe(
      'invalid configuration (command line): --port must be a whole number such as 3080, got "abc"',
    );
    expect(refusedServe(['--port', '0x10']).stderr).toContain('--port must be a whole number such as 3080, got "0x10"');
    expect(refusedServe(['--port', '']).stderr).toContain('--port must be a whole number such as 3080, got an empty value');
  });

  it('an empty --host', () => {
    expect(refusedServe(['--host', '']).stderr).toContain('--host must not be empty: give an address such as 127.0.0.1');
  });

  it('a boolean variable that is not true, false, 1 or 0', () => {
    expect(refusedServe([], { env: { A2A_HUB_TRUST_PROXY: 'yes' } }).stderr).toContain(
      'A2A_HUB_TRUST_PROXY must be true, false, 1 or 0, got "yes"',
    );
  });
});

describe('a2a-hub serve explains why it cannot listen', () => {
  let taken: Server;
  let port: number;
  beforeAll(async () => {
    taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    port = (taken.address() as { port: number }).port;
  });
  afterAll(() => new Promise<void>((resolve) => taken.close(() => resolve())));

  it('a port in use names the port and how to pick another', () => {
    const { stderr } = refusedServe(['--port', String(port)]);
    expect(stderr).toContain(`port ${port} on 127.0.0.1 is already in use`);
    expect(stderr).toContain('npm start -- --port N');
    expect(stderr).toContain('A2A_HUB_PORT=N');
  });
});

describe('a2a-hub serve names the data dir it cannot use and why', () => {
  it('a data dir that is a file', () => {
    const path = join(dir, 'a-file');
    writeFileSync(path, 'not a folder');
    const { stderr } = refusedServe(['--data-dir', path]);
    expect(stderr).toContain(`cannot use ${path} as the data dir: it is a file, not a folder`);
  });

  it('a data dir inside a folder this user may not write', () => {
    const locked = join(dir, 'locked');
    mkdirSync(locked, { mode: 0o755 });
    chmodSync(dir, 0o755);
    chmodSync(locked, 0o555);
    const { stderr } = refusedServe(['--data-dir', join(locked, 'data')], { unprivileged: true });
    expect(stderr).toContain(`cannot create the data dir ${join(locked, 'data')}: permission denied`);
  });

  it('a data dir this user may not write in', () => {
    const readOnly = join(dir, 'read-only');
    mkdirSync(readOnly, { mode: 0o555 });
    chmodSync(dir, 0o755);
    const { stderr } = refusedServe(['--data-dir', readOnly], { unprivileged: true });
    expect(stderr).toContain(`cannot open the database ${join(readOnly, 'a2a-hub.sqlite')}: this user may not create files in ${readOnly}`);
  });

  it('a database file that is read-only', () => {
    const data = join(dir, 'read-only-file');
    mkdirSync(data, { mode: 0o777 });
    chmodSync(dir, 0o755);
    writeFileSync(join(data, 'a2a-hub.sqlite'), '');
    chmodSync(join(data, 'a2a-hub.sqlite'), 0o444);
    const { stderr } = refusedServe(['--data-dir', data], { unprivileged: true });
    expect(stderr).toContain(`cannot open the database ${join(data, 'a2a-hub.sqlite')}: the file is read-only for this user`);
  });

  it('a file in the place of the database that is not one', () => {
    const data = join(dir, 'not-a-database');
    mkdirSync(data);
    writeFileSync(join(data, 'a2a-hub.sqlite'), 'plain text, long enough to have a header that SQLite reads and rejects');
    const { stderr } = refusedServe(['--data-dir', data]);
    expect(stderr).toContain(`cannot open the database ${join(data, 'a2a-hub.sqlite')}: it is not an SQLite database`);
  });
});

describe('config files as seed 002 writes the command line (serve -c FILE -p PORT)', () => {
  it('reads a YAML config file, with -c and -p spelled as the seed spells them', () => {
    const file = join(dir, 'hub.yaml');
    writeFileSync(file, '# a hub config in YAML\nhost: ""\n');
    // The YAML was read (its empty host is what is refused), and -p was read as --port.
    expect(refusedServe(['-c', file]).stderr).toMatch(/invalid configuration \(config file .*hub\.yaml\): host must not be empty/);
    expect(refusedServe(['-c', file.replace('hub.yaml', 'missing.yaml')]).stderr).toMatch(/cannot read config file .*missing\.yaml/);
    expect(refusedServe(['-p', '70000']).stderr).toContain('--port must be <= 65535');
  });

  it('a file that is neither JSON nor YAML says so', () => {
    const file = join(dir, 'broken.conf');
    writeFileSync(file, '{"port": 3080,\n  : ]');
    expect(refusedServe(['--config', file]).stderr).toMatch(/cannot read config file .*broken\.conf: it is neither JSON nor YAML/);
  });

  it("seed 002's agent.yaml given to --config is pointed to --agent", () => {
    const file = join(dir, 'agent.yaml');
    writeFileSync(
      file,
      'AGENT_CONFIG:\n  name: "My Agent"\n  version: "1.0.0"\n  description: "data analysis"\nMODEL:\n  deepseek:\n    provider: deepseek\n',
    );
    expect(refusedServe(['--config', file]).stderr).toContain(
      `if it declares an agent (seed 002's DataAgent YAML), serve it with --agent ${file}`,
    );
  });
});
