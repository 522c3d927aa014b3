import { createHash } from 'node:crypto';
import { maxHeaderSize } from 'node:http';
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AgentCard } from '../../generated/a2a/1.0/types.js';
import { bearerMatches } from '../../src/http/bearer.js';
import { tokenDigest } from '../../src/support/token-digest.js';
import { RateLimiter } from '../../src/http/rate-limit.js';
import { A2A_1_0 } from '../../src/protocol/a2a-schema.js';
import { checkValue } from '../../src/protocol/validation.js';
import { call, rpc, stream, userMessage } from '../helpers/a2a-client.js';
import { startTestHub, type TestHub } from '../helpers/hub.js';
import {
  as10,
  expectJsonRpcError,
  expectRestError,
  nodeRequest as rawNodeRequest,
  post,
  send as rawSend,
  type RawInit,
  type RawResponse,
} from '../helpers/raw-http.js';

/**
 * Agent cards (URLs, caching, Host and proxy handling), bearer authentication, rate limiting
 * and disabled instances, over real HTTP (docs/spec-policy.md 4.6, 4.7, 5.13, 5.17, 8.4, 8.5).
 */

// Requests name 1.0 as a 1.0 client does: the card of a request without A2A-Version is the 0.3 form (dual-stack-card.test.ts).
const send = (url: string, init: RawInit = {}) => rawSend(url, as10(url, init));
const nodeRequest = (url: string, options: Parameters<typeof rawNodeRequest>[1] = {}) => rawNodeRequest(url, as10(url, options));

const LIST_TASKS = '{"jsonrpc":"2.0","id":"q","method":"ListTasks"}';
const JSON_HEADERS = { 'content-type': 'application/json', 'a2a-version': '1.0' };

/** Parses and validates a card response (exact flavour). */
function cardOf(response: RawResponse): AgentCard {
  expect(response.status).toBe(200);
  expect(response.headers.get('content-type')).toMatch(/^application\/json/);
  const card = JSON.parse(response.text) as AgentCard;
  const verdict = checkValue(A2A_1_0, 'AgentCard', card, { flavour: 'exact' });
  expect(verdict.ok ? [] : verdict.violations, 'AgentCard').toEqual([]);
  return card;
}

/** The one URL every interface of the card is at (both bindings sit at the instance's paths), or a list when they disagree. */
function interfaceUrl(response: RawResponse): string | string[] | undefined {
  const interfaces = cardOf(response).supportedInterfaces;
  expect(interfaces.map((entry) => `${entry.protocolBinding} ${entry.protocolVersion}`)).toEqual([
    'JSONRPC 1.0',
    'HTTP+JSON 1.0',
    'JSONRPC 0.3',
    'HTTP+JSON 0.3',
  ]);
  const urls = [...new Set(interfaces.map((entry) => entry.url))];
  return urls.length === 1 ? urls[0] : urls;
}

