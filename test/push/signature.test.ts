import { describe, expect, it } from 'vitest';
import { generateSigningSecret, isSigningSecret, signWebhook, verifyWebhook } from '../../src/push/signature.js';

const NOW = 1_780_000_000;

describe('Standard Webhooks signatures', () => {
  const secret = generateSigningSecret();
  const body = '{"statusUpdate":{"taskId":"t1","contextId":"c1","status":{"state":"TASK_STATE_WORKING"}}}';

  it('makes whsec_ secrets of 32 random bytes, each different', () => {
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(isSigningSecret(secret)).toBe(true);
    expect(generateSigningSecret()).not.toBe(secret);
    expect(isSigningSecret('whsec_short')).toBe(false);
    expect(isSigningSecret('not-a-secret')).toBe(false);
  });

  it('matches the Standard Webhooks reference vector', () => {
    // From the Standard Webhooks specification's test vectors (a public example secret).
    const headers = signWebhook(
      'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
      'msg_p5jXN8AQM9LWM0D4loKWxJek',
      '{"test": 2432232314}',
      1614265330,
    );
    expect(headers['webhook-signature']).toBe('v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=');
  });

  it('verifies its own signature, and refuses a changed body, id, timestamp or secret', () => {
    const headers = signWebhook(secret, 'msg_1', body, NOW);
    expect(verifyWebhook({ secret, body, headers, nowSeconds: NOW + 10 })).toEqual({ ok: true, id: 'msg_1', timestamp: NOW });
    expect(verifyWebhook({ secret, body: body.replace('t1', 't2'), headers, nowSeconds: NOW }).ok).toBe(false);
    expect(verifyWebhook({ secret, body, headers: { ...headers, 'webhook-id': 'msg_2' }, nowSeconds: NOW }).ok).toBe(false);
    expect(verifyWebhook({ secret, body, headers: { ...headers, 'webhook-timestamp': String(NOW + 1) }, nowSeconds: NOW }).ok).toBe(false);
    expect(verifyWebhook({ secret: generateSigningSecret(), body, headers, nowSeconds: NOW }).ok).toBe(false);
  });

  it('signs the body bytes as they are: bodies that decode to the same text do not share a signature', () => {
    const first = Buffer.from([0x7b, 0xff, 0x7d]);
    const second = Buffer.from([0x7b, 0xfe, 0x7d]);
    expect(first.toString('utf8')).toBe(second.toString('utf8'));
    const headers = signWebhook(secret, 'msg_1', first, NOW);
    expect(verifyWebhook({ secret, body: first, headers, nowSeconds: NOW }).ok).toBe(true);
    expect(verifyWebhook({ secret, body: second, headers, nowSeconds: NOW }).ok).toBe(false);
    expect(verifyWebhook({ secret, body: first.toString('utf8'), headers, nowSeconds: NOW }).ok).toBe(false);
    // A text body is signed as its UTF-8 bytes, so either form verifies.
    const text = '{"note":"héllo ✓"}';
    const signed = signWebhook(secret, 'msg_2', text, NOW);
    expect(verifyWebhook({ secret, body: new TextEncoder().encode(text), headers: signed, nowSeconds: NOW }).ok).toBe(true);
  });

  it('refuses stale and future timestamps beyond the tolerance, and missing headers', () => {
    const headers = signWebhook(secret, 'msg_1', body, NOW);
    expect(verifyWebhook({ secret, body, headers, nowSeconds: NOW + 301 })).toEqual({
      ok: false,
      reason: 'webhook-timestamp is more than 300 s from now',
    });
    expect(verifyWebhook({ secret, body, headers, nowSeconds: NOW - 301 }).ok).toBe(false);
    expect(verifyWebhook({ secret, body, headers, nowSeconds: NOW + 3000, toleranceSeconds: 3600 }).ok).toBe(true);
    expect(verifyWebhook({ secret, body, headers: {}, nowSeconds: NOW })).toEqual({ ok: false, reason: 'missing every webhook-* header' });
  });

  it('accepts any one of several space-separated signatures (secret rotation), in any header case', () => {
    const headers = signWebhook(secret, 'msg_1', body, NOW);
    const rotated = {
      'Webhook-Id': 'msg_1',
      'Webhook-Timestamp': String(NOW),
      'Webhook-Signature': `v1,AAAA ${headers['webhook-signature']}`,
    };
    expect(verifyWebhook({ secret, body: Buffer.from(body), headers: rotated, nowSeconds: NOW }).ok).toBe(true);
    expect(verifyWebhook({ secret, body, headers: new Headers(rotated), nowSeconds: NOW }).ok).toBe(true);
  });
});
