import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { basename, dirname, join, relative } from 'node:path';
import { checkConventions } from './conventions.js';
import { emitControlApi } from './emit-control-api.js';
import { emitDefaults } from './emit-defaults.js';
import { emitErrors, loadErrors } from './emit-errors.js';
import { emitFieldViolations } from './emit-field-violations.js';
import { emitMethods } from './emit-methods.js';
import { emitProtocol } from './emit-protocol.js';
import { emitProtoNames } from './emit-proto-names.js';
import { emitRequirements, REQUIREMENTS_TABLE } from './emit-requirements.js';
import { emitTaskStates } from './emit-task-states.js';
import { emitGatewayMethods } from './emit-gateway-methods.js';
import { emitTckScenarios } from './emit-tck-scenarios.js';
import { emitTestDirectives } from './emit-test-directives.js';
import { emitTypes } from './emit-types.js';
import { emitValidators, VALIDATOR_MODULES } from './emit-validators.js';
import { discoverFamilies, loadFamily, type Family } from './families.js';
import { generatedHeader } from './header.js';
import { DEFAULT_OUT_DIR, DEFAULT_SPEC_DIR, toPosix } from './paths.js';

export interface GenerateOptions {
  specDir?: string;
  outDir?: string;
  /** Compare with what is on disk instead of writing. */
  check?: boolean;
}

export interface GenerateReport {
  /** Output paths relative to outDir, in generation order. */
  files: string[];
  /** Files that differ from (or are missing in, or are extra in) outDir; empty when up to date. */
  stale: { path: string; problem: 'differs' | 'missing' | 'extra' }[];
}

/** Everything `generated/` should contain, as relative path → content. */
export async function buildOutputs(specDir: string = DEFAULT_SPEC_DIR): Promise<Map<string, string>> {
  const outputs = new Map<string, string>();
  for (const dir of discoverFamilies(specDir)) {
    const family = await loadFamily(specDir, dir);
    const problems = checkConventions(family.schemaFiles);
    if (problems.length > 0) throw new Error(`spec/${family.id} breaks the spec conventions:\n  ${problems.join('\n  ')}`);
    for (const [name, content] of await emitFamily(specDir, family)) outputs.set(`${family.id}/${name}`, content);
  }
  return outputs;
}

