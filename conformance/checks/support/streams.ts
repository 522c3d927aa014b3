import { randomUUID } from 'node:crypto';
import type { ErrorName } from '../../../generated/a2a/1.0/errors.js';
import { canTransition, isInterruptedState, isTerminalState, TASK_STATES } from '../../../generated/a2a/1.0/task-states.js';
import type { TaskState } from '../../../generated/a2a/1.0/types.js';
import type { RequirementId } from '../../../generated/conformance/requirements.js';
import { isRecord } from '../../../src/support/records.js';
import { errorLabel, rpcOf, short } from '../../core/answers.js';
import type { CheckContext } from '../../core/check.js';
import type { ParamsOf, RpcExchange, StreamExchange, StreamingMethodName, StreamOptions } from '../../core/transport.js';
import { describeEnding, describeEvent, describeEvents, idsIn, kindOf, kindsOf, payloadOf, stateIn } from './frames.js';
import { stateLabel } from './states.js';
import { skipAll } from './verdicts.js';

/*
 * How the streaming checks judge a stream. Every stream the suite opens goes through `examine`
 * (SSE-002 for SendStreamingMessage, SSE-003 envelope and shape, SSE-005 oneof, HUB-006 ids);
 * task streams then go through `analyseTaskStream` (first event, ids, state machine, ending).
 */

/** A stream the suite opened: the exchange and the JSON-RPC id every event must echo. */
export interface Opened {
  readonly method: string;
  readonly requestId: string;
  readonly exchange: StreamExchange;
}

export async function openStream<M extends StreamingMethodName>(
  context: CheckContext,
  method: M,
  params: ParamsOf<M>,
  options: StreamOptions = {},
): Promise<Opened> {
  const requestId = `conform-sse-${randomUUID()}`;
  const exchange = await context.transport.stream(method, params, { ...options, id: requestId });
  return { method, requestId, exchange };
}

/**
 * What every stream is held to: SSE-002 (SendStreamingMessage only), the JSON-RPC envelope
 * and StreamResponse shape of each data item (SSE-003; SSE-005 on other bindings), exactly
 * one payload member (SSE-005), and an id on every event (HUB-006).
 * Returns whether there was a stream to look at.
 */
