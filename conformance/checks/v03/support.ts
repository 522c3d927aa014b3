import { ERRORS as ERRORS_03, type ErrorName as ErrorName03 } from '../../../generated/a2a/0.3/errors.js';
import type { MethodName as Method03 } from '../../../generated/a2a/0.3/methods.js';
import { isTerminalState as isTerminal03 } from '../../../generated/a2a/0.3/task-states.js';
import type * as V03 from '../../../generated/a2a/0.3/types.js';
import type { RequirementId } from '../../../generated/conformance/requirements.js';
import type { TestDirectiveRequest } from '../../../generated/hub/test-directives.js';
import { A2A_0_3, type A2A03Defs } from '../../../src/protocol/a2a-schema.js';
import { errorObject03 } from '../../../src/protocol/v03/errors.js';
import { messageTo03 } from '../../../src/protocol/v03/messages.js';
import { rest03Result } from '../../../src/protocol/v03/rest-requests.js';
import { checkValue } from '../../../src/protocol/validation.js';
import { isRecord } from '../../../src/support/records.js';
import { observedOf } from '../../core/answers.js';
import type { CheckContext } from '../../core/check.js';
import type { Exchange } from '../../core/exchange.js';
import type { CallOptions, RpcExchange, StreamExchange, StreamOptions } from '../../core/transport.js';
import { directiveMessage } from '../support/directives.js';

/*
 * What the A2A 0.3 checks share: calls in 0.3 method names and shapes over the run's 0.3
 * transports (JSON-RPC, or HTTP+JSON on the /v1 routes; neither sends A2A-Version, as 0.3
 * clients do), answers read as JSON-RPC carries them, values held to spec/a2a/0.3, and the
 * 0.3 error codes (generated/a2a/0.3/errors.ts). Messages are made as the 1.0 checks make them,
 * steered by the run's cooperation profile, and sent in their 0.3 form.
 */

const POLL_MS = 100;

export function call03(context: CheckContext, method: Method03, params: unknown, options: CallOptions = {}): Promise<RpcExchange> {
  return context.transport.callRaw(method, params, options);
}

export function stream03(context: CheckContext, method: Method03, params: unknown, options: StreamOptions = {}): Promise<StreamExchange> {
  return context.transport.streamRaw(method, params, options);
}

/** A user message in 0.3, asking the agent for `request` when the profile can ask (a plain message otherwise). */
export function message03(
  context: CheckContext,
  text: string,
  request: TestDirectiveRequest = {},
  extra: Partial<V03.Message> = {},
): V03.Message {
  return { ...messageTo03(directiveMessage(context, text, request)), ...extra };
}

/** Whether an error object (of an answer, or of a stream event) is the 0.3 error `name`, by its code. */
export function isError03(error: unknown, name: ErrorName03): boolean {
  return isRecord(error) && error['code'] === ERRORS_03[name].code;
}

/** The error label the reports use for a 0.3 error: its code, then its name. */
export function label03(name: ErrorName03): string {
  return `${ERRORS_03[name].code} (${name})`;
}

/**
 * Whether `value` is a valid 0.3 `def` (members the schema does not know are ignored, as 0.3
 * asks of receivers); a FAIL of `requirement` naming each violation otherwise.
 */
export function shape03(
  context: CheckContext,
  requirement: RequirementId,
  def: keyof A2A03Defs,
  value: unknown,
  where: { readonly exchange?: Pick<Exchange, 'request'>; readonly what: string },
): boolean {
  const verdict = checkValue(A2A_0_3, def, value, { flavour: 'input' });
  if (verdict.ok) return true;
  for (const violation of verdict.violations.slice(0, 5)) {
    context.fail(requirement, {
      message: `${where.what} is not a valid A2A 0.3 ${def}`,
      expected: `a valid ${def} (spec/a2a/0.3)`,
      observed: `${violation.field || '(the value)'} ${violation.description}`,
      ...(violation.field === '' ? {} : { path: violation.field }),
      ...(where.exchange === undefined ? {} : { exchange: where.exchange }),
    });
  }
  return false;
}

/** PASS when the call failed with the 0.3 error `name` (its code), FAIL otherwise with what came back. */
export function expectError03(
  context: CheckContext,
  requirement: RequirementId,
  exchange: RpcExchange,
  name: ErrorName03,
  what: string,
): boolean {
  if (exchange.error?.code === ERRORS_03[name].code) {
    context.pass(requirement, `${what}: answered ${label03(name)}`);
    return true;
  }
  context.fail(requirement, {
    message: `${what} did not answer ${label03(name)}`,
    expected: `error ${label03(name)}`,
    observed: observedOf(exchange),
    exchange,
  });
  return false;
}

