import type { LookupAddress } from 'node:dns';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, LookupFunction } from 'node:net';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { AgentCard } from '../../generated/a2a/1.0/types.js';
import { A2AClient, A2ATransportError, fetchAgentCard } from '../../src/client/a2a-client.js';
import { classifyAddress } from '../../src/net/ip-ranges.js';
import { DEFAULT_URL_POLICY, UrlPolicyError, guardLookup, type UrlPolicy } from '../../src/net/destination-policy.js';
import { startTestHub, type TestHub } from '../helpers/hub.js';
import { watchLoopbackOnly, type LoopbackOnly } from '../client/loopback-only.js';
import { refusal } from './policy-helpers.js';

/** A resolver that answers from a table, as dns.lookup would (single or `all`). */
function fakeLookup(table: Record<string, string[]>, calls: string[] = []): LookupFunction {
  return (hostname, options, callback) => {
    calls.push(hostname);
    const addresses = table[hostname];
    setImmediate(() => {
      if (addresses === undefined) {
        callback(Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' }), '', 0);
        return;
      }
      const entries: LookupAddress[] = addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
      if (options.all === true) callback(null, entries);
      else callback(null, entries[0]?.address ?? '', entries[0]?.family ?? 4);
    });
  };
}

describe('classifyAddress', () => {
  it.each([
    ['8.8.8.8', 'public'],
    ['1.1.1.1', 'public'],
    ['0.0.0.0', 'loopback'],
    ['0.255.255.255', 'private'],
    ['10.0.0.5', 'private'],
    ['10.255.255.255', 'private'],
    ['100.63.255.255', 'public'],
    ['100.64.0.1', 'private'],
    ['100.127.255.255', 'private'],
    ['100.128.0.0', 'public'],
    ['127.0.0.1', 'loopback'],
    ['127.255.255.254', 'loopback'],
    ['169.254.169.254', 'linkLocal'],
    ['169.254.0.1', 'linkLocal'],
    ['169.255.0.1', 'public'],
    ['172.15.255.255', 'public'],
    ['172.16.0.0', 'private'],
    ['172.31.255.255', 'private'],
    ['172.32.0.0', 'public'],
    ['192.168.1.1', 'private'],
    ['192.169.0.1', 'public'],
    ['192.0.2.1', 'private'],
    ['198.18.0.1', 'private'],
    ['224.0.0.1', 'private'],
    ['239.255.255.250', 'private'],
    ['255.255.255.255', 'private'],
    ['::', 'loopback'],
    ['::1', 'loopback'],
    ['fc00::1', 'private'],
    ['fdff:ffff::1', 'private'],
    ['fe80::1', 'linkLocal'],
    ['fe80::1%eth0', 'linkLocal'],
    ['febf::1', 'linkLocal'],
    ['fec0::1', 'private'],
    ['ff02::1', 'private'],
    ['2001:db8::1', 'private'],
    ['2606:4700:4700::1111', 'public'],
    ['::ffff:10.0.0.1', 'private'],
    ['::ffff:a00:1', 'private'],
    ['::ffff:169.254.169.254', 'linkLocal'],
    ['::ffff:127.0.0.1', 'loopback'],
    ['::ffff:8.8.8.8', 'public'],
    ['::a00:1', 'private'],
    ['64:ff9b::a9fe:a9fe', 'linkLocal'],
    ['64:ff9b::808:808', 'public'],
    ['2002:a00:1::1', 'private'],
    ['2002:808:808::1', 'public'],
  ])('%s is %s', (address, kind) => {
    expect(classifyAddress(address)?.kind).toBe(kind);
  });

  it('names the range, including the IPv4 address inside an IPv6 one', () => {
    expect(classifyAddress('169.254.169.254')?.range).toBe('169.254.0.0/16 link-local (cloud metadata lives here)');
    const mapped = classifyAddress('::ffff:a9fe:a9fe');
    expect(mapped?.embeddedIpv4).toBe('169.254.169.254');
    expect(mapped?.range).toContain('via IPv4-mapped 169.254.169.254');
    expect(classifyAddress('agent.example.com')).toBeUndefined();
  });
});

describe('checkUrl', () => {
  it('has the documented defaults', () => {
    expect(DEFAULT_URL_POLICY).toEqual({
      allowedSchemes: ['http', 'https'],
      allowedHosts: undefined,
      allowPrivate: false,
      allowLinkLocal: false,
      allowLoopback: true,
      allowedCidrs: [],
      configuredAt: 'urlPolicy',
    });
  });

  it('allows http and https only, by default', () => {
    expect(refusal('https://agent.example.com/a2a')).toBeUndefined();
    expect(refusal('HTTP://agent.example.com/')).toBeUndefined();
    const ftp = refusal('ftp://agent.example.com/card.json');
    expect(ftp?.rule).toBe('allowedSchemes');
    expect(ftp?.message).toBe(
      'URL policy: ftp://agent.example.com/card.json is refused: scheme "ftp" is not in urlPolicy.allowedSchemes (http, https)',
    );
    expect(refusal('file:///etc/passwd')?.rule).toBe('allowedSchemes');
    expect(refusal('http://agent.example.com/', { allowedSchemes: ['https'] })?.rule).toBe('allowedSchemes');
    expect(refusal('not a url')?.message).toMatch(/is not a URL/);
    expect(refusal('not a url')?.rule, 'no member would allow it').toBe('notAUrl');
  });

  it('applies the host allowlist with exact names and *. wildcards', () => {
    const policy: UrlPolicy = { allowedHosts: ['agent.example.com', '*.agents.example.org', '[::1]', '127.0.0.1'] };
    expect(refusal('https://agent.example.com/', policy)).toBeUndefined();
    expect(refusal('https://AGENT.Example.com./', policy)).toBeUndefined();
    expect(refusal('https://a.agents.example.org/', policy)).toBeUndefined();
    expect(refusal('https://b.a.agents.example.org/', policy)).toBeUndefined();
    expect(refusal('http://[::1]:8080/', policy)).toBeUndefined();
    expect(refusal('http://127.0.0.1:8080/', policy)).toBeUndefined();
    for (const url of [
      'https://agents.example.org/',
      'https://evilagents.example.org/',
      'https://other.example.com/',
      'https://agent.example.com.evil.net/',
    ]) {
      const error = refusal(url, policy);
      expect(error?.rule, url).toBe('allowedHosts');
      expect(error?.message, url).toMatch(/is not in urlPolicy\.allowedHosts$/);
    }
    expect(refusal('https://anything.example/', { allowedHosts: [] })?.rule).toBe('allowedHosts');
  });

  it('refuses private, link-local and reserved IP literals, naming the member that allows them', () => {
    const metadata = refusal('http://169.254.169.254/latest/meta-data/');
    expect(metadata?.rule).toBe('allowLinkLocal');
    expect(metadata?.address).toBe('169.254.169.254');
    expect(metadata?.message).toBe(
      'URL policy: http://169.254.169.254/latest/meta-data/ (169.254.169.254) is refused: 169.254.0.0/16 link-local (cloud metadata lives here); set urlPolicy.allowLinkLocal: true, or add its range to urlPolicy.allowedCidrs, to allow it',
    );
    const cases: [string, string, string][] = [
      ['http://10.0.0.5/', 'allowPrivate', '10.0.0.5'],
      ['http://172.20.1.1:8080/', 'allowPrivate', '172.20.1.1'],
      ['http://192.168.0.10/', 'allowPrivate', '192.168.0.10'],
      ['http://100.100.100.200/', 'allowPrivate', '100.100.100.200'],
      ['http://224.0.0.251/', 'allowPrivate', '224.0.0.251'],
      ['http://[fd12:3456::1]/', 'allowPrivate', 'fd12:3456::1'],
      ['http://[fe80::1]/', 'allowLinkLocal', 'fe80::1'],
      ['http://[::ffff:10.0.0.1]/', 'allowPrivate', '::ffff:a00:1'],
      ['http://[::ffff:169.254.169.254]/', 'allowLinkLocal', '::ffff:a9fe:a9fe'],
      ['http://[64:ff9b::a9fe:a9fe]/', 'allowLinkLocal', '64:ff9b::a9fe:a9fe'],
    ];
    for (const [url, rule, address] of cases) {
      const error = refusal(url);
      expect(error?.rule, url).toBe(rule);
      expect(error?.address, url).toBe(address);
      expect(error?.message, url).toContain(`set urlPolicy.${rule}: true`);
    }
    expect(refusal('http://10.0.0.5/', { allowPrivate: true })).toBeUndefined();
    expect(refusal('http://[::ffff:10.0.0.1]/', { allowPrivate: true })).toBeUndefined();
    expect(refusal('http://169.254.169.254/', { allowLinkLocal: true })).toBeUndefined();
    expect(refusal('http://169.254.169.254/', { allowPrivate: true })?.rule).toBe('allowLinkLocal');
  });

  it('sees through the address forms the URL parser normalises', () => {
    // Hex, octal, shortened and single-number IPv4 forms all become dotted decimal.
    expect(refusal('http://0xa9.0xfe.0xa9.0xfe/')?.address).toBe('169.254.169.254');
    expect(refusal('http://0251.0376.0251.0376/')?.address).toBe('169.254.169.254');
    expect(refusal('http://2852039166/')?.address).toBe('169.254.169.254');
    expect(refusal('http://10.1/')?.address).toBe('10.0.0.1');
    expect(refusal('http://0/', { allowLoopback: false })?.address).toBe('0.0.0.0');
    expect(refusal('http://[0:0:0:0:0:ffff:0a00:0001]/')?.address).toBe('::ffff:a00:1');
    expect(refusal('http://0x7f.1/')).toBeUndefined();
    expect(refusal('http://0x7f.1/', { allowLoopback: false })?.address).toBe('127.0.0.1');
  });

  it('allows loopback by default and refuses it when allowLoopback is false', () => {
    expect(refusal('http://127.0.0.1:3080/')).toBeUndefined();
    expect(refusal('http://[::1]:3080/')).toBeUndefined();
    expect(refusal('http://localhost:3080/')).toBeUndefined();
    expect(refusal('http://127.0.0.1:3080/', { allowLoopback: false })?.rule).toBe('allowLoopback');
    expect(refusal('http://[::1]:3080/', { allowLoopback: false })?.rule).toBe('allowLoopback');
    expect(refusal('http://api.localhost:3080/', { allowLoopback: false })?.rule).toBe('allowLoopback');
  });

  it('judges the unspecified addresses as loopback: connecting to them reaches this machine', () => {
    expect(refusal('http://0.0.0.0:3080/')).toBeUndefined();
    for (const url of ['http://0.0.0.0:3080/', 'http://[::]:3080/', 'http://[::ffff:0.0.0.0]:3080/']) {
      // Allowing private addresses must not open this machine's own listeners.
      const error = refusal(url, { allowLoopback: false, allowPrivate: true });
      expect(error?.rule, url).toBe('allowLoopback');
      expect(error?.message, url).toContain('unspecified (reaches this machine)');
    }
  });

  it('leaves hostnames to the connect-time check', () => {
    expect(refusal('https://metadata.google.internal/')).toBeUndefined();
  });
});

describe('guardLookup', () => {
  function resolve(
    lookup: LookupFunction,
    hostname: string,
    all: boolean,
  ): Promise<{ error: Error | null; address: string | LookupAddress[] }> {
    return new Promise((done) => lookup(hostname, { all }, (error, address) => done({ error, address })));
  }

  it('passes public and loopback answers through unchanged', async () => {
    const lookup = guardLookup({}, fakeLookup({ 'agent.test': ['93.184.216.34', '2606:2800::1'], 'dev.test': ['127.0.0.1'] }));
    expect(await resolve(lookup, 'agent.test', true)).toEqual({
      error: null,
      address: [
        { address: '93.184.216.34', family: 4 },
        { address: '2606:2800::1', family: 6 },
      ],
    });
    expect(await resolve(lookup, 'dev.test', false)).toEqual({ error: null, address: '127.0.0.1' });
  });

  it('refuses a name when any of its addresses is forbidden', async () => {
    const lookup = guardLookup({}, fakeLookup({ 'mixed.test': ['93.184.216.34', '10.0.0.5'], 'meta.test': ['169.254.169.254'] }));
    const mixed = await resolve(lookup, 'mixed.test', true);
    expect(mixed.error).toBeInstanceOf(UrlPolicyError);
    expect((mixed.error as UrlPolicyError).address).toBe('10.0.0.5');
    expect(mixed.error?.message).toBe(
      'URL policy: mixed.test (10.0.0.5) is refused: 10.0.0.0/8 private (RFC 1918); set urlPolicy.allowPrivate: true, or add its range to urlPolicy.allowedCidrs, to allow it',
    );
    const meta = await resolve(lookup, 'meta.test', false);
    expect((meta.error as UrlPolicyError).rule).toBe('allowLinkLocal');
    expect(meta.address).toBe('');
  });

  it('passes resolver errors on', async () => {
    const result = await resolve(guardLookup({}, fakeLookup({})), 'nowhere.test', false);
    expect((result.error as Error & { code?: string }).code).toBe('ENOTFOUND');
  });
});

/** A loopback server answering GETs with `route(url)`: a card, or a redirect. */
async function cardServer(
  route: (url: string, base: string) => { status: number; headers?: Record<string, string>; body?: unknown },
): Promise<{ url: string; requests: string[]; close(): Promise<void> }> {
  const requests: string[] = [];
  let base = '';
  const server: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
    requests.push(`${req.method ?? ''} ${req.url ?? ''} auth=${req.headers.authorization ?? '-'}`);
    req.resume();
    const answer = route(req.url ?? '/', base);
    res
      .writeHead(answer.status, { 'content-type': 'application/json', ...answer.headers })
      .end(answer.body === undefined ? '' : JSON.stringify(answer.body));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url: base,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function cardFor(rpcUrl: string): AgentCard {
  return {
    name: 'policy fake',
    description: 'a fake agent',
    supportedInterfaces: [{ url: rpcUrl, protocolBinding: 'JSONRPC', protocolVersion: '1.0' }],
    version: '1',
    capabilities: {},
    defaultInputModes: ['text/plain'],
    defaultOutputModes: ['text/plain'],
    skills: [{ id: 's', name: 's', description: 's', tags: ['s'] }],
  };
}

describe('the client applies the policy before connecting', () => {
  let hub: TestHub;
  let guard: LoopbackOnly;
  beforeAll(async () => {
    hub = await startTestHub();
  });
  afterAll(async () => {
    await hub.dispose();
  });
  beforeEach(() => {
    guard = watchLoopbackOnly();
  });
  afterEach(() => {
    guard.dispose();
  });

  it('refuses private and link-local literals without opening a socket', async () => {
    for (const url of [
      'http://10.0.0.5/',
      'http://169.254.169.254/latest/meta-data/',
      'http://[::ffff:10.0.0.1]/',
      'http://[fe80::1]:8080/',
    ]) {
      const connectError = await A2AClient.connect(url).catch((caught: unknown) => caught);
      expect(connectError, url).toBeInstanceOf(UrlPolicyError);
      const cardError = await fetchAgentCard(url).catch((caught: unknown) => caught);
      expect(cardError, url).toBeInstanceOf(UrlPolicyError);
    }
    expect(guard.opened()).toBe(0);
    expect(guard.stopped).toEqual([]);
  });

  it('still checks URLs when a fetch is injected', async () => {
    const fetched: string[] = [];
    const spy = (input: string): Promise<Response> => {
      fetched.push(input);
      return Promise.reject(new Error('must not be called'));
    };
    const error = await A2AClient.connect('http://169.254.169.254/', { fetch: spy }).catch((caught: unknown) => caught);
    expect((error as UrlPolicyError).rule).toBe('allowLinkLocal');
    expect(fetched).toEqual([]);
  });

  it('refuses a hostname that resolves to a private or link-local address, before connecting', async () => {
    const calls: string[] = [];
    const lookup = fakeLookup(
      { 'internal.test': ['10.0.0.5'], 'metadata.test': ['169.254.169.254'], 'sneaky.test': ['::ffff:10.0.0.1'] },
      calls,
    );
    const port = new URL(hub.url).port;
    const internal = await A2AClient.connect(`http://internal.test:${port}/`, { lookup, retries: 2, retryBaseMs: 1 }).catch(
      (caught: unknown) => caught,
    );
    expect(internal).toBeInstanceOf(UrlPolicyError);
    expect((internal as UrlPolicyError).address).toBe('10.0.0.5');
    expect((internal as UrlPolicyError).rule).toBe('allowPrivate');
    const metadata = await fetchAgentCard(`http://metadata.test:${port}/`, { lookup }).catch((caught: unknown) => caught);
    expect((metadata as UrlPolicyError).rule).toBe('allowLinkLocal');
    const sneaky = await fetchAgentCard(`http://sneaky.test:${port}/`, { lookup }).catch((caught: unknown) => caught);
    expect((sneaky as UrlPolicyError).rule).toBe('allowPrivate');
    // One lookup each: a refusal is final, never retried.
    expect(calls).toEqual(['internal.test', 'metadata.test', 'sneaky.test']);
    expect(guard.stopped).toEqual([]);
  });

  it('connects to a hostname that resolves to loopback, unless allowLoopback is false', async () => {
    const lookup = fakeLookup({ 'agent.test': ['127.0.0.1'] });
    const port = new URL(hub.url).port;
    const client = await A2AClient.connect(`http://agent.test:${port}/`, { lookup });
    expect(client.endpoint).toBe(`http://agent.test:${port}/a2a/default`);
    const answer = await client.sendMessage({ message: { messageId: 'm-loopback', role: 'ROLE_USER', parts: [{ text: 'hi' }] } });
    expect(answer.task?.status.state).toBe('TASK_STATE_COMPLETED');
    const refused = await A2AClient.connect(`http://agent.test:${port}/`, { lookup, urlPolicy: { allowLoopback: false } }).catch(
      (caught: unknown) => caught,
    );
    expect(refused).toBeInstanceOf(UrlPolicyError);
    expect((refused as UrlPolicyError).rule).toBe('allowLoopback');
    expect((refused as UrlPolicyError).address).toBe('127.0.0.1');
    expect(guard.stopped).toEqual([]);
  });

  it('refuses every call once the name starts resolving to a private address (DNS rebinding)', async () => {
    let answer = '127.0.0.1';
    const lookup: LookupFunction = (hostname, options, callback) => {
      const entry = { address: answer, family: 4 };
      if (options.all === true) callback(null, [entry]);
      else callback(null, entry.address, entry.family);
    };
    const rpcRequests: string[] = [];
    const rebinding = await cardServer((url, base) => {
      if (url === '/.well-known/agent-card.json') return { status: 200, body: cardFor(`${base.replace('127.0.0.1', 'rebind.test')}/rpc`) };
      rpcRequests.push(url);
      // Closing makes the next call open a new connection, and so resolve the name again.
      return {
        status: 200,
        headers: { connection: 'close' },
        body: { jsonrpc: '2.0', id: 1, error: { code: -32001, message: 'no such task' } },
      };
    });
    try {
      const client = await A2AClient.connect(rebinding.url, { lookup, retries: 2, retryBaseMs: 1 });
      const first = await client.getTask({ id: 't' }).catch((caught: unknown) => caught);
      expect((first as Error).name).toBe('TaskNotFoundError');
      answer = '10.0.0.5';
      const second = await client.getTask({ id: 't' }).catch((caught: unknown) => caught);
      expect(second).toBeInstanceOf(UrlPolicyError);
      expect((second as UrlPolicyError).address).toBe('10.0.0.5');
      expect(rpcRequests).toEqual(['/rpc']);
      expect(guard.stopped).toEqual([]);
    } finally {
      await rebinding.close();
    }
  });

  it('refuses a card whose interface URL points at a forbidden target', async () => {
    const fake = await cardServer(() => ({ status: 200, body: cardFor('http://169.254.169.254/a2a') }));
    try {
      const error = await A2AClient.connect(fake.url).catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(UrlPolicyError);
      expect((error as UrlPolicyError).target).toBe('http://169.254.169.254/a2a');
      expect(guard.stopped).toEqual([]);
    } finally {
      await fake.close();
    }
  });

  it('follows card redirects hop by hop and refuses one to a forbidden host', async () => {
    const lookup = fakeLookup({ 'internal.test': ['10.0.0.5'] });
    const fake = await cardServer((url, base) => {
      if (url === '/to-metadata') return { status: 302, headers: { location: 'http://169.254.169.254/latest/meta-data/' } };
      if (url === '/to-internal') return { status: 307, headers: { location: 'http://internal.test/card.json' } };
      if (url === '/to-ftp') return { status: 301, headers: { location: 'ftp://127.0.0.1/card.json' } };
      if (url === '/moved') return { status: 308, headers: { location: `${base}/card.json` } };
      if (url === '/card.json') return { status: 200, body: cardFor(`${base}/rpc`) };
      return { status: 404 };
    });
    try {
      const toMetadata = await fetchAgentCard(`${fake.url}/to-metadata`, { lookup }).catch((caught: unknown) => caught);
      expect((toMetadata as UrlPolicyError).rule).toBe('allowLinkLocal');
      const toInternal = await fetchAgentCard(`${fake.url}/to-internal`, { lookup }).catch((caught: unknown) => caught);
      expect((toInternal as UrlPolicyError).rule).toBe('allowPrivate');
      expect((toInternal as UrlPolicyError).address).toBe('10.0.0.5');
      const toFtp = await fetchAgentCard(`${fake.url}/to-ftp`, { lookup }).catch((caught: unknown) => caught);
      expect((toFtp as UrlPolicyError).rule).toBe('allowedSchemes');
      const moved = await fetchAgentCard(`${fake.url}/moved`, { lookup, token: 'secret' });
      expect(moved.cardUrl).toBe(`${fake.url}/card.json`);
      expect(fake.requests.filter((line) => line.startsWith('GET /moved') || line.startsWith('GET /card.json'))).toEqual([
        'GET /moved auth=Bearer secret',
        'GET /card.json auth=Bearer secret',
      ]);
      expect(guard.stopped).toEqual([]);
    } finally {
      await fake.close();
    }
  });

  it('drops Authorization on a cross-origin redirect and enforces allowedHosts on every hop', async () => {
    const lookup = fakeLookup({ 'other.test': ['127.0.0.1'] });
    const other = await cardServer((_url, base) => ({ status: 200, body: cardFor(`${base}/rpc`) }));
    const otherUrl = `${other.url.replace('127.0.0.1', 'other.test')}/card.json`;
    const first = await cardServer(() => ({ status: 302, headers: { location: otherUrl } }));
    try {
      const fetched = await fetchAgentCard(`${first.url}/card.json`, { token: 'secret', lookup });
      expect(fetched.cardUrl).toBe(otherUrl);
      expect(first.requests).toEqual(['GET /card.json auth=Bearer secret']);
      expect(other.requests).toEqual(['GET /card.json auth=-']);
      const refused = await fetchAgentCard(`${first.url}/card.json`, { lookup, urlPolicy: { allowedHosts: ['127.0.0.1'] } }).catch(
        (caught: unknown) => caught,
      );
      expect((refused as UrlPolicyError).rule).toBe('allowedHosts');
      expect(other.requests).toHaveLength(1);
    } finally {
      await first.close();
      await other.close();
    }
  });

  it('does not follow redirects for JSON-RPC calls', async () => {
    let posts = 0;
    const fake = await cardServer((url, base) => {
      if (url === '/.well-known/agent-card.json') return { status: 200, body: cardFor(`${base}/rpc`) };
      posts += 1;
      return { status: 307, headers: { location: `${base}/elsewhere` } };
    });
    try {
      const client = await A2AClient.connect(fake.url, { retries: 2, retryBaseMs: 1 });
      const error = await client.getTask({ id: 't' }).catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(A2ATransportError);
      expect((error as A2ATransportError).status).toBe(307);
      expect((error as Error).message).toMatch(/JSON-RPC calls do not follow redirects/);
      expect(posts).toBe(1);
    } finally {
      await fake.close();
    }
  });
});
