import type { LookupFunction } from 'node:net';
import { fetch as undiciFetch } from 'undici';
import { A2ATransportError } from './transport-error.js';
import { checkUrl, findUrlPolicyError, type UrlPolicy } from '../net/destination-policy.js';
import { guardedAgent } from '../net/guarded-agent.js';

/**
 * HTTP for the client with the URL policy applied: every URL (redirect hops included) is
 * checked as written, and every connection is checked against the addresses its hostname
 * resolved to, inside undici's connector.
 */

export type FetchLike = (input: string, init: RequestInit) => Promise<Response>;

export interface TransportOptions {
  readonly urlPolicy?: UrlPolicy;
  /** Resolver used at connect time (default `dns.lookup`); what it answers is checked against the policy. */
  readonly lookup?: LookupFunction;
  /** Replaces the policy-enforcing undici fetch. The URL checks still run; resolved addresses are then the injected fetch's business. */
  readonly fetch?: FetchLike;
}

export interface HttpRequest {
  readonly method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  readonly headers: Readonly<Record<string, string>>;
  readonly body?: string;
  readonly signal: AbortSignal;
}

const MAX_REDIRECTS = 5;
const FOLLOWED = new Set([301, 302, 303, 307, 308]);

export class HttpTransport {
  private readonly policy: UrlPolicy;
  private readonly doFetch: FetchLike;

  constructor(options: TransportOptions = {}) {
    this.policy = options.urlPolicy ?? {};
    const injected = options.fetch;
    if (injected !== undefined) {
      this.doFetch = (url, init) => injected(url, init);
    } else {
      const dispatcher = guardedAgent(this.policy, options.lookup);
      this.doFetch = async (url, init) => {
        const { method, headers, body, signal } = init;
        const response = await undiciFetch(url, {
          redirect: 'manual',
          dispatcher,
          ...(method === undefined ? {} : { method }),
          ...(headers === undefined ? {} : { headers: headers as Record<string, string> }),
          ...(typeof body === 'string' ? { body } : {}),
          ...(signal === undefined || signal === null ? {} : { signal }),
        });
        return response;
      };
    }
  }

  /** Checks the URL against the policy without sending anything. */
  check(url: string): URL {
    return checkUrl(url, this.policy);
  }

  /** One request. Redirects are not followed: a 3xx answer is returned as it is. */
  async send(url: string, request: HttpRequest): Promise<Response> {
    this.check(url);
    try {
      return await this.doFetch(url, { ...request, redirect: 'manual' });
    } catch (error) {
      throw findUrlPolicyError(error) ?? error;
    }
  }

  /**
   * A GET that follows up to 5 redirects, checking every hop against the policy and dropping
   * Authorization when the origin changes (a card URL must not leak the token elsewhere).
   */
  async get(url: string, request: Omit<HttpRequest, 'method' | 'body'>): Promise<{ readonly url: string; readonly response: Response }> {
    let current = url;
    let headers = request.headers;
    for (let hop = 0; ; hop++) {
      const response = await this.send(current, { method: 'GET', headers, signal: request.signal });
      const location = response.headers.get('location');
      if (!FOLLOWED.has(response.status) || location === null) return { url: current, response };
      await response.body?.cancel().catch(() => undefined);
      if (hop === MAX_REDIRECTS) throw new A2ATransportError(`${url}: more than ${MAX_REDIRECTS} redirects`);
      const next = new URL(location, current);
      if (next.origin !== new URL(current).origin) headers = withoutAuthorization(headers);
      current = next.href;
    }
  }
}

function withoutAuthorization(headers: Readonly<Record<string, string>>): Record<string, string> {
  return Object.fromEntries(Object.entries(headers).filter(([name]) => name.toLowerCase() !== 'authorization'));
}
