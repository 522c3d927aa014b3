/** A JSON object: not null, not an array. What every reader of parsed JSON checks before reading members. */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
