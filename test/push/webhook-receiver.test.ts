import { afterEach, describe, expect, it } from 'vitest';
import type { StreamResponse } from '../../generated/a2a/1.0/types.js';
// Through the public API: the receiver and the signer are what library users import.
import {
  generateSigningSecret,
  signWebhook,
  startWebhookReceiver,
  type WebhookDelivery,
  type WebhookReceiver,
  type WebhookReceiverOptions,
} from '../../src/index.js';

const SECRET = generateSigningSecret();

const STATUS_UPDATE: StreamResponse = {
  statusUpdate: { taskId: 'task-1', contextId: 'ctx-1', status: { state: 'TASK_STATE_WORKING' } },
};

let receiver: WebhookReceiver | undefined;
afterEach(async () => {
  await receiver?.close();
  receiver = undefined;
});

async function start(options: WebhookReceiverOptions = {}): Promise<WebhookReceiver> {
  receiver = await startWebhookReceiver(options);
  return receiver;
}

/** POSTs `frame` as the hub would, signed with `secret` unless it is null. */
async function deliver(
  url: string,
  frame: unknown,
  { secret = SECRET, id = 'msg_1', headers = {} }: { secret?: string | null; id?: string; headers?: Record<string, string> } = {},
): Promise<{ status: number; body: string }> {
  const body = typeof frame === 'string' ? frame : JSON.stringify(frame);
  const signed = secret === null ? {} : signWebhook(secret, id, body, Date.now() / 1000);
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/a2a+json', ...signed, ...headers },
    body,
  });
  return { status: response.status, body: await response.text() };
}

/** The reason in a refusal's JSON body. */
function errorOf(body: string): string {
  return (JSON.parse(body) as { error: string }).error;
}

function only(hub: WebhookReceiver): WebhookDelivery {
  expect(hub.deliveries).toHaveLength(1);
  return hub.deliveries[0] as WebhookDelivery;
}

