import type { MethodName } from '../../generated/a2a/1.0/methods.js';
import type { Task, TaskState } from '../../generated/a2a/1.0/types.js';
import { userMessage } from '../helpers/a2a-client.js';
import type { ErrorName } from '../helpers/errors.js';

/**
 * The cases both bindings must answer alike (hono's common.case.test.ts is the model): each
 * row is one request, written once, that bindings.test.ts sends over JSON-RPC and over
 * HTTP+JSON through a small driver per binding, checking each answer against `want` and the
 * two answers against each other (task state, ids, error code ↔ HTTP status ↔ reason).
 *
 * Adding a row is one object literal. `given` makes a task first, through the binding under
 * test; `params` may then refer to it.
 */
export interface BindingCase {
  readonly name: string;
  /** The instance called: the echo agent, one that wants a bearer token, one whose preset is missing, or one that turns push off. */
  readonly agent?: 'default' | 'locked' | 'unavailable' | 'no-push';
  /** A hub whose rate limit this row spends first. */
  readonly rateLimited?: true;
  readonly given?: GivenTask;
  /** The tenant of the request and of the given task: `params.tenant` on JSON-RPC, the `/{tenant}/` route on HTTP+JSON. */
  readonly tenant?: string;
  /** `Unknown` is a method (JSON-RPC) or route (HTTP+JSON) that does not exist. */
  readonly method: MethodName | 'Unknown';
  readonly params?: (task: Task | undefined) => Record<string, unknown>;
  readonly wire?: { readonly headers?: Record<string, string>; readonly contentType?: string };
  /** Read the answer as an SSE stream. */
  readonly stream?: true;
  readonly want: Want;
}

export type GivenTask = 'completed' | 'input-required' | 'working';

export interface Want {
  /** The error, by registry name; per binding where the bindings name it differently. */
  readonly error?: ErrorName | { readonly 'JSON-RPC': ErrorName; readonly 'HTTP+JSON': ErrorName };
  /** Fields the BadRequest detail names, from the request message's root: JSON-RPC must name them under `params.`, HTTP+JSON as written. */
  readonly fields?: readonly string[];
  /** The state of the task answered (or of the last task state a stream reports). */
  readonly state?: TaskState;
  /** The answer is about the given task (same id and context). */
  readonly sameTask?: true;
}

/** A receiver the default destination policy accepts at create time (https, a hostname; nothing is delivered in these tests). */
const PUSH_URL = 'https://push.example.test/hook';

/** The body cap of the hub the table runs on (bindings.test.ts). */
export const CASE_BODY_LIMIT = 16 * 1024;

const message = (text: string, extra: Record<string, unknown> = {}) => ({ message: userMessage(text, extra) });
const ofTask = (task: Task | undefined) => ({ id: task?.id ?? 'no-given-task' });

