import { METHODS as METHODS_03, type MethodName as Method03 } from '../../../generated/a2a/0.3/methods.js';
import { PROTO_NAMES as PROTO_NAMES_03 } from '../../../generated/a2a/0.3/rest/proto-names.js';
import type * as P from '../../../generated/a2a/0.3/rest/types.js';
import type * as V03 from '../../../generated/a2a/0.3/types.js';
import type { FieldViolation } from '../../../generated/a2a/1.0/types.js';
import { A2A_0_3_REST, type A2A03RestDefs } from '../a2a-schema.js';
import { toJsonNames } from '../proto-names.js';
import { fillCaptures, pathSegmentProblem, type RestRoute } from '../rest-routes.js';
import { checkValue } from '../validation.js';
import { isRecord } from '../../support/records.js';
import { agentCardFromProto } from './proto/agent-cards.js';
import { sendResultFromProto, streamEventFromProto } from './proto/events.js';
import { taskPushConfigFromProto, taskPushConfigToProto } from './proto/push-configs.js';
import { sendParamsToProto } from './proto/requests.js';
import { taskFromProto } from './proto/tasks.js';
import { clientRoute03 } from './rest-routes.js';
import { UntranslatableError } from '../untranslatable.js';

/**
 * A 0.3 call as a client sends it over HTTP+JSON, and the answer back as the result JSON-RPC
 * would have carried: the reverse of src/server/v03-rest-calls.ts, for the client and the
 * conformance suite. Params are the 0.3 JSON-RPC params (src/protocol/v03/calls.ts makes them
 * from 1.0), so the two 0.3 bindings differ only here.
 */

export interface Rest03Request {
  readonly route: RestRoute<Method03>;
  /** Below the interface URL, starting with `/v1`. */
  readonly path: string;
  /** Without the `?`; empty when the call has none. */
  readonly query: string;
  /** The ProtoJSON body; undefined for a route without one. */
  readonly body: unknown;
  /** The task the path names, which the answer's resource names are read against (rest03Result). */
  readonly taskId: string | undefined;
}

/** The request of `method` with its 0.3 params; throws UntranslatableError for params the route cannot carry. */
export function rest03Request(method: Method03, params: unknown): Rest03Request {
  const route = clientRoute03(method);
  const made = REQUESTS[method]((params ?? {}) as never);
  const path = fillCaptures(route, made.captures ?? {});
  if (path === undefined) throw new Error(`${method}: the captures made do not fill ${route.template}`);
  const query = new URLSearchParams();
  for (const [name, value] of Object.entries(made.query ?? {})) if (value !== undefined) query.append(name, String(value));
  const taskId = made.captures?.['name']?.[0] ?? made.captures?.['parent']?.[0];
  const body = route.verb === 'GET' || route.verb === 'DELETE' ? undefined : (made.body ?? {});
  return { route, path, query: query.toString(), body, taskId };
}

export type Rest03Answer = { readonly ok: true; readonly value: unknown } | { readonly ok: false; readonly violations: FieldViolation[] };

/**
 * The 0.3 JSON-RPC result of an answer (or, for a streaming method, of one SSE frame; undefined
 * for an answer without a body): read with
 * either field name of each member, checked against the route's response message in
 * spec/a2a/0.3/rest (members it does not know are ignored) and translated; the violations,
 * with paths below `result`, when it is not that message. `taskId` is the task the request's
 * path named (Rest03Request.taskId): a config's resource name is read against it, so a task id
 * that holds a literal of the name still reads back whole.
 */
export function rest03Result(method: Method03, answer: unknown, taskId?: string): Rest03Answer {
  const messages = METHODS_03[method].restMessages;
  if (messages === null) throw new Error(`spec/a2a/0.3/methods.json gives ${method} no restMessages`);
  // Empty may come as no body at all (HTTP 204, as @a2a-js/sdk 0.3 answers a delete).
  const body = answer === undefined && messages.response === 'Empty' ? {} : answer;
  const named = toJsonNames(PROTO_NAMES_03, messages.response, body, 'result');
  if (!named.ok) return { ok: false, violations: named.violations };
  const checked = checkValue(A2A_0_3_REST, messages.response as keyof A2A03RestDefs, named.value, { fieldPrefix: 'result' });
  if (!checked.ok) return { ok: false, violations: checked.violations };
  try {
    return { ok: true, value: RESULTS[method](checked.value as never, taskId) };
  } catch (error) {
    if (!(error instanceof UntranslatableError)) throw error;
    const field = error.path.startsWith('result') ? error.path : `result.${error.path}`;
    return { ok: false, violations: [{ field, description: error.message.slice(error.path.length + 2) }] };
  }
}

