import type { ErrorsTable } from './emit-errors.js';
import { validatorName } from './emit-validators.js';
import type { Family } from './families.js';
import { generatedHeader } from './header.js';
import { checkedTable, literal, objectKey, requireKnown } from './tables.js';

interface HttpRoute {
  verb: string;
  path: string;
  body?: string;
}

interface MethodRow {
  name: string;
  legacyName?: string;
  description: string;
  specSection: string;
  params: string;
  paramsOptional: boolean;
  result: string;
  streaming: boolean;
  capability: string | null;
  cardFlag?: string;
  errors: string[];
  http: HttpRoute[];
  httpAlternates?: HttpRoute[];
  restMessages?: { family: string; request: string; response: string };
  note?: string;
}

interface MethodsTable {
  methods: MethodRow[];
}

/** `methods.ts`: the method registry, typed per method, with its params and result validators. */
export function emitMethods(specDir: string, family: Family, errors: ErrorsTable): string {
  const table = checkedTable<MethodsTable>(specDir, family, 'methods.json');
  const where = table.file.displayPath;
  const defs = new Set(family.defNames);
  requireKnown(
    'type',
    table.methods.flatMap((method) => [method.params, method.result]),
    defs,
    where,
  );
  requireKnown(
    'error',
    table.methods.flatMap((method) => method.errors),
    new Set(errors.errors.map((row) => row.name)),
    where,
  );

  // Every capability a method names must be a boolean flag of AgentCapabilities.
  const capabilities = [...new Set(table.methods.flatMap((method) => (method.capability === null ? [] : [method.capability])))].sort();
  const flags = family.document['$defs'] as Record<string, { properties?: Record<string, { type?: string }> }>;
  const declared = new Set(
    Object.entries(flags['AgentCapabilities']?.properties ?? {}).flatMap(([name, member]) => (member.type === 'boolean' ? [name] : [])),
  );
  requireKnown('capability (not a boolean of AgentCapabilities)', capabilities, declared, where);
  const cardFlags = [...new Set(table.methods.flatMap((method) => (method.cardFlag === undefined ? [] : [method.cardFlag])))].sort();
  const cardBooleans = new Set(
    Object.entries(flags['AgentCard']?.properties ?? {}).flatMap(([name, member]) => (member.type === 'boolean' ? [name] : [])),
  );
  requireKnown('card flag (not a boolean of AgentCard)', cardFlags, cardBooleans, where);
  const bodies = [
    ...new Set(table.methods.flatMap((method) => [...method.http, ...(method.httpAlternates ?? [])].flatMap((route) => route.body ?? []))),
  ].sort();
  const types = table.methods.map((method) => `  ${objectKey(method.name)}: { params: T.${method.params}; result: T.${method.result} };`);
  const entries = table.methods.map((method) => {
    const data = {
      name: method.name,
      legacyName: method.legacyName ?? null,
      description: method.description,
      specSection: method.specSection,
      paramsType: method.params,
      resultType: method.result,
      paramsOptional: method.paramsOptional,
      streaming: method.streaming,
      capability: method.capability,
      cardFlag: method.cardFlag ?? null,
      errors: method.errors,
      http: method.http,
      httpAlternates: method.httpAlternates ?? [],
      restMessages: method.restMessages ?? null,
    };
    const json = literal(data).replace(/\n}$/, ',');
    return [
      `  ${objectKey(method.name)}: ${json.replaceAll('\n', '\n  ')}`,
      `    validateParams: input.${validatorName(method.params)},`,
      `    validateResult: exact.${validatorName(method.result)},`,
      '  },',
    ].join('\n');
  });
  return [
    generatedHeader(`spec/${family.id}/methods.json`),
    "import type * as T from './types.js';",
    "import type { ErrorName } from './errors.js';",
    "import type { Validator } from './validators.js';",
    "import * as exact from './validators.js';",
    "import * as input from './input-validators.js';",
    '',
    '/** Params and result type of each method (for streaming methods, the type of each stream item). */',
    'export interface MethodTypes {',
    ...types,
    '}',
    '',
    'export type MethodName = keyof MethodTypes;',
    '/** The AgentCapabilities flags some method needs. */',
    `export type Capability = ${capabilities.map((name) => literal(name)).join(' | ')};`,
    '',
    '/** The methods that answer with a stream of frames. */',
    `export type StreamingMethodName = ${table.methods
      .filter((method) => method.streaming)
      .map((method) => literal(method.name))
      .join(' | ')};`,
    '',
    'export interface HttpRoute {',
    "  readonly verb: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';",
    '  readonly path: string;',
    `  readonly body?: ${bodies.map((body) => literal(body)).join(' | ')};`,
    '}',
    '',
    'export interface MethodDefinition<N extends MethodName = MethodName> {',
    '  readonly name: N;',
    '  /** The JSON-RPC name of the same operation in the version before this one (1.0: the 0.3 name), if it had one. */',
    '  readonly legacyName: string | null;',
    '  readonly description: string;',
    '  readonly specSection: string;',
    '  readonly paramsType: string;',
    '  readonly resultType: string;',
    '  /** True when the request message has no REQUIRED field, so JSON-RPC `params` may be omitted. */',
    '  readonly paramsOptional: boolean;',
    '  readonly streaming: boolean;',
    '  /** The AgentCapabilities flag that must be true for the method to be served. */',
    '  readonly capability: Capability | null;',
    '  /** A boolean member of AgentCard itself that must be true for the method to be served (0.3 gates the extended card so). */',
    `  readonly cardFlag: ${cardFlags.length === 0 ? 'null' : `${cardFlags.map((name) => literal(name)).join(' | ')} | null`};`,
    '  /** A2A errors the method may return, besides those every method may return. */',
    '  readonly errors: readonly ErrorName[];',
    '  /** HTTP+JSON routes from the proto annotations, tenant-prefixed variants included. */',
    '  readonly http: readonly HttpRoute[];',
    '  /** Routes served as well because the spec prose and the proto disagree (docs/spec-policy.md). */',
    '  readonly httpAlternates: readonly HttpRoute[];',
    '  /** The request and response messages of the HTTP+JSON binding, when they are defs of another family (0.3: its ProtoJSON). */',
    '  readonly restMessages: { readonly family: string; readonly request: string; readonly response: string } | null;',
    '  /** Tolerant validator for params (unknown members ignored). */',
    "  readonly validateParams: Validator<MethodTypes[N]['params']>;",
    '  /** Exact validator for the result. */',
    "  readonly validateResult: Validator<MethodTypes[N]['result']>;",
    '}',
    '',
    '/** The A2A methods (spec §3, §9), one entry per JSON-RPC method. */',
    'export const METHODS: { readonly [N in MethodName]: MethodDefinition<N> } = {',
    ...entries,
    '};',
    '',
    'export const METHOD_NAMES = Object.keys(METHODS) as readonly MethodName[];',
    '',
    'export function isMethodName(name: string): name is MethodName {',
    '  return Object.hasOwn(METHODS, name);',
    '}',
    '',
    ...(table.methods.some((method) => method.legacyName !== undefined) ? LEGACY_LOOKUP : []),
  ].join('\n');
}

/** Emitted for a version whose methods had other names before (1.0: the 0.3 names). */
const LEGACY_LOOKUP = [
  '/** A2A 0.3 method names (message/send, ...) to the 1.0 method of the same operation. */',
  'export const METHOD_BY_LEGACY_NAME: ReadonlyMap<string, MethodName> = new Map(',
  '  METHOD_NAMES.flatMap((name): [string, MethodName][] => {',
  '    const legacy = METHODS[name].legacyName;',
  '    return legacy === null ? [] : [[legacy, name]];',
  '  }),',
  ');',
  '',
];