/** The result of a call when it is a 0.3 Task. */
export function taskOf(exchange: RpcExchange): V03.Task | undefined {
  const result = exchange.result;
  return isRecord(result) && result['kind'] === 'task' && typeof result['id'] === 'string' ? (result as unknown as V03.Task) : undefined;
}

export type Attempt<T> = { readonly ok: true; readonly value: T } | { readonly ok: false; readonly reason: string };

/** A task made by message/send (asking a cooperative agent to complete), in whatever state the answer left it. */
export async function sentTask03(context: CheckContext, text: string): Promise<Attempt<{ task: V03.Task; exchange: RpcExchange }>> {
  const exchange = await call03(context, 'message/send', { message: message03(context, text, { outcome: 'completed' }) });
  const task = taskOf(exchange);
  if (task !== undefined) return { ok: true, value: { task, exchange } };
  const what = exchange.error === undefined ? 'no Task (a Message, or something else)' : `error ${exchange.error.code}`;
  return { ok: false, reason: `message/send answered ${what}` };
}

/** The task once it reached a terminal state, polled with tasks/get; the reason when it stopped short of one or outlasted the timeout. */
export async function terminal03(context: CheckContext, task: V03.Task): Promise<Attempt<V03.Task>> {
  const deadline = Date.now() + context.timeoutMs;
  let current = task;
  while (!isTerminal03(current.status.state)) {
    if (Date.now() > deadline)
      return { ok: false, reason: `task ${task.id} was still ${current.status.state} after ${context.timeoutMs} ms` };
    if (current.status.state === 'input-required' || current.status.state === 'auth-required')
      return { ok: false, reason: `task ${task.id} stopped in ${current.status.state}, not a terminal state` };
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
    const polled = taskOf(await call03(context, 'tasks/get', { id: task.id }));
    if (polled === undefined) return { ok: false, reason: `tasks/get of task ${task.id} answered no Task` };
    current = polled;
  }
  return { ok: true, value: current };
}

/**
 * The error a stream request was refused with instead of a stream: an error event, or the error
 * of a plain answer (a JSON-RPC response's, or an HTTP+JSON body's `{code, message}`).
 */
export function streamRefusal03(exchange: StreamExchange): unknown {
  const event = exchange.events.find((candidate) => candidate.error !== undefined)?.error;
  if (event !== undefined) return event;
  const json = exchange.json;
  if (!isRecord(json)) return undefined;
  return isRecord(json['error']) ? json['error'] : errorObject03(json);
}

/** One SSE event of a 0.3 stream read as the 0.3 event it carries, or why it carries none. */
export type StreamEvent03 = { readonly ok: true; readonly result: unknown } | { readonly ok: false; readonly problem: string };

/**
 * What each event of a 0.3 stream carries, read as its binding frames it: over JSON-RPC a
 * response with the request's `id` whose result is the event; over HTTP+JSON the 0.3 proto's
 * StreamResponse, translated (src/protocol/v03/rest-requests.ts). Shapes are the caller's to judge.
 */
export function streamEvents03(context: CheckContext, exchange: StreamExchange, id: string | number): StreamEvent03[] {
  return exchange.events.map((event): StreamEvent03 => {
    const json = event.json;
    if (context.transport.binding === 'JSONRPC') {
      return isRecord(json) && json['jsonrpc'] === '2.0' && json['id'] === id && 'result' in json
        ? { ok: true, result: json['result'] }
        : { ok: false, problem: "is not a JSON-RPC response with the request's id and a result" };
    }
    if (event.error !== undefined) return { ok: false, problem: `is an error event (${event.error.code} ${event.error.message})` };
    const read = rest03Result('message/stream', json);
    if (read.ok) return { ok: true, result: read.value };
    const first = read.violations[0];
    return { ok: false, problem: `is not a 0.3 StreamResponse: ${first === undefined ? '' : `${first.field} ${first.description}`}` };
  });
}

/** A JSON-RPC id that cannot name a task. */
export function unknownTaskId03(): string {
  return `conform-no-such-task-${Math.random().toString(36).slice(2)}`;
}
