import { validatorName } from './emit-validators.js';
import type { Family } from './families.js';
import { generatedHeader } from './header.js';
import { isJsonObject } from './json.js';
import { checkedTable, literal, requireKnown } from './tables.js';

interface Endpoint {
  method: string;
  path: string;
  response?: string;
  body?: string;
  failure?: string;
  statuses: number[];
  query?: QueryParam[];
}

interface QueryParam {
  name: string;
  type: 'integer' | 'string' | 'boolean' | 'enum';
  required?: boolean;
  default?: unknown;
  values?: string[];
}

/** The TypeScript type of a parsed query parameter; one with a default is always there. */
function queryMemberType(param: QueryParam): string {
  const type = {
    integer: 'number',
    string: 'string',
    boolean: 'boolean',
    enum: (param.values ?? []).map((value) => literal(value)).join(' | '),
  }[param.type];
  return `readonly ${param.name}${param.required === true || param.default !== undefined ? '' : '?'}: ${type}`;
}

interface ActionRow {
  action: string;
  schema: string;
  effect: string;
  returns?: string;
}

interface ControlApiTable {
  basePath: string;
  panelPath: string;
  healthPaths: { live: string; ready: string };
  loopbackOnly: boolean;
  endpoints: Endpoint[];
  actions: ActionRow[];
  statusCodes: { status: number; meaning: string }[];
}

/** `api.ts`: the control API table with one validator per action, checked against the schemas. */
export function emitControlApi(specDir: string, family: Family): string {
  const table = checkedTable<ControlApiTable>(specDir, family, 'api.json');
  const where = table.file.displayPath;
  const defs = family.document['$defs'];
  const known = new Set(family.defNames);
  const named = table.endpoints.flatMap((endpoint) => [endpoint.response, endpoint.body, endpoint.failure]);
  requireKnown(
    'schema',
    named.filter((name): name is string => name !== undefined),
    known,
    where,
  );
  requireKnown(
    'schema',
    table.actions.map((row) => row.schema),
    known,
    where,
  );
  for (const row of table.actions) {
    const def = isJsonObject(defs) ? defs[row.schema] : undefined;
    const properties = isJsonObject(def) ? def['properties'] : undefined;
    const action = isJsonObject(properties) ? properties['action'] : undefined;
    if (!isJsonObject(action) || action['const'] !== row.action) {
      throw new Error(`${where}: ${row.schema} must have properties.action.const "${row.action}"`);
    }
  }
  const codes = new Set(table.statusCodes.map((row) => row.status));
  for (const endpoint of table.endpoints) {
    if (endpoint.response === undefined || endpoint.failure === undefined)
      throw new Error(`${where}: ${endpoint.method} ${endpoint.path} needs a response and a failure def`);
    requireKnown(
      'status (not in statusCodes)',
      endpoint.statuses.map(String),
      new Set([...codes].map(String)),
      `${where}: ${endpoint.method} ${endpoint.path}`,
    );
  }
  const endpointKey = (endpoint: Endpoint) => `${endpoint.method} ${endpoint.path}`;
  const endpointTypes = table.endpoints.map(
    (endpoint) => `  '${endpointKey(endpoint)}': { response: T.${endpoint.response ?? ''}; failure: T.${endpoint.failure ?? ''} };`,
  );
  const queryTypes = table.endpoints.map((endpoint) => {
    const members = (endpoint.query ?? []).map(queryMemberType);
    return `  '${endpointKey(endpoint)}': ${members.length === 0 ? 'Record<string, never>' : `{ ${members.join('; ')} }`};`;
  });
  const endpointEntries = table.endpoints.map((endpoint) =>
    [
      `  '${endpointKey(endpoint)}': {`,
      `    method: ${literal(endpoint.method)},`,
      `    path: ${literal(endpoint.path)},`,
      `    statuses: ${literal(endpoint.statuses).replaceAll('\n', '\n    ')},`,
      `    validateResponse: exact.${validatorName(endpoint.response ?? '')},`,
      `    validateFailure: exact.${validatorName(endpoint.failure ?? '')},`,
      '  },',
    ].join('\n'),
  );
  const { actions, file: _file, ...api } = table;
  void _file;
  const types = actions.map((row) => `  '${row.action}': T.${row.schema};`);
  const entries = actions.map((row) =>
    [
      `  '${row.action}': {`,
      `    action: '${row.action}',`,
      `    schema: ${literal(row.schema)},`,
      `    effect: ${literal(row.effect)},`,
      ...(row.returns === undefined ? [] : [`    returns: ${literal(row.returns)},`]),
      `    validate: exact.${validatorName(row.schema)},`,
      '  },',
    ].join('\n'),
  );
  return [
    generatedHeader(`spec/${family.id}/api.json`),
    "import type * as T from './types.js';",
    "import type { Validator } from './validators.js';",
    "import * as exact from './validators.js';",
    '',
    '/** Endpoints, query parameters and status codes of the control API. */',
    `export const CONTROL_API = ${literal(api)} as const;`,
    '',
    'export interface ControlActionTypes {',
    ...types,
    '}',
    '',
    'export type ControlActionName = keyof ControlActionTypes;',
    '',
    'export interface ControlActionDefinition<A extends ControlActionName = ControlActionName> {',
    '  readonly action: A;',
    '  readonly schema: string;',
    '  readonly effect: string;',
    '  readonly returns?: string;',
    '  /** Exact validator: an action with a member the contract does not name is rejected. */',
    '  readonly validate: Validator<ControlActionTypes[A]>;',
    '}',
    '',
    'export const CONTROL_ACTIONS: { readonly [A in ControlActionName]: ControlActionDefinition<A> } = {',
    ...entries,
    '};',
    '',
    'export function isControlActionName(name: string): name is ControlActionName {',
    '  return Object.hasOwn(CONTROL_ACTIONS, name);',
    '}',
    '',
    '/** Per endpoint (`METHOD path`), the body of a success and of a failure. */',
    'export interface ControlEndpointTypes {',
    ...endpointTypes,
    '}',
    '',
    'export type ControlEndpointKey = keyof ControlEndpointTypes;',
    '',
    '/** Per endpoint, its query parameters once parsed: defaults filled in, types as declared. */',
    'export interface ControlQueryTypes {',
    ...queryTypes,
    '}',
    '',
    'export interface ControlEndpointDefinition<K extends ControlEndpointKey = ControlEndpointKey> {',
    '  readonly method: string;',
    '  readonly path: string;',
    '  /** Every status the endpoint may answer with. */',
    '  readonly statuses: readonly number[];',
    "  readonly validateResponse: Validator<ControlEndpointTypes[K]['response']>;",
    "  readonly validateFailure: Validator<ControlEndpointTypes[K]['failure']>;",
    '}',
    '',
    'export const CONTROL_ENDPOINTS: { readonly [K in ControlEndpointKey]: ControlEndpointDefinition<K> } = {',
    ...endpointEntries,
    '};',
    '',
  ].join('\n');
}