describe('agent cards', () => {
  let hub: TestHub;
  let proxied: TestHub;
  let published: TestHub;

  beforeAll(async () => {
    [hub, proxied, published] = await Promise.all([
      startTestHub(),
      startTestHub({ trustProxy: true }),
      startTestHub({ publicUrl: 'https://public.example.test/' }),
    ]);
  });

  afterAll(async () => {
    await Promise.all([hub?.dispose(), proxied?.dispose(), published?.dispose()]);
  });

  it.each(['/.well-known/agent-card.json', '/a2a/default/agent-card.json'])(
    'GET %s is a valid 1.0 AgentCard for the default instance',
    async (path) => {
      const response = await send(`${hub.url}${path}`);
      const card = cardOf(response);
      expect(card.supportedInterfaces).toEqual([
        { url: `${hub.url}/a2a/default`, protocolBinding: 'JSONRPC', protocolVersion: '1.0' },
        { url: `${hub.url}/a2a/default`, protocolBinding: 'HTTP+JSON', protocolVersion: '1.0' },
        { url: `${hub.url}/a2a/default`, protocolBinding: 'JSONRPC', protocolVersion: '0.3' },
        { url: `${hub.url}/a2a/default`, protocolBinding: 'HTTP+JSON', protocolVersion: '0.3' },
      ]);
      expect(card.capabilities).toMatchObject({ streaming: true, pushNotifications: true, extendedAgentCard: true });
      expect(card.securitySchemes).toBeUndefined();
      expect(card.securityRequirements).toBeUndefined();
      expect(response.headers.get('etag')).toMatch(/^"[^"]+"$/);
      expect(response.headers.get('cache-control')).toBe('public, max-age=300');
    },
  );

  it('both card URLs serve the same bytes and the same ETag', async () => {
    const [wellKnown, instance] = await Promise.all([
      send(`${hub.url}/.well-known/agent-card.json`),
      send(`${hub.endpoint}/agent-card.json`),
    ]);
    expect(wellKnown.text).toBe(instance.text);
    expect(wellKnown.headers.get('etag')).toBe(instance.headers.get('etag'));
  });

  it('GetExtendedAgentCard returns the same card', async () => {
    const card = await call(hub.endpoint, 'GetExtendedAgentCard', {});
    expect(card).toEqual(cardOf(await send(`${hub.endpoint}/agent-card.json`)));
  });

  it('If-None-Match with the ETag → 304 with no body; another tag → 200', async () => {
    const url = `${hub.endpoint}/agent-card.json`;
    const etag = (await send(url)).headers.get('etag') ?? '';
    const notModified = await send(url, { headers: { 'if-none-match': etag } });
    expect(notModified.status).toBe(304);
    expect(notModified.text).toBe('');
    expect(notModified.headers.get('etag')).toBe(etag);
    expect((await send(url, { headers: { 'if-none-match': `W/"other", ${etag}` } })).status).toBe(304);
    const changed = await send(url, { headers: { 'if-none-match': '"not-the-etag"' } });
    expect(changed.status).toBe(200);
    cardOf(changed);
  });

  it('a changed instance gets a new card and a new ETag at once (the rendered card is cached per agent)', async () => {
    const created = await hub.inbounds.create({ name: 'Before', description: 'renamed next', version: '1.0.0' });
    try {
      const url = `${hub.url}${created.endpointPath}/agent-card.json`;
      const before = await send(url);
      expect(cardOf(before).name).toBe('Before');
      expect((await send(url)).headers.get('etag')).toBe(before.headers.get('etag'));
      await hub.inbounds.update(created.id, { name: 'After' });
      const after = await send(url, { headers: { 'if-none-match': before.headers.get('etag') ?? '' } });
      expect(after.status).toBe(200);
      expect(cardOf(after).name).toBe('After');
      expect(after.headers.get('etag')).not.toBe(before.headers.get('etag'));
    } finally {
      await hub.inbounds.remove(created.id);
    }
  });

  it('the interface URL follows the Host header and ignores X-Forwarded-* by default', async () => {
    const plain = await nodeRequest(`${hub.url}/a2a/default/agent-card.json`, { headers: { Host: 'agents.example.test:8443' } });
    expect(interfaceUrl(plain)).toBe('http://agents.example.test:8443/a2a/default');
    const forwarded = await nodeRequest(`${hub.url}/.well-known/agent-card.json`, {
      headers: { Host: 'agents.example.test:8443', 'X-Forwarded-Proto': 'https', 'X-Forwarded-Host': 'proxy.example.test' },
    });
    expect(interfaceUrl(forwarded)).toBe('http://agents.example.test:8443/a2a/default');
    // The ETag is of the bytes served, so it differs per host.
    expect(plain.headers.get('etag')).not.toBe((await send(`${hub.url}/a2a/default/agent-card.json`)).headers.get('etag'));
  });

  it('GetExtendedAgentCard follows the Host header too', async () => {
    const response = await nodeRequest(hub.endpoint, {
      method: 'POST',
      headers: { Host: 'agents.example.test:8443', 'Content-Type': 'application/json', 'A2A-Version': '1.0' },
      body: '{"jsonrpc":"2.0","id":1,"method":"GetExtendedAgentCard"}',
    });
    const body = JSON.parse(response.text) as { result: AgentCard };
    expect(body.result.supportedInterfaces[0]?.url).toBe('http://agents.example.test:8443/a2a/default');
  });

  it('with trustProxy, X-Forwarded-Proto and X-Forwarded-Host decide the URL', async () => {
    const response = await nodeRequest(`${proxied.url}/a2a/default/agent-card.json`, {
      headers: { Host: 'agents.example.test:8443', 'X-Forwarded-Proto': 'https', 'X-Forwarded-Host': 'proxy.example.test' },
    });
    expect(interfaceUrl(response)).toBe('https://proxy.example.test/a2a/default');
    const direct = await nodeRequest(`${proxied.url}/a2a/default/agent-card.json`, { headers: { Host: 'agents.example.test:8443' } });
    expect(interfaceUrl(direct)).toBe('http://agents.example.test:8443/a2a/default');
  });

  it('answers a card alike on the fast path before Koa (plain GET, HEAD) and through Koa (a trailing slash, a query)', async () => {
    const headersOf = (response: RawResponse) =>
      ['etag', 'cache-control', 'vary', 'content-type', 'content-length'].map((name) => [name, response.headers.get(name)]);
    for (const server of [hub, proxied, published]) {
      for (const path of ['/.well-known/agent-card.json', '/a2a/default/agent-card.json']) {
        const etag = (await nodeRequest(`${server.url}${path}`)).headers.get('etag') ?? '';
        for (const headers of <Record<string, string>[]>[
          { Host: 'agents.example.test:8443', 'X-Forwarded-Proto': 'https', 'X-Forwarded-Host': 'proxy.example.test' },
          { 'A2A-Version': '0.3' },
          { 'If-None-Match': etag },
        ]) {
          for (const method of ['GET', 'HEAD']) {
            // nodeRequest adds A2A-Version 1.0 unless the request names a version.
            const fast = await rawNodeRequest(`${server.url}${path}`, as10(path, { method, headers }));
            for (const throughKoa of [`${server.url}${path}/`, `${server.url}${path}?via=koa`]) {
              const koa = await rawNodeRequest(throughKoa, as10(path, { method, headers }));
              expect({ status: koa.status, text: koa.text, headers: headersOf(koa) }).toEqual({
                status: fast.status,
                text: fast.text,
                headers: headersOf(fast),
              });
            }
          }
        }
      }
    }
  });

  it('a card forwarded headers shaped is private to its client and varies on them; any other card is public', async () => {
    const forwarded = { Host: 'agents.example.test:8443', 'X-Forwarded-Host': 'proxy.example.test' };
    for (const path of ['/.well-known/agent-card.json', '/a2a/default/agent-card.json', '/a2a/default/agent-card.json?via=koa']) {
      const shaped = await nodeRequest(`${proxied.url}${path}`, { headers: forwarded });
      expect(shaped.headers.get('cache-control')).toBe('private, max-age=300');
      expect(shaped.headers.get('vary')).toMatch(/X-Forwarded-Host, X-Forwarded-Proto/);
      const direct = await nodeRequest(`${proxied.url}${path}`, { headers: { Host: 'agents.example.test:8443' } });
      expect(direct.headers.get('cache-control')).toBe('public, max-age=300');
      // Without trustProxy the headers shape nothing: the card is the one everybody gets.
      const ignored = await nodeRequest(`${hub.url}${path}`, { headers: forwarded });
      expect(ignored.headers.get('cache-control')).toBe('public, max-age=300');
      const fixed = await nodeRequest(`${published.url}${path}`, { headers: forwarded });
      expect(fixed.headers.get('cache-control')).toBe('public, max-age=300');
    }
  });

  it('publicUrl overrides Host and X-Forwarded-*', async () => {
    for (const path of ['/.well-known/agent-card.json', '/a2a/default/agent-card.json']) {
      const response = await nodeRequest(`${published.url}${path}`, {
        headers: { Host: 'agents.example.test:8443', 'X-Forwarded-Proto': 'http', 'X-Forwarded-Host': 'proxy.example.test' },
      });
      expect(interfaceUrl(response)).toBe('https://public.example.test/a2a/default');
    }
  });
});

