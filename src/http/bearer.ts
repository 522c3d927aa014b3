import { createHash, timingSafeEqual } from 'node:crypto';

/** SHA-256 of a token, hex. Instances keep only this, so a stored or logged config never holds the token. */
export function tokenDigest(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}

/**
 * Whether an Authorization header carries the bearer token whose digest is `expectedDigest`.
 * Comparing fixed-length digests with timingSafeEqual keeps the time independent of where
 * (or whether) the presented token differs, and of its length.
 */
export function bearerMatches(authorization: string | undefined, expectedDigest: string): boolean {
  const match = /^Bearer[ \t]+(\S+)\s*$/i.exec(authorization ?? '');
  const presented = Buffer.from(tokenDigest(match?.[1] ?? ''), 'hex');
  const expected = Buffer.from(expectedDigest, 'hex');
  return presented.length === expected.length && timingSafeEqual(presented, expected) && match !== null;
}