export function examine(context: CheckContext, opened: Opened, options: { sse002?: boolean; allowErrors?: boolean } = {}): boolean {
  const { exchange, requestId } = opened;
  const type = exchange.headers['content-type'] ?? '';
  const isStream = exchange.ending !== 'not-a-stream' && exchange.status !== 0;
  if (options.sse002) {
    if (isStream && exchange.status === 200 && /^text\/event-stream\s*(;|$)/i.test(type))
      context.pass('SSE-002', 'HTTP 200 with Content-Type text/event-stream');
    else {
      context.fail('SSE-002', {
        message: 'a valid SendStreamingMessage was not answered with an SSE stream',
        expected: 'HTTP 200, Content-Type: text/event-stream',
        observed:
          exchange.status === 0
            ? `no response (${exchange.transportError ?? 'connection failed'})`
            : `HTTP ${exchange.status}, Content-Type ${type || '(none)'}: ${exchange.bodyText.slice(0, 300)}`,
        exchange,
      });
    }
  }
  if (!isStream) return false;
  const jsonrpc = context.transport.binding === 'JSONRPC';
  const shapeRequirement = jsonrpc ? 'SSE-003' : 'SSE-005';
  const envelopeProblems: string[] = [];
  const oneofProblems: string[] = [];
  const missingIds: number[] = [];
  let shapesOk = true;
  for (const [index, event] of exchange.events.entries()) {
    if (event.id === undefined || event.id === '') missingIds.push(index);
    if (jsonrpc) {
      const body = event.json;
      if (!isRecord(body)) envelopeProblems.push(`event ${index}: the data is not a JSON object (${event.data.slice(0, 80)})`);
      else {
        if (body['jsonrpc'] !== '2.0') envelopeProblems.push(`event ${index}: jsonrpc is ${JSON.stringify(body['jsonrpc'])}`);
        if (body['id'] !== requestId)
          envelopeProblems.push(`event ${index}: id is ${JSON.stringify(body['id'])}, the request's was ${JSON.stringify(requestId)}`);
        const hasResult = 'result' in body;
        const hasError = 'error' in body;
        if (hasResult === hasError) envelopeProblems.push(`event ${index}: it must carry exactly one of result and error`);
        else if (hasError && !options.allowErrors)
          envelopeProblems.push(`event ${index}: an error (${JSON.stringify(body['error']).slice(0, 120)}) instead of a result`);
      }
    } else {
      if (event.frame === undefined && !(options.allowErrors && event.error !== undefined))
        oneofProblems.push(`event ${index}: the data is not a StreamResponse object`);
      if (isRecord(event.json) && ('jsonrpc' in event.json || 'result' in event.json))
        envelopeProblems.push(`event ${index}: a JSON-RPC envelope (${short(event.data, 120)})`);
    }
    if (event.frame === undefined) continue;
    const kinds = kindsOf(event.frame);
    if (kinds.length !== 1) {
      oneofProblems.push(
        `event ${index}: ${kinds.length === 0 ? 'none' : kinds.join(' and ')} of task, message, statusUpdate, artifactUpdate`,
      );
      continue;
    }
    if (
      !context.checkShape(shapeRequirement, 'StreamResponse', event.frame, {
        exchange,
        path: jsonrpc ? `events[${index}].result` : `events[${index}]`,
      })
    )
      shapesOk = false;
  }
  if (jsonrpc) {
    if (envelopeProblems.length > 0) {
      context.fail('SSE-003', {
        message: `${opened.method}: an SSE data item is not a JSON-RPC success response for the request`,
        expected: `{"jsonrpc": "2.0", "id": ${JSON.stringify(requestId)}, "result": <StreamResponse>} in every data item`,
        observed: envelopeProblems.slice(0, 5).join('; '),
        exchange,
      });
    } else if (shapesOk)
      context.pass(
        'SSE-003',
        `${opened.method}: ${exchange.events.length} events, each a JSON-RPC response echoing the id with a valid StreamResponse`,
      );
  }
  if (!jsonrpc) {
    if (envelopeProblems.length > 0)
      context.fail('SSE-004', {
        message: `${opened.method}: an SSE data item is wrapped instead of a bare StreamResponse`,
        expected: 'a bare StreamResponse object in every data item, without jsonrpc, id or result',
        observed: envelopeProblems.slice(0, 5).join('; '),
        exchange,
      });
    else if (exchange.events.length > 0) context.pass('SSE-004', `${opened.method}: every data item is a bare StreamResponse`);
  }
  if (oneofProblems.length > 0) {
    context.fail('SSE-005', {
      message: `${opened.method}: a StreamResponse does not hold exactly one payload`,
      expected: 'exactly one of task, message, statusUpdate, artifactUpdate',
      observed: oneofProblems.slice(0, 5).join('; '),
      exchange,
    });
  } else if (shapesOk || jsonrpc) context.pass('SSE-005', `${opened.method}: every frame has exactly one payload member`);
  if (exchange.events.length > 0) {
    if (missingIds.length === 0) context.pass('HUB-006', `${opened.method}: all ${exchange.events.length} events carry an id`);
    else {
      context.fail('HUB-006', {
        message: `${opened.method}: ${missingIds.length} of ${exchange.events.length} events have no SSE id: line`,
        expected: 'an id: line on every event, usable as Last-Event-ID',
        observed: `no id on events ${missingIds.slice(0, 10).join(', ')}: ${describeEvents(exchange.events)}`,
        exchange,
      });
    }
  }
  return true;
}

export interface TaskStreamRequirements {
  /** The first event must be a task (SSE-007, SUB-004). */
  readonly first: RequirementId;
  /** The stream must end at a terminal state, promptly, with nothing after it (SSE-008, SUB-005). */
  readonly ending: RequirementId;
  /** The task the stream must be about, when the suite knows it. */
  readonly taskId?: string;
}

export interface TaskStreamSummary {
  readonly taskId?: string;
  readonly firstState?: TaskState;
  readonly lastState?: TaskState;
  readonly terminal?: TaskState;
}

/**
 * The task-stream rules: first event a task (requirements.first), every update about that
 * task and context (SSE-009), states along the state machine with nothing after a terminal
 * status (SSE-010), and the stream closing at the terminal (or an interrupted) state
 * (requirements.ending). A message-only answer to SendStreamingMessage is held to SSE-006
 * instead and the task rules are skipped.
 */