describe('the well-known card is chosen by configuration (wellKnownInstance)', () => {
  const hubs: TestHub[] = [];
  afterAll(() => Promise.all(hubs.map((hub) => hub.dispose())));
  const start = async (options: Parameters<typeof startTestHub>[0]): Promise<TestHub> => {
    const hub = await startTestHub(options);
    hubs.push(hub);
    return hub;
  };
  const wellKnownOf = (hub: TestHub): Promise<RawResponse> => send(`${hub.url}/.well-known/agent-card.json`);

  it('serves the named instance, not the default one, and 404 once it is disabled or removed, with no stand-in', async () => {
    const hub = await start({ wellKnownInstance: 'front' });
    await hub.inbounds.create({ id: 'front', name: 'Front desk', description: 'the one the origin shows', version: '1.0.0' });
    expect(cardOf(await wellKnownOf(hub)).name).toBe('Front desk');

    await hub.inbounds.setEnabled('front', false);
    const disabled = expectRestError(await wellKnownOf(hub), 'NotFoundError');
    expect(disabled.error.message).toMatch(/publishes no agent card at \/\.well-known\/agent-card\.json/);
    await hub.inbounds.setEnabled('front', true);
    expect(cardOf(await wellKnownOf(hub)).name).toBe('Front desk');

    await hub.inbounds.remove('front');
    expectRestError(await wellKnownOf(hub), 'NotFoundError');
    expect(cardOf(await send(`${hub.endpoint}/agent-card.json`)).name).toBe('a2a-hub echo');
  });

  it('by default serves the default instance, and nothing once that is disabled', async () => {
    const hub = await start({});
    await hub.inbounds.create({ name: 'Other', description: 'enabled, but not chosen', version: '1.0.0' });
    expect(cardOf(await wellKnownOf(hub)).name).toBe('a2a-hub echo');
    await hub.inbounds.setEnabled('default', false);
    expectRestError(await wellKnownOf(hub), 'NotFoundError');
  });

  it('false publishes no well-known card at all', async () => {
    const hub = await start({ wellKnownInstance: false });
    expectRestError(await wellKnownOf(hub), 'NotFoundError');
    cardOf(await send(`${hub.endpoint}/agent-card.json`));
  });
});

