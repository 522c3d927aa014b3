import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { isInterruptedState, isTerminalState } from '../../../generated/a2a/1.0/task-states.js';
import type {
  GetTaskRequest,
  ListTasksRequest,
  ListTasksResponse,
  Message,
  SendMessageRequest,
  Task,
  TaskState,
} from '../../../generated/a2a/1.0/types.js';
import type { RequirementId } from '../../../generated/conformance/requirements.js';
import type { TestDirectiveRequest } from '../../../generated/hub/test-directives.js';
import { isRecord } from '../../../src/support/records.js';
import { observedOf, short } from '../../core/answers.js';
import type { CheckContext } from '../../core/check.js';
import type { RpcExchange } from '../../core/transport.js';
import { directiveMessage } from './directives.js';
import { isTaskState, stateLabel } from './states.js';
import { passOnce } from './verdicts.js';
import { trimTrailing } from '../../../src/support/trim.js';

/*
 * Making and reading tasks: SendMessage, GetTask and ListTasks with their answers validated
 * (every Task the agent returns is inspected), polling, and the small task probes the
 * capability and streaming checks start from.
 */

const POLL_MS = 100;

/** A task id no agent has: every GetTask for it must be TaskNotFoundError. */
export function unknownTaskId(): string {
  return `conform-missing-${randomUUID()}`;
}

/** Enough of a Task to read its id and state safely; the rest is checked by shape. */
export function isTaskLike(value: unknown): value is Task {
  return isRecord(value) && typeof value['id'] === 'string' && isRecord(value['status']) && typeof value['status']['state'] === 'string';
}

const BASE64 = /^[A-Za-z0-9+/\-_]*={0,2}$/;

/** Parts the agent emitted: raw must be base64 (DATA-003). */
function inspectParts(context: CheckContext, parts: unknown, where: { exchange: RpcExchange; path: string }): void {
  if (!Array.isArray(parts)) return;
  for (const [index, part] of (parts as unknown[]).entries()) {
    if (!isRecord(part) || part['raw'] === undefined) continue;
    const raw = part['raw'];
    if (typeof raw === 'string' && BASE64.test(raw) && trimTrailing(raw, '=').length % 4 !== 1)
      passOnce(context, 'DATA-003', 'raw parts the agent sent are base64', 'DATA-003:raw');
    else
      context.fail('DATA-003', {
        message: 'a raw part the agent sent is not base64',
        expected: 'raw: a base64 string (bytes in ProtoJSON)',
        observed: short(raw, 120),
        path: `${where.path}[${index}].raw`,
        exchange: where.exchange,
      });
  }
}

/** Agent messages carry a contextId (SEND-004); their parts are checked too. */
function inspectMessage(context: CheckContext, message: unknown, where: { exchange: RpcExchange; path: string }): void {
  if (!isRecord(message)) return;
  inspectParts(context, message['parts'], { exchange: where.exchange, path: `${where.path}.parts` });
  if (message['role'] !== 'ROLE_AGENT') return;
  expectContextId(context, message['contextId'], {
    key: 'SEND-004:agent-message',
    passed: 'messages from the agent carry a contextId',
    failed: 'a message from the agent (ROLE_AGENT) has no contextId',
    expected: 'a non-empty contextId on every ROLE_AGENT message',
    path: `${where.path}.contextId`,
    exchange: where.exchange,
  });
}

/** SEND-004: what the agent sends carries a non-empty contextId. */
function expectContextId(
  context: CheckContext,
  contextId: unknown,
  where: { key: string; passed: string; failed: string; expected: string; path: string; exchange: RpcExchange },
): void {
  if (typeof contextId === 'string' && contextId !== '') return passOnce(context, 'SEND-004', where.passed, where.key);
  context.fail('SEND-004', {
    message: where.failed,
    expected: where.expected,
    observed: `contextId ${JSON.stringify(contextId)}`,
    path: where.path,
    exchange: where.exchange,
  });
}

