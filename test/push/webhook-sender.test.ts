import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo, LookupFunction } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import type { StreamResponse } from '../../generated/a2a/1.0/types.js';
import { pushDestinationPolicy, type UrlPolicy } from '../../src/net/destination-policy.js';
import { guardedAgent } from '../../src/net/guarded-agent.js';
import { generateSigningSecret, verifyWebhook } from '../../src/push/signature.js';
import { startWebhookReceiver, type WebhookReceiver } from '../../src/push/webhook-receiver.js';
import { WebhookSender, type WebhookAttempt, type WebhookRequest } from '../../src/push/webhook-sender.js';

/**
 * The sender over real HTTP, against receivers on 127.0.0.1 only: the default push policy refuses
 * them (so a refusal is proven by a receiver that counted no request), and a policy that allows
 * loopback and plain http reaches them.
 */

const SIGNING_SECRET = generateSigningSecret();
const TOKEN = 'notification-token-4f1c';
const CREDENTIALS = 'credentials-9d2e';
const FRAME: StreamResponse = { statusUpdate: { taskId: 'task-1', contextId: 'ctx-1', status: { state: 'TASK_STATE_WORKING' } } };
const SECRETS = [SIGNING_SECRET, SIGNING_SECRET.slice('whsec_'.length), TOKEN, CREDENTIALS];

/** What the tests that must reach a receiver configure: plain http to loopback, nothing else relaxed. */
const LOOPBACK_HTTP = pushDestinationPolicy({ allowedSchemes: ['http'], allowLoopback: true });

function sender(policy: UrlPolicy, options: { timeoutMs?: number; lookup?: LookupFunction; nowMs?: () => number } = {}): WebhookSender {
  return new WebhookSender({
    policy,
    dispatcher: guardedAgent(policy, options.lookup),
    timeoutMs: options.timeoutMs ?? 5_000,
    ...(options.nowMs === undefined ? {} : { nowMs: options.nowMs }),
  });
}

function webhook(url: string, overrides: Partial<WebhookRequest> = {}): WebhookRequest {
  return {
    url,
    body: JSON.stringify(FRAME),
    webhookId: 'msg_1',
    signingSecret: SIGNING_SECRET,
    authentication: { scheme: 'Bearer', credentials: CREDENTIALS },
    token: TOKEN,
    ...overrides,
  };
}

/** No secret of the webhook in anything an attempt reports. */
function expectNoSecret(attempt: WebhookAttempt): void {
  const shown = JSON.stringify(attempt);
  for (const secret of SECRETS) expect(shown).not.toContain(secret);
}

interface Scripted {
  readonly url: string;
  readonly requests: { readonly path: string; readonly headers: IncomingHttpHeaders }[];
}

type Script = { readonly status: number; readonly headers?: Record<string, string> } | 'never answer';

const servers: Server[] = [];
const receivers: WebhookReceiver[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
  for (const receiver of receivers.splice(0)) await receiver.close();
});

