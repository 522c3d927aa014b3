import { Writable } from 'node:stream';
import type { Context } from 'koa';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ControlEndpointTypes } from '../../generated/control/api.js';
import { ControlReplies } from '../../src/control/replies.js';
import type { LogFunction } from '../../src/support/log.js';
import { startTestHub, type TestHub } from '../helpers/hub.js';

function recorder(): { log: LogFunction; entries: { level: string; message: string; details?: Record<string, unknown> }[] } {
  const entries: { level: string; message: string; details?: Record<string, unknown> }[] = [];
  return { entries, log: (level, message, details) => entries.push({ level, message, ...(details === undefined ? {} : { details }) }) };
}

/** The members of a Koa context the replies write and read. */
function fakeContext(method = 'GET', path = '/a2a/api/whatever'): Context & { body: unknown } {
  return { method, path, status: 0, type: '', body: undefined } as unknown as Context & { body: unknown };
}

describe('ControlReplies checks every reply against spec/control', () => {
  it('sends a conforming reply and logs nothing', () => {
    const { log, entries } = recorder();
    const ctx = fakeContext();
    new ControlReplies({ selfCheck: true, log }).ok(ctx, 'GET /a2a/api/presets', [
      { id: 'echo', name: 'Echo', description: 'd', isDefault: true },
    ]);
    expect(ctx.status).toBe(200);
    expect(JSON.parse(String(ctx.body))).toEqual([{ id: 'echo', name: 'Echo', description: 'd', isDefault: true }]);
    expect(entries).toEqual([]);
  });

  it('logs a body that does not validate, naming the endpoint and the problem, and still sends it', () => {
    const { log, entries } = recorder();
    const ctx = fakeContext();
    const broken = [{ id: 'echo', name: 'Echo', isDefault: 'yes' }] as unknown as ControlEndpointTypes['GET /a2a/api/presets']['response'];
    new ControlReplies({ selfCheck: true, log }).ok(ctx, 'GET /a2a/api/presets', broken);
    expect(ctx.status).toBe(200);
    expect(entries).toHaveLength(1);
    expect(entries[0]).toMatchObject({ level: 'error', details: { endpoint: 'GET /a2a/api/presets', status: 200 } });
    expect(String((entries[0]?.details?.['problems'] as string[])[0])).toMatch(/^\/0\/isDefault must be boolean/);
  });

  it('logs a status the endpoint does not declare', () => {
    const { log, entries } = recorder();
    new ControlReplies({ selfCheck: true, log }).fail(fakeContext(), 'GET /a2a/api/presets', 404, { ok: false, message: 'no' });
    expect(entries.map((entry) => entry.details?.['problems'])).toEqual([
      ['status 404 is not one spec/control/api.json declares for GET /a2a/api/presets'],
    ]);
  });

  it('checks refusals of unknown paths as ReadError with a status from the status table', () => {
    const { log, entries } = recorder();
    const replies = new ControlReplies({ selfCheck: true, log });
    replies.refuse(fakeContext(), 404, 'nothing is served here');
    expect(entries).toEqual([]);
    replies.refuse(fakeContext(), 418, 'a teapot');
    expect(entries).toHaveLength(1);
  });

  it('checks nothing when selfCheck is off', () => {
    const { log, entries } = recorder();
    new ControlReplies({ selfCheck: false, log }).fail(fakeContext(), 'GET /a2a/api/presets', 404, { ok: false, message: 'no' });
    expect(entries).toEqual([]);
  });
});

describe('a running hub', () => {
  let hub: TestHub;
  const lines: string[] = [];
  beforeAll(async () => {
    const sink = new Writable({ write: (chunk: Buffer, _encoding, done) => (lines.push(chunk.toString()), done()) });
    hub = await startTestHub({ logger: pino({ level: 'warn' }, sink) });
  });
  afterAll(() => hub.dispose());

  it('answers every endpoint and refusal with replies that conform (nothing logged)', async () => {
    const paths = [
      '/a2a/api',
      '/a2a/api/presets',
      '/a2a/api/card?id=default',
      '/a2a/api/card?id=nope',
      '/a2a/api/card',
      '/a2a/api/task?id=nope',
      '/a2a/api/session?contextId=c&serverId=default',
      '/a2a/api/tools?format=openai',
      '/a2a/api/metrics',
      '/a2a/api/nowhere',
    ];
    for (const path of paths) await (await fetch(`${hub.url}${path}`)).text();
    await (await fetch(`${hub.url}/a2a/api/presets`, { method: 'DELETE' })).text();
    for (const body of [
      '{',
      '{"action":"inbound.close","id":"peer-none"}',
      '{"action":"nothing"}',
      '{"action":"inbound.sendTest","id":"default","text":"hello"}',
    ]) {
      await (await fetch(`${hub.url}/a2a/api`, { method: 'POST', headers: { 'content-type': 'application/json' }, body })).text();
    }
    expect(lines.filter((line) => line.includes('does not conform to spec/control'))).toEqual([]);
  });
});
