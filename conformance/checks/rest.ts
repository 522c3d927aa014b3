import fc from 'fast-check';
import { ERROR_DOMAIN, ERRORS, type ErrorName } from '../../generated/a2a/1.0/errors.js';
import { METHODS, type MethodName } from '../../generated/a2a/1.0/methods.js';
import { MEDIA_TYPES } from '../../generated/a2a/1.0/protocol.js';
import { TASK_STATES } from '../../generated/a2a/1.0/task-states.js';
import type { BadRequest, ErrorInfo } from '../../generated/a2a/1.0/types.js';
import { REST_ROUTES, type RestRoute } from '../../src/protocol/rest-routes.js';
import { isRecord } from '../../src/support/records.js';
import { brokenAnswer, errorByReason, observedOf, reasonOf, short } from '../core/answers.js';
import type { Check, CheckContext } from '../core/check.js';
import { RestTransport } from '../core/rest-transport.js';
import type { RpcExchange } from '../core/transport.js';
import { SLOW_WORK } from './support/directives.js';
import { checkAgainstAgent, PropertyViolation } from './support/property-runs.js';
import { examine } from './support/streams.js';
import { slowTask, unknownTaskId } from './support/tasks.js';
import { trimTrailing } from '../../src/support/trim.js';

/*
 * What only the HTTP+JSON binding has (spec §11): its routes and verbs, media types, the
 * google.rpc.Status error body, typed query parameters, tenant-prefixed routes and both verbs of
 * `:subscribe`. Each check runs on the HTTP+JSON transport only; requests are built from the
 * route table (src/protocol/rest-routes.ts), never from paths typed here.
 */

const ERROR_INFO: ErrorInfo['@type'] = 'type.googleapis.com/google.rpc.ErrorInfo';
const BAD_REQUEST: BadRequest['@type'] = 'type.googleapis.com/google.rpc.BadRequest';
/** A tenant for the `/{tenant}/` routes when the card names none: any tenant must reach the route (REST-ENV-007). */
const PROBE_TENANT = 'conform-tenant';

function restOf(context: CheckContext): RestTransport {
  if (!(context.transport instanceof RestTransport)) throw new Error('an HTTP+JSON check ran on another transport');
  return context.transport;
}

/** Params that reach `route` without doing anything: unknown ids, an empty send (refused), no filter. */
function probeParams(route: RestRoute, tenant: string): Record<string, unknown> {
  const params: Record<string, unknown> = route.tenant ? { tenant } : {};
  for (const field of route.pathFields) if (field !== 'tenant') params[field] = unknownTaskId();
  return params;
}

/** Whether an answer shows the route is served: anything but no answer, a 5xx, 405, or a 404 that is not an A2A error. */
function routeServed(exchange: RpcExchange): boolean {
  if (exchange.status === 0 || exchange.status >= 500 || exchange.status === ERRORS.MethodNotAllowedError.httpStatus) return false;
  if (exchange.status !== ERRORS.NotFoundError.httpStatus) return true;
  const name = errorByReason(reasonOf(exchange.restError));
  return name !== undefined && ERRORS[name].category === 'a2a';
}

