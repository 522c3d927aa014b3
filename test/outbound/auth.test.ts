import { randomBytes } from 'node:crypto';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestHub, type TestHub } from '../helpers/hub.js';
import { cardUrl, createOutbound, fails, ok, outboundRow, post, snapshot, startLocalHub, toolList } from './helpers.js';

/**
 * Bearer tokens for remotes that require one: outbound.setAuth and bearerTokenEnv against an
 * a2a-hub instance with a token. A missing or wrong token is a connect failure with the 401;
 * the token never shows in a row, a message, an error, a tool list or a log line.
 */

/** Random from the first character, so that even a prefix of it in a body is a leak. */
const TOKEN = randomBytes(16).toString('hex');
const WRONG = randomBytes(16).toString('hex');
const logLines: string[] = [];

let remote: TestHub;
let hub: TestHub;
let base: string;
let guarded: string;
/** Every body the control API answered in these tests, to search for the tokens at the end. */
const bodies: string[] = [];

beforeAll(async () => {
  remote = await startTestHub();
  guarded = (await remote.inbounds.create({ name: 'guarded', description: 'needs a token', version: '1.0.0' })).id;
  await remote.inbounds.setAuth(guarded, TOKEN);
  hub = await startLocalHub({
    logger: pino({ level: 'trace' }, { write: (line: string) => void logLines.push(line) }),
    env: { GUARDED_TOKEN: TOKEN },
  });
  base = hub.url;
});
afterAll(async () => {
  await hub.dispose();
  await remote.dispose();
});

const keep = <T extends { text: string }>(answer: T): T => {
  bodies.push(answer.text);
  return answer;
};

