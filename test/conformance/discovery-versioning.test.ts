import { generateKeyPairSync, sign } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ERRORS } from '../../generated/a2a/1.0/errors.js';
import type { ConformanceReport } from '../../generated/conformance/types.js';
import { discoveryChecks } from '../../conformance/checks/discovery.js';
import { securityChecks } from '../../conformance/checks/security.js';
import { cardSigningPayload } from '../../conformance/checks/support/card-signing.js';
import { canonicalJson } from '../../src/support/canonical-json.js';
import { versioningChecks } from '../../conformance/checks/versioning.js';
import type { Check } from '../../conformance/core/check.js';
import { resolveTarget, TargetError } from '../../conformance/core/target.js';
import { startTestHub, type TestHub } from '../helpers/hub.js';
import { storeOnMissingPreset } from '../helpers/missing-preset.js';
import { runConformance } from '../../conformance/suite.js';
import { runChecks, verdicts } from './harness.js';

const checks: readonly Check[] = [...discoveryChecks, ...versioningChecks, ...securityChecks];
const ids = [...new Set(checks.flatMap((check) => check.requirements))].sort();

/** What the hub is expected to get, and why anything is not PASS. */
const HUB_EXPECTED: Record<string, 'PASS' | 'WARN' | 'SKIP'> = Object.fromEntries(ids.map((id) => [id, 'PASS']));
Object.assign(HUB_EXPECTED, {
  // Absent features: the card is unsigned, declares no required extension, no tenant, one interface, no security.
  'CARD-009': 'SKIP',
  'CARD-010': 'SKIP',
  'VER-007': 'SKIP',
  'VER-010': 'SKIP',
  'DATA-001': 'PASS',
  'DATA-004': 'SKIP',
  'DATA-008': 'SKIP',
  'XCARD-003': 'SKIP',
  // The hub declares streaming, push notifications and extendedAgentCard, so their absence checks do not apply.
  'SSE-001': 'SKIP',
  'SUB-001': 'SKIP',
  'PUSH-001': 'SKIP',
  'XCARD-001': 'SKIP',
});

function summary(report: ConformanceReport, list: readonly string[]): Record<string, string> {
  return Object.fromEntries(report.results.filter((result) => list.includes(result.id)).map((result) => [result.id, result.verdict]));
}

describe('discovery, versioning and security checks against the hub', () => {
  let hub: TestHub;
  beforeAll(async () => {
    hub = await startTestHub();
  });
  afterAll(() => hub.dispose());

  it('gets the expected verdict on every requirement', async () => {
    const report = await runChecks(hub.url, checks);
    const got = summary(report, ids);
    const detail = verdicts(report, ids);
    // A mismatch shows the finding behind it.
    expect(Object.fromEntries(ids.map((id) => [id, got[id] === HUB_EXPECTED[id] ? got[id] : detail[id]]))).toEqual(HUB_EXPECTED);
    const absent = report.results.find((result) => result.id === 'VER-003')?.findings.map((finding) => finding.message);
    expect(absent).toEqual([expect.stringMatching(/answered in 0\.3/)]);
  });

  it('warns on VER-003 when the hub serves a request without A2A-Version as 1.0 (absentVersion "1.0")', async () => {
    const lenient = await startTestHub({ absentVersion: '1.0' });
    try {
      const report = await runChecks(lenient.url, versioningChecks);
      const warned = report.results.find((result) => result.id === 'VER-003')?.findings.find((finding) => finding.verdict === 'WARN');
      expect(warned?.message).toMatch(/answered in 1\.0/);
      expect(warned?.curl).toMatch(/^curl /);
    } finally {
      await lenient.dispose();
    }
  });

  it('passes the authentication requirements when the hub requires a token', async () => {
    await hub.inbounds.setAuth('default', 'tkn');
    try {
      const report = await runChecks(hub.url, checks, { headers: { authorization: 'Bearer tkn' }, binding: 'all' });
      expect(verdicts(report, ['DATA-004', 'DATA-008', 'XCARD-003', 'XCARD-002', 'XCARD-004', 'CARD-001', 'VER-001'])).toEqual({
        'DATA-004': 'PASS',
        'DATA-008': 'PASS',
        'XCARD-003': 'PASS',
        'XCARD-002': 'PASS',
        'XCARD-004': 'PASS',
        'CARD-001': 'PASS',
        'VER-001': 'PASS',
      });
      expect(report.summary.FAIL).toBe(0);
      // Judged on each binding the card declares, each without the run's credentials.
      for (const id of ['DATA-004', 'DATA-008', 'XCARD-003'])
        expect(report.results.find((result) => result.id === id)?.bindings, id).toEqual({ JSONRPC: 'PASS', 'HTTP+JSON': 'PASS' });
    } finally {
      await hub.inbounds.setAuth('default', undefined);
    }
  });
});

