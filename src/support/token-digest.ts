import { createHash, timingSafeEqual } from 'node:crypto';

/** SHA-256 of a token, hex. Instances keep only this, so a stored or logged config never holds the token. */
export function tokenDigest(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}

/**
 * Whether `token` is the token whose digest is `expectedDigest`. Comparing fixed-length digests
 * with timingSafeEqual keeps the time independent of where (or whether) the presented token
 * differs, and of its length.
 */
export function tokenMatchesDigest(token: string, expectedDigest: string): boolean {
  const presented = Buffer.from(tokenDigest(token), 'hex');
  const expected = Buffer.from(expectedDigest, 'hex');
  return presented.length === expected.length && timingSafeEqual(presented, expected);
}
