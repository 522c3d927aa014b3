import { readdirSync, readFileSync, statSync } from 'node:fs';
import { basename, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import $RefParser from '@apidevtools/json-schema-ref-parser';
import { isJsonObject, walkObjects, type JsonObject } from './json.js';
import { toPosix } from './paths.js';

export interface SpecFile {
  /** File name inside the family folder, e.g. `task.schema.json`. */
  name: string;
  /** Path as it appears in generated headers, e.g. `spec/a2a/1.0/task.schema.json`. */
  displayPath: string;
  json: JsonObject;
}

export interface Family {
  /** Family id and output folder, e.g. `a2a/1.0` or `control`. */
  id: string;
  dir: string;
  /** The `$id` given to the bundled document. */
  schemaId: string;
  schemaFiles: SpecFile[];
  /** The JSON tables of the family (`methods.json`, …), by file name. */
  tables: Map<string, SpecFile>;
  /** Every def of every schema file in one document, cross-file refs rewritten to `#/$defs/Name`. */
  document: JsonObject;
  defNames: string[];
}

const SCHEMA_SUFFIX = '.schema.json';
export const SCHEMA_ID_BASE = 'https://a2a-hub.dev/spec/';

/** Every folder below specDir (except `meta/`) that holds `*.schema.json` files is a family. */
export function discoverFamilies(specDir: string): string[] {
  const found: string[] = [];
  const visit = (dir: string): void => {
    const entries = readdirSync(dir).sort();
    if (entries.some((entry) => entry.endsWith(SCHEMA_SUFFIX)) && relative(specDir, dir) !== 'meta') {
      found.push(dir);
    }
    for (const entry of entries) {
      const child = join(dir, entry);
      if (statSync(child).isDirectory()) visit(child);
    }
  };
  visit(specDir);
  return found;
}

export function readSpecFile(specDir: string, path: string): SpecFile {
  const text = readFileSync(path, 'utf8');
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new Error(`${displayPathOf(specDir, path)}: not valid JSON: ${(error as Error).message}`, { cause: error });
  }
  if (!isJsonObject(json)) throw new Error(`${displayPathOf(specDir, path)}: the top level must be an object`);
  return { name: basename(path), displayPath: displayPathOf(specDir, path), json };
}

export function displayPathOf(specDir: string, path: string): string {
  return toPosix(join('spec', relative(specDir, path)));
}

/**
 * Reads a family and bundles it with json-schema-ref-parser. The root handed to the bundler
 * refers to every def of every file, so the bundler inlines each def at `#/$defs/<Name>` (the
 * shallowest place that refers to it) and rewrites every other reference to point there.
 */
export async function loadFamily(specDir: string, dir: string): Promise<Family> {
  const id = toPosix(relative(specDir, dir));
  const schemaFiles: SpecFile[] = [];
  const tables = new Map<string, SpecFile>();
  for (const entry of readdirSync(dir).sort()) {
    const path = join(dir, entry);
    if (!entry.endsWith('.json') || statSync(path).isDirectory()) continue;
    const file = readSpecFile(specDir, path);
    if (entry.endsWith(SCHEMA_SUFFIX)) schemaFiles.push(file);
    else tables.set(entry, file);
  }

  const rootDefs: JsonObject = {};
  const defNames: string[] = [];
  for (const file of schemaFiles) {
    const defs = file.json['$defs'];
    if (!isJsonObject(defs)) throw new Error(`${file.displayPath}: has no $defs object`);
    for (const name of Object.keys(defs)) {
      if (Object.hasOwn(rootDefs, name)) {
        throw new Error(`${file.displayPath}: def "${name}" is already defined in another file of ${id}`);
      }
      rootDefs[name] = { $ref: `${file.name}#/$defs/${name}` };
      defNames.push(name);
    }
  }

  const parser = new $RefParser();
  const bundled = (await parser.bundle(
    join(dir, '__bundle__.json'),
    { $defs: rootDefs },
    {
      resolve: { external: true, http: false, file: false, spec: localResolver(specDir, dir) },
    },
  )) as unknown as JsonObject;

  walkObjects(bundled, (node, pointer) => {
    const ref = node['$ref'];
    if (ref !== undefined && (typeof ref !== 'string' || !/^#\/\$defs\/[A-Za-z0-9_]+$/.test(ref))) {
      throw new Error(`spec/${id}: reference at ${pointer} did not resolve to a def: ${JSON.stringify(ref)}`);
    }
  });

  const schemaId = `${SCHEMA_ID_BASE}${id}/schema.json`;
  const document: JsonObject = {
    $schema: 'https://json-schema.org/draft/2020-12/schema',
    $id: schemaId,
    $comment: `Generated from spec/${id} by \`npm run generate\`. DO NOT EDIT.`,
    $defs: bundled['$defs'] ?? {},
  };
  return { id, dir, schemaId, schemaFiles, tables, document, defNames };
}

/** A ref-parser resolver that reads files of this spec folder only, so codegen never touches the network. */
function localResolver(specDir: string, familyDir: string) {
  return {
    order: 1,
    canRead: true,
    read(file: { url: string }): string {
      const path = file.url.startsWith('file:') ? fileURLToPath(file.url) : file.url;
      if (relative(specDir, path).startsWith('..')) {
        throw new Error(`spec/${toPosix(relative(specDir, familyDir))}: reference outside spec/: ${file.url}`);
      }
      return readFileSync(path, 'utf8');
    },
  };
}