async function emitFamily(specDir: string, family: Family): Promise<Map<string, string>> {
  const files = new Map<string, string>();
  files.set('schema.json', `${JSON.stringify(family.document, null, 2)}\n`);
  const types = await emitTypes(family);
  const missing = family.defNames.filter((def) => !new RegExp(`^export (interface|type) ${def}\\b`, 'm').test(types));
  if (missing.length > 0) throw new Error(`spec/${family.id}: no TypeScript type was emitted for ${missing.join(', ')}`);
  files.set('types.ts', types);
  for (const flavour of ['exact', 'input'] as const) {
    const { js, dts } = emitValidators(family, flavour);
    files.set(`${VALIDATOR_MODULES[flavour]}.js`, js);
    files.set(`${VALIDATOR_MODULES[flavour]}.d.ts`, dts);
  }
  const barrel = [
    "export type * from './types.js';",
    "export * from './validators.js';",
    "export * as inputValidators from './input-validators.js';",
  ];
  const defaults = emitDefaults(family);
  if (defaults !== undefined) {
    files.set('defaults.ts', defaults);
    barrel.push("export * from './defaults.js';");
  }
  const known = new Set([
    'protocol.json',
    'errors.json',
    'methods.json',
    'task-states.json',
    'api.json',
    'requirements.json',
    'test-directives.json',
    'tck-scenarios.json',
    'field-violations.json',
    'gateway-methods.json',
  ]);
  for (const name of family.tables.keys()) {
    if (!known.has(name) && !REQUIREMENTS_TABLE.test(name)) throw new Error(`spec/${family.id}/${name}: no generator knows this table`);
  }
  if (family.tables.has('protocol.json')) {
    files.set('protocol.ts', emitProtocol(specDir, family));
    barrel.push("export * from './protocol.js';");
  }
  // A wire protocol family, or a binding's ProtoJSON payloads (a `rest/` folder): input may use
  // the proto field names as well.
  if (family.tables.has('protocol.json') || basename(family.dir) === 'rest') {
    files.set('proto-names.ts', emitProtoNames(family));
    barrel.push("export * from './proto-names.js';");
  }
  if (family.tables.has('errors.json')) {
    const errors = loadErrors(specDir, family);
    files.set('errors.ts', emitErrors(family, errors));
    barrel.push("export * from './errors.js';");
    if (family.tables.has('methods.json')) {
      files.set('methods.ts', emitMethods(specDir, family, errors));
      barrel.push("export * from './methods.js';");
    }
  } else if (family.tables.has('methods.json')) {
    throw new Error(`spec/${family.id}/methods.json needs an errors.json beside it`);
  }
  if (family.tables.has('task-states.json')) {
    files.set('task-states.ts', emitTaskStates(specDir, family));
    barrel.push("export * from './task-states.js';");
  }
  if (family.tables.has('requirements.json')) {
    files.set('requirements.ts', emitRequirements(specDir, family));
    barrel.push("export * from './requirements.js';");
  }
  if (family.tables.has('test-directives.json')) {
    files.set('test-directives.ts', emitTestDirectives(specDir, family));
    barrel.push("export * from './test-directives.js';");
  }
  if (family.tables.has('tck-scenarios.json')) {
    files.set('tck-scenarios.ts', emitTckScenarios(specDir, family));
    barrel.push("export * from './tck-scenarios.js';");
  }
  if (family.tables.has('gateway-methods.json')) {
    files.set('gateway-methods.ts', emitGatewayMethods(specDir, family));
    barrel.push("export * from './gateway-methods.js';");
  }
  if (family.tables.has('field-violations.json')) {
    files.set('field-violations.ts', emitFieldViolations(specDir, family));
    barrel.push("export * from './field-violations.js';");
  }
  if (family.tables.has('api.json')) {
    files.set('api.ts', emitControlApi(specDir, family));
    barrel.push("export * from './api.js';");
  }
  files.set('index.ts', `${generatedHeader(`spec/${family.id}`)}${barrel.join('\n')}\n`);
  return files;
}

/** Writes generated/ (removing files spec/ no longer produces), or with `check` only compares. */
export async function generate(options: GenerateOptions = {}): Promise<GenerateReport> {
  const specDir = options.specDir ?? DEFAULT_SPEC_DIR;
  const outDir = options.outDir ?? DEFAULT_OUT_DIR;
  const outputs = await buildOutputs(specDir);
  const stale: GenerateReport['stale'] = [];
  for (const [path, content] of outputs) {
    const target = join(outDir, path);
    if (!existsSync(target)) stale.push({ path, problem: 'missing' });
    else if (readFileSync(target, 'utf8') !== content) stale.push({ path, problem: 'differs' });
  }
  for (const path of listFiles(outDir)) if (!outputs.has(path)) stale.push({ path, problem: 'extra' });
  if (!options.check) {
    for (const { path, problem } of stale) {
      const target = join(outDir, path);
      if (problem === 'extra') rmSync(target);
      else {
        mkdirSync(dirname(target), { recursive: true });
        writeFileSync(target, outputs.get(path) ?? '');
      }
    }
  }
  return { files: [...outputs.keys()], stale };
}

function listFiles(dir: string): string[] {
  if (!existsSync(dir)) return [];
  const found: string[] = [];
  const visit = (current: string): void => {
    for (const entry of readdirSync(current)) {
      const path = join(current, entry);
      if (statSync(path).isDirectory()) visit(path);
      else found.push(toPosix(relative(dir, path)));
    }
  };
  visit(dir);
  return found.sort();
}