describe('a remote that requires a bearer token', () => {
  it('create without a token fails with the 401 and creates nothing', async () => {
    const failure = keep(await fails(base, { action: 'outbound.create', name: 'guarded', agentCardUrl: cardUrl(remote, guarded) }));
    expect(failure.message).toMatch(
      /^could not connect to .*: the endpoint .* answered HTTP 401 \(this agent requires Authorization: Bearer <token>\): no bearer token is set; set one with outbound.setAuth; nothing was created/,
    );
    expect((await snapshot(base)).outbounds).toEqual([]);
  });

  it('setAuth: a wrong token leaves state error with the 401, the right one connects, an empty one clears it', async () => {
    const id = await createOutbound(base, 'guarded', cardUrl(remote, guarded), { enabled: false });
    const enable = keep(await fails(base, { action: 'outbound.enable', id }));
    expect(enable.message).toMatch(/HTTP 401/);
    expect(await outboundRow(base, id)).toMatchObject({ state: 'error', authEnabled: false, toolCount: 0 });

    const wrong = keep(await ok(base, { action: 'outbound.setAuth', id, token: WRONG }));
    expect(wrong.message).toMatch(
      /^bearer token set for outbound connection "guarded"; reconnecting failed: the endpoint .* answered HTTP 401 \(the bearer token is not valid for this agent\): the bearer token was refused; set one with outbound.setAuth\. The connection is in state error and is retried in the background$/,
    );
    const refused = await outboundRow(base, id);
    expect(refused).toMatchObject({ state: 'error', authEnabled: true });
    expect(refused?.error).toMatch(/HTTP 401/);

    const right = keep(await ok(base, { action: 'outbound.setAuth', id, token: TOKEN }));
    expect(right.message).toBe('bearer token set for outbound connection "guarded"; reconnected: 1 skill, 1 tool');
    expect(await outboundRow(base, id)).toMatchObject({ state: 'connected', authEnabled: true, toolCount: 1 });
    expect(await hub.tools.call('a2a__guarded__chat', { prompt: 'with a token' })).toMatchObject({
      state: 'TASK_STATE_COMPLETED',
      text: 'echo: with a token',
    });

    const cleared = keep(await ok(base, { action: 'outbound.setAuth', id, token: '' }));
    expect(cleared.message).toMatch(
      /^bearer token cleared for outbound connection "guarded"; reconnecting failed: .*HTTP 401.*no bearer token is set/,
    );
    expect(await outboundRow(base, id)).toMatchObject({ state: 'error', authEnabled: false });
    keep(await ok(base, { action: 'outbound.remove', id }));
  });

  it('setAuth on a disabled connection stores the token without connecting', async () => {
    const id = await createOutbound(base, 'later', cardUrl(remote, guarded), { enabled: false });
    expect(keep(await ok(base, { action: 'outbound.setAuth', id, token: TOKEN })).message).toBe(
      'bearer token set for outbound connection "later"',
    );
    expect(await outboundRow(base, id)).toMatchObject({ state: 'disabled', authEnabled: true });
    expect(keep(await ok(base, { action: 'outbound.enable', id })).message).toBe(
      'outbound connection "later" enabled and connected: 1 skill, 1 tool',
    );
    keep(await ok(base, { action: 'outbound.remove', id }));
  });

  it('bearerTokenEnv reads the token from the environment, and names the variable when it is not set', async () => {
    const id = await createOutbound(base, 'from-env', cardUrl(remote, guarded), { bearerTokenEnv: 'GUARDED_TOKEN' });
    expect(await outboundRow(base, id)).toMatchObject({ state: 'connected', bearerTokenEnv: 'GUARDED_TOKEN', authEnabled: true });
    const unset = keep(
      await fails(base, {
        action: 'outbound.create',
        name: 'unset',
        agentCardUrl: cardUrl(remote, guarded),
        bearerTokenEnv: 'NO_SUCH_VARIABLE',
      }),
    );
    expect(unset.message).toMatch(
      /bearerTokenEnv names NO_SUCH_VARIABLE, which is not set in the hub's environment; set it and run outbound.refresh, or set a token with outbound.setAuth/,
    );
    // setAuth with no token clears bearerTokenEnv too.
    keep(await ok(base, { action: 'outbound.setAuth', id }));
    const row = await outboundRow(base, id);
    expect(row).toMatchObject({ authEnabled: false, state: 'error' });
    expect(row).not.toHaveProperty('bearerTokenEnv');
    keep(await ok(base, { action: 'outbound.remove', id }));
  });

  it('discover sends the token it is given and does not echo it', async () => {
    const answer = keep(await ok(base, { action: 'outbound.discover', agentCardUrl: cardUrl(remote, guarded), token: TOKEN }));
    expect(answer.preview?.name).toBe('guarded');
  });
});

describe('the token', () => {
  it('is stored for the connection (it must be sent), in the data dir', async () => {
    const id = await createOutbound(base, 'stored', cardUrl(remote, guarded), { enabled: false });
    keep(await ok(base, { action: 'outbound.setAuth', id, token: TOKEN }));
    expect((await hub.store.loadOutbounds()).find((stored) => stored.id === id)?.config['token']).toBe(TOKEN);
  });

  it('appears in no snapshot, tool list, action answer, error body or log line', async () => {
    const reads = [(await snapshot(base)).text, JSON.stringify(await toolList(base)), JSON.stringify(await toolList(base, 'openai'))];
    // A malformed body quoting the token is refused without quoting it back.
    const malformed = await fetch(`${base}/a2a/api`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: `{"action":"outbound.setAuth","id":"x","token":"${TOKEN}"`,
    });
    const unknownId = await post(base, { action: 'outbound.setAuth', id: 'out-00000000-000', token: TOKEN });
    expect(unknownId.status).toBe(409);
    const everything = [...reads, ...bodies, await malformed.text(), unknownId.text, logLines.join('\n')];
    expect(bodies.length).toBeGreaterThan(10);
    expect(logLines.length).toBeGreaterThan(0);
    for (const text of everything) {
      expect(text).not.toContain(TOKEN.slice(0, 12));
      expect(text).not.toContain(WRONG.slice(0, 12));
    }
  });
});