async function checkRoutes(context: CheckContext): Promise<void> {
  const rest = restOf(context);
  const tenant = rest.tenant ?? PROBE_TENANT;
  let missing = 0;
  let tenantMissing = 0;
  for (const route of REST_ROUTES) {
    const params = probeParams(route, tenant);
    const streaming = METHODS[route.method].streaming;
    const exchange = streaming
      ? await rest.callVia(route.verb, route.method, params, { timeoutMs: Math.min(context.timeoutMs, 3000) })
      : await rest.callVia(route.verb, route.method, params);
    if (routeServed(exchange)) continue;
    const requirement = route.tenant ? 'REST-ENV-007' : 'REST-ENV-001';
    if (route.tenant) tenantMissing += 1;
    else missing += 1;
    const finding = {
      message: `${route.verb} ${route.template} (${route.method}) is not served`,
      expected: `the route answers (an A2A error such as ${ERRORS.TaskNotFoundError.reason} for an unknown id is fine), not 404 or 405`,
      observed: observedOf(exchange),
      exchange,
    };
    // The proto annotates one verb of :subscribe and the prose another: serving only one is SUB-007's warning.
    if (route.alternate) context.warn('SUB-007', finding);
    else context.fail(requirement, finding);
  }
  if (missing === 0) context.pass('REST-ENV-001', 'every route of methods.json answers with its verb');
  if (tenantMissing === 0) context.pass('REST-ENV-007', `every route answers under /${tenant}/ as well`);

  const unknown = await rest.raw(undefined, {
    method: 'GET',
    url: `${trimTrailing(rest.endpoint, '/')}/conform-no-such-route`,
    headers: { accept: MEDIA_TYPES.json },
  });
  if (unknown.status === ERRORS.NotFoundError.httpStatus) context.pass('REST-ENV-001', 'a path outside the routes gets 404');
  else
    context.fail('REST-ENV-001', {
      message: 'a path outside the routes was not answered 404',
      expected: `HTTP ${ERRORS.NotFoundError.httpStatus}`,
      observed: observedOf(unknown),
      exchange: unknown,
    });

  // RFC 9110 §15.5.6: a 405 MUST carry Allow. Answering a wrong verb 404 is tolerated, 405 without Allow is not.
  for (const method of ['SendMessage', 'GetTask'] as const satisfies readonly MethodName[]) {
    const route = REST_ROUTES.find((candidate) => candidate.method === method && !candidate.tenant && !candidate.alternate) as RestRoute;
    const wrong = route.verb === 'GET' ? 'DELETE' : 'PUT';
    const exchange = await rest.callVia(wrong, method, probeParams(route, tenant));
    const allow = exchange.headers['allow'] ?? '';
    if (exchange.status === ERRORS.MethodNotAllowedError.httpStatus && !allow.toUpperCase().includes(route.verb)) {
      context.fail('REST-ENV-001', {
        message: `${wrong} ${route.template} was answered 405 without an Allow header naming ${route.verb}`,
        expected: `405 with Allow: ${route.verb}`,
        observed: `HTTP ${exchange.status}, Allow ${allow || '(none)'}`,
        exchange,
      });
    } else if (exchange.status === ERRORS.MethodNotAllowedError.httpStatus) {
      context.pass('REST-ENV-001', `a wrong verb on a route gets 405 with Allow`);
    } else if (exchange.status < 400 || exchange.status >= 500) {
      context.fail('REST-ENV-001', {
        message: `${wrong} ${route.template} was not refused`,
        expected: `405 with Allow: ${route.verb} (or 404)`,
        observed: observedOf(exchange),
        exchange,
      });
    }
  }
}

async function checkMediaTypes(context: CheckContext): Promise<void> {
  const rest = restOf(context);
  const answers = [
    await rest.call('ListTasks', { pageSize: 1 }),
    await rest.call('GetTask', { id: unknownTaskId() }),
    await rest.call('SendMessage', { message: context.message('conformance: sent as application/json') }),
  ];
  for (const exchange of answers) {
    const type = exchange.headers['content-type'] ?? '';
    if (exchange.status === 0) continue;
    if (type.toLowerCase().startsWith(MEDIA_TYPES.a2aJson)) context.pass('REST-ENV-002', `answers carry ${MEDIA_TYPES.a2aJson}`);
    else
      context.warn('REST-ENV-002', {
        message: `${exchange.request.method} ${new URL(exchange.request.url).pathname} was answered with Content-Type ${type || '(none)'}`,
        expected: `Content-Type: ${MEDIA_TYPES.a2aJson}`,
        observed: type || '(none)',
        exchange,
      });
  }
  const sent = answers[2] as RpcExchange;
  if (sent.result !== undefined) context.pass('REST-ENV-002', `a request sent as ${MEDIA_TYPES.json} was accepted`);
  else
    context.fail('REST-ENV-002', {
      message: `a SendMessage sent as ${MEDIA_TYPES.json} was not accepted`,
      expected: 'a SendMessageResponse',
      observed: observedOf(sent),
      exchange: sent,
    });
}