/** A loopback server answering every request per `script`, counting what it received. */
async function scripted(script: Script): Promise<Scripted> {
  const requests: Scripted['requests'][number][] = [];
  const server = createServer((req, res) => {
    requests.push({ path: req.url ?? '/', headers: req.headers });
    req.resume();
    if (script === 'never answer') return;
    res.writeHead(script.status, script.headers).end();
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`, requests };
}

async function receiver(): Promise<WebhookReceiver> {
  const started = await startWebhookReceiver({ secret: SIGNING_SECRET, expectTaskId: 'task-1' });
  receivers.push(started);
  return started;
}

describe('the destination policy, before and at dial time', () => {
  it('refuses a loopback receiver under the default push policy, which receives nothing', async () => {
    const target = await scripted({ status: 204 });
    const byScheme = await sender(pushDestinationPolicy()).send(webhook(target.url));
    expect(byScheme).toMatchObject({ outcome: 'refused' });
    expect(byScheme.error).toContain('scheme "http" is not in push.destinations.allowedSchemes');
    const byAddress = await sender(pushDestinationPolicy({ allowedSchemes: ['http'] })).send(webhook(target.url));
    expect(byAddress).toMatchObject({ outcome: 'refused' });
    expect(byAddress.error).toContain(
      '127.0.0.0/8 loopback; set push.destinations.allowLoopback: true, or add its range to push.destinations.allowedCidrs, to allow it',
    );
    expect(byAddress.status).toBeUndefined();
    for (const attempt of [byScheme, byAddress]) expectNoSecret(attempt);
    expect(target.requests).toHaveLength(0);
  });

  it('reaches the same receiver once loopback and http are allowed', async () => {
    const target = await scripted({ status: 204 });
    expect(await sender(LOOPBACK_HTTP).send(webhook(target.url))).toMatchObject({ outcome: 'delivered', status: 204 });
    expect(
      await sender(pushDestinationPolicy({ allowedSchemes: ['http'], allowedCidrs: ['127.0.0.1'] })).send(webhook(target.url)),
    ).toMatchObject({
      outcome: 'delivered',
    });
    expect(target.requests).toHaveLength(2);
  });

  it('refuses 0.0.0.0, which would reach the loopback receiver, even when private addresses are allowed', async () => {
    const target = await scripted({ status: 204 });
    const url = target.url.replace('127.0.0.1', '0.0.0.0');
    const attempt = await sender(pushDestinationPolicy({ allowedSchemes: ['http'], allowPrivate: true })).send(webhook(url));
    expect(attempt.outcome).toBe('refused');
    expect(attempt.error).toContain('0.0.0.0/32 unspecified (reaches this machine); set push.destinations.allowLoopback: true');
    expect(target.requests).toHaveLength(0);
  });

  it('refuses localhost by default, by name', async () => {
    const target = await scripted({ status: 204 });
    const url = target.url.replace('127.0.0.1', 'localhost');
    const attempt = await sender(pushDestinationPolicy({ allowedSchemes: ['http'] })).send(webhook(url));
    expect(attempt.outcome).toBe('refused');
    expect(attempt.error).toContain('localhost');
    expect(target.requests).toHaveLength(0);
  });

  it('refuses a hostname once it resolves to loopback, at dial time, and connects when allowed', async () => {
    const target = await scripted({ status: 204 });
    const lookups: string[] = [];
    const lookup: LookupFunction = (hostname, options, callback) => {
      lookups.push(hostname);
      if (options.all === true) callback(null, [{ address: '127.0.0.1', family: 4 }]);
      else callback(null, '127.0.0.1', 4);
    };
    const url = target.url.replace('127.0.0.1', 'hooks.test');
    const refused = await sender(pushDestinationPolicy({ allowedSchemes: ['http'] }), { lookup }).send(webhook(url));
    expect(refused.outcome).toBe('refused');
    expect(refused.error).toBe(
      'URL policy: hooks.test (127.0.0.1) is refused: 127.0.0.0/8 loopback; set push.destinations.allowLoopback: true, or add its range to push.destinations.allowedCidrs, to allow it',
    );
    expect(target.requests).toHaveLength(0);
    expect(await sender(LOOPBACK_HTTP, { lookup }).send(webhook(url))).toMatchObject({ outcome: 'delivered' });
    expect(target.requests).toHaveLength(1);
    expect(lookups).toEqual(['hooks.test', 'hooks.test']);
  });
});

describe('what the receiver gets', () => {
  it('one signed POST of the StreamResponse, with the content type, Authorization and the notification token', async () => {
    const hub = await receiver();
    const nowMs = 1_780_000_000_000;
    const attempt = await sender(LOOPBACK_HTTP).send(webhook(`${hub.url}a2a/push`, { webhookId: 'msg_headers' }));
    expect(attempt).toMatchObject({ outcome: 'delivered', status: 204 });
    expect(hub.deliveries).toHaveLength(1);
    const delivery = hub.deliveries[0];
    expect(delivery).toMatchObject({ path: '/a2a/push', status: 204, signature: 'ok', webhookId: 'msg_headers', frame: FRAME });
    expect(delivery?.summary).toEqual({ kind: 'statusUpdate', taskId: 'task-1', contextId: 'ctx-1', state: 'TASK_STATE_WORKING' });
    const headers = delivery?.headers ?? {};
    expect(headers['content-type']).toBe('application/a2a+json');
    expect(headers.authorization).toBe(`Bearer ${CREDENTIALS}`);
    expect(headers['a2a-notification-token']).toBe(TOKEN);
    expect(headers['webhook-id']).toBe('msg_headers');
    expect(headers['webhook-timestamp']).toMatch(/^\d+$/);
    expect(headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]+=*$/);
    expect(verifyWebhook({ secret: SIGNING_SECRET, body: delivery?.body ?? '', headers })).toMatchObject({ ok: true, id: 'msg_headers' });
    // The timestamp is the attempt's own: a clock given to the sender is what it signs with.
    const later = await sender(LOOPBACK_HTTP, { nowMs: () => nowMs }).send(webhook(hub.url, { webhookId: 'msg_clock' }));
    expect(later.status).toBe(401);
    expect(hub.deliveries[1]?.webhookTimestamp).toBe(String(nowMs / 1000));
  });

  it('sends the scheme alone when there are no credentials, and no token header without a token', async () => {
    const hub = await receiver();
    const { token: _token, ...withoutToken } = webhook(hub.url, { authentication: { scheme: 'Basic' } });
    expect(await sender(LOOPBACK_HTTP).send(withoutToken)).toMatchObject({ outcome: 'delivered' });
    const headers = hub.deliveries[0]?.headers ?? {};
    expect(headers.authorization).toBe('Basic');
    expect(headers['a2a-notification-token']).toBeUndefined();
  });

  it('keeps the webhook-id across retries and signs each attempt', async () => {
    const hub = await receiver();
    const send = sender(LOOPBACK_HTTP);
    await send.send(webhook(hub.url, { webhookId: 'msg_retry' }));
    await send.send(webhook(hub.url, { webhookId: 'msg_retry' }));
    expect(hub.deliveries.map((delivery) => [delivery.webhookId, delivery.signature, delivery.duplicate])).toEqual([
      ['msg_retry', 'ok', false],
      ['msg_retry', 'ok', true],
    ]);
  });
});

describe('what an answer means', () => {
  it('does not follow a 302 to another loopback server: that server gets nothing, and the attempt failed', async () => {
    const elsewhere = await scripted({ status: 204 });
    const redirecting = await scripted({ status: 302, headers: { location: elsewhere.url } });
    const attempt = await sender(LOOPBACK_HTTP).send(webhook(redirecting.url));
    expect(attempt).toMatchObject({ outcome: 'failed', status: 302, error: 'HTTP 302: redirects are not followed' });
    expect(redirecting.requests).toHaveLength(1);
    expect(elsewhere.requests).toHaveLength(0);
    const temporary = await scripted({ status: 307, headers: { location: elsewhere.url } });
    expect(await sender(LOOPBACK_HTTP).send(webhook(temporary.url))).toMatchObject({ outcome: 'failed', status: 307 });
    expect(elsewhere.requests).toHaveLength(0);
  });

  it('retries after 503 with Retry-After in seconds', async () => {
    const target = await scripted({ status: 503, headers: { 'retry-after': '7' } });
    expect(await sender(LOOPBACK_HTTP).send(webhook(target.url))).toMatchObject({ outcome: 'retry', status: 503, retryAfterMs: 7_000 });
  });

  it('retries after 429 with Retry-After as an HTTP-date', async () => {
    const nowMs = Date.UTC(2026, 11, 2, 8, 0, 0);
    const target = await scripted({ status: 429, headers: { 'retry-after': new Date(nowMs + 120_000).toUTCString() } });
    expect(await sender(LOOPBACK_HTTP, { nowMs: () => nowMs }).send(webhook(target.url))).toMatchObject({
      outcome: 'retry',
      status: 429,
      retryAfterMs: 120_000,
    });
    // A date already past means "now", not a negative delay.
    const past = await scripted({ status: 429, headers: { 'retry-after': new Date(nowMs - 60_000).toUTCString() } });
    expect(await sender(LOOPBACK_HTTP, { nowMs: () => nowMs }).send(webhook(past.url))).toMatchObject({
      outcome: 'retry',
      retryAfterMs: 0,
    });
  });

  it('retries 408, 500 and a 503 without Retry-After, leaving the delay to the backoff', async () => {
    for (const status of [408, 500, 503]) {
      const target = await scripted({ status });
      const attempt = await sender(LOOPBACK_HTTP).send(webhook(target.url));
      expect(attempt, String(status)).toMatchObject({ outcome: 'retry', status, error: `HTTP ${status}` });
      expect(attempt.retryAfterMs, String(status)).toBeUndefined();
    }
    const nonsense = await scripted({ status: 503, headers: { 'retry-after': 'soon' } });
    expect((await sender(LOOPBACK_HTTP).send(webhook(nonsense.url))).retryAfterMs).toBeUndefined();
  });

  it('disables the config on 410 Gone', async () => {
    const target = await scripted({ status: 410 });
    expect(await sender(LOOPBACK_HTTP).send(webhook(target.url))).toMatchObject({ outcome: 'disabled', status: 410 });
  });

  it('fails the delivery without retrying on 400 and other 4xx', async () => {
    for (const status of [400, 401, 404, 413]) {
      const target = await scripted({ status });
      expect(await sender(LOOPBACK_HTTP).send(webhook(target.url)), String(status)).toMatchObject({
        outcome: 'failed',
        status,
        error: `HTTP ${status}`,
      });
    }
  });

  it('retries a receiver that never answers once the timeout is up', async () => {
    const target = await scripted('never answer');
    const attempt = await sender(LOOPBACK_HTTP, { timeoutMs: 300 }).send(webhook(target.url));
    expect(attempt).toMatchObject({ outcome: 'retry', error: 'no answer within 300 ms' });
    expect(attempt.status).toBeUndefined();
    expect(target.requests).toHaveLength(1);
  });

  it('retries when nothing listens', async () => {
    const target = await scripted({ status: 204 });
    const closed = servers.pop();
    closed?.closeAllConnections();
    await new Promise<void>((resolve) => closed?.close(() => resolve()));
    const attempt = await sender(LOOPBACK_HTTP).send(webhook(target.url));
    expect(attempt.outcome).toBe('retry');
    expect(attempt.error).toContain('ECONNREFUSED');
    expectNoSecret(attempt);
  });

  it('puts no secret in any error, whatever happened', async () => {
    const attempts: WebhookAttempt[] = [];
    for (const script of [
      { status: 302, headers: { location: 'http://127.0.0.1:1/' } },
      { status: 503 },
      { status: 410 },
      { status: 400 },
    ] as const) {
      const target = await scripted(script);
      attempts.push(await sender(LOOPBACK_HTTP).send(webhook(target.url)));
    }
    const hanging = await scripted('never answer');
    attempts.push(await sender(LOOPBACK_HTTP, { timeoutMs: 200 }).send(webhook(hanging.url)));
    attempts.push(await sender(pushDestinationPolicy()).send(webhook(hanging.url)));
    // Header values a receiver never sees because the request cannot be made: the error must still not quote them.
    attempts.push(
      await sender(LOOPBACK_HTTP).send(
        webhook(hanging.url, { authentication: { scheme: 'Bearer', credentials: `${CREDENTIALS}\r\nx: y` } }),
      ),
    );
    attempts.push(await sender(LOOPBACK_HTTP).send(webhook(hanging.url, { token: `${TOKEN}\n` })));
    expect(attempts.map((attempt) => attempt.outcome)).toEqual([
      'failed',
      'retry',
      'disabled',
      'failed',
      'retry',
      'refused',
      'failed',
      'failed',
    ]);
    expect(attempts[6]?.error).toBe('the request cannot be made: UND_ERR_INVALID_ARG: invalid authorization header');
    expect(attempts[7]?.error).toBe('the request cannot be made: UND_ERR_INVALID_ARG: invalid a2a-notification-token header');
    for (const attempt of attempts) expectNoSecret(attempt);
    expect(hanging.requests).toHaveLength(1);
  });
});