export function analyseTaskStream(
  context: CheckContext,
  opened: Opened,
  requirements: TaskStreamRequirements,
): TaskStreamSummary | undefined {
  const { exchange } = opened;
  const events = exchange.events;
  const all: readonly RequirementId[] = [requirements.first, requirements.ending, 'SSE-009', 'SSE-010'];
  if (exchange.ending === 'not-a-stream' || (events.length === 0 && exchange.ending === 'transport-error')) {
    skipAll(context, all, 'precondition-not-met', `${opened.method} opened no stream to examine (${describeEnding(exchange)})`);
    return undefined;
  }
  const first = events[0];
  if (first === undefined) {
    context.fail(requirements.first, {
      message: `the ${opened.method} stream carried no event`,
      expected: 'a task event first',
      observed: describeEnding(exchange),
      exchange,
    });
    return undefined;
  }
  if (first.error !== undefined) {
    context.fail(requirements.first, {
      message: `the ${opened.method} stream began with an error event instead of a task`,
      expected: 'a task event first',
      observed: `error ${first.error.code}: ${first.error.message}`,
      exchange,
    });
    skipAll(context, [requirements.ending, 'SSE-009', 'SSE-010'], 'precondition-not-met', 'the stream carried an error instead of a task');
    return undefined;
  }
  const firstKind = kindOf(first.frame);
  if (firstKind === 'message' && opened.method === 'SendStreamingMessage') {
    checkMessageStream(context, opened);
    skipAll(
      context,
      all,
      'precondition-not-met',
      'the agent answered with a direct Message (no task), so there is no task stream to examine',
    );
    return undefined;
  }
  if (firstKind === 'task') context.pass(requirements.first, `${opened.method}: the first event is a task`);
  else {
    context.fail(requirements.first, {
      message: `the first event of the ${opened.method} stream is not a task`,
      expected: 'a task event ({"task": …}) first',
      observed: `${describeEvent(first)}; events: ${describeEvents(events)}`,
      exchange,
    });
  }

  // The task the stream is about: the snapshot's, or else the first update's.
  let taskId: unknown = requirements.taskId;
  let contextId: unknown;
  for (const event of events) {
    const ids = idsIn(event.frame);
    if (ids === undefined) continue;
    taskId ??= ids.taskId;
    contextId ??= ids.contextId;
    if (taskId !== undefined && contextId !== undefined) break;
  }
  if (requirements.taskId !== undefined && firstKind === 'task') {
    const snapshotId = payloadOf(first.frame, 'task')?.['id'];
    if (snapshotId !== requirements.taskId) {
      context.fail(requirements.first, {
        message: 'the task event is about another task',
        expected: `task id ${requirements.taskId}`,
        observed: `task id ${JSON.stringify(snapshotId)}`,
        exchange,
      });
    }
  }

  const mismatches: string[] = [];
  const order: string[] = [];
  const afterTerminal: string[] = [];
  let updates = 0;
  let previous: TaskState | undefined;
  let terminal: { state: TaskState; index: number; atMs: number } | undefined;
  let finalSnapshotSeen = false;
  let firstStatusAfterSnapshot = true;
  const firstState = firstKind === 'task' ? stateIn(first.frame) : undefined;
  for (const [index, event] of events.entries()) {
    const kind = kindOf(event.frame);
    if (kind === undefined) continue;
    if (kind === 'statusUpdate' || kind === 'artifactUpdate' || (kind === 'task' && index > 0)) {
      const ids = idsIn(event.frame);
      if (kind !== 'task') updates += 1;
      if (ids !== undefined && (ids.taskId !== taskId || (contextId !== undefined && ids.contextId !== contextId))) {
        mismatches.push(`event ${index} (${kind}) has taskId ${JSON.stringify(ids.taskId)}, contextId ${JSON.stringify(ids.contextId)}`);
      }
    }
    if (terminal !== undefined) {
      // §11.7 lets a stream send one last Task snapshot before closing; it must show the same terminal state.
      if (kind === 'task' && !finalSnapshotSeen && stateIn(event.frame) === terminal.state) {
        finalSnapshotSeen = true;
        continue;
      }
      afterTerminal.push(`event ${index}: ${describeEvent(event)}`);
      continue;
    }
    if (kind !== 'task' && kind !== 'statusUpdate') continue;
    const state = stateIn(event.frame);
    if (state === undefined) continue;
    if (index === 0 && kind === 'task') {
      previous = state;
    } else if (previous === undefined) {
      if (!TASK_STATES[state].initial) order.push(`the first state seen is ${stateLabel(state)}, which no task starts in`);
      previous = state;
    } else if (kind === 'statusUpdate' && firstStatusAfterSnapshot && state === previous) {
      // The first update may restate the snapshot's state.
      previous = state;
    } else if (!(kind === 'task' && state === previous) && !canTransition(previous, state)) {
      order.push(`${stateLabel(previous)} → ${stateLabel(state)} at event ${index}`);
      previous = state;
    } else previous = state;
    if (kind === 'statusUpdate') firstStatusAfterSnapshot = false;
    if (isTerminalState(state)) terminal = { state, index, atMs: event.receivedAtMs };
  }

  if (mismatches.length > 0) {
    context.fail('SSE-009', {
      message: 'an update event names another task or context than the stream is about',
      expected: `taskId ${JSON.stringify(taskId)} and contextId ${JSON.stringify(contextId)} on every statusUpdate and artifactUpdate`,
      observed: mismatches.slice(0, 5).join('; '),
      exchange,
    });
  } else if (updates > 0) context.pass('SSE-009', `${opened.method}: ${updates} updates, all about task ${String(taskId)}`);
  else context.skip('SSE-009', 'inconclusive', `${opened.method}: the stream carried no statusUpdate or artifactUpdate`);

  if (order.length > 0 || afterTerminal.length > 0) {
    context.fail('SSE-010', {
      message:
        order.length > 0
          ? 'the states along the stream break the task state machine'
          : `events arrived after the terminal status ${stateLabel(terminal?.state ?? '')}`,
      expected: 'states that follow the task state machine, and no event after a terminal status',
      observed: `${[...order, ...afterTerminal.map((text) => `after terminal: ${text}`)].slice(0, 5).join('; ')}; events: ${describeEvents(events)}`,
      exchange,
    });
  } else context.pass('SSE-010', `${opened.method}: states in state-machine order (${describeEvents(events)})`);

  const limitNote = `the suite waited ${exchange.durationMs} ms`;
  if (terminal !== undefined) {
    if (afterTerminal.length > 0) {
      context.fail(requirements.ending, {
        message: `the stream went on after the terminal status ${stateLabel(terminal.state)}`,
        expected: 'the stream ends right after the terminal status',
        observed: afterTerminal.slice(0, 5).join('; '),
        exchange,
      });
    } else if (exchange.ending === 'closed') {
      const delay = Math.max(0, exchange.durationMs - terminal.atMs);
      if (delay <= context.timeoutMs) context.pass(requirements.ending, `closed ${delay} ms after ${stateLabel(terminal.state)}`);
      else
        context.fail(requirements.ending, {
          message: 'the stream did not end promptly after the terminal status',
          expected: `the stream closes within ${context.timeoutMs} ms of ${stateLabel(terminal.state)}`,
          observed: `closed ${delay} ms after it`,
          exchange,
        });
    } else if (exchange.ending === 'timeout') {
      context.fail(requirements.ending, {
        message: `the stream did not end after the terminal status ${stateLabel(terminal.state)}`,
        expected: 'the HTTP response completes once the task is terminal',
        observed: `ending: timeout — still open ${exchange.durationMs - terminal.atMs} ms after ${stateLabel(terminal.state)} (${limitNote})`,
        exchange,
      });
    } else if (exchange.ending === 'transport-error') {
      context.fail(requirements.ending, {
        message: 'the stream broke instead of completing after the terminal status',
        expected: 'a clean end of the HTTP response',
        observed: describeEnding(exchange),
        exchange,
      });
    }
  } else if (previous !== undefined && isInterruptedState(previous)) {
    if (exchange.ending === 'closed') context.pass(requirements.ending, `closed at ${stateLabel(previous)}, which is allowed`);
    else
      context.skip(
        requirements.ending,
        'inconclusive',
        `the stream stayed open at ${stateLabel(previous)}, which is allowed (${limitNote})`,
      );
  } else if (exchange.ending === 'timeout') {
    context.skip(
      requirements.ending,
      'inconclusive',
      `the task was still ${previous === undefined ? 'in an unknown state' : stateLabel(previous)} when the suite stopped waiting (${limitNote})`,
    );
  } else if (exchange.ending !== 'stopped') {
    context.fail(requirements.ending, {
      message: `the stream ended while the task was still ${previous === undefined ? 'in an unknown state' : stateLabel(previous)}`,
      expected: 'the stream stays open until the task is terminal (or interrupted)',
      observed: `${describeEnding(exchange)}; events: ${describeEvents(events)}`,
      exchange,
    });
  }
  return {
    ...(typeof taskId === 'string' ? { taskId } : {}),
    ...(firstState === undefined ? {} : { firstState }),
    ...(previous === undefined ? {} : { lastState: previous }),
    ...(terminal === undefined ? {} : { terminal: terminal.state }),
  };
}

