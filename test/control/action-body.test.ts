import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { validateActionFailure } from '../../generated/control/validators.js';
import { startTestHub, type TestHub } from '../helpers/hub.js';

/**
 * The control API reads its bodies with the same reader as the A2A endpoints: the same
 * byte-order-mark rule and the same refusals, each answered with a control-API status. It takes
 * plain JSON only (the A2A endpoints also take application/a2a+json).
 */
let hub: TestHub;
beforeAll(async () => {
  hub = await startTestHub();
});
afterAll(() => hub.dispose());

const UNKNOWN_PEER_ACTION = JSON.stringify({ action: 'inbound.close', id: 'peer-none' });

async function post(body: string, headers: Record<string, string>): Promise<{ status: number; json: unknown }> {
  const response = await fetch(`${hub.url}/a2a/api`, { method: 'POST', headers, body });
  expect(response.headers.get('content-type')).toMatch(/^application\/json/);
  const json: unknown = await response.json();
  return { status: response.status, json };
}

describe('control action bodies', () => {
  it('refuses a form-encoded body with 415 and an ActionFailure naming the accepted types', async () => {
    const answer = await post(UNKNOWN_PEER_ACTION, { 'content-type': 'application/x-www-form-urlencoded' });
    expect(answer.status).toBe(415);
    expect(validateActionFailure(answer.json)).toBe(true);
    expect((answer.json as { message: string }).message).toBe(
      'Content-Type must be application/json, got "application/x-www-form-urlencoded"',
    );
  });

  // An empty Content-Type stands for none: fetch would otherwise send text/plain for a string body.
  it.each(['application/json', 'application/json; charset=utf-8', 'Application/JSON', ''])(
    'reads Content-Type "%s" as JSON',
    async (type) => {
      const answer = await post(UNKNOWN_PEER_ACTION, { 'content-type': type });
      // A well-formed action for an unknown peer: read and run, then refused as an operation.
      expect(answer.status).toBe(409);
      expect(validateActionFailure(answer.json)).toBe(true);
    },
  );

  it('accepts a UTF-8 byte order mark before the JSON, as the A2A endpoints do', async () => {
    const answer = await post(`\uFEFF${UNKNOWN_PEER_ACTION}`, { 'content-type': 'application/json' });
    expect(answer.status).toBe(409);
    expect((answer.json as { message: string }).message).toMatch(/^no connected peer has id "peer-none"/);
  });

  it("refuses the A2A media type, which is not the control API's", async () => {
    expect((await post(UNKNOWN_PEER_ACTION, { 'content-type': 'application/a2a+json' })).status).toBe(415);
  });

  it('refuses an inbound.create naming an empty token variable, which would serve nothing', async () => {
    const answer = await post(JSON.stringify({ action: 'inbound.create', name: 'n', description: 'd', version: '1', authTokenEnv: '' }), {
      'content-type': 'application/json',
    });
    expect(answer.status).toBe(400);
    expect(validateActionFailure(answer.json)).toBe(true);
    expect((answer.json as { violations: { field: string }[] }).violations.map((violation) => violation.field)).toEqual(['authTokenEnv']);
  });

  it('answers a body that is not JSON with 400 and the position only, never the text', async () => {
    const answer = await post('{"action": "inbound.setAuth", "token": "s3cr3t', { 'content-type': 'application/json' });
    expect(answer.status).toBe(400);
    expect(validateActionFailure(answer.json)).toBe(true);
    expect(JSON.stringify(answer.json)).not.toContain('s3cr3t');
  });
});
