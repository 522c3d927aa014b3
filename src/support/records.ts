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

/**
 * A record with `map` applied to each value, undefined values left out. Built with
 * Object.fromEntries, so a key such as `__proto__` stays an own entry.
 */
export function mapValues<A, B>(
  record: { readonly [name: string]: A | undefined },
  map: (value: A, name: string) => B,
): { [name: string]: B } {
  return Object.fromEntries(Object.entries(record).flatMap(([name, value]) => (value === undefined ? [] : [[name, map(value, name)]])));
}