describe('target discovery finds the agent of the URL given', () => {
  let hub: TestHub;
  let reverser: string;
  let guarded: string;
  beforeAll(async () => {
    hub = await startTestHub();
    reverser = `${hub.url}${(await hub.inbounds.create({ name: 'reverser', description: 'not the default', version: '2.0.0' })).endpointPath}`;
    const guardedId = (await hub.inbounds.create({ name: 'guarded', description: 'needs a token', version: '1.0.0' })).id;
    await hub.inbounds.setAuth(guardedId, 'tkn');
    guarded = `${hub.url}${hub.inbounds.get(guardedId)?.endpointPath ?? ''}`;
  });
  afterAll(() => hub.dispose());
  const resolve = (url: string, headers: Record<string, string> = {}) => resolveTarget(url, { timeoutMs: 5000, headers });
  const refusal = (url: string, headers: Record<string, string> = {}) =>
    resolve(url, headers).then(
      () => undefined,
      (error: unknown) => error,
    );

  it("takes an instance's endpoint URL to that instance's card at <endpoint>/agent-card.json", async () => {
    const target = await resolve(reverser);
    expect(target).toMatchObject({ endpoint: reverser, cardUrl: `${reverser}/agent-card.json`, assumedCard: false });
    expect(target.card.name).toBe('reverser');
  });

  it('takes the card URL itself, and the origin to the well-known card', async () => {
    expect((await resolve(`${reverser}/agent-card.json`)).card.name).toBe('reverser');
    const origin = await resolve(hub.url);
    expect(origin).toMatchObject({ endpoint: hub.endpoint, cardUrl: `${hub.url}/.well-known/agent-card.json` });
  });

  it("takes the well-known card for a URL only when one of the card's interfaces is that URL", async () => {
    // The default agent's endpoint has its own card too; the interface rule is what matters for agents that have only the well-known one.
    const fake = await startFakeAgent(baseCard);
    try {
      const target = await resolve(`${fake.url}/rpc`);
      expect(target).toMatchObject({ endpoint: `${fake.url}/rpc`, cardUrl: `${fake.url}/.well-known/agent-card.json`, assumedCard: false });
    } finally {
      await fake.close();
    }
  });

  it('refuses a path no agent is at, naming the card that does exist, instead of testing the default agent', async () => {
    const error = await refusal(`${hub.url}/a2a/nope`);
    expect(error).toBeInstanceOf(TargetError);
    expect((error as Error).message).toBe(
      `no agent card at ${hub.url}/a2a/nope or ${hub.url}/a2a/nope/agent-card.json; ${hub.url}/.well-known/agent-card.json has one, so use that URL if you mean the agent it describes`,
    );
  });

  it('refuses a bearer-protected agent without credentials, and runs with them', async () => {
    const error = await refusal(guarded);
    expect(error).toBeInstanceOf(TargetError);
    expect((error as TargetError).unauthenticated).toBe(true);
    expect((error as Error).message).toMatch(new RegExp(`^the endpoint ${guarded} answered HTTP 401 .*: no credentials were sent$`));
    const wrong = await refusal(guarded, { authorization: 'Bearer nope' });
    expect((wrong as Error).message).toMatch(/: the credentials sent were refused$/);
    expect((await resolve(guarded, { authorization: 'Bearer tkn' })).card.name).toBe('guarded');
  });
});

describe('target discovery of an instance this hub cannot run', () => {
  let hub: TestHub;
  let unavailable = '';
  beforeAll(async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'a2a-hub-conform-unavailable-'));
    const [stored] = await storeOnMissingPreset(dataDir, ['shouter']);
    hub = await startTestHub({ dataDir });
    unavailable = `${hub.url}${stored?.endpointPath ?? ''}`;
  });
  afterAll(async () => {
    await hub.dispose();
    rmSync(hub.dataDir, { recursive: true, force: true });
  });

  it('refuses it, quoting why, instead of running the suite against its refusals', async () => {
    const answered = (await (await fetch(`${unavailable}/agent-card.json`)).json()) as { error: { message: string } };
    for (const url of [unavailable, `${unavailable}/agent-card.json`]) {
      const error = await resolveTarget(url, { timeoutMs: 5000 }).then(
        () => undefined,
        (caught: unknown) => caught,
      );
      expect(error).toBeInstanceOf(TargetError);
      expect((error as TargetError).unauthenticated).toBe(false);
      expect((error as Error).message).toContain(`answered HTTP ${ERRORS.AgentUnavailableError.httpStatus}`);
      expect((error as Error).message).toContain(answered.error.message);
      expect((error as Error).message).not.toMatch(/has one, so use that URL/);
    }
  });
});

