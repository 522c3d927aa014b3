import { METHODS, type MethodName } from '../../generated/a2a/1.0/methods.js';
import { PROTO_NAMES } from '../../generated/a2a/1.0/proto-names.js';
import type { FieldViolation } from '../../generated/a2a/1.0/types.js';
import { canonicalJson } from '../support/canonical-json.js';
import { setOwn } from '../support/own-property.js';
import { isRecord } from '../support/records.js';
import type { A2AError } from './a2a-error.js';
import { checkParams, invalidParams } from './params.js';
import { toJsonNames } from './proto-names.js';
import { readQuery } from './rest-query.js';
import type { RestRoute } from './rest-routes.js';

export type RestCall =
  { readonly ok: true; readonly method: MethodName; readonly params: unknown } | { readonly ok: false; readonly error: A2AError };

/**
 * The request message an HTTP+JSON request carries (spec §11.3, §11.5): the body for routes
 * with `body: "*"`, else the query, and always the fields bound by the path. The path wins
 * in the sense that a body or query giving a path field a different value is a violation
 * naming the field, not a silent override. The result is checked like JSON-RPC params, with
 * field paths from the request message's root (`message.parts`, `pageSize`).
 *
 * `body` is the parsed JSON body, undefined when the request had none. A route without a body
 * (POST `:subscribe`) takes one only when it adds nothing to the path: `{}`, or members equal
 * to the path's, as clients such as a2a-js send; anything else is a violation naming `body`.
 */
export function resolveRestCall(
  route: RestRoute,
  pathParams: Readonly<Record<string, string>>,
  query: Iterable<[string, string]>,
  body: unknown,
): RestCall {
  const method = route.method;
  const def = METHODS[method].paramsType;
  const violations: FieldViolation[] = [];
  let request: Record<string, unknown> = {};
  if (body !== undefined) {
    if (!isRecord(body)) return { ok: false, error: invalidParams([{ field: 'body', description: `must be a JSON object (a ${def})` }]) };
    const named = toJsonNames(PROTO_NAMES, def, body);
    if (!named.ok) return { ok: false, error: invalidParams(named.violations) };
    if (!route.body) {
      const extra = Object.entries(named.value as Record<string, unknown>).filter(
        ([name, value]) => !(Object.hasOwn(pathParams, name) && pathParams[name] === value),
      );
      if (extra.length > 0) {
        const names = extra.map(([name]) => name).join(', ');
        const description = `is not taken by this route, which reads its request from the path and the query (the body gives ${names})`;
        return { ok: false, error: invalidParams([{ field: 'body', description }]) };
      }
    } else request = { ...(named.value as Record<string, unknown>) };
  }
  const fromQuery = route.body ? bodyRouteQuery(query, def) : readQuery(def, query, route.pathFields);
  if (!fromQuery.ok) violations.push(...fromQuery.violations);
  else {
    for (const [name, value] of Object.entries(fromQuery.value)) {
      if (Object.hasOwn(request, name) && canonicalJson(request[name]) !== canonicalJson(value)) {
        violations.push({ field: name, description: 'is given in the query and in the body with different values' });
      } else setOwn(request, name, value);
    }
  }
  for (const [name, value] of Object.entries(pathParams)) {
    if (Object.hasOwn(request, name) && request[name] !== value) {
      violations.push({
        field: name,
        description: `is ${JSON.stringify(value)} in the path but ${JSON.stringify(request[name])} in the body`,
      });
    } else setOwn(request, name, value);
  }
  if (violations.length > 0) return { ok: false, error: invalidParams(violations) };
  const checked = checkParams(method, request, '');
  return checked.ok ? { ok: true, method, params: checked.value } : checked;
}

/** A route whose body is the whole request takes no query parameters, apart from service parameters. */
function bodyRouteQuery(query: Iterable<[string, string]>, def: string): ReturnType<typeof readQuery> {
  const read = readQuery(def, query);
  if (!read.ok || Object.keys(read.value).length === 0) return read;
  return {
    ok: false,
    violations: Object.keys(read.value).map((name) => ({
      field: name,
      description: 'is a query parameter, but this route takes its request in the body',
    })),
  };
}
