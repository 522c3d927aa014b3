import { METHODS as METHODS_03, type MethodName as Method03 } from '../../generated/a2a/0.3/methods.js';
import type * as V03 from '../../generated/a2a/0.3/types.js';
import { PROTO_NAMES as PROTO_NAMES_03 } from '../../generated/a2a/0.3/rest/proto-names.js';
import type * as P from '../../generated/a2a/0.3/rest/types.js';
import type { FieldViolation } from '../../generated/a2a/1.0/types.js';
import type { A2AError } from '../protocol/a2a-error.js';
import { A2A_0_3_REST, type A2A03RestDefs } from '../protocol/a2a-schema.js';
import { invalidParams } from '../protocol/params.js';
import { toJsonNames } from '../protocol/proto-names.js';
import { readQuery } from '../protocol/rest-query.js';
import type { RouteMatch } from '../protocol/rest-routes.js';
import { agentCardToProto } from '../protocol/v03/proto/agent-cards.js';
import { sendResultToProto, streamEventToProto, type StreamEvent03 } from '../protocol/v03/proto/events.js';
import { taskPushConfigFromProto, taskPushConfigToProto } from '../protocol/v03/proto/push-configs.js';
import { sendParamsFromProto } from '../protocol/v03/proto/requests.js';
import { taskToProto } from '../protocol/v03/proto/tasks.js';
import { UntranslatableError } from '../protocol/untranslatable.js';
import { checkValue } from '../protocol/validation.js';
import { isRecord } from '../support/records.js';
import { resolve03Call, type Call03 } from './v03-calls.js';

/**
 * A2A 0.3's HTTP+JSON requests, read into the 0.3 call JSON-RPC makes (src/server/v03-calls.ts),
 * and its results written back as the proto's response messages. The request message of a route
 * (spec/a2a/0.3/methods.json `restMessages`) is made from the path, the query and the body,
 * checked against spec/a2a/0.3/rest, and translated (src/protocol/v03/proto); field paths in
 * errors are those of that message. Transport-neutral, like the handler.
 */

type Route03 = Extract<RouteMatch<Method03>, { kind: 'route' }>;
type Resolved = { readonly ok: true; readonly value: Call03 } | { readonly ok: false; readonly error: A2AError };

export function resolveRest03Call(match: Route03, query: Iterable<[string, string]>, body: unknown): Resolved {
  const { route, pathParams, captures } = match;
  const messages = restMessagesOf(route.method);
  const request: Record<string, unknown> = { ...UNSENT_DEFAULTS[route.method] };
  if (body !== undefined) {
    if (route.bodyField !== undefined) request[route.bodyField] = body;
    else if (route.body) {
      if (!isRecord(body)) return failed([{ field: 'body', description: `must be a JSON object (a ${messages.request})` }]);
      Object.assign(request, body);
    } else if (!(isRecord(body) && Object.keys(body).length === 0)) {
      return failed([{ field: 'body', description: 'is not taken by this route, which reads its request from the path and the query' }]);
    }
  }
  // google.api.http: the fields neither the path nor a `body: "*"` binds ride in the query. A
  // `body: "*"` route binds them all, so a query field there is refused rather than ignored.
  const bound = route.bodyField === undefined ? route.pathFields : [...route.pathFields, route.bodyField];
  const read = readQuery(messages.request, query, bound, REST_03_QUERIES);
  if (!read.ok) return failed(read.violations);
  if (route.body) {
    const given = Object.keys(read.value);
    if (given.length > 0)
      return failed(given.map((field) => ({ field, description: 'is a query parameter, but this route takes its request in the body' })));
  } else Object.assign(request, read.value);
  // The path names the resource; a body naming another is a mistake, not an override.
  for (const [field, value] of Object.entries(pathParams)) {
    if (Object.hasOwn(request, field) && request[field] !== value)
      return failed([{ field, description: `is ${JSON.stringify(request[field])} in the body but ${JSON.stringify(value)} in the path` }]);
    request[field] = value;
  }
  const named = toJsonNames(PROTO_NAMES_03, messages.request, request);
  if (!named.ok) return failed(named.violations);
  const checked = checkValue(A2A_0_3_REST, messages.request as keyof A2A03RestDefs, named.value);
  if (!checked.ok) return failed(checked.violations);
  let params: unknown;
  try {
    params = PARAMS[route.method](checked.value as never, captures);
  } catch (error) {
    if (!(error instanceof UntranslatableError)) throw error;
    return failed([{ field: error.path, description: error.message.slice(error.path.length + 2) }]);
  }
  return resolve03Call(route.method, params, '');
}

/** The result of a 0.3 method as its HTTP+JSON response message. */
export function rest03AnswerOf(method: Method03, result: unknown): unknown {
  return ANSWERS[method](result as never);
}

/** One frame of a 0.3 stream (message/stream, tasks/resubscribe) as a StreamResponse. */
export function rest03FrameOf(event: unknown): P.StreamResponse {
  return streamEventToProto(event as StreamEvent03);
}

