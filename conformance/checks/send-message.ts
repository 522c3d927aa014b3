import { randomUUID } from 'node:crypto';
import type { AgentCard, Message, Part, SendMessageRequest, Task } from '../../generated/a2a/1.0/types.js';
import type { Check, CheckContext } from '../core/check.js';
import type { RpcExchange } from '../core/transport.js';

// Helpers shared by the method checks (tasks.ts and hub-behaviour.ts import them from here).

export const TERMINAL_STATES: readonly string[] = ['TASK_STATE_COMPLETED', 'TASK_STATE_FAILED', 'TASK_STATE_CANCELED', 'TASK_STATE_REJECTED'];
export const INTERRUPTED_STATES: readonly string[] = ['TASK_STATE_INPUT_REQUIRED', 'TASK_STATE_AUTH_REQUIRED'];
const TASK_STATES: readonly string[] = ['TASK_STATE_SUBMITTED', 'TASK_STATE_WORKING', ...TERMINAL_STATES, ...INTERRUPTED_STATES];

/** The test-directive convention (docs/test-directives.md), for cooperative checks. */
export type Outcome = 'completed' | 'input-required' | 'auth-required' | 'failed' | 'rejected' | 'message';
export function directive(outcome: Outcome, work?: { steps: number; stepMs: number }): Record<string, unknown> {
  return { 'a2a-hub/test': { outcome, ...work } };
}
/** Slow, cancellable work: about 2 s in 20 steps, long enough to act on the task meanwhile. */
export const SLOW_WORK = { steps: 20, stepMs: 100 } as const;

/** The A2A errors the method checks provoke, with their A2A 1.0.1 JSON-RPC code and ErrorInfo reason. */
export const A2A_ERRORS = {
  TaskNotFound: { code: -32001, reason: 'TASK_NOT_FOUND' },
  TaskNotCancelable: { code: -32002, reason: 'TASK_NOT_CANCELABLE' },
  PushNotificationNotSupported: { code: -32003, reason: 'PUSH_NOTIFICATION_NOT_SUPPORTED' },
  UnsupportedOperation: { code: -32004, reason: 'UNSUPPORTED_OPERATION' },
  ContentTypeNotSupported: { code: -32005, reason: 'CONTENT_TYPE_NOT_SUPPORTED' },
} as const;
export type A2AErrorName = keyof typeof A2A_ERRORS;

export function short(value: unknown, max = 300): string {
  const text = typeof value === 'string' ? value : (JSON.stringify(value) ?? String(value));
  return text.length > max ? `${text.slice(0, max)}…` : text;
}

/** What came back from a call, in one line, for a finding's `observed`. */
export function observedOf(exchange: RpcExchange): string {
  if (exchange.status === 0) return `no response (${exchange.transportError ?? 'connection failed'})`;
  if (exchange.error) return `error ${exchange.error.code}${reasonOf(exchange) ? ` reason ${reasonOf(exchange)}` : ''}: ${exchange.error.message}`;
  if (exchange.result !== undefined) return `result ${short(exchange.result)}`;
  return `HTTP ${exchange.status}: ${short(exchange.bodyText)}`;
}

/** The ErrorInfo reason of an error answer, when it carries one. */
export function reasonOf(exchange: RpcExchange): string | undefined {
  const data = exchange.error?.data;
  if (!Array.isArray(data)) return undefined;
  for (const detail of data as unknown[]) {
    const reason = isObject(detail) ? detail['reason'] : undefined;
    if (typeof reason === 'string') return reason;
  }
  return undefined;
}

export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Enough of a Task to read its id and state safely; the rest is checked by shape. */
export function isTaskLike(value: unknown): value is Task {
  return isObject(value) && typeof value['id'] === 'string' && isObject(value['status']) && typeof value['status']['state'] === 'string';
}

const passed = new WeakMap<CheckContext, Set<string>>();
/** PASS once per check and key: helpers that inspect every task would otherwise repeat it. */
export function passOnce(context: CheckContext, requirement: string, message: string, key = requirement): void {
  const seen = passed.get(context) ?? new Set<string>();
  passed.set(context, seen);
  if (seen.has(key)) return;
  seen.add(key);
  context.pass(requirement, message);
}

/** Records a SKIP on each requirement. */
export function skipAll(context: CheckContext, requirements: readonly string[], reason: string): void {
  for (const requirement of requirements) context.skip(requirement, reason);
}

const BASE64 = /^[A-Za-z0-9+/\-_]*={0,2}$/;

