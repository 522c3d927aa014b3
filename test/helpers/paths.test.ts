import { existsSync } from 'node:fs';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { PROTO_1_0, sharedFileAvailable } from './paths.js';

describe('sharedFileAvailable', () => {
  const before = process.env['A2A_HUB_REQUIRE_SHARED'];
  afterEach(() => {
    if (before === undefined) delete process.env['A2A_HUB_REQUIRE_SHARED'];
    else process.env['A2A_HUB_REQUIRE_SHARED'] = before;
    vi.restoreAllMocks();
  });

  it('skips a test whose reference file is missing, outside CI', () => {
    delete process.env['A2A_HUB_REQUIRE_SHARED'];
    // The notice is the behaviour under test, on stdout (a documented skip is no stderr write): asserted here rather than printed into a green run.
    const write = vi.spyOn(process.stdout, 'write').mockImplementation(() => true);
    expect(sharedFileAvailable('/nonexistent/a2a.proto', 'a test')).toBe(false);
    expect(write).toHaveBeenCalledExactlyOnceWith(
      'skipped: a test (/nonexistent/a2a.proto is absent; ../shared is not beside this checkout)\n',
    );
  });

  it('fails instead where A2A_HUB_REQUIRE_SHARED=1, as in CI', () => {
    process.env['A2A_HUB_REQUIRE_SHARED'] = '1';
    expect(() => sharedFileAvailable('/nonexistent/a2a.proto', 'a test')).toThrow(/A2A_HUB_REQUIRE_SHARED=1 forbids skipping/);
  });

  it.skipIf(!existsSync(PROTO_1_0))('finds the proto where CI puts it, when ../shared is there', () => {
    process.env['A2A_HUB_REQUIRE_SHARED'] = '1';
    expect(sharedFileAvailable(PROTO_1_0, 'the proto')).toBe(true);
  });
});
