import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AgentCard } from '../../generated/a2a/1.0/types.js';
import { a2aError } from '../../src/protocol/a2a-error.js';
import { fillRoute, routeOf } from '../../src/protocol/rest-routes.js';
import type { TestHub } from '../helpers/hub.js';
import { fakeAgent, fakeCard, fakeRestAgent, fakeRestCard, replyRest, type FakeRestAgent, type RestHandler } from '../client/fake-agent.js';
import { fails, ok, outboundRow, startLocalHub } from './helpers.js';

/**
 * Outbound connections to REST-only remotes (an Awaken-style card whose one interface is
 * HTTP+JSON): the connect check asks that interface in its own binding, and its answers and
 * refusals read as they do over JSON-RPC.
 */

let hub: TestHub;
beforeAll(async () => {
  hub = await startLocalHub();
});
afterAll(() => hub.dispose());

async function withRemote(
  handler: RestHandler,
  body: (remote: FakeRestAgent) => Promise<void>,
  card?: (url: string) => AgentCard,
): Promise<void> {
  const remote = await fakeRestAgent(handler, card);
  try {
    await body(remote);
  } finally {
    await remote.close();
  }
}

const notFound: RestHandler = (_call, res) => replyRest(res, a2aError('TaskNotFoundError', 'no such task').toRestErrorResponse(), 404);

describe('outbound connections to a REST-only remote', () => {
  it('discover previews its HTTP+JSON interface', async () => {
    await withRemote(notFound, async (remote) => {
      const answer = await ok(hub.url, { action: 'outbound.discover', agentCardUrl: remote.url });
      expect(answer.preview).toMatchObject({ name: 'fake', endpoint: remote.interfaceUrl, protocolVersion: '1.0' });
    });
  });

  it('connects after a GetTask on its route, under the interface tenant, with the token', async () => {
    const tenanted = (url: string): AgentCard => ({
      ...fakeRestCard(url),
      supportedInterfaces: [{ url, protocolBinding: 'HTTP+JSON', protocolVersion: '1.0', tenant: 'acme' }],
    });
    process.env['A2A_HUB_TEST_REST_TOKEN'] = 'rest-secret';
    try {
      await withRemote(
        notFound,
        async (remote) => {
          const created = await ok(hub.url, {
            action: 'outbound.create',
            name: 'rest-only',
            agentCardUrl: remote.url,
            bearerTokenEnv: 'A2A_HUB_TEST_REST_TOKEN',
          });
          expect(await outboundRow(hub.url, created.id ?? '')).toMatchObject({ state: 'connected', toolCount: 1 });
          const [probe] = remote.calls;
          const id = decodeURIComponent(probe?.path.split('/').at(-1) ?? '');
          expect(id).toMatch(/^a2a-hub-connect-check-/);
          expect(probe?.verb).toBe(routeOf('GetTask', true).verb);
          expect(probe?.path).toBe(fillRoute(routeOf('GetTask', true), { tenant: 'acme', id }));
          expect(probe?.headers['authorization']).toBe('Bearer rest-secret');
          await ok(hub.url, { action: 'outbound.remove', id: created.id });
        },
        tenanted,
      );
    } finally {
      delete process.env['A2A_HUB_TEST_REST_TOKEN'];
    }
  });

  it("is refused with the remote's reason when the interface answers 401, and when it gives no HTTP+JSON answer", async () => {
    const status = 401;
    await withRemote(
      (_call, res) => replyRest(res, a2aError('UnauthenticatedError', 'this agent requires a token').toRestErrorResponse(), status),
      async (remote) => {
        const failure = await fails(hub.url, { action: 'outbound.create', name: 'locked', agentCardUrl: remote.url });
        expect(failure.message).toContain(
          `the endpoint ${remote.interfaceUrl} answered HTTP 401 (this agent requires a token): no bearer token is set; set one with outbound.setAuth`,
        );
      },
    );
    await withRemote(
      (_call, res) => {
        res.writeHead(404, { 'content-type': 'text/html' }).end('<html>not here</html>');
      },
      async (remote) => {
        const failure = await fails(hub.url, { action: 'outbound.create', name: 'html', agentCardUrl: remote.url });
        expect(failure.message).toContain(`the endpoint ${remote.interfaceUrl} answered HTTP 404 without an HTTP+JSON answer`);
      },
    );
  });
});

describe('the connect check asks the chosen interface as the client would', () => {
  it('keeps a query the HTTP+JSON interface URL carries (an API key) after the GetTask route', async () => {
    const keyed = (url: string): AgentCard => ({
      ...fakeRestCard(url),
      supportedInterfaces: [{ url: `${url}?key=k1`, protocolBinding: 'HTTP+JSON', protocolVersion: '1.0' }],
    });
    await withRemote(
      notFound,
      async (remote) => {
        const created = await ok(hub.url, { action: 'outbound.create', name: 'keyed', agentCardUrl: remote.url });
        expect(await outboundRow(hub.url, created.id ?? '')).toMatchObject({ state: 'connected' });
        const [probe] = remote.calls;
        const id = decodeURIComponent(probe?.path.split('/').at(-1) ?? '');
        expect(probe?.path).toBe(fillRoute(routeOf('GetTask', false), { id }));
        expect(Object.fromEntries(probe?.query ?? [])).toEqual({ key: 'k1' });
        await ok(hub.url, { action: 'outbound.remove', id: created.id });
      },
      keyed,
    );
  });

  it("sends the JSON-RPC interface's tenant in the GetTask probe", async () => {
    const remote = await fakeAgent(
      (call, res) => {
        const error = a2aError('TaskNotFoundError', 'no such task').toJsonRpcError();
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ jsonrpc: '2.0', id: call.id, error }));
      },
      (url) => ({ ...fakeCard(url), supportedInterfaces: [{ url, protocolBinding: 'JSONRPC', protocolVersion: '1.0', tenant: 'acme' }] }),
    );
    try {
      const created = await ok(hub.url, { action: 'outbound.create', name: 'tenanted-rpc', agentCardUrl: remote.url });
      expect(await outboundRow(hub.url, created.id ?? '')).toMatchObject({ state: 'connected' });
      expect(remote.calls[0]).toMatchObject({ method: 'GetTask', params: { tenant: 'acme' } });
      await ok(hub.url, { action: 'outbound.remove', id: created.id });
    } finally {
      await remote.close();
    }
  });
});