/** Parts the agent emitted: raw must be base64 (DATA-003). Returns whether all were fine. */
function inspectParts(context: CheckContext, parts: unknown, where: { exchange: RpcExchange; path: string }): void {
  if (!Array.isArray(parts)) return;
  for (const [index, part] of (parts as unknown[]).entries()) {
    if (!isObject(part) || part['raw'] === undefined) continue;
    const raw = part['raw'];
    if (typeof raw === 'string' && BASE64.test(raw) && raw.replace(/=+$/, '').length % 4 !== 1) passOnce(context, 'DATA-003', 'raw parts the agent sent are base64', 'DATA-003:raw');
    else context.fail('DATA-003', { message: 'a raw part the agent sent is not base64', expected: 'raw: a base64 string (bytes in ProtoJSON)', observed: short(raw, 120), path: `${where.path}[${index}].raw`, exchange: where.exchange });
  }
}

/** Agent messages carry a contextId (SEND-004); their parts are checked too. */
function inspectMessage(context: CheckContext, message: unknown, where: { exchange: RpcExchange; path: string }): void {
  if (!isObject(message)) return;
  inspectParts(context, message['parts'], { exchange: where.exchange, path: `${where.path}.parts` });
  if (message['role'] !== 'ROLE_AGENT') return;
  const contextId = message['contextId'];
  if (typeof contextId === 'string' && contextId !== '') passOnce(context, 'SEND-004', 'messages from the agent carry a contextId', 'SEND-004:agent-message');
  else context.fail('SEND-004', { message: 'a message from the agent (ROLE_AGENT) has no contextId', expected: 'a non-empty contextId on every ROLE_AGENT message', observed: `contextId ${JSON.stringify(contextId)}`, path: `${where.path}.contextId`, exchange: where.exchange });
}

/**
 * What every Task the agent returns must satisfy, whichever method returned it: id, status and
 * a real state (SEND-002), artifacts with an id and parts (SEND-019), base64 raw parts
 * (DATA-003), agent messages with a contextId (SEND-004). Records FAILs, and each PASS once.
 */
