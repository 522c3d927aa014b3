/** A JSON object: not null, not an array. What every reader of parsed JSON checks before reading members. */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * The object without its undefined members, so that a value built from optional inputs has
 * exactly the members that were present (deep equality and JSON both see the difference).
 */
export function withoutUndefined<T extends object>(value: T): T {
  return Object.fromEntries(Object.entries(value).filter(([, member]) => member !== undefined)) as T;
}
