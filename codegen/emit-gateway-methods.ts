import type { Family } from './families.js';
import { generatedHeader } from './header.js';
import { validatorName } from './emit-validators.js';
import { checkedTable, literal, objectKey, requireKnown } from './tables.js';

interface GatewayMethodRow {
  name: string;
  alias: string;
  description: string;
  side: 'client' | 'agent';
  versions: string[];
  params: string;
  paramsOptional: boolean;
  result: string;
}

interface GatewayMethodsTable {
  source: string;
  workerStates: string[];
  methods: GatewayMethodRow[];
}

/** The result that is not a hub def: the Task of the request's version. */
const VERSION_TASK = 'Task';

/** `gateway-methods.ts`: seed 004's gateway methods, with their params validators and aliases. */
export function emitGatewayMethods(specDir: string, family: Family): string {
  const table = checkedTable<GatewayMethodsTable>(specDir, family, 'gateway-methods.json');
  const where = table.file.displayPath;
  const defs = new Set(family.defNames);
  requireKnown(
    'type',
    table.methods.flatMap((method) => [method.params, ...(method.result === VERSION_TASK ? [] : [method.result])]),
    defs,
    where,
  );
  const names = table.methods.flatMap((method) => [method.name, method.alias]);
  const repeated = names.filter((name, index) => names.indexOf(name) !== index);
  if (repeated.length > 0) throw new Error(`${where}: names used twice: ${repeated.join(', ')}`);
  // Params are checked with the input validators, which name each field; the table holds the result's.
  const validators = [...new Set(table.methods.flatMap((method) => (method.result === VERSION_TASK ? [] : [method.result])))].sort();
  const entries = table.methods.map((method) => {
    const data = {
      name: method.name,
      alias: method.alias,
      description: method.description,
      side: method.side,
      versions: method.versions,
      paramsType: method.params,
      paramsOptional: method.paramsOptional,
      resultType: method.result,
    };
    const resultValidator = method.result === VERSION_TASK ? 'null' : validatorName(method.result);
    const members = Object.entries(data).map(([key, value]) => `    ${key}: ${JSON.stringify(value)},`);
    return [`  ${objectKey(method.name)}: {`, ...members, `    validateResult: ${resultValidator},`, '  },'].join('\n');
  });
  return [
    generatedHeader('spec/hub/gateway-methods.json'),
    `import { ${validators.map(validatorName).join(', ')}, type Validator } from './validators.js';`,
    '',
    '/** Where the methods are defined. */',
    `export const GATEWAY_SOURCE = ${literal(table.source)};`,
    '',
    '/** The states a worker may post with UpdateStatus, as A2A 1.0 names them. */',
    `export const WORKER_STATES = ${literal(table.workerStates)} as const;`,
    '',
    `export type GatewayMethodName = ${table.methods.map((method) => literal(method.name)).join(' | ')};`,
    '',
    'export interface GatewayMethod {',
    '  readonly name: GatewayMethodName;',
    '  /** The PascalCase name it is also called by. */',
    '  readonly alias: string;',
    '  readonly description: string;',
    "  /** `client`: a caller of the agent; `agent`: the worker of a worker-preset instance, with the instance's token. */",
    "  readonly side: 'client' | 'agent';",
    '  /** The protocol versions whose requests may call it. */',
    '  readonly versions: readonly string[];',
    '  /** A hub def, checked with its input validator (src/server/gateway-calls.ts). */',
    '  readonly paramsType: string;',
    '  readonly paramsOptional: boolean;',
    "  /** `Task`: the Task of the request's version; otherwise a hub def. */",
    '  readonly resultType: string;',
    "  /** null when the result is the version's Task, checked with that version's validators. */",
    '  readonly validateResult: Validator<unknown> | null;',
    '}',
    '',
    'export const GATEWAY_METHODS: { readonly [M in GatewayMethodName]: GatewayMethod } = {',
    ...entries,
    '};',
    '',
    '/** Slash name or alias to method. */',
    'export const GATEWAY_METHOD_BY_NAME: ReadonlyMap<string, GatewayMethod> = new Map(',
    '  Object.values(GATEWAY_METHODS).flatMap((method): [string, GatewayMethod][] => [',
    '    [method.name, method],',
    '    [method.alias, method],',
    '  ]),',
    ');',
    '',
  ].join('\n');
}