describe('bearer authentication', () => {
  const TOKEN = 's3cr3t-token';
  let hub: TestHub;

  beforeAll(async () => {
    hub = await startTestHub();
    await hub.inbounds.setAuth('default', TOKEN);
  });

  afterAll(async () => {
    await hub?.dispose();
  });

  function expectUnauthenticated(response: RawResponse): void {
    expectJsonRpcError(response, 'UnauthenticatedError', { httpStatus: 401, id: null });
    expect(response.headers.get('www-authenticate')).toMatch(/^Bearer/);
    expect(response.headers.get('a2a-version')).toBe('1.0');
    expect(response.text).not.toContain(TOKEN);
  }

  it('a request without Authorization → 401 with WWW-Authenticate: Bearer and a JSON-RPC error body', async () => {
    expectUnauthenticated(await post(hub.endpoint, LIST_TASKS, JSON_HEADERS));
  });

  it.each([
    ['a wrong token', 'Bearer wrong-token'],
    ['a prefix of the token', 'Bearer s3cr3t'],
    ['the token with a suffix', `Bearer ${TOKEN}x`],
    ['another scheme', `Basic ${Buffer.from(`user:${TOKEN}`).toString('base64')}`],
    ['the bare token', TOKEN],
    ['an empty bearer', 'Bearer '],
  ])('%s → 401', async (_name, authorization) => {
    expectUnauthenticated(await post(hub.endpoint, LIST_TASKS, { ...JSON_HEADERS, authorization }));
  });

  it('Authorization: Bearer <token> → 200', async () => {
    const response = await rpc(hub.endpoint, 'ListTasks', {}, { headers: { authorization: `Bearer ${TOKEN}` } });
    expect(response.status).toBe(200);
    expect(response.body.error).toBeUndefined();
  });

  it('authentication comes before the body is looked at: a malformed body without a token is 401, not JSONParseError', async () => {
    expectUnauthenticated(await post(hub.endpoint, '{not json', JSON_HEADERS));
  });

  it('SendStreamingMessage without a token → 401 as application/json, decided before any SSE header', async () => {
    const body = JSON.stringify({ jsonrpc: '2.0', id: 's', method: 'SendStreamingMessage', params: { message: userMessage('no token') } });
    const response = await post(hub.endpoint, body, { ...JSON_HEADERS, accept: 'text/event-stream' });
    expect(response.headers.get('content-type')).not.toMatch(/event-stream/);
    expectUnauthenticated(response);
  });

  it('SendStreamingMessage with the token streams', async () => {
    const result = await stream(
      hub.endpoint,
      'SendStreamingMessage',
      { message: userMessage('with token') },
      { headers: { authorization: `Bearer ${TOKEN}` } },
    );
    expect(result.headers.get('content-type')).toMatch(/^text\/event-stream/);
    expect(result.events.length).toBeGreaterThan(0);
  });

  it('the card stays public and declares the bearer scheme, without the token', async () => {
    for (const path of ['/.well-known/agent-card.json', '/a2a/default/agent-card.json']) {
      const response = await send(`${hub.url}${path}`);
      const card = cardOf(response);
      expect(card.securitySchemes?.['bearer']?.httpAuthSecurityScheme?.scheme).toBe('Bearer');
      expect(card.securityRequirements?.some((requirement) => requirement.schemes?.['bearer'] !== undefined)).toBe(true);
      expect(response.text).not.toContain(TOKEN);
      expect(response.text).not.toContain(tokenDigest(TOKEN));
    }
    const extended = await rpc(hub.endpoint, 'GetExtendedAgentCard', undefined, { headers: { authorization: `Bearer ${TOKEN}` } });
    expect(JSON.stringify(extended.body)).not.toContain(TOKEN);
    expect(extended.body.result?.securitySchemes?.['bearer']?.httpAuthSecurityScheme?.scheme).toBe('Bearer');
  });

  it('GetExtendedAgentCard needs the token like every other method', async () => {
    expectUnauthenticated(await post(hub.endpoint, '{"jsonrpc":"2.0","id":1,"method":"GetExtendedAgentCard"}', JSON_HEADERS));
  });

  it('no error body carries the token, even when the request did', async () => {
    const responses = await Promise.all([
      post(hub.endpoint, '{', { ...JSON_HEADERS, authorization: `Bearer ${TOKEN}` }),
      post(hub.endpoint, LIST_TASKS, { 'content-type': 'text/plain', authorization: `Bearer ${TOKEN}` }),
      post(hub.endpoint, `{"jsonrpc":"2.0","id":1,"method":"GetTask","params":{"id":"${TOKEN}x"}}`, {
        ...JSON_HEADERS,
        authorization: `Bearer ${TOKEN}x`,
      }),
      post(hub.endpoint, LIST_TASKS, { ...JSON_HEADERS, authorization: `Bearer ${TOKEN}-wrong` }),
    ]);
    expect(responses.map((response) => response.status)).toEqual([200, 415, 401, 401]);
    for (const response of responses) {
      expect((JSON.parse(response.text) as { error?: unknown }).error).toBeDefined();
      expect(response.text).not.toContain(TOKEN);
    }
  });

  it('clearing the token reopens the endpoint and removes the scheme from the card', async () => {
    try {
      await hub.inbounds.setAuth('default', undefined);
      const response = await post(hub.endpoint, LIST_TASKS, JSON_HEADERS);
      expect(response.status).toBe(200);
      expect((JSON.parse(response.text) as { error?: unknown }).error).toBeUndefined();
      const card = cardOf(await send(`${hub.endpoint}/agent-card.json`));
      expect(card.securitySchemes).toBeUndefined();
      expect(card.securityRequirements).toBeUndefined();
    } finally {
      await hub.inbounds.setAuth('default', TOKEN);
    }
    expectUnauthenticated(await post(hub.endpoint, LIST_TASKS, JSON_HEADERS));
  });
});

