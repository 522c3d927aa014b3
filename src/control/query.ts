import type { FieldViolation } from '../../generated/a2a/1.0/types.js';
import { CONTROL_API, type ControlEndpointKey, type ControlQueryTypes } from '../../generated/control/api.js';

type QueryParam = {
  readonly name: string;
  readonly type: string;
  readonly required?: boolean;
  readonly default?: unknown;
  readonly minimum?: number;
  readonly maximum?: number;
  readonly values?: readonly string[];
};

/**
 * Reads the query parameters of a control-API read endpoint as `spec/control/api.json`
 * declares them (type, range, values, default, required), so the contract and the parsing
 * cannot drift apart.
 */
export function parseQuery<K extends ControlEndpointKey>(
  key: K,
  query: Readonly<Record<string, string | string[] | undefined>>,
): { ok: true; values: ControlQueryTypes[K] } | { ok: false; violations: FieldViolation[] } {
  const endpoint = CONTROL_API.endpoints.find((entry) => `${entry.method} ${entry.path}` === key);
  const params: readonly QueryParam[] = endpoint && 'query' in endpoint ? endpoint.query : [];
  const values: Record<string, unknown> = {};
  const violations: FieldViolation[] = [];
  for (const param of params) {
    const raw = Array.isArray(query[param.name]) ? query[param.name]?.[0] : (query[param.name] as string | undefined);
    if (raw === undefined || raw === '') {
      if (param.required) violations.push({ field: param.name, description: 'is required' });
      else if (param.default !== undefined) values[param.name] = param.default;
      continue;
    }
    if (param.type === 'integer') {
      const number = Number(raw);
      if (!/^-?\d+$/.test(raw) || !Number.isSafeInteger(number))
        violations.push({ field: param.name, description: `must be a whole number, got ${JSON.stringify(raw)}` });
      else if (param.minimum !== undefined && number < param.minimum)
        violations.push({ field: param.name, description: `must be >= ${param.minimum}` });
      else if (param.maximum !== undefined && number > param.maximum)
        violations.push({ field: param.name, description: `must be <= ${param.maximum}` });
      else values[param.name] = number;
    } else if (param.type === 'enum') {
      if (!param.values?.includes(raw))
        violations.push({
          field: param.name,
          description: `must be one of ${(param.values ?? []).join(', ')}, got ${JSON.stringify(raw)}`,
        });
      else values[param.name] = raw;
    } else if (param.type === 'boolean') {
      if (raw !== 'true' && raw !== 'false') violations.push({ field: param.name, description: 'must be true or false' });
      else values[param.name] = raw === 'true';
    } else {
      values[param.name] = raw;
    }
  }
  // Each value was parsed as its row declares, which is what ControlQueryTypes is generated from.
  return violations.length === 0 ? { ok: true, values: values as ControlQueryTypes[K] } : { ok: false, violations };
}