/** The error body of one answer against REST-ENV-003 (status and shape), -004 (ErrorInfo) and -005 (@type everywhere). */
function judgeErrorBody(context: CheckContext, exchange: RpcExchange, name: ErrorName, what: string): void {
  const { httpStatus, grpcStatus, reason } = ERRORS[name];
  const status = exchange.restError;
  if (exchange.status !== httpStatus || !isRecord(status) || status['code'] !== httpStatus || status['status'] !== grpcStatus) {
    context.fail('REST-ENV-003', {
      message: `${what}: not ${name} as HTTP+JSON renders it`,
      expected: `HTTP ${httpStatus} and {"error":{"code":${httpStatus},"status":"${grpcStatus}","message":…,"details":[…]}}`,
      observed: `HTTP ${exchange.status}: ${short(exchange.bodyText, 300) || '(empty body)'}`,
      exchange,
    });
    if (!isRecord(status)) return;
  } else if (context.checkShape('REST-ENV-003', 'RestErrorResponse', exchange.json, { exchange })) {
    context.pass('REST-ENV-003', `${what}: HTTP ${httpStatus} with a google.rpc.Status body`);
  }
  const details = Array.isArray(status['details']) ? (status['details'] as unknown[]) : [];
  const untyped = details.filter((detail) => !isRecord(detail) || typeof detail['@type'] !== 'string');
  if (untyped.length > 0)
    context.fail('REST-ENV-005', {
      message: `${what}: ${untyped.length} error detail(s) without @type`,
      expected: 'an @type member on every element of details',
      observed: short(details),
      exchange,
    });
  else context.pass('REST-ENV-005', 'every error detail carries @type');
  const info = details.find((detail) => isRecord(detail) && detail['@type'] === ERROR_INFO);
  if (isRecord(info) && info['reason'] === reason && info['domain'] === ERROR_DOMAIN)
    context.pass('REST-ENV-004', `${what}: ErrorInfo ${reason} in details`);
  else
    context.fail('REST-ENV-004', {
      message: `${what}: no ErrorInfo with reason ${reason} and domain ${ERROR_DOMAIN} in details`,
      expected: `{"@type":"${ERROR_INFO}","reason":"${reason}","domain":"${ERROR_DOMAIN}"} in error.details`,
      observed: short(details),
      exchange,
    });
  if (name !== 'InvalidParamsError') return;
  const badRequest = details.find((detail) => isRecord(detail) && detail['@type'] === BAD_REQUEST);
  if (isRecord(badRequest) && Array.isArray(badRequest['fieldViolations']) && badRequest['fieldViolations'].length > 0)
    context.pass('REST-ENV-003', `${what}: a BadRequest with field violations in details`);
  else
    context.warn('REST-ENV-003', {
      message: `${what}: a validation error without a BadRequest naming the field`,
      expected: `{"@type":"${BAD_REQUEST}","fieldViolations":[…]} in error.details`,
      observed: short(details),
      exchange,
    });
}

async function checkErrorBodies(context: CheckContext): Promise<void> {
  const rest = restOf(context);
  judgeErrorBody(context, await rest.call('GetTask', { id: unknownTaskId() }), 'TaskNotFoundError', 'GetTask for an unknown id');
  judgeErrorBody(context, await rest.call('CancelTask', { id: unknownTaskId() }), 'TaskNotFoundError', 'CancelTask for an unknown id');
  judgeErrorBody(
    context,
    await rest.callRaw('SendMessage', { message: { parts: [] } }),
    'InvalidParamsError',
    'SendMessage with an invalid message',
  );
  judgeErrorBody(context, await rest.callRaw('ListTasks', { pageSize: 'many' }), 'InvalidParamsError', 'ListTasks with pageSize=many');
}

/** The parameters of GET routes and values of the wrong type for each: every one must be a 400, never a 5xx or silence. */
const WRONG_QUERY_VALUES: readonly { method: 'ListTasks' | 'GetTask'; name: string; example: string; values: fc.Arbitrary<string> }[] = [
  {
    method: 'ListTasks',
    name: 'pageSize',
    example: 'abc',
    values: fc.oneof(
      fc.constantFrom('abc', '1.5', 'true', '', '0x10'),
      fc.string().filter((text) => !/^\s*-?\d+\s*$/.test(text)),
    ),
  },
  {
    method: 'ListTasks',
    name: 'includeArtifacts',
    example: 'yes',
    values: fc.oneof(
      fc.constantFrom('yes', '2', 'TRUE!', ''),
      fc.string().filter((text) => !/^(true|false|0|1)$/i.test(text)),
    ),
  },
  {
    method: 'ListTasks',
    name: 'status',
    example: 'DONE',
    values: fc.oneof(
      fc.constantFrom('DONE', 'completed', '42x'),
      fc.string({ minLength: 1 }).filter((text) => !Object.hasOwn(TASK_STATES, text) && !/^\d+$/.test(text)),
    ),
  },
  {
    method: 'ListTasks',
    name: 'statusTimestampAfter',
    example: 'yesterday',
    values: fc.oneof(
      fc.constantFrom('yesterday', '2026-13-45T99:00:00Z', 'not-a-time'),
      fc.string({ minLength: 1 }).filter((text) => Number.isNaN(Date.parse(text))),
    ),
  },
  {
    method: 'GetTask',
    name: 'historyLength',
    example: 'x',
    values: fc.oneof(
      fc.constantFrom('x', '1e', '2.5'),
      fc.string().filter((text) => !/^\s*-?\d+\s*$/.test(text)),
    ),
  },
];

