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
      file: file({ port: 4000, host: '0.0.0.0', strictVersion: true, rateLimit: false }),
      env: { A2A_HUB_PORT: '5000', A2A_HUB_TRUST_PROXY: 'true', UNRELATED: 'x' },
      flags: { port: 6000 },
    });
    expect(config).toMatchObject({ port: 6000, host: '0.0.0.0', strictVersion: true, trustProxy: true, rateLimit: false });
  });

  it('names the member that is wrong', () => {
    expect(() => resolveConfig({ file: file({ port: 'eighty' }) })).toThrow(ConfigError);
    expect(() => resolveConfig({ file: file({ port: 'eighty' }) })).toThrow(/port must be an integer/);
    expect(() => resolveConfig({ file: file({ prot: 80 }) })).toThrow(/prot is not a member of this object/);
    expect(() => resolveConfig({ env: { A2A_HUB_PORT: '70000' } })).toThrow(/environment.*port must be <= 65535/);
    expect(() => resolveConfig({ file: file('{ not json') })).toThrow(/cannot read config file/);
    expect(() => resolveConfig({ file: join(dir, 'missing.json') })).toThrow(/cannot read config file/);
  });
});