/** SSE-006: a direct Message is exactly one message event, then the stream ends. */
export function checkMessageStream(context: CheckContext, opened: Opened): void {
  const { exchange } = opened;
  const events = exchange.events;
  const problems: string[] = [];
  if (events.length !== 1) problems.push(`${events.length} events`);
  if (events[0] !== undefined && kindOf(events[0].frame) !== 'message') problems.push(`the first event is ${describeEvent(events[0])}`);
  if (exchange.ending === 'timeout')
    problems.push(`ending: timeout — the stream stayed open after the message (the suite waited ${exchange.durationMs} ms)`);
  else if (exchange.ending !== 'closed') problems.push(`ending: ${describeEnding(exchange)}`);
  if (problems.length === 0) context.pass('SSE-006', 'one message event, then the stream closed');
  else
    context.fail('SSE-006', {
      message: 'a direct Message was not delivered as exactly one message event followed by the end of the stream',
      expected: 'one {"message": …} event, then the stream closes',
      observed: `${problems.join('; ')}; events: ${describeEvents(events)}`,
      exchange,
    });
}

/**
 * A refusal of a streaming call: a JSON-RPC error response, or a stream holding a single
 * error event; either must be exactly the error `name`. Task events are a FAIL.
 */
export function expectStreamRefusal(context: CheckContext, requirement: RequirementId, opened: Opened, name: ErrorName): void {
  const { exchange, requestId } = opened;
  const expected = `error ${errorLabel(name)}, as a JSON-RPC error response or a single error event`;
  if (exchange.ending === 'not-a-stream' || exchange.status === 0) {
    context.expectError(requirement, rpcOf(exchange, requestId), name);
    return;
  }
  examine(context, opened, { allowErrors: true });
  const [first, ...rest] = exchange.events;
  if (first?.error === undefined) {
    context.fail(requirement, {
      message: `${opened.method} opened a stream instead of answering error ${errorLabel(name)}`,
      expected,
      observed: `${describeEvents(exchange.events)} (${describeEnding(exchange)})`,
      exchange,
    });
    return;
  }
  if (rest.length > 0) {
    context.fail(requirement, {
      message: 'the error event was followed by more events',
      expected,
      observed: describeEvents(exchange.events),
      exchange,
    });
    return;
  }
  if (exchange.ending === 'timeout') {
    context.fail(requirement, {
      message: 'the stream stayed open after the error event',
      expected: `${expected}, then the end of the stream`,
      observed: `ending: timeout after ${exchange.durationMs} ms`,
      exchange,
    });
    return;
  }
  const answer: RpcExchange = { ...exchange, id: requestId, error: first.error };
  context.expectError(requirement, answer, name);
}

/** SSE-001 / SUB-001: a plain JSON-RPC UnsupportedOperationError, never an opened stream. */
export function expectRefusedStream(context: CheckContext, requirement: RequirementId, exchange: StreamExchange): void {
  if (exchange.ending === 'not-a-stream') {
    context.expectError(requirement, rpcOf(exchange), 'UnsupportedOperationError');
    return;
  }
  const first = exchange.events[0];
  context.fail(requirement, {
    message: 'the agent does not declare streaming but answered with a stream',
    expected: `a JSON response with error ${errorLabel('UnsupportedOperationError')} instead of an SSE stream`,
    observed:
      exchange.status === 0
        ? `no response (${exchange.transportError ?? exchange.ending})`
        : `HTTP ${exchange.status} ${exchange.headers['content-type'] ?? ''}; first event: ${first?.data.slice(0, 200) ?? '(none)'}`,
    exchange,
  });
}