async function checkQueryParameters(context: CheckContext): Promise<void> {
  const rest = restOf(context);
  // Typed values take effect: two finished tasks, then the filters that must narrow them.
  const first = await rest.call('SendMessage', { message: context.message('conformance: query parameters, task one') });
  const second = await rest.call('SendMessage', { message: context.message('conformance: query parameters, task two') });
  const ids = [first, second].flatMap((exchange) => {
    const task = isRecord(exchange.result) ? exchange.result['task'] : undefined;
    return isRecord(task) && typeof task['id'] === 'string' ? [task['id']] : [];
  });
  if (ids.length === 0) {
    context.skip('REST-ENV-006', 'precondition-not-met', `SendMessage returned no task to read back (${observedOf(first)})`);
  } else {
    const paged = await rest.call('ListTasks', { pageSize: 1, includeArtifacts: true });
    const tasks = isRecord(paged.result) && Array.isArray(paged.result['tasks']) ? paged.result['tasks'] : undefined;
    if (tasks !== undefined && tasks.length === 1) context.pass('REST-ENV-006', 'pageSize=1&includeArtifacts=true gave one task');
    else
      context.fail('REST-ENV-006', {
        message: 'pageSize=1 did not limit ListTasks to one task',
        expected: 'a ListTasksResponse with exactly one task (two exist)',
        observed: observedOf(paged),
        exchange: paged,
      });
    const later = new Date(Date.now() + 3_600_000).toISOString();
    const none = await rest.call('ListTasks', { statusTimestampAfter: later });
    const after = isRecord(none.result) && Array.isArray(none.result['tasks']) ? none.result['tasks'] : undefined;
    if (after !== undefined && after.length === 0) context.pass('REST-ENV-006', 'statusTimestampAfter=<an hour from now> gave no task');
    else
      context.fail('REST-ENV-006', {
        message: 'statusTimestampAfter given in the query did not filter',
        expected: `no task changed after ${later}`,
        observed: observedOf(none),
        exchange: none,
      });
    const read = await rest.call('GetTask', { id: ids[0] as string, historyLength: 1 });
    const history = isRecord(read.result) && Array.isArray(read.result['history']) ? read.result['history'] : [];
    if (read.result !== undefined && history.length <= 1) context.pass('REST-ENV-006', 'historyLength=1 limited the history');
    else
      context.fail('REST-ENV-006', {
        message: 'historyLength=1 given in the query did not limit the history',
        expected: 'a Task with at most one history message',
        observed: observedOf(read),
        exchange: read,
      });
  }
  // Wrong-typed values, drawn by fast-check: each a 400 with InvalidParamsError, never a 5xx or silence.
  // The first 5xx or missing answer, whatever fast-check shrinks to: ROBUST-003 judges it apart from REST-ENV-006.
  let broken: { exchange: RpcExchange; parameter: string; value: string } | undefined;
  const arbitrary = fc.oneof(...WRONG_QUERY_VALUES.map((entry) => fc.record({ entry: fc.constant(entry), value: entry.values })));
  const refused = async (entry: (typeof WRONG_QUERY_VALUES)[number], value: string): Promise<PropertyViolation | undefined> => {
    const params: Record<string, unknown> = { [entry.name]: value, ...(entry.method === 'GetTask' ? { id: unknownTaskId() } : {}) };
    const exchange = await rest.callRaw(entry.method, params);
    if (brokenAnswer(exchange)) broken ??= { exchange, parameter: entry.name, value };
    const reason = reasonOf(exchange.restError);
    if (exchange.status === ERRORS.InvalidParamsError.httpStatus && reason === ERRORS.InvalidParamsError.reason) return undefined;
    return new PropertyViolation(
      `${entry.name}=${JSON.stringify(value)} was not refused with ${ERRORS.InvalidParamsError.httpStatus} ${ERRORS.InvalidParamsError.grpcStatus}`,
      observedOf(exchange),
      exchange,
    );
  };
  // One fixed bad value per parameter first: the property stops at its first failure, and every parameter must be tried.
  for (const entry of WRONG_QUERY_VALUES) {
    const violation = await refused(entry, entry.example);
    if (violation !== undefined)
      context.fail('REST-ENV-006', {
        message: violation.message,
        expected: `HTTP ${ERRORS.InvalidParamsError.httpStatus} with ErrorInfo ${ERRORS.InvalidParamsError.reason} naming the parameter`,
        observed: violation.observed,
        ...(violation.exchange === undefined ? {} : { exchange: violation.exchange }),
      });
  }
  const outcome = await checkAgainstAgent(context, arbitrary, ({ entry, value }) => refused(entry, value));
  const failure = outcome.failure;
  if (failure === undefined)
    context.pass(
      'REST-ENV-006',
      `${outcome.runs} wrong-typed query values were refused with 400 and ErrorInfo ${ERRORS.InvalidParamsError.reason}`,
    );
  else
    context.fail('REST-ENV-006', {
      message: failure.violation.message,
      expected: `HTTP ${ERRORS.InvalidParamsError.httpStatus} with ErrorInfo ${ERRORS.InvalidParamsError.reason} naming the parameter`,
      observed: failure.violation.observed,
      ...(failure.violation.exchange === undefined ? {} : { exchange: failure.violation.exchange }),
      counterexample: {
        method: failure.value.entry.method,
        parameter: failure.value.entry.name,
        value: failure.value.value,
        fastCheckPath: failure.path,
      },
      seed: context.seed,
    });
  const seen = broken;
  if (seen === undefined) context.pass('ROBUST-003', 'wrong-typed query values were all answered');
  else
    context.fail('ROBUST-003', {
      message: `${seen.parameter}=${JSON.stringify(seen.value)} got no proper answer`,
      expected: `an answer (HTTP ${ERRORS.InvalidParamsError.httpStatus}), no 5xx, timeout or dropped connection`,
      observed: observedOf(seen.exchange),
      exchange: seen.exchange,
      seed: context.seed,
    });
}