describe('bearer tokens from the environment (authTokenEnv)', () => {
  let hub: TestHub;

  beforeAll(async () => {
    hub = await startTestHub({ env: { MY_TOKEN: 'from-env', EMPTY_TOKEN: '' } });
  });

  afterAll(async () => {
    await hub?.dispose();
  });

  it('the token in the named variable is required and accepted', async () => {
    await hub.inbounds.update('default', { authTokenEnv: 'MY_TOKEN' });
    const refused = await post(hub.endpoint, LIST_TASKS, JSON_HEADERS);
    expectJsonRpcError(refused, 'UnauthenticatedError', { httpStatus: 401, id: null });
    expect(refused.headers.get('www-authenticate')).toMatch(/^Bearer/);
    expectJsonRpcError(
      await post(hub.endpoint, LIST_TASKS, { ...JSON_HEADERS, authorization: 'Bearer MY_TOKEN' }),
      'UnauthenticatedError',
      { httpStatus: 401, id: null },
    );
    const accepted = await rpc(hub.endpoint, 'ListTasks', {}, { headers: { authorization: 'Bearer from-env' } });
    expect(accepted.status).toBe(200);
    expect(accepted.body.error).toBeUndefined();
    const card = await send(`${hub.endpoint}/agent-card.json`);
    expect(cardOf(card).securitySchemes?.['bearer']?.httpAuthSecurityScheme?.scheme).toBe('Bearer');
    expect(card.text).not.toContain('from-env');
  });

  it.each(['UNSET_TOKEN_VARIABLE', 'EMPTY_TOKEN'])('a variable that is %s fails closed: every request is 401', async (variable) => {
    await hub.inbounds.update('default', { authTokenEnv: variable });
    for (const authorization of [undefined, 'Bearer from-env', 'Bearer ', 'Bearer undefined', `Bearer ${'0'.repeat(64)}`]) {
      const response = await post(hub.endpoint, LIST_TASKS, { ...JSON_HEADERS, ...(authorization === undefined ? {} : { authorization }) });
      expectJsonRpcError(response, 'UnauthenticatedError', { httpStatus: 401, id: null });
    }
    // The card still tells clients a token is required.
    expect(cardOf(await send(`${hub.endpoint}/agent-card.json`)).securityRequirements?.length).toBeGreaterThan(0);
  });
});