/**
 * What every Task the agent returns must satisfy, whichever method returned it: id, status and
 * a real state (SEND-002), artifacts with an id and parts (SEND-019), base64 raw parts
 * (DATA-003), agent messages with a contextId (SEND-004). Records FAILs, and each PASS once.
 */
export function inspectTask(context: CheckContext, task: unknown, where: { exchange: RpcExchange; path: string }): void {
  const problems: string[] = [];
  if (!isRecord(task)) problems.push('it is not an object');
  else {
    if (typeof task['id'] !== 'string' || task['id'] === '') problems.push(`id is ${short(task['id'], 60)}`);
    const status = task['status'];
    if (!isRecord(status)) problems.push('status is missing');
    else if (!isTaskState(status['state'])) problems.push(`status.state is ${short(status['state'], 60)}`);
  }
  if (problems.length > 0) {
    context.fail('SEND-002', {
      message: 'a Task lacks id, status or a valid status.state',
      expected: 'id, status and status.state, a TASK_STATE_* name other than TASK_STATE_UNSPECIFIED',
      observed: problems.join('; '),
      path: where.path,
      exchange: where.exchange,
    });
  } else passOnce(context, 'SEND-002', 'every Task has an id, a status and a valid state');
  if (!isRecord(task)) return;
  const status = task['status'];
  if (isRecord(status)) inspectMessage(context, status['message'], { exchange: where.exchange, path: `${where.path}.status.message` });
  if (Array.isArray(task['history']))
    (task['history'] as unknown[]).forEach((message, index) =>
      inspectMessage(context, message, { exchange: where.exchange, path: `${where.path}.history[${index}]` }),
    );
  if (!Array.isArray(task['artifacts'])) return;
  for (const [index, artifact] of (task['artifacts'] as unknown[]).entries()) {
    const path = `${where.path}.artifacts[${index}]`;
    const id = isRecord(artifact) ? artifact['artifactId'] : undefined;
    const parts = isRecord(artifact) ? artifact['parts'] : undefined;
    if (typeof id === 'string' && id !== '' && Array.isArray(parts) && parts.length > 0)
      passOnce(context, 'SEND-019', 'every artifact has an artifactId and parts');
    else
      context.fail('SEND-019', {
        message: 'an artifact lacks an artifactId or parts',
        expected: 'a non-empty artifactId and at least one part',
        observed: short(artifact, 200),
        path,
        exchange: where.exchange,
      });
    inspectParts(context, parts, { exchange: where.exchange, path: `${path}.parts` });
  }
}

export type Sent =
  | { readonly kind: 'task'; readonly task: Task; readonly exchange: RpcExchange }
  | { readonly kind: 'message'; readonly message: Message; readonly exchange: RpcExchange }
  /** A JSON-RPC error, or no usable answer at all. */
  | { readonly kind: 'error'; readonly exchange: RpcExchange }
  /** A result that is not a SendMessageResponse (already reported as a FAIL). */
  | { readonly kind: 'invalid'; readonly exchange: RpcExchange };

/**
 * SendMessage, with its result validated: exactly one of task/message (SEND-001), the exact
 * SendMessageResponse shape, a contextId when none was sent (SEND-004), and inspectTask.
 */
export async function send(context: CheckContext, params: SendMessageRequest, options: { timeoutMs?: number } = {}): Promise<Sent> {
  const exchange = await context.transport.call(
    'SendMessage',
    params,
    options.timeoutMs === undefined ? {} : { timeoutMs: options.timeoutMs },
  );
  return judgeSent(context, params.message.contextId, exchange);
}

/** `send` for params that are not a well-formed SendMessageRequest on purpose (members the proto does not define). */
export async function sendRaw(context: CheckContext, params: Record<string, unknown>): Promise<Sent> {
  const exchange = await context.transport.callRaw('SendMessage', params);
  return judgeSent(context, isRecord(params['message']) ? params['message']['contextId'] : undefined, exchange);
}

