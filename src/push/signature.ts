import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

/**
 * Webhook signatures the Standard Webhooks way (standardwebhooks.com, v1): a receiver that
 * already verifies Svix-style or Standard Webhooks deliveries verifies ours with the same code.
 * The signed content is `<webhook-id>.<webhook-timestamp>.<body>`; the key is the secret's
 * bytes after the `whsec_` prefix, base64-decoded.
 */

export const WEBHOOK_ID_HEADER = 'webhook-id';
export const WEBHOOK_TIMESTAMP_HEADER = 'webhook-timestamp';
export const WEBHOOK_SIGNATURE_HEADER = 'webhook-signature';

const SECRET_PREFIX = 'whsec_';
/** Receivers reject deliveries signed longer ago (or further ahead) than this: a replayed capture goes stale. */
export const DEFAULT_TOLERANCE_SECONDS = 300;

/** A fresh signing secret: `whsec_` and 32 random bytes in base64. */
export function generateSigningSecret(): string {
  return `${SECRET_PREFIX}${randomBytes(32).toString('base64')}`;
}

/** Whether `secret` has the form generateSigningSecret makes (and a key of at least 16 bytes). */
export function isSigningSecret(secret: string): boolean {
  const key = secretKey(secret);
  return key !== undefined && key.length >= 16;
}

/** A type, not an interface, so that it passes wherever a plain header record does. */
export type SignedHeaders = {
  readonly [WEBHOOK_ID_HEADER]: string;
  readonly [WEBHOOK_TIMESTAMP_HEADER]: string;
  readonly [WEBHOOK_SIGNATURE_HEADER]: string;
};

/**
 * The three headers of one attempt: the id stays the same across retries, the timestamp is the attempt's.
 * `body` must be exactly what is sent: a string is signed as its UTF-8 bytes.
 */
export function signWebhook(secret: string, id: string, body: string | Uint8Array, timestampSeconds: number): SignedHeaders {
  const key = secretKey(secret);
  if (key === undefined) throw new TypeError('a signing secret is whsec_ followed by base64');
  const timestamp = String(Math.floor(timestampSeconds));
  return {
    [WEBHOOK_ID_HEADER]: id,
    [WEBHOOK_TIMESTAMP_HEADER]: timestamp,
    [WEBHOOK_SIGNATURE_HEADER]: `v1,${hmac(key, id, timestamp, body)}`,
  };
}

export type WebhookVerdict =
  { readonly ok: true; readonly id: string; readonly timestamp: number } | { readonly ok: false; readonly reason: string };

export interface VerifyOptions {
  readonly secret: string;
  /** The raw body exactly as received: re-serialised JSON will not match. */
  readonly body: string | Uint8Array;
  /** Request headers; names are matched case-insensitively. */
  readonly headers: Readonly<Record<string, string | readonly string[] | undefined>> | Headers;
  readonly toleranceSeconds?: number;
  /** Seconds since the epoch; defaults to the clock. */
  readonly nowSeconds?: number;
}

/**
 * Checks a delivery's signature: the headers are present, the timestamp is within the
 * tolerance, and one of the `v1,` signatures (a sender rotating secrets may send several,
 * space-separated) matches, compared in constant time.
 */
export function verifyWebhook(options: VerifyOptions): WebhookVerdict {
  const key = secretKey(options.secret);
  if (key === undefined) return { ok: false, reason: 'the secret is not whsec_ followed by base64' };
  const id = headerOf(options.headers, WEBHOOK_ID_HEADER);
  const timestamp = headerOf(options.headers, WEBHOOK_TIMESTAMP_HEADER);
  const signatures = headerOf(options.headers, WEBHOOK_SIGNATURE_HEADER);
  if (id === undefined || timestamp === undefined || signatures === undefined)
    return {
      ok: false,
      reason: `missing ${[id, timestamp, signatures].every((v) => v === undefined) ? 'every webhook-* header' : 'a webhook-* header'}`,
    };
  if (!/^\d{1,12}$/.test(timestamp)) return { ok: false, reason: 'webhook-timestamp is not whole seconds since the epoch' };
  const seconds = Number(timestamp);
  const now = options.nowSeconds ?? Date.now() / 1000;
  const tolerance = options.toleranceSeconds ?? DEFAULT_TOLERANCE_SECONDS;
  if (Math.abs(now - seconds) > tolerance) return { ok: false, reason: `webhook-timestamp is more than ${tolerance} s from now` };
  const expected = Buffer.from(hmac(key, id, timestamp, options.body), 'base64');
  for (const entry of signatures.split(' ')) {
    const [version, signature] = entry.split(',', 2);
    if (version !== 'v1' || signature === undefined) continue;
    const given = Buffer.from(signature, 'base64');
    if (given.length === expected.length && timingSafeEqual(given, expected)) return { ok: true, id, timestamp: seconds };
  }
  return { ok: false, reason: 'no v1 signature matches the body' };
}

/**
 * The MAC covers the body's bytes as they are: decoding them to text first would map every
 * invalid UTF-8 sequence to U+FFFD, and two different bodies would then share one signature.
 */
function hmac(key: Buffer, id: string, timestamp: string, body: string | Uint8Array): string {
  return createHmac('sha256', key).update(`${id}.${timestamp}.`).update(body).digest('base64');
}

function secretKey(secret: string): Buffer | undefined {
  if (!secret.startsWith(SECRET_PREFIX)) return undefined;
  const encoded = secret.slice(SECRET_PREFIX.length);
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(encoded)) return undefined;
  return Buffer.from(encoded, 'base64');
}

function headerOf(headers: VerifyOptions['headers'], name: string): string | undefined {
  if (headers instanceof Headers) return headers.get(name) ?? undefined;
  for (const [key, value] of Object.entries(headers)) {
    if (key.toLowerCase() !== name) continue;
    return typeof value === 'string' ? value : value?.join(' ');
  }
  return undefined;
}