describe('startWebhookReceiver', () => {
  it('listens on 127.0.0.1 on a free port, accepts a signed StreamResponse with 204 and records what it was about', async () => {
    const seen: WebhookDelivery[] = [];
    const hub = await start({ secret: SECRET, onDelivery: (delivery) => seen.push(delivery) });
    expect(hub.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/$/);
    expect(await deliver(`${hub.url}hooks/a2a`, STATUS_UPDATE, { headers: { authorization: 'Bearer abc' } })).toEqual({
      status: 204,
      body: '',
    });
    const delivery = only(hub);
    expect(delivery).toMatchObject({
      path: '/hooks/a2a',
      status: 204,
      signature: 'ok',
      webhookId: 'msg_1',
      duplicate: false,
      frame: STATUS_UPDATE,
      summary: { kind: 'statusUpdate', taskId: 'task-1', contextId: 'ctx-1', state: 'TASK_STATE_WORKING' },
    });
    expect(delivery.reason).toBeUndefined();
    expect(delivery.headers.authorization).toBe('Bearer abc');
    expect(seen).toEqual([delivery]);
  });

  it('summarises each kind of frame', async () => {
    const hub = await start();
    const frames: StreamResponse[] = [
      { task: { id: 'task-2', contextId: 'ctx-2', status: { state: 'TASK_STATE_COMPLETED' } } },
      { artifactUpdate: { taskId: 'task-2', contextId: 'ctx-2', artifact: { artifactId: 'art-1', parts: [{ text: 'hi' }] } } },
      { message: { messageId: 'm-1', role: 'ROLE_AGENT', parts: [{ text: 'hello' }], taskId: 'task-2' } },
      { message: { messageId: 'm-2', role: 'ROLE_AGENT', parts: [{ text: 'no task' }] } },
    ];
    for (const [index, frame] of frames.entries()) expect((await deliver(hub.url, frame, { id: `msg_${index}` })).status).toBe(204);
    expect(hub.deliveries.map((delivery) => delivery.summary)).toEqual([
      { kind: 'task', taskId: 'task-2', contextId: 'ctx-2', state: 'TASK_STATE_COMPLETED' },
      { kind: 'artifactUpdate', taskId: 'task-2', contextId: 'ctx-2', artifactId: 'art-1' },
      { kind: 'message', taskId: 'task-2' },
      { kind: 'message' },
    ]);
    // Without a secret nothing is checked, whatever headers came.
    expect(hub.deliveries.map((delivery) => delivery.signature)).toEqual(['none', 'none', 'none', 'none']);
  });

  it('marks a webhook-id it already accepted as a duplicate', async () => {
    const hub = await start({ secret: SECRET });
    await deliver(hub.url, STATUS_UPDATE, { id: 'msg_same' });
    await deliver(hub.url, STATUS_UPDATE, { id: 'msg_same' });
    await deliver(hub.url, STATUS_UPDATE, { id: 'msg_other' });
    expect(hub.deliveries.map((delivery) => [delivery.webhookId, delivery.duplicate])).toEqual([
      ['msg_same', false],
      ['msg_same', true],
      ['msg_other', false],
    ]);
  });

  it('refuses a bad or missing signature with 401 and a JSON reason', async () => {
    const hub = await start({ secret: SECRET });
    const wrongKey = await deliver(hub.url, STATUS_UPDATE, { secret: generateSigningSecret() });
    expect(wrongKey.status).toBe(401);
    expect(JSON.parse(wrongKey.body)).toEqual({ error: 'signature: no v1 signature matches the body' });
    const unsigned = await deliver(hub.url, STATUS_UPDATE, { secret: null });
    expect(unsigned.status).toBe(401);
    expect(JSON.parse(unsigned.body)).toEqual({ error: 'signature: missing every webhook-* header' });
    const stale = await deliver(hub.url, STATUS_UPDATE, {
      headers: signWebhook(SECRET, 'msg_old', JSON.stringify(STATUS_UPDATE), Date.now() / 1000 - 3600),
    });
    expect(stale.status).toBe(401);
    expect(stale.body).toContain('webhook-timestamp is more than 300 s from now');
    expect(hub.deliveries.map((delivery) => [delivery.status, delivery.signature])).toEqual([
      [401, 'bad'],
      [401, 'bad'],
      [401, 'bad'],
    ]);
    // A body whose signature fails is not trusted, so it is not parsed either.
    expect(hub.deliveries[0]?.summary).toBeUndefined();
  });

  it('refuses another media type with 415', async () => {
    const hub = await start();
    const plain = await deliver(hub.url, STATUS_UPDATE, { headers: { 'content-type': 'application/json' } });
    expect(plain.status).toBe(415);
    expect(JSON.parse(plain.body)).toEqual({ error: 'Content-Type is "application/json"; a push notification is application/a2a+json' });
    const withCharset = await deliver(hub.url, STATUS_UPDATE, { headers: { 'content-type': 'application/a2a+json; charset=utf-8' } });
    expect(withCharset.status).toBe(204);
  });

  it('refuses a body that is not one StreamResponse with 400, naming the field', async () => {
    const hub = await start();
    const notJson = await deliver(hub.url, '{"statusUpdate":');
    expect(notJson.status).toBe(400);
    expect(errorOf(notJson.body)).toMatch(/^the body is not JSON: /);
    const two = await deliver(hub.url, { ...STATUS_UPDATE, task: { id: 't', contextId: 'c', status: { state: 'TASK_STATE_WORKING' } } });
    expect(two.status).toBe(400);
    expect(errorOf(two.body)).toMatch(/^the body is not one StreamResponse: /);
    const missing = await deliver(hub.url, { statusUpdate: { contextId: 'ctx-1', status: { state: 'TASK_STATE_WORKING' } } });
    expect(missing.status).toBe(400);
    expect(errorOf(missing.body)).toContain('statusUpdate.taskId');
    const badState = await deliver(hub.url, { statusUpdate: { taskId: 't', contextId: 'c', status: { state: 'DONE' } } });
    expect(badState.status).toBe(400);
    expect(errorOf(badState.body)).toContain('statusUpdate.status.state');
    expect(hub.deliveries.map((delivery) => delivery.status)).toEqual([400, 400, 400, 400]);
  });

  it('checks the signature over the raw bytes and refuses a body that is not UTF-8 with 400', async () => {
    const hub = await start({ secret: SECRET });
    const bytes = Buffer.concat([Buffer.from(JSON.stringify(STATUS_UPDATE).slice(0, -1)), Buffer.from([0xff]), Buffer.from('}')]);
    const post = (signedBytes: Buffer) =>
      fetch(hub.url, {
        method: 'POST',
        headers: { 'content-type': 'application/a2a+json', ...signWebhook(SECRET, 'msg_raw', signedBytes, Date.now() / 1000) },
        body: bytes,
      });
    // Signed over other bytes that decode to the same text: the signature does not match.
    const lookalike = Buffer.from(bytes);
    lookalike[lookalike.length - 2] = 0xfe;
    const forged = await post(lookalike);
    expect(forged.status).toBe(401);
    const genuine = await post(bytes);
    expect(genuine.status).toBe(400);
    expect(errorOf(await genuine.text())).toBe('the body is not valid UTF-8');
    expect(hub.deliveries.map((delivery) => [delivery.status, delivery.signature])).toEqual([
      [401, 'bad'],
      [400, 'ok'],
    ]);
  });

  it('keeps the newest historyLimit deliveries and still marks a recent retry as a duplicate', async () => {
    const hub = await start({ historyLimit: 3 });
    const send = (id: string) => deliver(hub.url, STATUS_UPDATE, { id });
    for (let n = 1; n <= 5; n += 1) expect((await send(`msg_${n}`)).status).toBe(204);
    expect(hub.deliveries.map((delivery) => delivery.webhookId)).toEqual(['msg_3', 'msg_4', 'msg_5']);
    await send('msg_5');
    await send('msg_1');
    expect(hub.deliveries.slice(-2).map((delivery) => [delivery.webhookId, delivery.duplicate])).toEqual([
      ['msg_5', true],
      ['msg_1', false],
    ]);
    await expect(startWebhookReceiver({ historyLimit: 0 })).rejects.toThrow(/historyLimit/);
  });

  it('checks the expected task id', async () => {
    const hub = await start({ expectTaskId: 'task-1' });
    expect((await deliver(hub.url, STATUS_UPDATE)).status).toBe(204);
    const other = await deliver(hub.url, { statusUpdate: { ...STATUS_UPDATE.statusUpdate, taskId: 'task-9' } });
    expect(other.status).toBe(400);
    expect(JSON.parse(other.body)).toEqual({ error: 'the delivery carries task id "task-9", not the expected "task-1"' });
    const none = await deliver(hub.url, { message: { messageId: 'm', role: 'ROLE_AGENT', parts: [{ text: 'x' }] } });
    expect(JSON.parse(none.body)).toEqual({ error: 'the delivery carries no task id, not the expected "task-1"' });
    expect(hub.deliveries[1]?.summary?.taskId).toBe('task-9');
  });

  it('answers good deliveries with answerStatus, for testing a sender’s retries', async () => {
    const hub = await start({ answerStatus: 503 });
    expect((await deliver(hub.url, STATUS_UPDATE, { id: 'msg_r' })).status).toBe(503);
    expect((await deliver(hub.url, STATUS_UPDATE, { id: 'msg_r' })).status).toBe(503);
    // A refused attempt was not accepted, so its retry is no duplicate.
    expect(hub.deliveries.map((delivery) => delivery.duplicate)).toEqual([false, false]);
  });

  it('answers 405 to anything but POST and records nothing', async () => {
    const hub = await start();
    const response = await fetch(hub.url);
    expect(response.status).toBe(405);
    expect(response.headers.get('allow')).toBe('POST');
    expect(hub.deliveries).toEqual([]);
  });
});