function judgeSent(context: CheckContext, sentContext: unknown, exchange: RpcExchange): Sent {
  if (exchange.error || exchange.result === undefined) return { kind: 'error', exchange };
  const result = exchange.result;
  const keys = isRecord(result) ? Object.keys(result) : [];
  if (!isRecord(result) || keys.length !== 1 || (keys[0] !== 'task' && keys[0] !== 'message')) {
    context.fail('SEND-001', {
      message: 'the SendMessage result is not {"task": …} or {"message": …}',
      expected: 'a SendMessageResponse: an object with exactly one member, task or message (a bare Task is A2A 0.3 style)',
      observed: isRecord(result) ? `members ${keys.join(', ') || '(none)'}` : short(result),
      path: 'result',
      exchange,
    });
    return { kind: 'invalid', exchange };
  }
  context.checkShape('SEND-001', 'SendMessageResponse', result, { exchange, path: 'result' });
  const payload = result['task'] ?? result['message'];
  if ((sentContext === undefined || sentContext === '') && isRecord(payload)) {
    expectContextId(context, payload['contextId'], {
      key: 'SEND-004:answer',
      passed: 'a message sent without contextId gets one in the answer',
      failed: 'the answer to a message without contextId carries no contextId',
      expected: 'a non-empty contextId chosen by the server',
      path: `result.${keys[0]}.contextId`,
      exchange,
    });
  }
  if (keys[0] === 'message') {
    inspectMessage(context, payload, { exchange, path: 'result.message' });
    return isRecord(payload) && Array.isArray(payload['parts'])
      ? { kind: 'message', message: payload as unknown as Message, exchange }
      : { kind: 'invalid', exchange };
  }
  inspectTask(context, payload, { exchange, path: 'result.task' });
  return isTaskLike(payload) ? { kind: 'task', task: payload, exchange } : { kind: 'invalid', exchange };
}

/** Why a send that should have made a task did not, for a SKIP (reason precondition-not-met). */
export function noTask(sent: Sent, what = 'the agent'): string {
  switch (sent.kind) {
    case 'message':
      return `${what} answered with a Message rather than a Task, so there is no task to check`;
    case 'error':
      return `${what} refused the message (${observedOf(sent.exchange)}), so there is no task to check`;
    default:
      return `${what} did not return a valid SendMessageResponse, so there is no task to check`;
  }
}

/** GetTask, with the result validated as a bare Task (shape under `requirement`, then inspectTask). */
export async function getTask(
  context: CheckContext,
  params: GetTaskRequest,
  requirement: RequirementId = 'GET-001',
): Promise<{ exchange: RpcExchange; task?: Task }> {
  const exchange = await context.transport.call('GetTask', params);
  if (exchange.error || exchange.result === undefined) return { exchange };
  context.checkShape(requirement, 'Task', exchange.result, { exchange, path: 'result' });
  inspectTask(context, exchange.result, { exchange, path: 'result' });
  return isTaskLike(exchange.result) ? { exchange, task: exchange.result } : { exchange };
}

/** Polls GetTask (validated, like getTask) until `done` holds or `withinMs` has passed; returns the last task seen. */
export async function pollTask(
  context: CheckContext,
  id: string,
  done: (task: Task) => boolean,
  withinMs: number,
): Promise<{ exchange?: RpcExchange; task?: Task }> {
  const deadline = Date.now() + withinMs;
  for (;;) {
    const last = await getTask(context, { id });
    if (last.task === undefined || done(last.task) || Date.now() >= deadline) return last;
    await sleep(POLL_MS);
  }
}