async function checkSubscribeVerbs(context: CheckContext): Promise<void> {
  const rest = restOf(context);
  const task = await slowTask(context, 'conformance: a slow task to subscribe to with GET and POST', SLOW_WORK);
  if (!task.ok) {
    context.skip('SUB-007', 'precondition-not-met', task.reason);
    return;
  }
  const route = REST_ROUTES.filter((candidate) => candidate.method === 'SubscribeToTask' && !candidate.tenant);
  for (const verb of new Set(route.map((candidate) => candidate.verb))) {
    const exchange = await rest.streamVia(verb, 'SubscribeToTask', { id: task.value.id }, { until: () => true });
    const opened = { method: `SubscribeToTask over ${verb}`, requestId: '', exchange };
    if (examine(context, opened, { allowErrors: false }) && exchange.events.some((event) => event.frame !== undefined))
      context.pass('SUB-007', `${verb} :subscribe opened an SSE stream`);
    else
      context.warn('SUB-007', {
        message: `${verb} on :subscribe did not open an SSE stream for a working task`,
        expected: 'HTTP 200 text/event-stream with a StreamResponse',
        observed: exchange.ending === 'not-a-stream' ? observedOf(exchange) : `${exchange.ending} after ${exchange.events.length} events`,
        exchange,
      });
  }
  await rest.call('CancelTask', { id: task.value.id });
}

export const restChecks: readonly Check[] = [
  {
    id: 'rest-routes',
    bindings: ['HTTP+JSON'],
    title: 'Every HTTP+JSON route answers with its verb, under a tenant too; unknown paths 404, wrong verbs 405 with Allow',
    requirements: ['REST-ENV-001', 'REST-ENV-007', 'SUB-007'],
    run: checkRoutes,
  },
  {
    id: 'rest-media-types',
    bindings: ['HTTP+JSON'],
    title: `Answers are ${MEDIA_TYPES.a2aJson}; requests as ${MEDIA_TYPES.json} are accepted`,
    requirements: ['REST-ENV-002'],
    run: checkMediaTypes,
  },
  {
    id: 'rest-error-bodies',
    bindings: ['HTTP+JSON'],
    title: 'Errors are {"error": google.rpc.Status} with the registered HTTP status, gRPC name, ErrorInfo and BadRequest',
    requirements: ['REST-ENV-003', 'REST-ENV-004', 'REST-ENV-005'],
    run: checkErrorBodies,
  },
  {
    id: 'rest-query-parameters',
    bindings: ['HTTP+JSON'],
    title: 'Query parameters are read typed by their camelCase names; wrong-typed values are a 400',
    requirements: ['REST-ENV-006', 'ROBUST-003'],
    run: checkQueryParameters,
  },
  {
    id: 'rest-subscribe-verbs',
    bindings: ['HTTP+JSON'],
    title: 'GET and POST on :subscribe both open a stream',
    requirements: ['SUB-007'],
    capability: 'streaming',
    needs: ['slow'],
    run: checkSubscribeVerbs,
  },
];