describe('bearerMatches and tokenDigest', () => {
  const TOKEN = 's3cr3t-token';
  const digest = tokenDigest(TOKEN);

  it('tokenDigest is the hex SHA-256 of the token, and never contains it', () => {
    expect(digest).toBe(createHash('sha256').update(TOKEN, 'utf8').digest('hex'));
    expect(digest).toMatch(/^[0-9a-f]{64}$/);
    expect(digest).not.toContain(TOKEN);
    expect(tokenDigest(TOKEN)).toBe(digest);
    expect(tokenDigest('other')).not.toBe(digest);
    expect(tokenDigest('')).toMatch(/^[0-9a-f]{64}$/);
  });

  it.each<[string, string | undefined, boolean]>([
    ['the right token', `Bearer ${TOKEN}`, true],
    ['a lowercase scheme', `bearer ${TOKEN}`, true],
    ['an uppercase scheme', `BEARER ${TOKEN}`, true],
    ['several spaces after the scheme', `Bearer   ${TOKEN}`, true],
    ['trailing spaces', `Bearer ${TOKEN}  `, true],
    ['a wrong token of the same length', `Bearer ${'x'.repeat(TOKEN.length)}`, false],
    ['a shorter token (a prefix)', 'Bearer s3cr3t', false],
    ['a longer token (with a suffix)', `Bearer ${TOKEN}-and-more`, false],
    ['a very long token', `Bearer ${'a'.repeat(10_000)}`, false],
    ['a missing header', undefined, false],
    ['an empty header', '', false],
    ['the scheme alone', 'Bearer', false],
    ['the scheme and a space', 'Bearer ', false],
    ['the bare token', TOKEN, false],
    ['no space after the scheme', `Bearer${TOKEN}`, false],
    ['another scheme', `Basic ${TOKEN}`, false],
    ['two tokens', `Bearer ${TOKEN} ${TOKEN}`, false],
    ['the digest instead of the token', `Bearer ${digest}`, false],
  ])('%s → %s', (_name, authorization, expected) => {
    expect(bearerMatches(authorization, digest)).toBe(expected);
  });

  it('a malformed expected digest matches nothing and does not throw', () => {
    expect(bearerMatches(`Bearer ${TOKEN}`, 'not-hex')).toBe(false);
    expect(bearerMatches(`Bearer ${TOKEN}`, '')).toBe(false);
    expect(bearerMatches('Bearer x', '0'.repeat(64))).toBe(false);
  });
});

describe('rate limiting', () => {
  let hub: TestHub;

  beforeAll(async () => {
    hub = await startTestHub({ rateLimit: { perSecond: 1, burst: 3 } });
  });

  afterAll(async () => {
    await hub?.dispose();
  });

  it('the 4th quick request → 429 with Retry-After and RATE_LIMITED', async () => {
    for (let index = 0; index < 3; index += 1) {
      const response = await post(hub.endpoint, LIST_TASKS, JSON_HEADERS);
      expect(response.status, `request ${index + 1}`).toBe(200);
    }
    const limited = await post(hub.endpoint, LIST_TASKS, JSON_HEADERS);
    expectJsonRpcError(limited, 'RateLimitedError', { httpStatus: 429, id: null });
    const retryAfter = limited.headers.get('retry-after') ?? '';
    expect(retryAfter).toMatch(/^\d+$/);
    expect(Number(retryAfter)).toBeGreaterThanOrEqual(1);
    expect(limited.headers.get('a2a-version')).toBe('1.0');
    expect(hub.rateLimiter?.rejections).toBeGreaterThanOrEqual(1);
  });

  it('behind a trusted proxy, each client has its own bucket, and what a client writes into X-Forwarded-For does not make it another', async () => {
    const proxied = await startTestHub({ trustProxy: true, rateLimit: { perSecond: 0.001, burst: 2 } });
    const direct = await startTestHub({ rateLimit: { perSecond: 0.001, burst: 2 } });
    try {
      const from = (url: string, forwardedFor: string) => post(url, LIST_TASKS, { ...JSON_HEADERS, 'X-Forwarded-For': forwardedFor });
      expect((await from(proxied.endpoint, '198.51.100.7')).status).toBe(200);
      // The client's own entry, left of what the proxy appended, is not who it is.
      expect((await from(proxied.endpoint, '203.0.113.1, 198.51.100.7')).status).toBe(200);
      expectJsonRpcError(await from(proxied.endpoint, '203.0.113.2, 198.51.100.7'), 'RateLimitedError', { httpStatus: 429, id: null });
      // Another client behind the same proxy (the same socket address) has a bucket of its own.
      expect((await from(proxied.endpoint, '198.51.100.8')).status).toBe(200);
      // Without trustProxy the header is anybody's to write: every request is the socket's.
      expect((await from(direct.endpoint, '198.51.100.7')).status).toBe(200);
      expect((await from(direct.endpoint, '198.51.100.8')).status).toBe(200);
      expectJsonRpcError(await from(direct.endpoint, '198.51.100.9'), 'RateLimitedError', { httpStatus: 429, id: null });
    } finally {
      await Promise.all([proxied.dispose(), direct.dispose()]);
    }
  });

  it('with proxyHops 2, the client is the address the outer of two proxies saw', async () => {
    const proxied = await startTestHub({ trustProxy: true, proxyHops: 2, rateLimit: { perSecond: 0.001, burst: 1 } });
    try {
      const from = (forwardedFor: string) => post(proxied.endpoint, LIST_TASKS, { ...JSON_HEADERS, 'X-Forwarded-For': forwardedFor });
      expect((await from('198.51.100.7, 10.0.0.2')).status).toBe(200);
      expectJsonRpcError(await from('192.0.2.1, 198.51.100.7, 10.0.0.3'), 'RateLimitedError', { httpStatus: 429, id: null });
      expect((await from('198.51.100.8, 10.0.0.2')).status).toBe(200);
    } finally {
      await proxied.dispose();
    }
  });

  it('the card is not rate limited', async () => {
    // A hub of its own whose one-request bucket hardly refills, drained here: the test holds
    // whichever tests run before it, or none.
    const drained = await startTestHub({ rateLimit: { perSecond: 0.001, burst: 1 } });
    try {
      expect((await post(drained.endpoint, LIST_TASKS, JSON_HEADERS)).status, 'the one request the bucket allows').toBe(200);
      expectJsonRpcError(await post(drained.endpoint, LIST_TASKS, JSON_HEADERS), 'RateLimitedError', { httpStatus: 429, id: null });
      const rejections = drained.rateLimiter?.rejections;
      expect(rejections).toBe(1);
      for (let round = 0; round < 3; round += 1) {
        cardOf(await send(`${drained.endpoint}/agent-card.json`));
        cardOf(await send(`${drained.url}/.well-known/agent-card.json`));
      }
      expect(drained.rateLimiter?.rejections, 'no card request was counted as rejected').toBe(rejections);
      // The bucket is still empty: the cards were served while JSON-RPC was refused.
      expectJsonRpcError(await post(drained.endpoint, LIST_TASKS, JSON_HEADERS), 'RateLimitedError', { httpStatus: 429, id: null });
    } finally {
      await drained.dispose();
    }
  });
});