/** ListTasks, with the result validated (LIST-001 members and shape, LIST-002 token presence, every task inspected). */
export async function listTasks(
  context: CheckContext,
  params: ListTasksRequest,
): Promise<{ exchange: RpcExchange; page?: ListTasksResponse }> {
  const exchange = await context.transport.call('ListTasks', params);
  if (exchange.error || exchange.result === undefined) return { exchange };
  const result = exchange.result;
  const problems: string[] = [];
  if (!isRecord(result)) problems.push('the result is not an object');
  else {
    if (!Array.isArray(result['tasks'])) problems.push(`tasks is ${short(result['tasks'], 60)}`);
    if (typeof result['nextPageToken'] !== 'string') problems.push(`nextPageToken is ${short(result['nextPageToken'], 60)}`);
    for (const member of ['pageSize', 'totalSize'])
      if (typeof result[member] !== 'number') problems.push(`${member} is ${short(result[member], 60)}`);
  }
  if (problems.length > 0) {
    context.fail('LIST-001', {
      message: 'a ListTasks result lacks a required member',
      expected: 'tasks (array), nextPageToken (string), pageSize and totalSize (numbers, present even when 0)',
      observed: problems.join('; '),
      path: 'result',
      exchange,
    });
    if (problems.some((problem) => problem.startsWith('nextPageToken'))) {
      context.fail('LIST-002', {
        message: 'a ListTasks result has no nextPageToken',
        expected: 'nextPageToken on every page, "" on the last',
        observed: problems.join('; '),
        path: 'result.nextPageToken',
        exchange,
      });
    }
  } else passOnce(context, 'LIST-001', 'ListTasks results carry tasks, nextPageToken, pageSize and totalSize');
  context.checkShape('LIST-001', 'ListTasksResponse', result, { exchange, path: 'result' });
  if (!isRecord(result) || !Array.isArray(result['tasks']) || typeof result['nextPageToken'] !== 'string') return { exchange };
  (result['tasks'] as unknown[]).forEach((task, index) => inspectTask(context, task, { exchange, path: `result.tasks[${index}]` }));
  const tasks = (result['tasks'] as unknown[]).filter(isTaskLike);
  return {
    exchange,
    page: { tasks, nextPageToken: result['nextPageToken'], pageSize: Number(result['pageSize']), totalSize: Number(result['totalSize']) },
  };
}

/**
 * Sends one message (returnImmediately) and returns the task it created, if any, without
 * judging the answer: the capability-absence checks only need a task to probe with.
 */
export async function probeTask(
  context: CheckContext,
  options: { interrupted?: boolean } = {},
): Promise<{ taskId?: string; exchange: RpcExchange }> {
  const exchange = await context.transport.call('SendMessage', {
    message: options.interrupted
      ? directiveMessage(context, 'conformance: a task to probe with', { outcome: 'input-required' })
      : context.message('conformance: a task to probe with'),
    configuration: { returnImmediately: true },
  });
  const task = isRecord(exchange.result) && isRecord(exchange.result['task']) ? exchange.result['task'] : undefined;
  return { ...(task && typeof task['id'] === 'string' ? { taskId: task['id'] } : {}), exchange };
}

// ---------------------------------------------------------------------------------------------
// Task references for the streaming checks: id and state only, read without judging the answer.

export interface TaskRef {
  readonly id: string;
  readonly state: TaskState;
}

export function taskRefOf(value: unknown): TaskRef | undefined {
  if (!isRecord(value)) return undefined;
  const status = value['status'];
  const state = isRecord(status) ? status['state'] : undefined;
  return typeof value['id'] === 'string' && isTaskState(state) ? { id: value['id'], state } : undefined;
}

/** The task as GetTask shows it now (without history), unjudged. */
export async function currentTask(context: CheckContext, id: string): Promise<TaskRef | undefined> {
  const exchange = await context.transport.call('GetTask', { id, historyLength: 0 });
  return taskRefOf(exchange.result);
}

/** Polls GetTask (unjudged) until the task is terminal or `boundMs` has passed; returns the last state seen. */
export async function pollUntilTerminal(
  context: CheckContext,
  id: string,
  boundMs: number,
): Promise<{ state?: TaskState; waitedMs: number }> {
  const started = Date.now();
  let state: TaskState | undefined;
  for (;;) {
    state = (await currentTask(context, id))?.state ?? state;
    const waitedMs = Date.now() - started;
    if ((state !== undefined && isTerminalState(state)) || waitedMs >= boundMs)
      return { ...(state === undefined ? {} : { state }), waitedMs };
    await sleep(POLL_MS);
  }
}

