import { dirname, join, resolve } from 'node:path';
import { createAjv } from './ajv.js';
import { readSpecFile, type Family, type SpecFile } from './families.js';
import { isJsonObject } from './json.js';

/**
 * Validates a table against the meta-schema its `$schema` names (a path relative to the
 * table) and returns it typed. A table is data, so a bad one stops the generator with
 * every violation listed.
 */
export function checkedTable<T>(specDir: string, family: Family, fileName: string): T & { file: SpecFile } {
  const file = family.tables.get(fileName);
  if (file === undefined) throw new Error(`spec/${family.id}/${fileName} is missing`);
  const metaPath = file.json['$schema'];
  if (typeof metaPath !== 'string') throw new Error(`${file.displayPath}: needs "$schema" naming its meta-schema`);
  const meta = readSpecFile(specDir, resolve(dirname(join(family.dir, fileName)), metaPath));
  const validate = createAjv().compile(meta.json);
  if (!validate(file.json)) {
    const problems = (validate.errors ?? []).map((error) => `  ${error.instancePath || '/'} ${error.message ?? ''}`);
    throw new Error(`${file.displayPath} does not match ${meta.displayPath}:\n${problems.join('\n')}`);
  }
  return { ...(file.json as T), file };
}

/** Fails with one message listing every dangling name, so a typo in a table cannot go unnoticed. */
export function requireKnown(kind: string, names: Iterable<string>, known: ReadonlySet<string>, where: string): void {
  const missing = [...names].filter((name) => !known.has(name));
  if (missing.length > 0) throw new Error(`${where}: unknown ${kind}: ${[...new Set(missing)].join(', ')}`);
}

/** A value as TypeScript source text: JSON with stable key order is valid TS. */
export function literal(value: unknown): string {
  return JSON.stringify(value, null, 2);
}

/** A name as an object key in generated TypeScript, quoted unless it is an identifier (0.3 has message/send, input-required). */
export function objectKey(name: string): string {
  return /^[A-Za-z_$][A-Za-z0-9_$]*$/.test(name) ? name : literal(name);
}

export function enumValues(family: Family, def: string): string[] {
  const defs = family.document['$defs'];
  const schema = isJsonObject(defs) ? defs[def] : undefined;
  const values = isJsonObject(schema) ? schema['enum'] : undefined;
  if (!Array.isArray(values)) throw new Error(`spec/${family.id}: ${def} is not an enum`);
  return values.map(String);
}
