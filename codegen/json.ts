/** JSON values as the generator handles them: parsed spec files, never class instances. */
export type JsonValue = null | boolean | number | string | JsonValue[] | JsonObject;
export interface JsonObject {
  [key: string]: JsonValue;
}

export function isJsonObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Calls `visit` on every object nested in `value`, depth first, with its JSON pointer. */
export function walkObjects(value: JsonValue, visit: (node: JsonObject, pointer: string) => void, pointer = ''): void {
  if (Array.isArray(value)) {
    value.forEach((item, index) => walkObjects(item, visit, `${pointer}/${index}`));
  } else if (isJsonObject(value)) {
    visit(value, pointer);
    for (const [key, child] of Object.entries(value)) {
      walkObjects(child, visit, `${pointer}/${key.replaceAll('~', '~0').replaceAll('/', '~1')}`);
    }
  }
}

export function deepClone<T extends JsonValue>(value: T): T {
  return structuredClone(value);
}
