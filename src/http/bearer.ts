import { tokenMatchesDigest } from '../support/token-digest.js';

/**
 * Whether an Authorization header carries the bearer token whose digest is `expectedDigest`.
 * A missing or malformed header is compared too (as an empty token), so a refusal takes as
 * long as a wrong token.
 */
export function bearerMatches(authorization: string | undefined, expectedDigest: string): boolean {
  const match = /^Bearer[ \t]+(\S+)\s*$/i.exec(authorization ?? '');
  return tokenMatchesDigest(match?.[1] ?? '', expectedDigest) && match !== null;
}
