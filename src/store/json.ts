/** JSON as the stores keep it: SQLite holds text, the memory store holds copies made the same way. */

export function toJson(value: unknown): string {
  return JSON.stringify(value);
}

/** Parses text this store wrote itself, so its type is known by construction. */
export function fromJson<T>(text: string): T {
  return JSON.parse(text) as T;
}

/**
 * A deep copy through JSON. The memory store copies with it on the way in and out so that it
 * hands back exactly what a SQLite round trip would, and callers cannot alias its state.
 */
export function cloneJson<T>(value: T): T {
  return fromJson<T>(toJson(value));
}
