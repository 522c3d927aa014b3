import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rpc, userMessage } from '../helpers/a2a-client.js';
import { startTestHub, type TestHub } from '../helpers/hub.js';

/*
 * A raw file part as large as the body limit allows is validated in constant stack: the base64
 * pattern of `Bytes` once overflowed V8's stack from about 3 MiB decoded, and a valid request
 * was answered -32603 (docs/spec-policy.md 2.7).
 */

let hub: TestHub;
beforeAll(async () => {
  hub = await startTestHub({ store: 'memory', bodyLimitBytes: 16 * 1024 * 1024 });
});
afterAll(async () => {
  await hub.dispose();
});

/** A message carrying `mib` MiB of raw bytes (base64 on the wire) beside its text. */
function withRaw(mib: number, extra = ''): ReturnType<typeof userMessage> {
  const raw = Buffer.alloc(mib * 1024 * 1024 + 1, 0x5a).toString('base64') + extra;
  const message = userMessage('a large attachment');
  return { ...message, parts: [...message.parts, { raw, mediaType: 'application/octet-stream', filename: 'blob.bin' }] };
}

describe('large raw parts', () => {
  it.each([4, 8])('%i MiB is accepted over JSON-RPC', { timeout: 60_000 }, async (mib) => {
    const answer = await rpc(hub.endpoint, 'SendMessage', { message: withRaw(mib) });
    expect(answer.body.error).toBeUndefined();
    expect(answer.body.result?.task?.status.state).toBe('TASK_STATE_COMPLETED');
  });

  it('8 MiB is accepted over HTTP+JSON', { timeout: 60_000 }, async () => {
    const response = await fetch(`${hub.endpoint}/message:send`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'a2a-version': '1.0' },
      body: JSON.stringify({ message: withRaw(8) }),
    });
    expect(response.status, (await response.clone().text()).slice(0, 300)).toBe(200);
  });

  it('8 MiB that is not base64 is refused with -32602 naming the part, not an internal error', { timeout: 60_000 }, async () => {
    const answer = await rpc(hub.endpoint, 'SendMessage', { message: withRaw(8, '!') });
    expect(answer.body.error?.code).toBe(-32602);
    expect(answer.body.error?.message).toMatch(/parts\[1\]\.raw/);
  });
});
