/** A configuration read from input or from the store, or the `field description` phrases that say why it cannot be one. */
export type ReadConfig<T> = { readonly ok: true; readonly config: T } | { readonly ok: false; readonly problems: string[] };

/** A row read back from the store: readable by `read`, and naming the id it is stored under. */
export function readStoredRow<T extends { readonly id: string }>(
  id: string,
  value: unknown,
  read: (value: unknown) => ReadConfig<T>,
): ReadConfig<T> {
  const result = read(value);
  if (result.ok && result.config.id !== id) {
    return { ok: false, problems: [`id is ${JSON.stringify(result.config.id)}, but the row is stored under ${JSON.stringify(id)}`] };
  }
  return result;
}