interface Made {
  /** The `*` segments of each path variable, in order: `name=tasks/*` → the task id. */
  readonly captures?: Readonly<Record<string, readonly string[]>>;
  readonly query?: Readonly<Record<string, string | number | undefined>>;
  readonly body?: unknown;
}

/** The ids a route carries in its path: params without one cannot be sent on it. */
function inPath(params: unknown, ...fields: string[]): string[] {
  return fields.map((field) => {
    const value = isRecord(params) ? params[field] : undefined;
    const problem = pathSegmentProblem(value);
    if (problem !== undefined) throw new UntranslatableError(field, problem);
    return value as string;
  });
}

/** Each 0.3 method's params as its route's path, query and body; a method added to methods.json does not compile until it has one. */
const REQUESTS: { readonly [M in Method03]: (params: never) => Made } = {
  'message/send': (params: V03.MessageSendParams) => ({ body: sendParamsToProto(params) }),
  'message/stream': (params: V03.MessageSendParams) => ({ body: sendParamsToProto(params) }),
  'tasks/get': (params: V03.TaskQueryParams) => ({
    captures: { name: inPath(params, 'id') },
    query: { historyLength: params.historyLength },
  }),
  'tasks/cancel': (params: V03.TaskIdParams) => ({ captures: { name: inPath(params, 'id') } }),
  'tasks/resubscribe': (params: V03.TaskIdParams) => ({ captures: { name: inPath(params, 'id') } }),
  // The body is the config itself (`body: "config"`); its name carries the task and config ids.
  'tasks/pushNotificationConfig/set': (params: V03.TaskPushNotificationConfig) => ({
    captures: { parent: inPath(params, 'taskId') },
    body: taskPushConfigToProto(params),
  }),
  // A GET of a task's config without its id (0.3 JSON-RPC allows `{id}`) has no route.
  'tasks/pushNotificationConfig/get': (params: V03.GetTaskPushNotificationConfigRequestParams) => ({
    captures: { name: inPath(params, 'id', 'pushNotificationConfigId') },
  }),
  'tasks/pushNotificationConfig/list': (params: V03.ListTaskPushNotificationConfigParams) => ({
    captures: { parent: inPath(params, 'id') },
  }),
  'tasks/pushNotificationConfig/delete': (params: V03.DeleteTaskPushNotificationConfigParams) => ({
    captures: { name: inPath(params, 'id', 'pushNotificationConfigId') },
  }),
  'agent/getAuthenticatedExtendedCard': () => ({}),
};

/** Each method's response message as its 0.3 JSON-RPC result. */
const RESULTS: { readonly [M in Method03]: (answer: never, taskId: string | undefined) => unknown } = {
  'message/send': (answer: P.SendMessageResponse) => sendResultFromProto(answer, 'result'),
  'message/stream': (frame: P.StreamResponse) => streamEventFromProto(frame, 'result'),
  'tasks/get': (task: P.Task) => taskFromProto(task, 'result'),
  'tasks/cancel': (task: P.Task) => taskFromProto(task, 'result'),
  'tasks/resubscribe': (frame: P.StreamResponse) => streamEventFromProto(frame, 'result'),
  'tasks/pushNotificationConfig/set': (config: P.TaskPushNotificationConfig, taskId) => taskPushConfigFromProto(config, 'result', taskId),
  'tasks/pushNotificationConfig/get': (config: P.TaskPushNotificationConfig, taskId) => taskPushConfigFromProto(config, 'result', taskId),
  'tasks/pushNotificationConfig/list': (answer: P.ListTaskPushNotificationConfigResponse, taskId) =>
    (answer.configs ?? []).map((config, index) => taskPushConfigFromProto(config, `result.configs[${index}]`, taskId)),
  // 0.3's JSON-RPC answers delete with null; over HTTP+JSON it is the proto's Empty (or no body).
  'tasks/pushNotificationConfig/delete': () => null,
  'agent/getAuthenticatedExtendedCard': (card: P.AgentCard) => agentCardFromProto(card),
};
