import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestHub } from '../helpers/hub.js';
import { startTestHub } from '../helpers/hub.js';
import { startSdkAgent, type SdkAgent } from '../interop/sdk-agent.js';
import { cardUrl, createOutbound, fails, ok, outboundRow, startLocalHub } from './helpers.js';

/**
 * An outbound connection's `binding`: which of the remote card's interfaces the hub speaks.
 * Without it the client takes the card's first binding it speaks; with it, that binding or a
 * connect error that names what the card offers.
 */

let remote: TestHub;
let jsonRpcOnly: SdkAgent;
let hub: TestHub;

beforeAll(async () => {
  [remote, jsonRpcOnly] = await Promise.all([startTestHub(), startSdkAgent({ bindings: ['JSONRPC'] })]);
  hub = await startLocalHub();
});
afterAll(async () => {
  await hub.dispose();
  await Promise.all([remote.dispose(), jsonRpcOnly.close()]);
});

describe('outbound binding choice', () => {
  it('speaks the binding it names, and the tool works over it', async () => {
    const plain = await createOutbound(hub.url, 'plain', cardUrl(remote));
    const rest = await createOutbound(hub.url, 'viarest', cardUrl(remote), { binding: 'HTTP+JSON' });
    expect(hub.outbounds.client(plain)?.client.protocolBinding).toBe('JSONRPC');
    expect(hub.outbounds.client(rest)?.client.protocolBinding).toBe('HTTP+JSON');
    const result = await hub.tools.call('a2a__viarest__chat', { prompt: 'over rest' });
    expect(result).toMatchObject({ state: 'TASK_STATE_COMPLETED', text: 'echo: over rest' });
  });

  it('outbound.update changes the binding and reconnects; "" goes back to the card order', async () => {
    const id = await createOutbound(hub.url, 'switch', cardUrl(remote));
    await ok(hub.url, { action: 'outbound.update', id, binding: 'HTTP+JSON' });
    expect(hub.outbounds.client(id)?.client.protocolBinding).toBe('HTTP+JSON');
    await ok(hub.url, { action: 'outbound.update', id, binding: '' });
    expect(hub.outbounds.client(id)?.client.protocolBinding).toBe('JSONRPC');
    expect(hub.outbounds.get(id)?.binding).toBeUndefined();
  });

  it('a binding the card does not offer is a connect error that says so', async () => {
    const answer = await fails(hub.url, { action: 'outbound.create', name: 'nope', agentCardUrl: jsonRpcOnly.url, binding: 'HTTP+JSON' });
    expect(answer.text).toMatch(/HTTP\+JSON/);
    const created = hub.outbounds.list().find((config) => config.name === 'nope');
    expect(created === undefined ? undefined : (await outboundRow(hub.url, created.id))?.state).not.toBe('connected');
  });

  it('a binding the hub does not speak is refused by the schema', async () => {
    const answer = await fails(hub.url, { action: 'outbound.create', name: 'grpc', agentCardUrl: cardUrl(remote), binding: 'GRPC' }, 400);
    expect(answer.text).toMatch(/binding/);
  });
});