/** Whether the answer is the method's response message, exactly as spec/a2a/0.3/rest has it; the problems when not. */
export function rest03AnswerProblems(method: Method03, answer: unknown): string[] {
  const checked = checkValue(A2A_0_3_REST, restMessagesOf(method).response as keyof A2A03RestDefs, answer, {
    flavour: 'exact',
  });
  return checked.ok ? [] : checked.violations.map((violation) => `${violation.field} ${violation.description}`);
}

function restMessagesOf(method: Method03): { readonly request: string; readonly response: string } {
  const messages = METHODS_03[method].restMessages;
  if (messages === null) throw new Error(`spec/a2a/0.3/methods.json gives ${method} no restMessages`);
  return messages;
}

const REST_03_QUERIES = { document: A2A_0_3_REST.document, renamesOf: (def: string) => PROTO_NAMES_03[def]?.renames ?? {} };

/**
 * REQUIRED request fields the official clients never send, read as empty: @a2a-js/sdk 0.3 posts
 * a push config without `configId` (the config carries its own id), as gRPC transcoding allows
 * for a field bound to no part of the request (docs/spec-policy.md 10.5).
 */
const UNSENT_DEFAULTS: { readonly [M in Method03]?: Readonly<Record<string, unknown>> } = {
  'tasks/pushNotificationConfig/set': { configId: '' },
};

function failed(violations: FieldViolation[]): Resolved {
  return { ok: false, error: invalidParams(violations) };
}

type Captures = Readonly<Record<string, readonly string[]>>;

/** The `n`th `*` of a path variable: the task id of `tasks/*`, the config id of `…/pushNotificationConfigs/*`. */
function captured(captures: Captures, field: string, index: number): string {
  const value = captures[field]?.[index];
  if (value === undefined) throw new Error(`the route binds no ${field}[${index}]`);
  return value;
}

/** Each method's request message as 0.3's JSON-RPC params; a method added to the table does not compile until it has one. */
const PARAMS: { readonly [M in Method03]: (request: never, captures: Captures) => unknown } = {
  'message/send': (request: P.SendMessageRequest) => sendParamsFromProto(request),
  'message/stream': (request: P.SendMessageRequest) => sendParamsFromProto(request),
  'tasks/get': (request: P.GetTaskRequest, captures) => ({
    id: captured(captures, 'name', 0),
    ...(request.historyLength === undefined ? {} : { historyLength: request.historyLength }),
  }),
  'tasks/cancel': (_request: P.CancelTaskRequest, captures) => ({ id: captured(captures, 'name', 0) }),
  'tasks/resubscribe': (_request: P.TaskSubscriptionRequest, captures) => ({ id: captured(captures, 'name', 0) }),
  'tasks/pushNotificationConfig/set': (request: P.CreateTaskPushNotificationConfigRequest, captures) => {
    if (request.config === undefined) throw new UntranslatableError('config', 'is required: the body is the TaskPushNotificationConfig');
    const config = taskPushConfigFromProto(request.config, 'config', captured(captures, 'parent', 0));
    const id = config.pushNotificationConfig.id;
    const configId = request.configId === '' ? undefined : request.configId;
    if (configId === undefined || configId === id) return config;
    if (id !== undefined)
      throw new UntranslatableError('configId', `is ${JSON.stringify(configId)} but the config's id is ${JSON.stringify(id)}`);
    return { ...config, pushNotificationConfig: { ...config.pushNotificationConfig, id: configId } };
  },
  'tasks/pushNotificationConfig/get': (_request: P.GetTaskPushNotificationConfigRequest, captures) => ({
    id: captured(captures, 'name', 0),
    pushNotificationConfigId: captured(captures, 'name', 1),
  }),
  'tasks/pushNotificationConfig/list': (_request: P.ListTaskPushNotificationConfigRequest, captures) => ({
    id: captured(captures, 'parent', 0),
  }),
  'tasks/pushNotificationConfig/delete': (_request: P.DeleteTaskPushNotificationConfigRequest, captures) => ({
    id: captured(captures, 'name', 0),
    pushNotificationConfigId: captured(captures, 'name', 1),
  }),
  'agent/getAuthenticatedExtendedCard': () => undefined,
};

/** Each method's 0.3 result as its response message. */
const ANSWERS: { readonly [M in Method03]: (result: never) => unknown } = {
  'message/send': (result: V03.Task | V03.Message) => sendResultToProto(result),
  'message/stream': (result: StreamEvent03) => streamEventToProto(result),
  'tasks/get': (result: V03.Task) => taskToProto(result),
  'tasks/cancel': (result: V03.Task) => taskToProto(result),
  'tasks/resubscribe': (result: StreamEvent03) => streamEventToProto(result),
  'tasks/pushNotificationConfig/set': (result: V03.TaskPushNotificationConfig) => taskPushConfigToProto(result),
  'tasks/pushNotificationConfig/get': (result: V03.TaskPushNotificationConfig) => taskPushConfigToProto(result),
  'tasks/pushNotificationConfig/list': (result: V03.TaskPushNotificationConfig[]) => ({ configs: result.map(taskPushConfigToProto) }),
  'tasks/pushNotificationConfig/delete': () => ({}),
  'agent/getAuthenticatedExtendedCard': (result: V03.AgentCard) => agentCardToProto(result),
};
