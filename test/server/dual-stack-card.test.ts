import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AgentCard as V03AgentCard } from '../../generated/a2a/0.3/types.js';
import type { AgentCard } from '../../generated/a2a/1.0/types.js';
import { A2A_0_3, A2A_1_0 } from '../../src/protocol/a2a-schema.js';
import { projectToSchema } from '../../src/protocol/project.js';
import { agentCardTo03 } from '../../src/protocol/v03/agent-cards.js';
import { checkValue } from '../../src/protocol/validation.js';
import { startTestHub, type TestHub } from '../helpers/hub.js';
import { send, type RawResponse } from '../helpers/raw-http.js';

/**
 * The card's form follows the request's A2A-Version (docs/spec-policy.md 5.1): without one, or
 * with 0.3, both forms in one document, each complete; with 1.0 (or anything else) the plain
 * 1.0 card. Both SDK generations' resolvers read it in test/interop/a2a-js-03-client.test.ts and
 * test/interop/a2a-js-client.test.ts.
 */

let hub: TestHub;
let lenient: TestHub;

beforeAll(async () => {
  [hub, lenient] = await Promise.all([startTestHub({ store: 'memory' }), startTestHub({ store: 'memory', absentVersion: '1.0' })]);
});

afterAll(async () => {
  await Promise.all([hub?.dispose(), lenient?.dispose()]);
});

type DualCard = Record<string, unknown> & { supportedInterfaces: AgentCard['supportedInterfaces'] };

/**
 * Holds a dual-stack card to both generations as their readers see it, ignoring the members
 * their schema does not declare (spec §5.7): what a 1.0 reader keeps is a valid 1.0 card, what
 * a 0.3 reader keeps a valid 0.3 card. Returns the card and both readings.
 */
function dualCardOf(response: RawResponse): { card: DualCard; as10: AgentCard; as03: V03AgentCard } {
  expect(response.status).toBe(200);
  const card = JSON.parse(response.text) as DualCard;
  const read = <T>(family: typeof A2A_1_0 | typeof A2A_0_3, label: string): T => {
    const tolerant = checkValue(family as typeof A2A_1_0, 'AgentCard', card);
    expect(tolerant.ok ? [] : tolerant.violations, `${label} AgentCard, unknown members ignored`).toEqual([]);
    const kept = projectToSchema(family.document, 'AgentCard', card);
    const exact = checkValue(family as typeof A2A_1_0, 'AgentCard', kept, { flavour: 'exact' });
    expect(exact.ok ? [] : exact.violations, `${label} AgentCard`).toEqual([]);
    return kept as T;
  };
  return { card, as10: read<AgentCard>(A2A_1_0, '1.0'), as03: read<V03AgentCard>(A2A_0_3, '0.3') };
}

function plainCardOf(response: RawResponse): AgentCard {
  expect(response.status).toBe(200);
  const card = JSON.parse(response.text) as AgentCard;
  const verdict = checkValue(A2A_1_0, 'AgentCard', card, { flavour: 'exact' });
  expect(verdict.ok ? [] : verdict.violations, '1.0 AgentCard').toEqual([]);
  return card;
}

