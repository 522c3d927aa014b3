import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { METHOD_NAMES as METHOD_NAMES_03 } from '../../generated/a2a/0.3/methods.js';
import { METHOD_NAMES } from '../../generated/a2a/1.0/methods.js';
import { GATEWAY_METHOD_BY_NAME } from '../../generated/hub/gateway-methods.js';
import { startTestHub, type TestHub } from '../helpers/hub.js';

/**
 * Metrics are keyed by what the registries name, never by what a client sends: a method name
 * made up per request (0.3 requests are counted before their method is checked) would add a
 * series per request, and the process's memory with it, for as long as it runs.
 */
describe('metric labels a client cannot grow', () => {
  let hub: TestHub;

  beforeAll(async () => {
    hub = await startTestHub();
  });

  afterAll(async () => {
    await hub.dispose();
  });

  it('counts requests with made-up method names (1.0, 0.3, no version) under one `unknown` label, however many and however long', async () => {
    const versions: Record<string, string>[] = [{ 'a2a-version': '1.0' }, { 'a2a-version': '0.3' }, {}];
    for (let index = 0; index < 60; index += 1) {
      const method = `made-up/${index}/${'x'.repeat(64 * 1024)}`;
      const response = await fetch(hub.endpoint, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...versions[index % versions.length] },
        body: JSON.stringify({ jsonrpc: '2.0', id: index, method, params: {} }),
      });
      expect(response.status).toBeLessThan(500);
      await response.arrayBuffer();
    }
    const metrics = (await (await fetch(`${hub.url}/a2a/api/metrics?format=json`)).json()) as {
      requests: Record<string, Record<string, number>>;
      latencySeconds: Record<string, unknown>;
    };
    const known = new Set(['-', 'unknown', ...METHOD_NAMES, ...METHOD_NAMES_03, ...GATEWAY_METHOD_BY_NAME.keys()]);
    expect(Object.keys(metrics.requests).filter((method) => !known.has(method))).toEqual([]);
    expect(Object.keys(metrics.latencySeconds).filter((method) => !known.has(method))).toEqual([]);
    const counted = Object.values(metrics.requests).flatMap((outcomes) => Object.values(outcomes));
    expect(counted.reduce((sum, count) => sum + count, 0)).toBe(60);
    const text = await (await fetch(`${hub.url}/a2a/api/metrics?format=prometheus`)).text();
    expect(text.length).toBeLessThan(16 * 1024);
    expect(text).not.toContain('made-up');
  });
});
