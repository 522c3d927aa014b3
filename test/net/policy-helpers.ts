import { UrlPolicyError, checkUrl, type UrlPolicy } from '../../src/net/destination-policy.js';

/** What checkUrl throws for `url`, or undefined when it passes. */
export function refusal(url: string, policy: UrlPolicy = {}): UrlPolicyError | undefined {
  try {
    checkUrl(url, policy);
    return undefined;
  } catch (error) {
    if (error instanceof UrlPolicyError) return error;
    throw error;
  }
}
