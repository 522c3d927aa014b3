import type { LookupFunction } from 'node:net';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fetch } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findUrlPolicyError, pushDestinationPolicy, type UrlPolicy } from '../../src/net/destination-policy.js';
import { guardedAgent } from '../../src/net/guarded-agent.js';

/** Resolves every name to 127.0.0.1, counting the lookups: the only address these tests ever reach. */
function loopbackLookup(calls: string[]): LookupFunction {
  return (hostname, options, callback) => {
    calls.push(hostname);
    if (options.all === true) callback(null, [{ address: '127.0.0.1', family: 4 }]);
    else callback(null, '127.0.0.1', 4);
  };
}

describe('guardedAgent', () => {
  let server: Server;
  let port = 0;
  let received = 0;
  beforeAll(async () => {
    server = createServer((req, res) => {
      received += 1;
      req.resume();
      res.writeHead(204).end();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  async function post(policy: UrlPolicy, lookup: LookupFunction): Promise<number | Error> {
    try {
      const response = await fetch(`http://hook.test:${port}/`, { method: 'POST', body: '{}', dispatcher: guardedAgent(policy, lookup) });
      return response.status;
    } catch (error) {
      return findUrlPolicyError(error) ?? (error as Error);
    }
  }

  it('refuses to connect when the name resolves to an address the policy refuses, and the receiver gets nothing', async () => {
    const calls: string[] = [];
    const before = received;
    const outcome = await post(pushDestinationPolicy({ allowedSchemes: ['http'] }), loopbackLookup(calls));
    expect(outcome).toMatchObject({ name: 'UrlPolicyError', rule: 'allowLoopback', address: '127.0.0.1', target: 'hook.test' });
    expect((outcome as Error).message).toContain('set push.destinations.allowLoopback: true');
    expect(calls).toEqual(['hook.test']);
    expect(received - before).toBe(0);
  });

  it('connects to the address it checked when loopback or its range is allowed', async () => {
    const before = received;
    expect(await post(pushDestinationPolicy({ allowedSchemes: ['http'], allowLoopback: true }), loopbackLookup([]))).toBe(204);
    expect(await post(pushDestinationPolicy({ allowedSchemes: ['http'], allowedCidrs: ['127.0.0.0/8'] }), loopbackLookup([]))).toBe(204);
    expect(received - before).toBe(2);
    const outside = await post(pushDestinationPolicy({ allowedSchemes: ['http'], allowedCidrs: ['127.0.0.2'] }), loopbackLookup([]));
    expect(outside).toMatchObject({ rule: 'allowLoopback' });
    expect(received - before).toBe(2);
  });

  it('is shared by policies that allow the same addresses, and separate otherwise', () => {
    const lookup = loopbackLookup([]);
    expect(guardedAgent({ allowedSchemes: ['https'], allowLoopback: false }, lookup)).toBe(guardedAgent({ allowLoopback: false }, lookup));
    expect(guardedAgent({ allowLoopback: false }, lookup)).not.toBe(guardedAgent({ allowLoopback: true }, lookup));
    expect(guardedAgent({ allowedCidrs: ['10.0.0.0/8'] }, lookup)).not.toBe(guardedAgent({}, lookup));
    expect(guardedAgent({}, lookup)).not.toBe(guardedAgent({}));
  });
});