describe('RateLimiter', () => {
  function limiter(options: { perSecond: number; burst: number }): { limiter: RateLimiter; advance: (ms: number) => void } {
    let now = 1_000_000;
    return { limiter: new RateLimiter(options, () => now), advance: (ms) => (now += ms) };
  }

  it('allows a burst, then asks to wait; refills with time', () => {
    const { limiter: rate, advance } = limiter({ perSecond: 1, burst: 3 });
    expect([rate.take('a'), rate.take('a'), rate.take('a')]).toEqual([0, 0, 0]);
    expect(rate.take('a')).toBe(1);
    expect(rate.rejections).toBe(1);
    advance(500);
    expect(rate.take('a')).toBe(1);
    advance(500);
    expect(rate.take('a')).toBe(0);
    expect(rate.take('a')).toBe(1);
    expect(rate.rejections).toBe(3);
  });

  it('Retry-After follows the sustained rate', () => {
    const { limiter: slow } = limiter({ perSecond: 0.25, burst: 1 });
    expect(slow.take('a')).toBe(0);
    expect(slow.take('a')).toBe(4);
    const { limiter: fast } = limiter({ perSecond: 10, burst: 2 });
    expect([fast.take('a'), fast.take('a')]).toEqual([0, 0]);
    expect(fast.take('a')).toBe(1);
  });

  it('refills no further than the burst', () => {
    const { limiter: rate, advance } = limiter({ perSecond: 1, burst: 3 });
    rate.take('a');
    advance(3_600_000);
    expect([rate.take('a'), rate.take('a'), rate.take('a')]).toEqual([0, 0, 0]);
    expect(rate.take('a')).toBeGreaterThan(0);
  });

  it('keeps one bucket per source', () => {
    const { limiter: rate } = limiter({ perSecond: 1, burst: 1 });
    expect(rate.take('10.0.0.1')).toBe(0);
    expect(rate.take('10.0.0.1')).toBe(1);
    expect(rate.take('10.0.0.2')).toBe(0);
  });

  it('never holds more buckets than its cap, however many sources are busy at once', () => {
    const { limiter: rate } = limiter({ perSecond: 1, burst: 1 });
    for (let index = 0; index < 100_050; index += 1) rate.take(`source-${index}`);
    expect(rate.size).toBeLessThanOrEqual(100_000);
    // The newest sources are kept: a busy one is not forgotten for a flood of others that came before it.
    expect(rate.take('source-100049')).toBe(1);
  });

  it('rejected requests do not use up tokens', () => {
    const { limiter: rate, advance } = limiter({ perSecond: 1, burst: 1 });
    rate.take('a');
    for (let index = 0; index < 5; index += 1) expect(rate.take('a')).toBe(1);
    advance(1000);
    expect(rate.take('a')).toBe(0);
  });
});

