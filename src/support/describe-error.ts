/**
 * An error's message with its cause's, the way a person reads a failed request:
 * `fetch failed (connect ECONNREFUSED 127.0.0.1:9)`. A cause the message already quotes is not
 * repeated; anything that is not an Error is stringified.
 */
export function describeError(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const cause = error.cause instanceof Error && !error.message.includes(error.cause.message) ? ` (${error.cause.message})` : '';
  return `${error.message}${cause}`;
}
