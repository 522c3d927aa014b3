import { describe, expect, it } from 'vitest';
import { belongsTo, cardCandidates, noCardFound, notTheAgentAsked } from '../../src/protocol/card-location.js';

const WELL_KNOWN = 'https://agents.example/.well-known/agent-card.json';

describe('the card that belongs to a URL', () => {
  it('is the well-known card for an origin, and the URL itself for the well-known URL', () => {
    expect(cardCandidates(new URL('https://agents.example'))).toEqual([{ url: WELL_KNOWN, source: 'well-known' }]);
    expect(cardCandidates(new URL(WELL_KNOWN))).toEqual([{ url: WELL_KNOWN, source: 'given' }]);
  });

  it("is tried at the URL, beside the endpoint it names, then at the origin's well-known path", () => {
    expect(cardCandidates(new URL('https://agents.example/a2a/x/'))).toEqual([
      { url: 'https://agents.example/a2a/x/', source: 'given' },
      { url: 'https://agents.example/a2a/x/agent-card.json', source: 'endpoint' },
      { url: WELL_KNOWN, source: 'well-known' },
    ]);
    // A card URL names no endpoint to look beside.
    expect(cardCandidates(new URL('https://agents.example/a2a/x/agent-card.json')).map((candidate) => candidate.source)).toEqual([
      'given',
      'well-known',
    ]);
  });

  it("takes the well-known card for another URL only when one of the card's interfaces is that URL", () => {
    const card = { name: 'rpc', supportedInterfaces: [{ url: 'https://agents.example/rpc/', protocolBinding: 'JSONRPC' }] };
    const wellKnown = { url: WELL_KNOWN, source: 'well-known' } as const;
    expect(belongsTo(new URL('https://agents.example/rpc'), wellKnown, card)).toBe(true);
    expect(belongsTo(new URL('https://agents.example/rpc#x'), wellKnown, card)).toBe(true);
    expect(belongsTo(new URL('https://agents.example/other'), wellKnown, card)).toBe(false);
    expect(belongsTo(new URL('https://agents.example/other'), wellKnown, { name: 'no interfaces' })).toBe(false);
    expect(belongsTo(new URL('https://agents.example'), wellKnown, { name: 'any' })).toBe(true);
    expect(belongsTo(new URL('https://agents.example/other'), { url: 'https://agents.example/other', source: 'given' }, card)).toBe(true);
  });

  it('names what was tried when refusing', () => {
    const asked = new URL('https://agents.example/a2a/nope');
    expect(notTheAgentAsked(asked, cardCandidates(asked))).toBe(
      `no agent card at https://agents.example/a2a/nope or https://agents.example/a2a/nope/agent-card.json; ${WELL_KNOWN} has one, so use that URL if you mean the agent it describes`,
    );
    expect(
      noCardFound(asked, [
        { url: 'a', problem: 'answered HTTP 405' },
        { url: 'b', problem: 'answered HTTP 404' },
        { url: 'c', problem: 'answered HTTP 404' },
      ]),
    ).toBe('no agent card found for https://agents.example/a2a/nope: a answered HTTP 405; b and c answered HTTP 404');
  });
});