describe('the card a caller of either generation gets', () => {
  it('without A2A-Version: the whole 1.0 card and the whole 0.3 card in one, its 0.3 url the JSON-RPC endpoint', async () => {
    const { card, as10, as03 } = dualCardOf(await send(`${hub.url}/.well-known/agent-card.json`));
    const plain = plainCardOf(await send(`${hub.url}/.well-known/agent-card.json`, { headers: { 'a2a-version': '1.0' } }));
    // A 1.0 reader of the card without the header reads the 1.0 card, extendedAgentCard included (the TCK's CORE-CAP-003).
    expect(as10).toEqual(plain);
    expect(as10.capabilities.extendedAgentCard).toBe(true);
    expect(as03).toEqual(agentCardTo03(plain));
    expect(card).toMatchObject({
      protocolVersion: '0.3.0',
      url: hub.endpoint,
      preferredTransport: 'JSONRPC',
      additionalInterfaces: [
        { url: hub.endpoint, transport: 'JSONRPC' },
        { url: hub.endpoint, transport: 'HTTP+JSON' },
      ],
      supportsAuthenticatedExtendedCard: true,
      name: plain.name,
      skills: plain.skills,
    });
    expect(card.supportedInterfaces).toEqual(plain.supportedInterfaces);
    expect(card.supportedInterfaces.map((entry) => `${entry.protocolBinding} ${entry.protocolVersion}`)).toEqual([
      'JSONRPC 1.0',
      'HTTP+JSON 1.0',
      'JSONRPC 0.3',
      'HTTP+JSON 0.3',
    ]);
  });

  it('A2A-Version 0.3 (header or query, any patch) gets the same bytes; 1.0 and versions it does not know get the 1.0 card', async () => {
    const url = `${hub.endpoint}/agent-card.json`;
    const absent = await send(url);
    dualCardOf(absent);
    for (const response of [
      await send(url, { headers: { 'a2a-version': '0.3' } }),
      await send(url, { headers: { 'A2A-Version': '0.3.0' } }),
      await send(`${url}?A2A-Version=0.3`),
    ]) {
      expect(response.text).toBe(absent.text);
      expect(response.headers.get('etag')).toBe(absent.headers.get('etag'));
    }
    for (const version of ['1.0', '1.0.1', '2.0', 'nonsense']) {
      const card = plainCardOf(await send(url, { headers: { 'a2a-version': version } }));
      expect(card).not.toHaveProperty('url');
    }
  });

  it('each form has its own ETag, and the answer varies by A2A-Version', async () => {
    const url = `${hub.endpoint}/agent-card.json`;
    const absent = await send(url);
    const current = await send(url, { headers: { 'a2a-version': '1.0' } });
    expect(absent.headers.get('etag')).not.toBe(current.headers.get('etag'));
    for (const response of [absent, current]) expect(response.headers.get('vary')).toMatch(/\bA2A-Version\b/);
    // A cached copy of one form never validates the other.
    const revalidated = await send(url, { headers: { 'a2a-version': '1.0', 'if-none-match': absent.headers.get('etag') ?? '' } });
    expect(revalidated.status).toBe(200);
    expect((await send(url, { headers: { 'if-none-match': absent.headers.get('etag') ?? '' } })).status).toBe(304);
  });

  it('absentVersion "1.0" gives a caller that names no version the 1.0 card', async () => {
    const card = plainCardOf(await send(`${lenient.url}/.well-known/agent-card.json`));
    expect(card).not.toHaveProperty('protocolVersion');
    dualCardOf(await send(`${lenient.url}/.well-known/agent-card.json`, { headers: { 'a2a-version': '0.3' } }));
  });

  it('with a bearer token: each security scheme in both shapes, the requirements under both names', async () => {
    await hub.inbounds.setAuth('default', 'dual-stack-card-token');
    try {
      const { card, as10, as03 } = dualCardOf(await send(`${hub.url}/.well-known/agent-card.json`));
      const plain = plainCardOf(await send(`${hub.url}/.well-known/agent-card.json`, { headers: { 'a2a-version': '1.0' } }));
      expect(plain.securitySchemes).toBeDefined();
      expect(as10).toEqual(plain);
      expect(as03).toEqual(agentCardTo03(plain));
      const [name, scheme] = Object.entries(plain.securitySchemes ?? {})[0] ?? [];
      expect(card['securitySchemes']).toEqual({ [name ?? '']: { ...as03.securitySchemes?.[name ?? ''], ...scheme } });
      expect(card).toMatchObject({ securityRequirements: plain.securityRequirements, security: as03.security });
      expect(JSON.stringify(card)).not.toContain('dual-stack-card-token');
    } finally {
      await hub.inbounds.setAuth('default', undefined);
    }
  });

  it('an instance that serves named tenants only has no 0.3 interface, so every caller gets its 1.0 card', async () => {
    const created = await hub.inbounds.create({ name: 'Tenants only', description: 'acme', version: '1.0.0', tenants: ['acme'] });
    try {
      const card = plainCardOf(await send(`${hub.url}${created.endpointPath}/agent-card.json`));
      expect(card.supportedInterfaces.every((entry) => entry.protocolVersion === '1.0' && entry.tenant === 'acme')).toBe(true);
    } finally {
      await hub.inbounds.remove(created.id);
    }
  });
});
