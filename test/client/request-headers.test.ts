import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { A2AClient } from '../../src/client/a2a-client.js';
import { requestHeaders } from '../../src/client/request-options.js';
import { fakeAgent, type FakeAgent } from './fake-agent.js';

describe('the headers every client request carries', () => {
  it('lets a caller override the version header in any spelling, without sending the default beside it', () => {
    expect(requestHeaders({ headers: { 'A2A-Version': '1.1' } })).toEqual({ 'a2a-version': '1.1' });
    expect(requestHeaders({})).toEqual({ 'a2a-version': '1.0' });
    expect(requestHeaders({ headers: { 'X-Trace': 't' }, token: 'secret' })).toEqual({
      'a2a-version': '1.0',
      'x-trace': 't',
      authorization: 'Bearer secret',
    });
  });

  let fake: FakeAgent;
  beforeAll(async () => {
    fake = await fakeAgent((call, res) => {
      res
        .writeHead(200, { 'content-type': 'application/json' })
        .end(JSON.stringify({ jsonrpc: '2.0', id: call.id, result: { id: 't', contextId: 'c', status: { state: 'TASK_STATE_WORKING' } } }));
    });
  });
  afterAll(() => fake.close());

  it('sends one A2A-Version value on the wire when the caller gives its own', async () => {
    const client = await A2AClient.connect(fake.url, { headers: { 'A2A-Version': '1.1' } });
    await client.getTask({ id: 't' });
    expect(fake.calls[0]?.headers['a2a-version']).toBe('1.1');
  });
});