describe('disabled instances', () => {
  let hub: TestHub;

  beforeAll(async () => {
    hub = await startTestHub();
  });

  afterAll(async () => {
    await hub?.dispose();
  });

  it('a disabled instance answers 404 on its card and endpoint; re-enabled it serves again', async () => {
    await hub.inbounds.setEnabled('default', false);
    try {
      for (const path of ['/a2a/default/agent-card.json', '/.well-known/agent-card.json']) {
        expectRestError(await send(`${hub.url}${path}`), 'NotFoundError');
      }
      expectRestError(await post(hub.endpoint, LIST_TASKS, JSON_HEADERS), 'NotFoundError');
      expectRestError(await send(hub.endpoint), 'NotFoundError');
    } finally {
      await hub.inbounds.setEnabled('default', true);
    }
    cardOf(await send(`${hub.url}/a2a/default/agent-card.json`));
    cardOf(await send(`${hub.url}/.well-known/agent-card.json`));
    const response = await rpc(hub.endpoint, 'ListTasks', {});
    expect(response.status).toBe(200);
    expect(response.body.error).toBeUndefined();
  });
});

describe('requests Node cannot parse', () => {
  let hub: TestHub;
  beforeAll(async () => {
    hub = await startTestHub();
  });
  afterAll(async () => {
    await hub?.dispose();
  });

  /** What the hub answers raw bytes, read until it closes the connection. */
  async function rawExchange(bytes: string): Promise<RawResponse> {
    const { hostname, port } = new URL(hub.url);
    const socket = connect(Number(port), hostname);
    const chunks: Buffer[] = [];
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    await new Promise<void>((resolve, reject) => {
      socket.on('error', reject);
      socket.on('close', () => resolve());
      socket.write(bytes);
    });
    const text = Buffer.concat(chunks).toString('utf8');
    const [head = '', body = ''] = text.split('\r\n\r\n');
    const [statusLine = '', ...lines] = head.split('\r\n');
    const headers = new Headers(lines.map((line) => [line.slice(0, line.indexOf(':')), line.slice(line.indexOf(':') + 1).trim()]));
    return { status: Number(statusLine.split(' ')[1]), headers, text: body };
  }

  it('a query over the header limit is 431 with a Status body, not a bare status line', async () => {
    const query = Array.from({ length: 2000 }, (_, index) => `pageSize${index}=1`).join('&');
    const body = expectRestError(await nodeRequest(`${hub.endpoint}/tasks?${query}`), 'HeadersTooLargeError');
    expect(body.error.message).toContain(String(maxHeaderSize));
  });

  it('bytes that are not HTTP/1.1 are 400 InvalidRequest with a Status body', async () => {
    expectRestError(await rawExchange('NOT HTTP AT ALL\r\n\r\n'), 'InvalidRequestError');
  });

  it.each([
    ['headers over the limit', `HEAD /a2a/default/tasks HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(maxHeaderSize + 100)}\r\n\r\n`, 431],
    ['a header Node cannot parse', 'HEAD /a2a/default/tasks HTTP/1.1\r\nHost: x\r\nBad Header\r\n\r\n', 400],
    ['a bad HEAD pipelined after a good GET', 'GET /livez HTTP/1.1\r\nHost: x\r\n\r\nHEAD /livez HTTP/1.1\r\nBad Header\r\n\r\n', 400],
  ])('a HEAD Node cannot parse (%s) is answered %s with no body', async (_case, bytes, status) => {
    const answer = await rawExchange(bytes);
    // The pipelined GET is answered first; the HEAD's answer is the last one on the connection.
    const last = answer.text.includes('HTTP/1.1') ? answer.text.slice(answer.text.lastIndexOf('HTTP/1.1')) : undefined;
    if (last === undefined) {
      expect(answer.status).toBe(status);
      expect(answer.headers.get('content-length')).toBe('0');
      expect(answer.text).toBe('');
    } else {
      const [head = '', body = ''] = last.split('\r\n\r\n');
      expect(head).toMatch(new RegExp(`^HTTP/1\\.1 ${status} `));
      expect(head).toMatch(/\r\nContent-Length: 0(\r\n|$)/);
      expect(body).toBe('');
    }
  });
});