export const BINDING_CASES: readonly BindingCase[] = [
  // Every operation.
  { name: 'SendMessage completes', method: 'SendMessage', params: () => message('hello'), want: { state: 'TASK_STATE_COMPLETED' } },
  {
    name: 'SendMessage asking for input',
    method: 'SendMessage',
    params: () => message('hi\n::input-required'),
    want: { state: 'TASK_STATE_INPUT_REQUIRED' },
  },
  {
    name: 'SendMessage continuing an input-required task',
    given: 'input-required',
    method: 'SendMessage',
    params: (task) => message('more', { taskId: task?.id, contextId: task?.contextId }),
    want: { state: 'TASK_STATE_COMPLETED', sameTask: true },
  },
  {
    name: 'SendMessage returnImmediately',
    method: 'SendMessage',
    params: () => ({ ...message('hi\n::slow 3'), configuration: { returnImmediately: true } }),
    want: {},
  },
  {
    name: 'SendStreamingMessage',
    method: 'SendStreamingMessage',
    stream: true,
    params: () => message('hi'),
    want: { state: 'TASK_STATE_COMPLETED' },
  },
  { name: 'GetTask', given: 'completed', method: 'GetTask', params: ofTask, want: { state: 'TASK_STATE_COMPLETED', sameTask: true } },
  {
    name: 'GetTask with historyLength',
    given: 'completed',
    method: 'GetTask',
    params: (task) => ({ ...ofTask(task), historyLength: 1 }),
    want: { state: 'TASK_STATE_COMPLETED', sameTask: true },
  },
  { name: 'ListTasks', method: 'ListTasks', params: () => ({ pageSize: 2 }), want: {} },
  {
    name: 'GetTask under a tenant',
    tenant: 'acme',
    given: 'completed',
    method: 'GetTask',
    params: ofTask,
    want: { state: 'TASK_STATE_COMPLETED', sameTask: true },
  },
  {
    name: 'SendStreamingMessage under a tenant',
    tenant: 'acme',
    method: 'SendStreamingMessage',
    stream: true,
    params: () => message('hi'),
    want: { state: 'TASK_STATE_COMPLETED' },
  },
  {
    name: 'ListTasks by context and state',
    given: 'completed',
    method: 'ListTasks',
    params: (task) => ({ contextId: task?.contextId, status: 'TASK_STATE_COMPLETED', includeArtifacts: true }),
    want: { state: 'TASK_STATE_COMPLETED', sameTask: true },
  },
  { name: 'CancelTask', given: 'working', method: 'CancelTask', params: ofTask, want: { state: 'TASK_STATE_CANCELED', sameTask: true } },
  {
    name: 'SubscribeToTask',
    given: 'working',
    method: 'SubscribeToTask',
    stream: true,
    params: ofTask,
    want: { state: 'TASK_STATE_COMPLETED', sameTask: true },
  },
  { name: 'GetExtendedAgentCard', method: 'GetExtendedAgentCard', params: () => ({}), want: {} },
  {
    name: 'CreateTaskPushNotificationConfig',
    given: 'completed',
    method: 'CreateTaskPushNotificationConfig',
    params: (task) => ({ taskId: task?.id, url: PUSH_URL, token: 'case-token', authentication: { scheme: 'Bearer', credentials: 'c' } }),
    want: {},
  },
  {
    name: 'CreateTaskPushNotificationConfig under a tenant',
    tenant: 'acme',
    given: 'completed',
    method: 'CreateTaskPushNotificationConfig',
    params: (task) => ({ taskId: task?.id, id: 'tenant-hook', url: PUSH_URL }),
    want: {},
  },
  {
    name: 'ListTaskPushNotificationConfigs',
    given: 'completed',
    method: 'ListTaskPushNotificationConfigs',
    params: (task) => ({ taskId: task?.id, pageSize: 5 }),
    want: {},
  },
  {
    name: 'DeleteTaskPushNotificationConfig of a config that is not there',
    given: 'completed',
    method: 'DeleteTaskPushNotificationConfig',
    params: (task) => ({ taskId: task?.id, id: 'c1' }),
    want: {},
  },
  {
    name: 'SendMessage with an inline push config',
    method: 'SendMessage',
    params: () => ({ ...message('hi'), configuration: { taskPushNotificationConfig: { url: PUSH_URL, token: 'inline' } } }),
    want: { state: 'TASK_STATE_COMPLETED' },
  },
  {
    name: 'SendStreamingMessage with an inline push config',
    method: 'SendStreamingMessage',
    stream: true,
    params: () => ({ ...message('hi'), configuration: { taskPushNotificationConfig: { url: PUSH_URL } } }),
    want: { state: 'TASK_STATE_COMPLETED' },
  },

  // Every error of the catalogue the hub can produce.
  { name: 'GetTask of an unknown id', method: 'GetTask', params: () => ({ id: 'no-such-task' }), want: { error: 'TaskNotFoundError' } },
  {
    name: 'CancelTask of an unknown id',
    method: 'CancelTask',
    params: () => ({ id: 'no-such-task' }),
    want: { error: 'TaskNotFoundError' },
  },
  {
    name: 'CancelTask of a completed task',
    given: 'completed',
    method: 'CancelTask',
    params: ofTask,
    want: { error: 'TaskNotCancelableError' },
  },
  {
    name: 'SubscribeToTask of a completed task',
    given: 'completed',
    method: 'SubscribeToTask',
    params: ofTask,
    want: { error: 'UnsupportedOperationError' },
  },
  {
    name: 'SendMessage without parts',
    method: 'SendMessage',
    params: () => ({ message: { messageId: 'no-parts', role: 'ROLE_USER' } }),
    want: { error: 'InvalidParamsError', fields: ['message.parts'] },
  },
  {
    name: 'ListTasks with a negative pageSize',
    method: 'ListTasks',
    params: () => ({ pageSize: -1 }),
    want: { error: 'InvalidParamsError', fields: ['pageSize'] },
  },
  {
    name: 'SendMessage accepting no text output',
    method: 'SendMessage',
    params: () => ({ ...message('hi'), configuration: { acceptedOutputModes: ['image/png'] } }),
    want: { error: 'ContentTypeNotSupportedError' },
  },
  {
    name: 'CreateTaskPushNotificationConfig with a loopback URL',
    given: 'completed',
    method: 'CreateTaskPushNotificationConfig',
    params: (task) => ({ taskId: task?.id, url: 'https://127.0.0.1/hook' }),
    want: { error: 'InvalidParamsError', fields: ['url'] },
  },
  {
    name: 'CreateTaskPushNotificationConfig with a scheme that is no token',
    given: 'completed',
    method: 'CreateTaskPushNotificationConfig',
    params: (task) => ({ taskId: task?.id, url: PUSH_URL, authentication: { scheme: 'Bearer token', credentials: 'x' } }),
    want: { error: 'InvalidParamsError', fields: ['authentication.scheme'] },
  },
  {
    name: 'CreateTaskPushNotificationConfig of an unknown task',
    method: 'CreateTaskPushNotificationConfig',
    params: () => ({ taskId: 'no-such-task', url: PUSH_URL }),
    want: { error: 'TaskNotFoundError' },
  },
  {
    name: 'GetTaskPushNotificationConfig of an unknown config',
    given: 'completed',
    method: 'GetTaskPushNotificationConfig',
    params: (task) => ({ taskId: task?.id, id: 'c1' }),
    want: { error: 'TaskNotFoundError' },
  },
  {
    name: 'SendMessage with a refused inline push config',
    method: 'SendMessage',
    params: () => ({ ...message('hi'), configuration: { taskPushNotificationConfig: { url: 'http://push.example.test/hook' } } }),
    want: { error: 'InvalidParamsError', fields: ['configuration.taskPushNotificationConfig.url'] },
  },
  {
    name: 'CreateTaskPushNotificationConfig without push',
    agent: 'no-push',
    given: 'completed',
    method: 'CreateTaskPushNotificationConfig',
    params: (task) => ({ taskId: task?.id, url: PUSH_URL }),
    want: { error: 'PushNotificationNotSupportedError' },
  },
  {
    name: 'GetTaskPushNotificationConfig without push',
    agent: 'no-push',
    given: 'completed',
    method: 'GetTaskPushNotificationConfig',
    params: (task) => ({ taskId: task?.id, id: 'c1' }),
    want: { error: 'PushNotificationNotSupportedError' },
  },
  {
    name: 'ListTaskPushNotificationConfigs without push',
    agent: 'no-push',
    given: 'completed',
    method: 'ListTaskPushNotificationConfigs',
    params: (task) => ({ taskId: task?.id }),
    want: { error: 'PushNotificationNotSupportedError' },
  },
  {
    name: 'DeleteTaskPushNotificationConfig without push',
    agent: 'no-push',
    given: 'completed',
    method: 'DeleteTaskPushNotificationConfig',
    params: (task) => ({ taskId: task?.id, id: 'c1' }),
    want: { error: 'PushNotificationNotSupportedError' },
  },
  {
    name: 'SendMessage with an inline push config without push',
    agent: 'no-push',
    method: 'SendMessage',
    params: () => ({ ...message('hi'), configuration: { taskPushNotificationConfig: { url: PUSH_URL } } }),
    want: { error: 'PushNotificationNotSupportedError' },
  },
  {
    name: 'an unsupported A2A-Version',
    method: 'ListTasks',
    params: () => ({}),
    wire: { headers: { 'a2a-version': '0.5' } },
    want: { error: 'VersionNotSupportedError' },
  },
  {
    name: 'a body that is not JSON',
    method: 'SendMessage',
    params: () => message('hi'),
    wire: { contentType: 'text/plain' },
    want: { error: 'UnsupportedMediaTypeError' },
  },
  {
    name: 'a body over the cap',
    method: 'SendMessage',
    params: () => message('x'.repeat(CASE_BODY_LIMIT)),
    want: { error: 'PayloadTooLargeError' },
  },
  { name: 'no bearer token', agent: 'locked', method: 'ListTasks', params: () => ({}), want: { error: 'UnauthenticatedError' } },
  {
    name: 'a wrong bearer token',
    agent: 'locked',
    method: 'ListTasks',
    params: () => ({}),
    wire: { headers: { authorization: 'Bearer wrong' } },
    want: { error: 'UnauthenticatedError' },
  },
  {
    name: 'an unavailable instance',
    agent: 'unavailable',
    method: 'ListTasks',
    params: () => ({}),
    want: { error: 'AgentUnavailableError' },
  },
  { name: 'over the rate limit', rateLimited: true, method: 'ListTasks', params: () => ({}), want: { error: 'RateLimitedError' } },
  {
    name: 'a method that does not exist',
    method: 'Unknown',
    params: () => ({}),
    want: { error: { 'JSON-RPC': 'MethodNotFoundError', 'HTTP+JSON': 'NotFoundError' } },
  },

  // Input that would stall, crash or fail the hub on one store only (issue 42).
  {
    name: 'SendMessage with metadata nested 1,000 deep',
    method: 'SendMessage',
    params: () => message('deep', { metadata: { deep: nested(1000) } }),
    want: { error: 'InvalidParamsError', fields: ['message.metadata.deep[0][0][0][0][0]…'] },
  },
  {
    name: 'SendMessage with a data part nested 1,000 deep',
    method: 'SendMessage',
    params: () => ({ message: { ...userMessage('deep'), parts: [{ data: nested(1000) }] } }),
    want: { error: 'InvalidParamsError', fields: ['message.parts[0].data[0][0][0][0]…'] },
  },
  {
    // The request message is level 1, message 2, metadata 3, the outermost array 4: 97 arrays make the 100 levels allowed.
    name: 'SendMessage with metadata as deep as a request may nest',
    method: 'SendMessage',
    params: () => message('deep', { metadata: { deep: nested(97) } }),
    want: { state: 'TASK_STATE_COMPLETED' },
  },
  {
    name: 'SendMessage with metadata one level deeper than a request may nest',
    method: 'SendMessage',
    params: () => message('deep', { metadata: { deep: nested(98) } }),
    want: { error: 'InvalidParamsError', fields: ['message.metadata.deep[0][0][0][0][0]…'] },
  },
  {
    name: 'SendMessage with U+0000 in its messageId',
    method: 'SendMessage',
    params: () => ({ message: { ...userMessage('nul'), messageId: 'm\u0000x' } }),
    want: { error: 'InvalidParamsError', fields: ['message.messageId'] },
  },
  {
    name: 'SendMessage with U+0000 in its contextId',
    method: 'SendMessage',
    params: () => message('nul', { contextId: 'c\u0000x' }),
    want: { error: 'InvalidParamsError', fields: ['message.contextId'] },
  },
  {
    name: 'SendMessage naming a skill with U+0000',
    method: 'SendMessage',
    params: () => message('nul', { metadata: { skill: 'echo\u0000' } }),
    want: { error: 'InvalidParamsError', fields: ['message.metadata.skill'] },
  },
  {
    name: 'GetTask of an id with U+0000',
    method: 'GetTask',
    params: () => ({ id: 'a\u0000b' }),
    want: { error: 'InvalidParamsError', fields: ['id'] },
  },
  {
    name: 'SendMessage with U+0000 in its text and metadata, which are stored as they are',
    method: 'SendMessage',
    params: () => message('before\u0000after', { metadata: { note: 'a\u0000b' } }),
    want: { state: 'TASK_STATE_COMPLETED' },
  },
];

/** An array holding an array … `levels` deep: `nested(2)` is `[[]]`. */
function nested(levels: number): unknown[] {
  let value: unknown[] = [];
  for (let level = 1; level < levels; level += 1) value = [value];
  return value;
}
