import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type Koa from 'koa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WELL_KNOWN_AGENT_CARD_PATH } from '../../generated/a2a/1.0/protocol.js';
import { CONTROL_API } from '../../generated/control/api.js';
import type { RestErrorResponse } from '../../generated/a2a/1.0/types.js';
import { notFoundHandler } from '../../src/control/landing.js';
import { A2A_1_0 } from '../../src/protocol/a2a-schema.js';
import { checkValue } from '../../src/protocol/validation.js';
import { askAs } from '../helpers/fake-peer.js';
import { startTestHub, type TestHub } from '../helpers/hub.js';
import { storeOnMissingPreset } from '../helpers/missing-preset.js';
import { expectRestError, send } from '../helpers/raw-http.js';

/** What a browser sends for a page it navigates to. */
const BROWSER_ACCEPT = 'text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,*/*;q=0.8';
const PANEL = CONTROL_API.panelPath;

let hub: TestHub;
let disabledId = '';

beforeAll(async () => {
  hub = await startTestHub();
  const disabled = await hub.inbounds.create({ name: 'dormant', description: 'kept disabled', version: '1', enabled: false });
  disabledId = disabled.id;
});
afterAll(() => hub.dispose());

describe('where nothing is served, for a loopback peer', () => {
  it('a browser asking for / is redirected to the panel', async () => {
    const response = await fetch(`${hub.url}/`, { headers: { accept: BROWSER_ACCEPT }, redirect: 'manual' });
    expect(response.status).toBe(302);
    expect(response.headers.get('location')).toBe(PANEL);
    await response.body?.cancel();
  });

  it('an API client asking for / gets a JSON 404 naming the agent endpoints, the panel and the control API', async () => {
    const body = expectRestError(await send(`${hub.url}/`), 'NotFoundError');
    expect(body.error.message).toContain('nothing is served at GET /');
    expect(body.error.message).toContain(
      `"a2a-hub echo": JSON-RPC at ${hub.url}/a2a/default, HTTP+JSON below ${hub.url}/a2a/default, card at ${hub.url}/a2a/default/agent-card.json`,
    );
    expect(body.error.message).toContain(`the control panel is at ${hub.url}${PANEL}`);
    expect(body.error.message).toContain(`the control API at ${hub.url}${CONTROL_API.basePath}`);
    // A disabled instance answers 404 itself, so it is not offered.
    expect(body.error.message).not.toContain(disabledId);
  });

  it('an instance this hub cannot run is not offered either: its endpoint answers AgentUnavailableError', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'a2a-hub-landing-'));
    try {
      const [shouter] = await storeOnMissingPreset(dataDir, ['shouter']);
      const restarted = await startTestHub({ dataDir });
      try {
        expect(restarted.inbounds.unavailableReason(shouter?.id ?? '')).toBeDefined();
        const { message } = expectRestError(await send(`${restarted.url}/`), 'NotFoundError').error;
        expect(message).toContain(`"a2a-hub echo": JSON-RPC at ${restarted.url}/a2a/default`);
        expect(message).not.toContain('shouter');
      } finally {
        await restarted.close();
      }
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  it('JSON wins whenever the client does not prefer HTML, and for every method but GET and HEAD', async () => {
    for (const accept of ['application/json', '*/*', 'text/plain', 'application/json, text/html;q=0.5']) {
      expectRestError(await send(`${hub.url}/`, { headers: { accept } }), 'NotFoundError');
    }
    expectRestError(await send(`${hub.url}/`, { method: 'POST', headers: { accept: BROWSER_ACCEPT } }), 'NotFoundError');
    expectRestError(await send(`${hub.url}/nothing/here`, { method: 'DELETE', headers: { accept: BROWSER_ACCEPT } }), 'NotFoundError');
  });

  it('names each binding of an instance at the paths it configured', async () => {
    const placed = await hub.inbounds.create({
      name: 'placed',
      description: 'd',
      version: '1',
      endpointPath: '/landing/placed',
      jsonRpcPath: '/landing/placed/jsonrpc',
      restPath: '/v1/placed',
    });
    try {
      const { message } = expectRestError(await send(`${hub.url}/`), 'NotFoundError').error;
      expect(message).toContain(
        `"placed": JSON-RPC at ${hub.url}/landing/placed/jsonrpc, HTTP+JSON below ${hub.url}/v1/placed, card at ${hub.url}/landing/placed/agent-card.json`,
      );
    } finally {
      await hub.inbounds.remove(placed.id);
    }
  });

  it('a browser asking for any other unknown path gets the JSON 404 too, never an HTML page', async () => {
    const response = await send(`${hub.url}/nothing/here`, { headers: { accept: BROWSER_ACCEPT } });
    const body = expectRestError(response, 'NotFoundError');
    expect(body.error.message).toContain('nothing is served at GET /nothing/here');
    expect(body.error.message).toContain(`the control panel is at ${hub.url}${PANEL}`);
  });
});

describe('where nothing is served, for a peer that is not loopback', () => {
  for (const address of ['10.1.2.3', '2001:db8::5', '::ffff:192.168.0.9']) {
    it(`${address} gets a JSON 404 naming the public agent card only, even from a browser`, async () => {
      const handler = notFoundHandler({ inbounds: hub.inbounds, trustProxy: false }) as Koa.Middleware;
      for (const [path, accept] of [
        ['/', BROWSER_ACCEPT],
        ['/', '*/*'],
        ['/nothing/here', BROWSER_ACCEPT],
      ] as const) {
        const answer = await askAs(address, handler, { path, headers: { accept, 'x-forwarded-for': '127.0.0.1' } });
        expect(answer.status).toBe(404);
        expect(answer.headers['content-type']).toMatch(/^application\/json/);
        const verdict = checkValue(A2A_1_0, 'RestErrorResponse', answer.body, { flavour: 'exact' });
        expect(verdict.ok ? [] : verdict.violations).toEqual([]);
        const { message } = (answer.body as RestErrorResponse).error;
        expect(message).toBe(`nothing is served at GET ${path}; this hub's agent card is at http://hub.test${WELL_KNOWN_AGENT_CARD_PATH}`);
      }
    });
  }
});