export type Attempt<T> = { readonly ok: true; readonly value: T } | { readonly ok: false; readonly reason: string };

/**
 * A task that has finished, judged like `send`: the message (asking the profile's agent to
 * complete, a plain one on a black-box run) is sent, and a task the answer shows still going is
 * polled until terminal. Fails with the precise reason there is none: a Message, a refusal, or a
 * task that stopped short of a terminal state or outlasted the timeout.
 */
export async function finishedTask(context: CheckContext, text: string): Promise<Attempt<{ task: Task; sent: Sent }>> {
  const sent = await send(context, { message: directiveMessage(context, text, { outcome: 'completed' }) });
  if (sent.kind !== 'task') return { ok: false, reason: noTask(sent) };
  if (isTerminalState(sent.task.status.state)) return { ok: true, value: { task: sent.task, sent } };
  const polled = await pollTask(
    context,
    sent.task.id,
    (task) => isTerminalState(task.status.state) || isInterrupted(task),
    context.timeoutMs,
  );
  const state = polled.task?.status.state;
  if (polled.task !== undefined && state !== undefined && isTerminalState(state)) return { ok: true, value: { task: polled.task, sent } };
  return {
    ok: false,
    reason:
      state === undefined
        ? `GetTask of the task ${sent.task.id} failed (${polled.exchange ? observedOf(polled.exchange) : 'no answer'}), so its end is unknown`
        : !isInterruptedState(state)
          ? `the task ${sent.task.id} was still ${stateLabel(state)} after ${context.timeoutMs} ms`
          : `the task ${sent.task.id} stopped in ${stateLabel(state)}, not a terminal state`,
  };
}

function isInterrupted(task: Task): boolean {
  return isInterruptedState(task.status.state);
}

/** A task that has finished: a message asking a cooperative agent to complete, polled until terminal. */
export async function terminalTask(context: CheckContext): Promise<Attempt<TaskRef>> {
  const exchange = await context.transport.call('SendMessage', {
    message: directiveMessage(context, 'conformance: a task to finish', { outcome: 'completed' }),
  });
  const task = isRecord(exchange.result) ? taskRefOf(exchange.result['task']) : undefined;
  if (task === undefined)
    return {
      ok: false,
      reason: `SendMessage did not return a task (${exchange.error ? `error ${exchange.error.code}` : exchange.bodyText.slice(0, 200)})`,
    };
  if (isTerminalState(task.state)) return { ok: true, value: task };
  const polled = await pollUntilTerminal(context, task.id, context.timeoutMs);
  if (polled.state !== undefined && isTerminalState(polled.state)) return { ok: true, value: { id: task.id, state: polled.state } };
  return { ok: false, reason: `the task ${task.id} did not finish within ${context.timeoutMs} ms` };
}

/** A task doing the slow `work` the directive asks for, started with returnImmediately. */
export async function slowTask(context: CheckContext, text: string, work: TestDirectiveRequest): Promise<Attempt<TaskRef>> {
  const exchange = await context.transport.call('SendMessage', {
    message: directiveMessage(context, text, work),
    configuration: { returnImmediately: true },
  });
  const task = isRecord(exchange.result) ? taskRefOf(exchange.result['task']) : undefined;
  if (task === undefined)
    return {
      ok: false,
      reason: `SendMessage with returnImmediately did not return a task (${exchange.error ? `error ${exchange.error.code}: ${exchange.error.message}` : exchange.bodyText.slice(0, 200)})`,
    };
  if (isTerminalState(task.state))
    return {
      ok: false,
      reason: `the slow task was already ${stateLabel(task.state)} when SendMessage returned (returnImmediately ignored?)`,
    };
  return { ok: true, value: task };
}
