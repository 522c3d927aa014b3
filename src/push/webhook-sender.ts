import { request, type Dispatcher } from 'undici';
import { MEDIA_TYPES } from '../../generated/a2a/1.0/protocol.js';
import { checkUrl, findUrlPolicyError, type UrlPolicy } from '../net/destination-policy.js';
import type { PushOutcome } from '../store/push-store.js';
import { signWebhook } from './signature.js';

/** One webhook POST: everything needed to make it, secrets included (they never leave this module in a result). */
export interface WebhookRequest {
  readonly url: string;
  /** One StreamResponse as JSON: signed exactly as sent. */
  readonly body: string;
  /** Standard Webhooks `webhook-id`: the same for every attempt of one delivery, so receivers can dedupe. */
  readonly webhookId: string;
  readonly signingSecret: string;
  /** Sent as `Authorization: <scheme> <credentials>` (spec §4.3.3). */
  readonly authentication?: { readonly scheme: string; readonly credentials?: string };
  /** The config's token, sent as `A2A-Notification-Token` (and the 0.3-era `X-A2A-Notification-Token`). */
  readonly token?: string;
}

/** What one attempt came to; never holds a secret. */
export interface WebhookAttempt {
  /** delivered (2xx); retry (may succeed later); failed (will not); disabled (410 Gone); refused (the destination policy). */
  readonly outcome: Exclude<PushOutcome, never>;
  readonly status?: number;
  /** The receiver's Retry-After, in ms, when it sent a usable one. */
  readonly retryAfterMs?: number;
  readonly error?: string;
  readonly latencyMs: number;
}

export interface WebhookSenderOptions {
  /** Checked before dialing (scheme, host allowlist, IP literals). */
  readonly policy: UrlPolicy;
  /** Connects through the policy's guarded lookup, so every resolved address is checked at dial time. */
  readonly dispatcher: Dispatcher;
  /** Time limit of one attempt, connect to the end of the answer. */
  readonly timeoutMs: number;
  /** For the timestamp header; defaults to the clock. */
  readonly nowMs?: () => number;
}

/** The receiver's answer is drained up to this much, then the connection is dropped: nothing reads it. */
const ANSWER_LIMIT_BYTES = 64 * 1024;
/** Longer Retry-After values are capped by the dispatcher's own maximum anyway; this bounds parsing nonsense. */
const RETRY_AFTER_CAP_MS = 24 * 60 * 60 * 1000;

/**
 * Sends webhook POSTs. Redirects are never followed (a 3xx is a failed attempt): following one
 * would let a receiver point the hub at an address the policy was never asked about, and would
 * carry the credentials to another host.
 */
export class WebhookSender {
  readonly #options: WebhookSenderOptions;

  constructor(options: WebhookSenderOptions) {
    this.#options = options;
  }

  async send(webhook: WebhookRequest, signal?: AbortSignal): Promise<WebhookAttempt> {
    const started = performance.now();
    const latency = (): number => Math.round((performance.now() - started) * 1000) / 1000;
    try {
      checkUrl(webhook.url, this.#options.policy);
    } catch (error) {
      return { outcome: 'refused', error: describe(error), latencyMs: latency() };
    }
    const timeout = AbortSignal.timeout(this.#options.timeoutMs);
    try {
      const answer = await request(webhook.url, {
        method: 'POST',
        dispatcher: this.#options.dispatcher,
        headers: this.#headers(webhook),
        body: webhook.body,
        signal: signal === undefined ? timeout : AbortSignal.any([signal, timeout]),
        headersTimeout: this.#options.timeoutMs,
        bodyTimeout: this.#options.timeoutMs,
      });
      await answer.body.dump({ limit: ANSWER_LIMIT_BYTES }).catch((): void => undefined);
      return { ...classify(answer.statusCode, answer.headers['retry-after'], this.#nowMs()), latencyMs: latency() };
    } catch (error) {
      if (findUrlPolicyError(error) !== undefined) return { outcome: 'refused', error: describe(error), latencyMs: latency() };
      // A request undici will not build (a header value with CR/LF) fails the same way every time: retrying cannot help.
      if (isInvalidRequest(error))
        return { outcome: 'failed', error: `the request cannot be made: ${describe(error)}`, latencyMs: latency() };
      const timedOut = timeout.aborted && signal?.aborted !== true;
      return {
        outcome: 'retry',
        error: timedOut ? `no answer within ${this.#options.timeoutMs} ms` : describe(error),
        latencyMs: latency(),
      };
    }
  }

  #headers(webhook: WebhookRequest): Record<string, string> {
    const headers: Record<string, string> = {
      'content-type': MEDIA_TYPES.a2aJson,
      'user-agent': 'a2a-hub push',
      ...signWebhook(webhook.signingSecret, webhook.webhookId, webhook.body, this.#nowMs() / 1000),
    };
    const { authentication, token } = webhook;
    if (authentication !== undefined) {
      headers['authorization'] =
        authentication.credentials === undefined || authentication.credentials === ''
          ? authentication.scheme
          : `${authentication.scheme} ${authentication.credentials}`;
    }
    if (token !== undefined && token !== '') {
      headers['a2a-notification-token'] = token;
      headers['x-a2a-notification-token'] = token;
    }
    return headers;
  }

  #nowMs(): number {
    return this.#options.nowMs?.() ?? Date.now();
  }
}

/** What an HTTP answer means for the delivery (issue #16; Standard Webhooks' conventions). */
export function classify(status: number, retryAfter: string | string[] | undefined, nowMs: number): Omit<WebhookAttempt, 'latencyMs'> {
  if (status >= 200 && status < 300) return { outcome: 'delivered', status };
  if (status === 410) return { outcome: 'disabled', status, error: 'HTTP 410 Gone: the receiver no longer wants these deliveries' };
  if (status === 408 || status === 429 || status >= 500) {
    const delay = retryAfterMs(Array.isArray(retryAfter) ? retryAfter[0] : retryAfter, nowMs);
    return { outcome: 'retry', status, error: `HTTP ${status}`, ...(delay === undefined ? {} : { retryAfterMs: delay }) };
  }
  if (status >= 300 && status < 400) return { outcome: 'failed', status, error: `HTTP ${status}: redirects are not followed` };
  return { outcome: 'failed', status, error: `HTTP ${status}` };
}

/** Retry-After as delay-seconds or an HTTP-date (RFC 9110 §10.2.3). */
export function retryAfterMs(value: string | undefined, nowMs: number): number | undefined {
  if (value === undefined) return undefined;
  const text = value.trim();
  if (/^\d+$/.test(text)) return Math.min(Number(text) * 1000, RETRY_AFTER_CAP_MS);
  const date = Date.parse(text);
  if (Number.isNaN(date)) return undefined;
  return Math.min(Math.max(0, date - nowMs), RETRY_AFTER_CAP_MS);
}

function isInvalidRequest(error: unknown): boolean {
  return error instanceof Error && (error as { code?: unknown }).code === 'UND_ERR_INVALID_ARG';
}

/** An error's message for the attempt log: the code and message of the cause, no stack. */
function describe(error: unknown): string {
  const policy = findUrlPolicyError(error);
  if (policy !== undefined) return policy.message;
  const parts: string[] = [];
  for (let current: unknown = error, depth = 0; current instanceof Error && depth < 4; current = current.cause, depth++) {
    const code = (current as { code?: unknown }).code;
    parts.push(typeof code === 'string' ? `${code}: ${current.message}` : current.message);
  }
  return parts.length === 0 ? String(error) : parts.join(' ← ');
}
