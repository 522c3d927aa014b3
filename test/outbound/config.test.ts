import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ConfigError, resolveConfig } from '../../src/config.js';

/** The `outbound` member of the hub configuration file is checked like every other member. */

const dir = mkdtempSync(join(tmpdir(), 'a2a-hub-outbound-config-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function configFile(content: unknown): string {
  const file = join(dir, `config-${Math.random().toString(16).slice(2)}.json`);
  writeFileSync(file, JSON.stringify(content));
  return file;
}

describe('hub configuration: outbound', () => {
  it('takes a URL policy and reconnect delays', () => {
    const outbound = {
      urlPolicy: {
        allowedSchemes: ['https'],
        allowedHosts: ['*.agents.example'],
        allowPrivate: false,
        allowLinkLocal: false,
        allowLoopback: false,
      },
      reconnectMinMs: 500,
      reconnectMaxMs: 30000,
    };
    expect(resolveConfig({ file: configFile({ outbound }) }).outbound).toEqual(outbound);
  });

  it('is optional', () => {
    expect(resolveConfig({}).outbound).toBeUndefined();
  });

  it('names the member that is wrong', () => {
    expect(() => resolveConfig({ file: configFile({ outbound: { urlPolicy: { allowPrivate: 'yes' } } }) })).toThrow(ConfigError);
    expect(() => resolveConfig({ file: configFile({ outbound: { urlPolicy: { allowPrivate: 'yes' } } }) })).toThrow(
      /outbound\.urlPolicy\.allowPrivate/,
    );
    expect(() => resolveConfig({ file: configFile({ outbound: { retries: 3 } }) })).toThrow(/outbound/);
  });
});
