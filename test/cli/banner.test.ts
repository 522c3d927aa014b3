import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bannerLines } from '../../src/cli/serve.js';
import { startTestHub, type TestHub } from '../helpers/hub.js';

/** The start-up banner of `a2a-hub serve` names every URL a client needs, as seed 002 §1.4 does. */

let hub: TestHub;
beforeAll(async () => {
  hub = await startTestHub();
});
afterAll(() => hub.dispose());

describe('the start-up banner', () => {
  it('prints a JSON-RPC, a REST and a card line per enabled instance, at the paths each instance configured', async () => {
    await hub.inbounds.create({
      id: 'data',
      name: 'DataAgent',
      description: 'd',
      version: '1',
      endpointPath: '/a2a',
      jsonRpcPath: '/a2a/jsonrpc',
      restPath: '/a2a/rest',
    });
    await hub.inbounds.create({ id: 'off', name: 'off', description: 'd', version: '1', enabled: false });
    const lines = bannerLines(hub);
    const at = (line: string): number => lines.indexOf(line);
    expect(lines).toContain(`JSON-RPC:     ${hub.url}/a2a/default   (default, preset echo)`);
    expect(at(`REST:         ${hub.url}/a2a/default`)).toBe(at(`JSON-RPC:     ${hub.url}/a2a/default   (default, preset echo)`) + 1);
    expect(lines).toContain(`JSON-RPC:     ${hub.url}/a2a/jsonrpc   (data, preset echo)`);
    expect(at(`REST:         ${hub.url}/a2a/rest`)).toBe(at(`JSON-RPC:     ${hub.url}/a2a/jsonrpc   (data, preset echo)`) + 1);
    expect(at(`  its card:   ${hub.url}/a2a/agent-card.json`)).toBe(at(`REST:         ${hub.url}/a2a/rest`) + 1);
    expect(lines.join('\n')).not.toContain('/a2a/off');
  });
});
