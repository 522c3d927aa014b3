import type { Family } from './families.js';
import { generatedHeader } from './header.js';
import { checkedTable, literal } from './tables.js';

interface ErrorRow {
  name: string;
  category: 'jsonrpc' | 'a2a' | 'hub';
  code: number;
  reason: string;
  domain?: string;
  httpStatus: number;
  grpcStatus: string;
  message: string;
  appliesWhen: string;
  specSection?: string;
  legacy?: { version: string; httpStatus: number; grpcStatus: string };
}

export interface ErrorsTable {
  domain: string;
  errors: ErrorRow[];
}

export function loadErrors(specDir: string, family: Family): ErrorsTable {
  const table = checkedTable<ErrorsTable>(specDir, family, 'errors.json');
  const seen = new Map<number, string>();
  for (const row of table.errors) {
    if (row.category === 'hub') continue;
    const other = seen.get(row.code);
    if (other !== undefined) throw new Error(`${table.file.displayPath}: ${row.name} and ${other} share code ${row.code}`);
    seen.set(row.code, row.name);
  }
  return table;
}

/**
 * `errors.ts`: the error registry as data. It imports nothing hand-written: the runtime class
 * that renders an error on each binding (src/protocol/a2a-error.ts) looks rows up by name.
 */
export function emitErrors(family: Family, table: ErrorsTable): string {
  const entries = table.errors.map((row) => {
    const definition = {
      name: row.name,
      category: row.category,
      code: row.code,
      reason: row.reason,
      domain: row.domain ?? table.domain,
      httpStatus: row.httpStatus,
      grpcStatus: row.grpcStatus,
      message: row.message,
      ...(row.legacy ? { legacy: row.legacy } : {}),
    };
    const doc = `  /** ${row.message}${row.category === 'hub' ? ' (a2a-hub transport error)' : ''}. ${row.appliesWhen.replaceAll('*/', '* /')} */`;
    return `${doc}\n  ${row.name}: ${literal(definition).replaceAll('\n', '\n  ')},`;
  });
  const specCodes = table.errors.filter((row) => row.category !== 'hub').map((row) => `  [${row.code}, '${row.name}'],`);
  return [
    generatedHeader(`spec/${family.id}/errors.json`),
    `export const ERROR_DOMAIN = ${literal(table.domain)};`,
    '',
    '/** Every error of the registry, by name. */',
    `export type ErrorName =\n${table.errors.map((row) => `  | ${literal(row.name)}`).join('\n')};`,
    '',
    '/** One row of the error registry: an error and its representation on every binding. */',
    'export interface ErrorDefinition {',
    '  readonly name: ErrorName;',
    "  readonly category: 'jsonrpc' | 'a2a' | 'hub';",
    '  /** The JSON-RPC error code. */',
    '  readonly code: number;',
    '  /** The google.rpc.ErrorInfo reason. */',
    '  readonly reason: string;',
    '  readonly domain: string;',
    '  /** The HTTP status on the HTTP+JSON binding. */',
    '  readonly httpStatus: number;',
    '  /** The google.rpc.Code name on gRPC and in the HTTP+JSON error body. */',
    '  readonly grpcStatus: string;',
    '  /** The default human-readable message. */',
    '  readonly message: string;',
    '  /** Where an earlier version mapped the error differently (conformance reports it as legacy). */',
    '  readonly legacy?: { readonly version: string; readonly httpStatus: number; readonly grpcStatus: string };',
    '}',
    '',
    '/** Every error a2a-hub sends or recognises, with its code per binding (spec §5.4, §9.5). */',
    'export const ERRORS = {',
    ...entries,
    '} as const satisfies { readonly [N in ErrorName]: ErrorDefinition & { readonly name: N } };',
    '',
    'export const ERROR_NAMES = Object.keys(ERRORS) as readonly ErrorName[];',
    '',
    'export function isErrorName(name: string): name is ErrorName {',
    '  return Object.hasOwn(ERRORS, name);',
    '}',
    '',
    "/** JSON-RPC code to error, for the spec's own errors (their codes are unique; hub errors reuse codes). */",
    'export const SPEC_ERROR_BY_CODE: ReadonlyMap<number, ErrorName> = new Map<number, ErrorName>([',
    ...specCodes,
    ']);',
    '',
    '/** ErrorInfo reason to error. */',
    'export const ERROR_BY_REASON: ReadonlyMap<string, ErrorName> = new Map(',
    '  Object.values(ERRORS).map((error): [string, ErrorName] => [error.reason, error.name]),',
    ');',
    '',
  ].join('\n');
}