export function inspectTask(context: CheckContext, task: unknown, where: { exchange: RpcExchange; path: string }): void {
  const problems: string[] = [];
  if (!isObject(task)) problems.push('it is not an object');
  else {
    if (typeof task['id'] !== 'string' || task['id'] === '') problems.push(`id is ${short(task['id'], 60)}`);
    const status = task['status'];
    if (!isObject(status)) problems.push('status is missing');
    else if (typeof status['state'] !== 'string' || !TASK_STATES.includes(status['state'])) problems.push(`status.state is ${short(status['state'], 60)}`);
  }
  if (problems.length > 0) {
    context.fail('SEND-002', { message: 'a Task lacks id, status or a valid status.state', expected: 'id, status and status.state, a TASK_STATE_* name other than TASK_STATE_UNSPECIFIED', observed: problems.join('; '), path: where.path, exchange: where.exchange });
  } else passOnce(context, 'SEND-002', 'every Task has an id, a status and a valid state');
  if (!isObject(task)) return;
  const status = task['status'];
  if (isObject(status)) inspectMessage(context, status['message'], { exchange: where.exchange, path: `${where.path}.status.message` });
  if (Array.isArray(task['history'])) (task['history'] as unknown[]).forEach((message, index) => inspectMessage(context, message, { exchange: where.exchange, path: `${where.path}.history[${index}]` }));
  if (!Array.isArray(task['artifacts'])) return;
  for (const [index, artifact] of (task['artifacts'] as unknown[]).entries()) {
    const path = `${where.path}.artifacts[${index}]`;
    const id = isObject(artifact) ? artifact['artifactId'] : undefined;
    const parts = isObject(artifact) ? artifact['parts'] : undefined;
    if (typeof id === 'string' && id !== '' && Array.isArray(parts) && parts.length > 0) passOnce(context, 'SEND-019', 'every artifact has an artifactId and parts');
    else context.fail('SEND-019', { message: 'an artifact lacks an artifactId or parts', expected: 'a non-empty artifactId and at least one part', observed: short(artifact, 200), path, exchange: where.exchange });
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
export async function send(context: CheckContext, params: SendMessageRequest | Record<string, unknown>, options: { timeoutMs?: number } = {}): Promise<Sent> {
  const exchange = await context.transport.call('SendMessage', params, options.timeoutMs === undefined ? {} : { timeoutMs: options.timeoutMs });
  if (exchange.error || exchange.result === undefined) return { kind: 'error', exchange };
  const result = exchange.result;
  const keys = isObject(result) ? Object.keys(result) : [];
  if (!isObject(result) || keys.length !== 1 || (keys[0] !== 'task' && keys[0] !== 'message')) {
    context.fail('SEND-001', {
      message: 'the SendMessage result is not {"task": …} or {"message": …}',
      expected: 'a SendMessageResponse: an object with exactly one member, task or message (a bare Task is A2A 0.3 style)',
      observed: isObject(result) ? `members ${keys.join(', ') || '(none)'}` : short(result),
      path: 'result',
      exchange,
    });
    return { kind: 'invalid', exchange };
  }
  context.checkShape('SEND-001', 'SendMessageResponse', result, { exchange, path: 'result' });
  const sentContext = isObject(params['message']) ? params['message']['contextId'] : undefined;
  const payload = result['task'] ?? result['message'];
  const contextId = isObject(payload) ? payload['contextId'] : undefined;
  if ((sentContext === undefined || sentContext === '') && isObject(payload)) {
    if (typeof contextId === 'string' && contextId !== '') passOnce(context, 'SEND-004', 'a message sent without contextId gets one in the answer', 'SEND-004:answer');
    else context.fail('SEND-004', { message: 'the answer to a message without contextId carries no contextId', expected: 'a non-empty contextId chosen by the server', observed: `contextId ${JSON.stringify(contextId)}`, path: `result.${keys[0]}.contextId`, exchange });
  }
  if (keys[0] === 'message') {
    inspectMessage(context, payload, { exchange, path: 'result.message' });
    return isObject(payload) && Array.isArray(payload['parts']) ? { kind: 'message', message: payload as unknown as Message, exchange } : { kind: 'invalid', exchange };
  }
  inspectTask(context, payload, { exchange, path: 'result.task' });
  return isTaskLike(payload) ? { kind: 'task', task: payload, exchange } : { kind: 'invalid', exchange };
}

/** Why a send that should have made a task did not, for a SKIP. */
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
export async function getTask(context: CheckContext, params: Record<string, unknown>, requirement = 'GET-001'): Promise<{ exchange: RpcExchange; task?: Task }> {
  const exchange = await context.transport.call('GetTask', params);
  if (exchange.error || exchange.result === undefined) return { exchange };
  context.checkShape(requirement, 'Task', exchange.result, { exchange, path: 'result' });
  inspectTask(context, exchange.result, { exchange, path: 'result' });
  return isTaskLike(exchange.result) ? { exchange, task: exchange.result } : { exchange };
}

/** Polls GetTask until `done` holds or `withinMs` has passed; returns the last task seen. */
export async function pollTask(context: CheckContext, id: string, done: (task: Task) => boolean, withinMs: number): Promise<{ exchange?: RpcExchange; task?: Task }> {
  const deadline = Date.now() + withinMs;
  for (;;) {
    const last = await getTask(context, { id });
    if (last.task === undefined || done(last.task) || Date.now() >= deadline) return last;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/**
 * JSONRPC-ENV-009 for an A2A error a check provoked. `certain`: the situation admits only this
 * error, so any other error code is a FAIL; otherwise only an error naming itself by ErrorInfo
 * reason is judged. A success is not judged here (the method's own requirement fails).
 */
export function recordErrorCode(context: CheckContext, exchange: RpcExchange, name: A2AErrorName, certain: boolean): void {
  if (context.transport.binding !== 'JSONRPC' || exchange.error === undefined) return;
  const expected = A2A_ERRORS[name];
  if (exchange.error.code === expected.code) {
    passOnce(context, 'JSONRPC-ENV-009', `${name}Error is ${expected.code}`, `JSONRPC-ENV-009:${name}`);
    return;
  }
  if (!certain && reasonOf(exchange) !== expected.reason) return;
  context.fail('JSONRPC-ENV-009', {
    message: `${name}Error came back with code ${exchange.error.code}`,
    expected: `error code ${expected.code} (${name}Error in A2A 1.0.1)`,
    observed: observedOf(exchange),
    exchange,
  });
}

/** ctx.expectError for an A2A error, plus its JSONRPC-ENV-009 verdict. */
export function expectA2AError(context: CheckContext, requirement: string, exchange: RpcExchange, name: A2AErrorName, certain = true): boolean {
  recordErrorCode(context, exchange, name, certain);
  return context.expectError(requirement, exchange, A2A_ERRORS[name]);
}

/** Whether a media-type range from a card (`*\/*`, `image/*`, `text/plain;charset=…`) admits `type`. */
export function admits(range: string, type: string): boolean {
  const wanted = range.split(';')[0]?.trim().toLowerCase() ?? '';
  const [major] = type.split('/');
  return wanted === '*/*' || wanted === '*' || wanted === type || wanted === `${major}/*`;
}

/** The card's modes: its defaults and every skill's. */
export function cardModes(card: AgentCard, which: 'input' | 'output'): string[] {
  const defaults = which === 'input' ? card.defaultInputModes : card.defaultOutputModes;
  const skills = Array.isArray(card.skills) ? card.skills : [];
  return [...(Array.isArray(defaults) ? defaults : []), ...skills.flatMap((skill) => (which === 'input' ? skill.inputModes : skill.outputModes) ?? [])];
}

/** Concatenated text parts of a message, for reading status messages. */
export function textOf(message: unknown): string {
  if (!isObject(message) || !Array.isArray(message['parts'])) return '';
  return (message['parts'] as unknown[])
    .map((part) => (isObject(part) && typeof part['text'] === 'string' ? part['text'] : ''))
    .join('');
}

function historyOf(task: Task): unknown[] | undefined {
  return Array.isArray(task.history) ? task.history : undefined;
}

const UNSUPPORTED_CANDIDATES: readonly { mediaType: string; raw: string; filename: string }[] = [
  { mediaType: 'image/png', raw: 'iVBORw0KGgoAAAANSUhEUg==', filename: 'conformance.png' },
  { mediaType: 'application/octet-stream', raw: 'AAECAwQFBgc=', filename: 'conformance.bin' },
  { mediaType: 'audio/wav', raw: 'UklGRiQAAABXQVZF', filename: 'conformance.wav' },
  { mediaType: 'application/x-a2a-conformance', raw: 'AAECAwQFBgc=', filename: 'conformance.x' },
];

export const sendMessageChecks: readonly Check[] = [
  {
    id: 'send-message-basics',
    title: 'A plain text message: exactly one of task/message, a well-formed Task with a server-chosen id and contextId, blocking semantics',
    requirements: ['SEND-001', 'SEND-002', 'SEND-003', 'SEND-004', 'SEND-005', 'SEND-019', 'DATA-003'],
    async run(context) {
      const sends = [await send(context, { message: context.message('hello') }), await send(context, { message: context.message('hello again') })];
      const good = sends.filter((sent) => sent.kind === 'task' || sent.kind === 'message');
      if (good.length > 0) context.pass('SEND-001', `answered with ${good.map((sent) => sent.kind).join(' and ')}`);
      const [first, second] = sends;
      if (first === undefined || second === undefined) return;
      if (first.kind === 'error' || second.kind === 'error') {
        skipAll(context, ['SEND-001', 'SEND-003', 'SEND-005'], noTask(first.kind === 'error' ? first : second));
        return;
      }
      if (first.kind !== 'task' || second.kind !== 'task') {
        skipAll(context, ['SEND-003', 'SEND-005'], noTask(first.kind !== 'task' ? first : second));
        return;
      }
      if (first.task.id !== '' && first.task.id !== second.task.id) context.pass('SEND-003', 'two new tasks got distinct server-chosen ids');
      else context.fail('SEND-003', { message: 'two new tasks share an id, or the id is empty', expected: 'distinct, non-empty task ids', observed: `ids ${JSON.stringify(first.task.id)} and ${JSON.stringify(second.task.id)}`, path: 'result.task.id', exchange: second.exchange });

      for (const sent of [first, second]) {
        const state = sent.task.status.state;
        if (!TERMINAL_STATES.includes(state) && !INTERRUPTED_STATES.includes(state)) {
          context.fail('SEND-005', { message: 'a blocking SendMessage returned a task that is still running', expected: 'a terminal (COMPLETED, FAILED, CANCELED, REJECTED) or interrupted (INPUT_REQUIRED, AUTH_REQUIRED) state', observed: state, path: 'result.task.status.state', exchange: sent.exchange });
          continue;
        }
        // Every artifact produced: a later GetTask of the settled task has no more than the reply had.
        const later = await getTask(context, { id: sent.task.id });
        const replied = new Map((sent.task.artifacts ?? []).map((artifact) => [artifact.artifactId, Array.isArray(artifact.parts) ? artifact.parts.length : 0]));
        const missing = (later.task?.artifacts ?? []).filter((artifact) => replied.get(artifact.artifactId) !== (Array.isArray(artifact.parts) ? artifact.parts.length : 0));
        if (later.task !== undefined && TERMINAL_STATES.includes(state) && missing.length > 0) {
          context.fail('SEND-005', {
            message: 'the blocking reply left out artifacts (or parts) that GetTask shows for the finished task',
            expected: 'the reply to a blocking SendMessage carries every artifact produced',
            observed: `GetTask has artifacts ${missing.map((artifact) => `${artifact.artifactId} (${Array.isArray(artifact.parts) ? artifact.parts.length : 0} parts)`).join(', ')} that the reply lacked or had fewer parts of`,
            exchange: sent.exchange,
          });
        } else context.pass('SEND-005', `returned in ${state} with its artifacts`);
      }
    },
  },
  {
    id: 'send-non-object-data',
    title: 'Data parts may hold any JSON value, not only objects',
    requirements: ['DATA-003'],
    async run(context) {
      const modes = cardModes(context.target.card, 'input');
      const jsonExcluded = modes.length > 0 && !modes.some((mode) => admits(mode, 'application/json'));
      for (const value of [[1, 2, 3], 'a string', 42, true, null] as unknown[]) {
        const sent = await send(context, { message: { ...context.message(''), parts: [{ data: value, mediaType: 'application/json' }] } });
        if (sent.kind === 'task' || sent.kind === 'message') context.pass('DATA-003', `a data part holding ${JSON.stringify(value)} was accepted`);
        else if (sent.kind === 'error' && jsonExcluded && sent.exchange.error?.code === A2A_ERRORS.ContentTypeNotSupported.code) {
          context.skip('DATA-003', `the card's input modes (${modes.join(', ')}) leave out application/json and the agent refuses data parts with -32005`);
          return;
        } else if (sent.kind === 'error') {
          context.fail('DATA-003', { message: `a data part holding ${JSON.stringify(value)} was refused`, expected: 'accepted: Part.data is a google.protobuf.Value, any JSON value', observed: observedOf(sent.exchange), exchange: sent.exchange });
        }
      }
    },
  },
  {
    id: 'send-return-immediately',
    title: 'returnImmediately returns the task while it still works',
    requirements: ['SEND-006'],
    cooperative: true,
    async run(context) {
      const sent = await send(context, { message: context.message('slow work', { metadata: directive('completed', SLOW_WORK) }), configuration: { returnImmediately: true } });
      if (sent.kind !== 'task') {
        context.skip('SEND-006', noTask(sent));
        return;
      }
      const work = SLOW_WORK.steps * SLOW_WORK.stepMs;
      const state = sent.task.status.state;
      if (TERMINAL_STATES.includes(state) || INTERRUPTED_STATES.includes(state)) {
        context.fail('SEND-006', { message: 'returnImmediately returned a task that had already finished', expected: `a task still SUBMITTED or WORKING (the directive asks for ${work} ms of work)`, observed: `${state} after ${sent.exchange.durationMs} ms`, exchange: sent.exchange });
      } else if (sent.exchange.durationMs > work / 2) {
        context.fail('SEND-006', { message: 'returnImmediately did not return promptly', expected: `an answer well before the ${work} ms of work end`, observed: `answered after ${sent.exchange.durationMs} ms`, exchange: sent.exchange });
      } else context.pass('SEND-006', `returned in ${sent.exchange.durationMs} ms with the task ${state}`);
      await context.transport.call('CancelTask', { id: sent.task.id });
    },
  },
  {
    id: 'send-history-length',
    title: 'configuration.historyLength caps the returned history, and 0 leaves it out',
    requirements: ['SEND-007'],
    async run(context) {
      // A cooperative agent gives a longer history to cap: the INPUT_REQUIRED status message joins the request.
      const metadata = context.cooperative ? directive('input-required') : undefined;
      const message = (): Message => context.message('hello', metadata ? { metadata } : {});
      const one = await send(context, { message: message(), configuration: { historyLength: 1 } });
      if (one.kind !== 'task') {
        context.skip('SEND-007', noTask(one));
        return;
      }
      const history = historyOf(one.task);
      if (history === undefined || history.length <= 1) context.pass('SEND-007', `historyLength 1 gave ${history?.length ?? 0} messages${metadata ? ' (of an INPUT_REQUIRED task)' : ''}`);
      else context.fail('SEND-007', { message: 'historyLength 1 returned more history', expected: 'at most 1 history message', observed: `${history.length} messages`, path: 'result.task.history', exchange: one.exchange });
      const none = await send(context, { message: message(), configuration: { historyLength: 0 } });
      if (none.kind !== 'task') {
        context.skip('SEND-007', noTask(none));
        return;
      }
      // Leave no interrupted task behind.
      if (metadata) for (const sent of [one, none]) await context.transport.call('CancelTask', { id: sent.task.id });
      const empty = none.task.history;
      if (empty === undefined) context.pass('SEND-007', 'historyLength 0 left history out');
      else if (Array.isArray(empty) && empty.length === 0) context.warn('SEND-007', { message: 'historyLength 0 returned an empty history member', expected: 'no history member', observed: 'history: []', path: 'result.task.history', exchange: none.exchange });
      else context.fail('SEND-007', { message: 'historyLength 0 returned history messages', expected: 'no history member', observed: `${Array.isArray(empty) ? empty.length : short(empty)} messages`, path: 'result.task.history', exchange: none.exchange });
    },
  },
  {
    id: 'send-unknown-task',
    title: 'A message naming a task that does not exist is TaskNotFound and creates nothing',
    requirements: ['SEND-008', 'JSONRPC-ENV-009'],
    async run(context) {
      const contextId = randomUUID();
      const sent = await send(context, { message: context.message('hello', { taskId: randomUUID(), contextId }) });
      expectA2AError(context, 'SEND-008', sent.exchange, 'TaskNotFound');
      const listed = await context.transport.call('ListTasks', { contextId });
      const tasks = isObject(listed.result) && Array.isArray(listed.result['tasks']) ? listed.result['tasks'] : undefined;
      if (tasks !== undefined && tasks.length > 0) {
        context.fail('SEND-008', { message: 'a task was created for a message naming an unknown task', expected: `no task in context ${contextId}`, observed: `ListTasks finds ${tasks.length}: ${short(tasks, 200)}`, exchange: listed });
      }
    },
  },
  {
    id: 'send-to-terminal-task',
    title: 'A message to a completed task is UnsupportedOperation and leaves it unchanged',
    requirements: ['SEND-009', 'JSONRPC-ENV-009'],
    cooperative: true,
    async run(context) {
      const done = await send(context, { message: context.message('finish', { metadata: directive('completed') }) });
      if (done.kind !== 'task' || !TERMINAL_STATES.includes(done.task.status.state)) {
        context.skip('SEND-009', done.kind === 'task' ? `the task ended in ${done.task.status.state}, not a terminal state` : noTask(done));
        return;
      }
      const task = done.task;
      const message = context.message('one more thing', { taskId: task.id, ...(task.contextId ? { contextId: task.contextId } : {}) });
      const again = await send(context, { message });
      expectA2AError(context, 'SEND-009', again.exchange, 'UnsupportedOperation');
      const after = await getTask(context, { id: task.id });
      if (after.task === undefined) return;
      const changed = after.task.status.state !== task.status.state || (after.task.history ?? []).some((entry) => entry.messageId === message.messageId);
      if (changed) {
        context.fail('SEND-009', { message: 'the terminal task changed after the refused message', expected: `still ${task.status.state}, without the new message in its history`, observed: `${after.task.status.state}, history ${short(after.task.history, 200)}`, exchange: again.exchange });
      }
    },
  },
  {
    id: 'send-interrupted-follow-up',
    title: 'Follow-ups to an INPUT_REQUIRED task: a mismatched contextId is refused, taskId alone continues it',
    requirements: ['SEND-010', 'SEND-011', 'SEND-012'],
    cooperative: true,
    async run(context) {
      const asked = await send(context, { message: context.message('ask me for more', { metadata: directive('input-required') }) });
      if (asked.kind !== 'task' || asked.task.status.state !== 'TASK_STATE_INPUT_REQUIRED') {
        skipAll(context, ['SEND-010', 'SEND-011', 'SEND-012'], asked.kind === 'task' ? `the input-required directive left the task in ${asked.task.status.state}` : noTask(asked));
        return;
      }
      const task = asked.task;
      if (!task.contextId) context.skip('SEND-010', 'the interrupted task has no contextId to mismatch');
      else {
        const stray = context.message('wrong context', { taskId: task.id, contextId: randomUUID() });
        const refused = await send(context, { message: stray });
        if (refused.exchange.error?.code === -32602) context.pass('SEND-010', 'refused with -32602');
        else if (refused.exchange.error) context.warn('SEND-010', { message: 'refused, but not with -32602', expected: 'error -32602 (invalid params)', observed: observedOf(refused.exchange), exchange: refused.exchange });
        else context.fail('SEND-010', { message: 'a message whose contextId differs from its task was accepted', expected: 'an error (-32602)', observed: observedOf(refused.exchange), exchange: refused.exchange });
        const after = await getTask(context, { id: task.id });
        if (after.task !== undefined && (after.task.status.state !== 'TASK_STATE_INPUT_REQUIRED' || (after.task.history ?? []).some((entry) => entry.messageId === stray.messageId))) {
          context.fail('SEND-010', { message: 'the task changed after the mismatched message', expected: 'still INPUT_REQUIRED, without the stray message in its history', observed: `${after.task.status.state}, history ${short(after.task.history, 200)}`, exchange: refused.exchange });
        }
      }

      const follow = await send(context, { message: context.message('here is more input', { taskId: task.id }) });
      if (follow.kind === 'error' || follow.kind === 'invalid') {
        const observed = observedOf(follow.exchange);
        context.fail('SEND-011', { message: 'a follow-up giving only the taskId of an interrupted task was not accepted', expected: 'a Task or Message continuing the task', observed, exchange: follow.exchange });
        context.fail('SEND-012', { message: 'the INPUT_REQUIRED task could not be continued', expected: 'the same task, moved on from INPUT_REQUIRED', observed, exchange: follow.exchange });
        return;
      }
      const answer = follow.kind === 'task' ? follow.task : follow.message;
      if (answer.contextId === task.contextId) context.pass('SEND-011', 'the follow-up kept the task\'s contextId');
      else context.fail('SEND-011', { message: 'the follow-up answer has another contextId than the task', expected: `contextId ${JSON.stringify(task.contextId)}`, observed: `contextId ${JSON.stringify(answer.contextId)}`, path: `result.${follow.kind}.contextId`, exchange: follow.exchange });
      const id = follow.kind === 'task' ? follow.task.id : follow.message.taskId;
      const now = follow.kind === 'task' ? follow.task : (await getTask(context, { id: task.id })).task;
      const movedOn = now !== undefined && (now.status.state !== 'TASK_STATE_INPUT_REQUIRED' || now.status.timestamp !== task.status.timestamp);
      if (id === task.id && movedOn) context.pass('SEND-012', `continued the task, now ${now.status.state}`);
      else {
        context.fail('SEND-012', {
          message: 'the follow-up did not continue the INPUT_REQUIRED task',
          expected: `task ${task.id}, moved on from TASK_STATE_INPUT_REQUIRED`,
          observed: `task ${JSON.stringify(id)} in ${now?.status.state ?? 'an unknown state'}`,
          exchange: follow.exchange,
        });
      }
    },
  },
  {
    id: 'send-unsupported-media-type',
    title: 'A part of a media type the card leaves out is ContentTypeNotSupported',
    requirements: ['SEND-013', 'JSONRPC-ENV-009'],
    async run(context) {
      const modes = cardModes(context.target.card, 'input');
      if (modes.length === 0 || modes.some((mode) => admits(mode, 'x/y'))) {
        context.skip('SEND-013', modes.length === 0 ? 'the card declares no input modes' : 'the card accepts every media type (*/*)');
        return;
      }
      const candidate = UNSUPPORTED_CANDIDATES.find((entry) => !modes.some((mode) => admits(mode, entry.mediaType)));
      if (candidate === undefined) {
        context.skip('SEND-013', `the card's input modes (${modes.join(', ')}) leave out none of the media types the suite tries`);
        return;
      }
      const part: Part = { raw: candidate.raw, mediaType: candidate.mediaType, filename: candidate.filename };
      const sent = await send(context, { message: { ...context.message(''), parts: [part] } });
      if (sent.exchange.error === undefined && sent.exchange.status !== 0) {
        context.fail('SEND-013', {
          message: `a ${candidate.mediaType} part was accepted though the card's input modes leave it out`,
          expected: `error -32005 (ContentTypeNotSupportedError): the card declares only ${modes.join(', ')}`,
          observed: observedOf(sent.exchange),
          exchange: sent.exchange,
        });
        return;
      }
      expectA2AError(context, 'SEND-013', sent.exchange, 'ContentTypeNotSupported', false);
    },
  },
  {
    id: 'send-invalid-message',
    title: 'A missing or malformed message is a validation error (-32602)',
    requirements: ['SEND-014'],
    async run(context) {
      const valid = (): Record<string, unknown> => ({ ...context.message('hello') });
      const without = (member: string): Record<string, unknown> => Object.fromEntries(Object.entries(valid()).filter(([key]) => key !== member));
      const cases: Record<string, unknown>[] = [
        {},
        { message: without('messageId') },
        { message: without('role') },
        { message: without('parts') },
        { message: { ...valid(), parts: [] } },
        { message: { ...valid(), role: 'user' } },
        { message: { ...valid(), role: 'ROLE_UNSPECIFIED' } },
      ];
      for (const params of cases) context.expectError('SEND-014', await context.transport.call('SendMessage', params), { code: -32602 });
    },
  },
  {
    id: 'send-invalid-part',
    title: 'A part with no content member, or two, is a validation error (-32602)',
    requirements: ['SEND-015'],
    async run(context) {
      const parts: unknown[] = [{}, { mediaType: 'text/plain' }, { text: 'a', data: { b: 1 } }, { text: 'a', url: 'https://example.com/a.txt' }, { raw: 'AAEC', url: 'https://example.com/a.bin' }];
      for (const part of parts) {
        const exchange = await context.transport.call('SendMessage', { message: { ...context.message('x'), parts: [part] } });
        context.expectError('SEND-015', exchange, { code: -32602 });
      }
    },
  },
  {
    id: 'send-client-context-id',
    title: 'A client-chosen contextId is kept or refused, never replaced',
    requirements: ['SEND-016'],
    async run(context) {
      const contextId = randomUUID();
      const sent = await send(context, { message: context.message('hello', { contextId }) });
      if (sent.kind === 'error') {
        if (sent.exchange.status === 0) context.skip('SEND-016', `no answer: ${observedOf(sent.exchange)}`);
        else context.pass('SEND-016', `refused the client-chosen contextId (${observedOf(sent.exchange)}), which is allowed`);
        return;
      }
      if (sent.kind === 'invalid') {
        context.skip('SEND-016', noTask(sent));
        return;
      }
      const answer = sent.kind === 'task' ? sent.task : sent.message;
      if (answer.contextId === contextId) context.pass('SEND-016', 'kept the client-chosen contextId');
      else context.fail('SEND-016', { message: 'the server replaced the client-chosen contextId', expected: `contextId ${contextId}, or an error`, observed: `contextId ${JSON.stringify(answer.contextId)}`, path: `result.${sent.kind}.contextId`, exchange: sent.exchange });
    },
  },
  {
    id: 'send-unknown-members',
    title: 'Members the proto does not define are ignored',
    requirements: ['SEND-017'],
    async run(context) {
      const message = context.message('hello');
      const variants: [string, Record<string, unknown>][] = [
        ['kind on the message and its part (A2A 0.3 style)', { message: { ...message, kind: 'message', parts: [{ kind: 'text', text: 'hello' }] } }],
        ['an unknown member in params', { message: context.message('hello'), conformanceUnknownMember: { nested: true } }],
      ];
      for (const [what, params] of variants) {
        const sent = await send(context, params);
        if (sent.kind === 'task' || sent.kind === 'message') context.pass('SEND-017', `${what} was ignored`);
        else if (sent.kind === 'error') context.fail('SEND-017', { message: `${what} was not ignored`, expected: 'processed as if the unknown members were absent', observed: observedOf(sent.exchange), exchange: sent.exchange });
      }
    },
  },
  {
    id: 'send-push-config-unsupported',
    title: 'Inline push config without the push capability is refused with -32003',
    requirements: ['SEND-018', 'JSONRPC-ENV-009'],
    async run(context) {
      if (context.target.card.capabilities?.pushNotifications === true) {
        context.skip('SEND-018', 'the card declares capabilities.pushNotifications');
        return;
      }
      const sent = await send(context, { message: context.message('hello'), configuration: { taskPushNotificationConfig: { url: 'https://example.invalid/a2a-conformance-webhook' } } });
      recordErrorCode(context, sent.exchange, 'PushNotificationNotSupported', false);
      if (sent.exchange.error?.code === A2A_ERRORS.PushNotificationNotSupported.code) context.pass('SEND-018', 'refused with -32003');
      else {
        context.warn('SEND-018', {
          message: sent.exchange.error ? 'refused, but not with PushNotificationNotSupportedError' : 'the push config was silently ignored',
          expected: 'error -32003 (PushNotificationNotSupportedError): the card does not declare capabilities.pushNotifications',
          observed: observedOf(sent.exchange),
          exchange: sent.exchange,
        });
      }
    },
  },
];
