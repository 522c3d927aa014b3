/**
 * Stores `value` under `key` as an own data property, whatever the key.
 *
 * Keys here come off the wire (map entries, unknown members), and JSON.parse gives
 * `"__proto__"` an own property like any other key. Plain assignment would instead replace
 * the target's prototype, silently dropping the entry, so that one key is defined explicitly.
 * The check keeps the common path an ordinary assignment, which these hot loops rely on.
 */
export function setOwn(target: Record<string, unknown>, key: string, value: unknown): void {
  if (key === '__proto__') Object.defineProperty(target, key, { value, writable: true, enumerable: true, configurable: true });
  else target[key] = value;
}