// ---------------------------------------------------------------------------------------------

interface FakeAgent {
  readonly url: string;
  card: unknown;
  close(): Promise<void>;
}

/** Serves `card` at the well-known path and answers every JSON-RPC call with `{"result": {}}`. */
async function startFakeAgent(makeCard: (base: string) => unknown): Promise<FakeAgent> {
  const state: { card: unknown } = { card: undefined };
  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      if (request.method === 'GET' && request.url === '/.well-known/agent-card.json') {
        response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(state.card));
        return;
      }
      if (request.method === 'POST') {
        let id: unknown;
        try {
          id = (JSON.parse(Buffer.concat(chunks).toString('utf8')) as { id?: unknown }).id ?? null;
        } catch {
          id = null;
        }
        response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ jsonrpc: '2.0', id, result: {} }));
        return;
      }
      response.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  state.card = makeCard(url);
  return {
    url,
    get card() {
      return state.card;
    },
    set card(value: unknown) {
      state.card = value;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

function baseCard(base: string): Record<string, unknown> {
  return {
    name: 'Fake',
    description: 'A fake agent for the conformance tests.',
    supportedInterfaces: [{ url: `${base}/rpc`, protocolBinding: 'JSONRPC', protocolVersion: '1.0' }],
    version: '1.0.0',
    capabilities: {},
    defaultInputModes: ['text/plain'],
    defaultOutputModes: ['text/plain'],
    skills: [{ id: 'x', name: 'x', description: 'x', tags: ['x'] }],
  };
}

describe('the checks against a deliberately broken agent', () => {
  let fake: FakeAgent;
  beforeAll(async () => {
    fake = await startFakeAgent((base) => ({
      ...baseCard(base),
      url: `${base}/rpc`,
      protocolVersion: '0.3.0',
      preferredTransport: 'JSONRPC',
      securitySchemes: { bearer: { type: 'http', scheme: 'bearer' } },
    }));
  });
  afterAll(() => fake.close());

  it('fails the card, version and capability-absence requirements, with curl commands', async () => {
    const report = await runChecks(fake.url, checks);
    const failing = [
      'CARD-002',
      'CARD-005',
      'CARD-007',
      'VER-001',
      'VER-002',
      'VER-004',
      'VER-006',
      'SSE-001',
      'PUSH-001',
      'XCARD-001',
      'WIRE-001',
    ];
    expect(summary(report, failing)).toEqual(Object.fromEntries(failing.map((id) => [id, 'FAIL'])));
    // Missing caching headers are a SHOULD; the 0.3 card still resolves (it also lists an
    // interface); SendMessage creates no task, so there is nothing to subscribe to.
    expect(summary(report, ['CARD-008', 'CARD-001', 'CARD-011', 'SUB-001'])).toEqual({
      'CARD-008': 'WARN',
      'CARD-001': 'PASS',
      'CARD-011': 'PASS',
      'SUB-001': 'SKIP',
    });
    for (const result of report.results.filter((entry) => entry.verdict === 'FAIL' && entry.id !== 'WIRE-001')) {
      for (const finding of result.findings.filter((entry) => entry.verdict === 'FAIL')) {
        expect(finding.curl, `${result.id}: ${finding.message}`).toMatch(/^curl /);
        expect(finding.expected, result.id).toBeTruthy();
        expect(finding.observed, result.id).toBeTruthy();
      }
    }
    const legacy = report.results.find((result) => result.id === 'CARD-007')?.findings.map((finding) => finding.observed ?? '') ?? [];
    expect(legacy.join('\n')).toMatch(/url/);
    expect(legacy.join('\n')).toMatch(/type/);
  });

  it('fails CARD-001 when the well-known card is a pure 0.3 card', async () => {
    const pure = await startFakeAgent((base) => ({
      name: 'Old',
      description: 'old',
      url: `${base}/rpc`,
      protocolVersion: '0.3.0',
      version: '1',
      capabilities: {},
      defaultInputModes: ['text/plain'],
      defaultOutputModes: ['text/plain'],
      skills: [],
    }));
    try {
      // Asked for 1.0, the agent has nothing to test: a report whose FAILs say why (runUntestable).
      const { report, exitCode } = await runConformance(pure.url, { protocol: '1.0', checks, timeoutMs: 5000 });
      expect(exitCode).toBe(1);
      expect(report.target.protocolVersions).toEqual(['1.0']);
      expect(summary(report, ['CARD-001', 'CARD-005'])).toEqual({ 'CARD-001': 'FAIL', 'CARD-005': 'FAIL' });
      expect(report.results.find((result) => result.id === 'CARD-001')?.findings[0]?.message).toMatch(/0\.3/);
      // By default it is tested in 0.3, the version it declares.
      const all = await runConformance(pure.url, { checks: [], timeoutMs: 5000 });
      expect(all.report.target.protocolVersions).toEqual(['0.3']);
      expect(all.report.target.interfaces).toEqual([{ binding: 'JSONRPC', protocolVersion: '0.3', endpoint: `${pure.url}/rpc` }]);
    } finally {
      await pure.close();
    }
  });
});

// ---------------------------------------------------------------------------------------------

describe('card signatures', () => {
  it('canonicalises like RFC 8785', () => {
    const input = JSON.parse(
      '{"numbers":[333333333.33333329,1E30,4.50,2e-3,0.000000000000000000000000001],"string":"\\u20ac$\\u000F\\u000aA\'\\u0042\\u0022\\u005c\\\\\\"\\/","literals":[null,true,false]}',
    ) as unknown;
    expect(canonicalJson(input)).toBe(
      '{"literals":[null,true,false],"numbers":[333333333.3333333,1e+30,4.5,0.002,1e-27],"string":"€$\\u000f\\nA\'B\\"\\\\\\\\\\"/"}',
    );
    expect(canonicalJson({ b: 1, a: [{ d: -0, c: 'x' }] })).toBe('{"a":[{"c":"x","d":0}],"b":1}');
  });

  it('omits default-valued implicit members but keeps explicit-presence ones', () => {
    const card = {
      ...baseCard('https://a.example'),
      documentationUrl: '',
      capabilities: { streaming: false, extensions: [] },
      securitySchemes: {},
      signatures: [{ protected: 'x', signature: 'y' }],
    };
    expect(JSON.parse(cardSigningPayload(card))).toEqual({
      ...baseCard('https://a.example'),
      documentationUrl: '',
      capabilities: { streaming: false },
    });
  });

  it('keeps unknown members whole, even ones named like Object.prototype members', () => {
    // A signer canonicalizes what it sends, unknown members included.
    const card = JSON.parse(`{"constructor":"","__proto__":{"x":0},"toString":[]}`) as Record<string, unknown>;
    Object.assign(card, baseCard('https://a.example'));
    expect(cardSigningPayload(card)).toBe(canonicalJson(card));
  });

  let fake: FakeAgent;
  beforeAll(async () => {
    fake = await startFakeAgent(baseCard);
  });
  afterAll(() => fake.close());

  function signed(card: Record<string, unknown>): Record<string, unknown> {
    const { publicKey, privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    const jwk = publicKey.export({ format: 'jwk' });
    const protectedHeader = Buffer.from(JSON.stringify({ alg: 'ES256', kid: 'conform-test-key', typ: 'JOSE', jwk })).toString('base64url');
    const payload = Buffer.from(cardSigningPayload(card)).toString('base64url');
    const signature = sign('sha256', Buffer.from(`${protectedHeader}.${payload}`), { key: privateKey, dsaEncoding: 'ieee-p1363' }).toString(
      'base64url',
    );
    return { ...card, signatures: [{ protected: protectedHeader, signature }] };
  }

  it('verifies an ES256 signature with an embedded jwk', async () => {
    fake.card = signed(baseCard(fake.url));
    const report = await runChecks(fake.url, securityChecks, { only: ['CARD-009', 'CARD-010'] });
    expect(verdicts(report, ['CARD-009', 'CARD-010'])).toEqual({ 'CARD-009': 'PASS', 'CARD-010': 'PASS' });
  });

  it('fails a card changed after signing', async () => {
    fake.card = { ...signed(baseCard(fake.url)), description: 'tampered with after signing' };
    const report = await runChecks(fake.url, securityChecks, { only: ['CARD-009', 'CARD-010'] });
    expect(summary(report, ['CARD-009', 'CARD-010'])).toEqual({ 'CARD-009': 'PASS', 'CARD-010': 'FAIL' });
  });

  it('checks the protected header and skips signatures without key material', async () => {
    const card = baseCard(fake.url);
    const header = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
    fake.card = { ...card, signatures: [{ protected: header({ alg: 'ES256', kid: 'k' }), signature: 'c2ln' }] };
    let report = await runChecks(fake.url, securityChecks, { only: ['CARD-009', 'CARD-010'] });
    expect(summary(report, ['CARD-009', 'CARD-010'])).toEqual({ 'CARD-009': 'WARN', 'CARD-010': 'SKIP' });
    expect(report.results.find((result) => result.id === 'CARD-010')?.findings[0]?.message).toMatch(/no key material/);
    fake.card = { ...card, signatures: [{ protected: header({ alg: 'ES256' }), signature: 'c2ln' }] };
    report = await runChecks(fake.url, securityChecks, { only: ['CARD-009'] });
    expect(summary(report, ['CARD-009'])).toEqual({ 'CARD-009': 'FAIL' });
  });
});
