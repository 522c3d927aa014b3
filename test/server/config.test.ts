import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ConfigError, DEFAULTS, resolveConfig } from '../../src/config.js';

const dir = mkdtempSync(join(tmpdir(), 'a2a-hub-config-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function file(content: unknown): string {
  const path = join(dir, `${Math.random().toString(36).slice(2)}.json`);
  writeFileSync(path, typeof content === 'string' ? content : JSON.stringify(content));
  return path;
}

describe('configuration layers', () => {
  it('starts from the documented defaults', () => {
    expect(resolveConfig({})).toEqual({ ...DEFAULTS, dataDir: resolve('.a2a-hub') });
  });

  it('shares defaults that cannot be changed through any configuration', () => {
    const config = resolveConfig({});
    expect(() => {
      (config.rateLimit as { perSecond: number }).perSecond = 1;
    }).toThrow(TypeError);
    expect(resolveConfig({}).rateLimit).toEqual({ perSecond: 200, burst: 400 });
  });

  it('applies file, then environment, then flags', () => {
    const config = resolveConfig({
      file: file({ port: 4000, host: '0.0.0.0', absentVersion: '1.0', rateLimit: false }),
      env: { A2A_HUB_PORT: '5000', A2A_HUB_TRUST_PROXY: 'true', UNRELATED: 'x' },
      flags: { port: 6000 },
    });
    expect(config).toMatchObject({ port: 6000, host: '0.0.0.0', absentVersion: '1.0', trustProxy: true, rateLimit: false });
  });

  it('reads the deprecated strictVersion as absentVersion, says so, and lets absentVersion win', () => {
    const told: string[] = [];
    const onDeprecated = (message: string): void => void told.push(message);
    expect(resolveConfig({ file: file({ strictVersion: false }), onDeprecated })).not.toHaveProperty('strictVersion');
    expect(resolveConfig({ file: file({ strictVersion: false }), onDeprecated }).absentVersion).toBe('1.0');
    expect(resolveConfig({ env: { A2A_HUB_STRICT_VERSION: 'true' }, flags: {}, onDeprecated }).absentVersion).toBe('0.3');
    expect(told.at(-1)).toMatch(/A2A_HUB_STRICT_VERSION is deprecated; read as absentVersion "0.3"/);
    expect(resolveConfig({ file: file({ strictVersion: false, absentVersion: '0.3' }), onDeprecated }).absentVersion).toBe('0.3');
    expect(told.at(-1)).toMatch(/strictVersion in .* is deprecated and ignored, since absentVersion is set beside it/);
    // A later layer overrides an earlier one whichever name either uses.
    expect(resolveConfig({ file: file({ absentVersion: '0.3' }), env: { A2A_HUB_STRICT_VERSION: 'false' } }).absentVersion).toBe('1.0');
    expect(resolveConfig({ file: file({ strictVersion: false }), env: { A2A_HUB_ABSENT_VERSION: '0.3' } }).absentVersion).toBe('0.3');
    expect(() => resolveConfig({ env: { A2A_HUB_STRICT_VERSION: 'yes' } })).toThrow(/A2A_HUB_STRICT_VERSION must be true, false, 1 or 0/);
  });

  it('names the member that is wrong', () => {
    expect(() => resolveConfig({ file: file({ port: 'eighty' }) })).toThrow(ConfigError);
    expect(() => resolveConfig({ file: file({ port: 'eighty' }) })).toThrow(/port must be an integer/);
    expect(() => resolveConfig({ file: file({ prot: 80 }) })).toThrow(/prot is not a member of this object/);
    expect(() => resolveConfig({ env: { A2A_HUB_PORT: '70000' } })).toThrow(/environment.*A2A_HUB_PORT must be <= 65535, got 70000/);
    expect(() => resolveConfig({ file: file('{ not json') })).toThrow(/cannot read config file/);
    expect(() => resolveConfig({ file: join(dir, 'missing.json') })).toThrow(/cannot read config file/);
  });
});

/** The message resolveConfig throws for these layers, or a failure saying it accepted them. */
function problem(layers: Parameters<typeof resolveConfig>[0]): string {
  try {
    resolveConfig(layers);
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return (error as Error).message;
  }
  throw new Error(`accepted ${JSON.stringify(layers)}`);
}

const arg = (member: 'host' | 'port' | 'dataDir', name: string, text: string) => ({ args: [{ member, name, text }] });

describe('settings written as text', () => {
  it('takes a decimal port from a flag or a variable', () => {
    expect(resolveConfig({ ...arg('port', '--port', '8080'), env: { A2A_HUB_PORT: '9090' } }).port).toBe(8080);
    expect(resolveConfig({ env: { A2A_HUB_PORT: '9090' } }).port).toBe(9090);
  });

  it('refuses a port that is not a decimal number, naming the flag and what it got', () => {
    expect(problem(arg('port', '--port', 'abc'))).toBe(
      'invalid configuration (command line): --port must be a whole number such as 3080, got "abc"',
    );
    expect(problem(arg('port', '--port', '0x10'))).toMatch(/--port must be a whole number such as 3080, got "0x10"/);
    expect(problem(arg('port', '--port', '1e3'))).toMatch(/--port must be a whole number/);
    expect(problem(arg('port', '--port', ''))).toMatch(/--port must be a whole number such as 3080, got an empty value/);
    expect(problem({ env: { A2A_HUB_PORT: 'abc' } })).toMatch(
      /\(environment\): A2A_HUB_PORT must be a whole number such as 3080, got "abc"/,
    );
  });

  it('checks a number against the schema under the name the user wrote', () => {
    expect(problem(arg('port', '--port', '70000'))).toBe('invalid configuration (command line): --port must be <= 65535, got 70000');
    expect(problem({ env: { A2A_HUB_BODY_LIMIT_BYTES: '10' } })).toMatch(/A2A_HUB_BODY_LIMIT_BYTES must be >= 1024, got 10/);
    expect(problem({ env: { A2A_HUB_BODY_LIMIT_BYTES: '10 MiB' } })).toMatch(
      /A2A_HUB_BODY_LIMIT_BYTES must be a whole number such as 10485760, got "10 MiB"/,
    );
  });

  it('refuses an empty --host instead of listening on the default', () => {
    expect(problem(arg('host', '--host', ''))).toBe(
      'invalid configuration (command line): --host must not be empty: give an address such as 127.0.0.1 (this machine only) or 0.0.0.0 (every interface)',
    );
    expect(problem(arg('dataDir', '--data-dir', ''))).toMatch(/--data-dir must not be empty/);
  });

  it('reads booleans as true, false, 1 or 0 and refuses anything else naming the variable', () => {
    for (const [text, value] of [
      ['true', true],
      ['1', true],
      ['false', false],
      ['0', false],
    ] as const) {
      expect(resolveConfig({ env: { A2A_HUB_TRUST_PROXY: text } }).trustProxy).toBe(value);
    }
    expect(problem({ env: { A2A_HUB_TRUST_PROXY: 'yes' } })).toBe(
      'invalid configuration (environment): A2A_HUB_TRUST_PROXY must be true, false, 1 or 0, got "yes"',
    );
    expect(problem({ env: { A2A_HUB_TRUST_PROXY: 'TRUE ' } })).toMatch(/A2A_HUB_TRUST_PROXY must be true, false, 1 or 0, got "TRUE "/);
    expect(resolveConfig({ env: { A2A_HUB_ABSENT_VERSION: '1.0' } }).absentVersion).toBe('1.0');
    expect(problem({ env: { A2A_HUB_ABSENT_VERSION: '1.1' } })).toMatch(/A2A_HUB_ABSENT_VERSION must be one of/);
  });

  it('treats an empty variable as unset', () => {
    expect(resolveConfig({ env: { A2A_HUB_PORT: '', A2A_HUB_TRUST_PROXY: '' } })).toMatchObject({ port: DEFAULTS.port, trustProxy: false });
  });
});

describe('messages of the config file', () => {
  it('says which rateLimit member is wrong and why', () => {
    expect(problem({ file: file({ rateLimit: { perSecond: -1, burst: 4 } }) })).toMatch(/: rateLimit\.perSecond must be > 0, got -1$/);
    expect(problem({ file: file({ rateLimit: { perSecond: 1 } }) })).toMatch(/: rateLimit\.burst is required$/);
    expect(problem({ file: file({ rateLimit: { perSecond: 1, burst: 2, every: 3 } }) })).toMatch(
      /: rateLimit\.every is not a member of this object; known members: perSecond, burst$/,
    );
    expect(problem({ file: file({ rateLimit: true }) })).toMatch(/: rateLimit must be RateLimitConfig or false, got true$/);
  });

  it('reads a database URL alone as store postgres, lets a named store win, and refuses postgres without a URL', () => {
    const url = 'postgres://a2ahub:pw@127.0.0.1:5432/hub';
    expect(resolveConfig({ env: { A2A_HUB_DATABASE_URL: url } })).toMatchObject({
      store: 'postgres',
      databaseUrl: url,
      databasePoolSize: 10,
    });
    expect(resolveConfig({ env: { A2A_HUB_DATABASE_URL: url, A2A_HUB_STORE: 'memory' } }).store).toBe('memory');
    expect(() => resolveConfig({ env: { A2A_HUB_STORE: 'postgres' } })).toThrow(
      /store postgres needs databaseUrl \(A2A_HUB_DATABASE_URL\)/,
    );
    expect(() => resolveConfig({ env: { A2A_HUB_DATABASE_URL: 'mysql://x' } })).toThrow(/A2A_HUB_DATABASE_URL/);
  });

  it('reads store {kind, url} as the kind and its database, and refuses a url that contradicts the rest', () => {
    const url = 'postgres://a2ahub:pw@127.0.0.1:5432/hub';
    expect(resolveConfig({ file: file({ store: { kind: 'postgres', url } }) })).toMatchObject({ store: 'postgres', databaseUrl: url });
    // The kind alone in object form is the kind; the URL may come from another layer.
    expect(resolveConfig({ file: file({ store: { kind: 'postgres' } }), env: { A2A_HUB_DATABASE_URL: url } })).toMatchObject({
      store: 'postgres',
      databaseUrl: url,
    });
    expect(resolveConfig({ file: file({ store: { kind: 'memory' } }), env: { A2A_HUB_DATABASE_URL: url } }).store).toBe('memory');
    // A later layer's plain kind overrides the file's object, as any member does.
    expect(resolveConfig({ file: file({ store: { kind: 'postgres', url } }), env: { A2A_HUB_STORE: 'sqlite' } }).store).toBe('sqlite');
    expect(resolveConfig({ file: file({ store: { kind: 'postgres', url }, databaseUrl: url }) }).databaseUrl).toBe(url);

    const sqliteWithUrl = problem({ file: file({ store: { kind: 'sqlite', url } }) });
    expect(sqliteWithUrl).toMatch(/store\.url names a PostgreSQL database, but store\.kind is "sqlite"/);
    const twoDatabases = problem({ file: file({ store: { kind: 'postgres', url }, databaseUrl: `${url}2` }) });
    expect(twoDatabases).toMatch(/store\.url and databaseUrl name different databases/);
    for (const message of [sqliteWithUrl, twoDatabases]) expect(message).not.toContain('pw');
    // Each mistake in the object is named by its member, not as "matches no branch".
    expect(problem({ file: file({ store: { kind: 'postgres', url: 'mysql://x' } }) })).toMatch(/: store\.url must match \^postgres/);
    expect(problem({ file: file({ store: { kind: 'postgres', uri: url } }) })).toMatch(
      /: store\.uri is not a member of this object; known members: kind, url$/,
    );
    expect(problem({ file: file({ store: { url } }) })).toMatch(/: store\.kind is required$/);
    expect(problem({ file: file({ store: 5 }) })).toMatch(/: store must be StoreKind or StoreSelection, got 5$/);
  });

  it('lists the allowed values of an enum without an A2A 0.3 hint', () => {
    const message = problem({ file: file({ logLevel: 'verbose', store: 'mem' }) });
    expect(message).toContain('logLevel must be one of "fatal", "error", "warn", "info", "debug", "trace", "silent", got "verbose"');
    expect(message).toContain('store must be one of "sqlite", "memory", "postgres", got "mem"');
    expect(message).not.toContain('0.3');
  });
});
