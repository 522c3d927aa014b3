import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { ErrorName } from '../../generated/a2a/1.0/errors.js';
import { canTransition, isInterruptedState, isTerminalState, TASK_STATES } from '../../generated/a2a/1.0/task-states.js';
import type { TaskState } from '../../generated/a2a/1.0/types.js';
import type { RequirementId } from '../../generated/conformance/requirements.js';
import type { TestDirectiveRequest } from '../../generated/hub/test-directives.js';
import { isRecord } from '../../src/support/records.js';
import { errorLabel, isError, rpcOf } from '../core/answers.js';
import type { Check, CheckContext } from '../core/check.js';
import type { ParamsOf, RpcExchange, SseEvent, StreamExchange, StreamingMethodName, StreamOptions } from '../core/transport.js';
import { directiveMessage } from './support/directives.js';
import {
  describeEnding,
  describeEvent,
  describeEvents,
  eventsAfterId,
  idsIn,
  kindOf,
  kindsOf,
  numericId,
  payloadOf,
  sameEvents,
  stateIn,
} from './support/frames.js';
import { stateLabel } from './support/states.js';
import { currentTask, pollUntilTerminal, slowTask, terminalTask, unknownTaskId } from './support/tasks.js';
import { concatenatedText } from './support/text.js';
import { skipAll } from './support/verdicts.js';

/*
 * Streaming checks (SSE-*, SUB-*, HUB-003, HUB-006). Every stream the suite opens goes
 * through `examine` (SSE-002 for SendStreamingMessage, SSE-003 envelope and shape, SSE-005
 * oneof, HUB-006 ids); task streams then go through `analyseTaskStream` (first event, ids,
 * state machine, ending).
 */

/** A stream the suite opened: the exchange and the JSON-RPC id every event must echo. */
interface Opened {
  readonly method: string;
  readonly requestId: string;
  readonly exchange: StreamExchange;
}

/** A slow task for the cooperative checks: 10 steps of 100 ms, about one second of work. */
const STREAM_SLOW_WORK = { steps: 10, stepMs: 100 } as const satisfies TestDirectiveRequest;
const STREAM_SLOW_MS = STREAM_SLOW_WORK.steps * STREAM_SLOW_WORK.stepMs;

async function openStream<M extends StreamingMethodName>(
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
function examine(context: CheckContext, opened: Opened, options: { sse002?: boolean; allowErrors?: boolean } = {}): boolean {
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
    } else if (event.frame === undefined && !(options.allowErrors && event.error !== undefined)) {
      oneofProblems.push(`event ${index}: the data is not a StreamResponse object`);
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

interface TaskStreamRequirements {
  /** The first event must be a task (SSE-007, SUB-004). */
  readonly first: RequirementId;
  /** The stream must end at a terminal state, promptly, with nothing after it (SSE-008, SUB-005). */
  readonly ending: RequirementId;
  /** The task the stream must be about, when the suite knows it. */
  readonly taskId?: string;
}

interface TaskStreamSummary {
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
function analyseTaskStream(context: CheckContext, opened: Opened, requirements: TaskStreamRequirements): TaskStreamSummary | undefined {
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
    context.warn(requirements.ending, {
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
function checkMessageStream(context: CheckContext, opened: Opened): void {
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
function expectStreamRefusal(context: CheckContext, requirement: RequirementId, opened: Opened, name: ErrorName): void {
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

export const streamingChecks: readonly Check[] = [
  {
    id: 'sse-send-stream',
    title:
      'SendStreamingMessage: an SSE stream of JSON-RPC frames that starts with the task, follows the state machine and ends at the terminal state',
    requirements: ['SSE-002', 'SSE-003', 'SSE-005', 'SSE-007', 'SSE-008', 'SSE-009', 'SSE-010', 'HUB-006'],
    capability: 'streaming',
    async run(context) {
      const opened = await openStream(
        context,
        'SendStreamingMessage',
        { message: context.message('Hello from the A2A conformance suite (streaming check).') },
        { timeoutMs: context.timeoutMs * 2 },
      );
      examine(context, opened, { sse002: true });
      analyseTaskStream(context, opened, { first: 'SSE-007', ending: 'SSE-008' });
    },
  },
  {
    id: 'sse-message-stream',
    title: 'A direct Message is streamed as one message event, then the stream ends',
    requirements: ['SSE-006'],
    capability: 'streaming',
    cooperative: true,
    async run(context) {
      const opened = await openStream(
        context,
        'SendStreamingMessage',
        { message: directiveMessage(context, 'conformance: answer with a message', { outcome: 'message' }) },
        { timeoutMs: context.timeoutMs * 2 },
      );
      if (!examine(context, opened, { sse002: true })) {
        context.fail('SSE-006', {
          message: 'SendStreamingMessage opened no stream',
          expected: 'one message event, then the end of the stream',
          observed: describeEnding(opened.exchange),
          exchange: opened.exchange,
        });
        return;
      }
      checkMessageStream(context, opened);
    },
  },
  {
    id: 'sse-task-stream-outcomes',
    title: 'Task streams for every outcome (failed, rejected, interrupted, slow) follow the state machine and end where they may',
    requirements: ['SSE-007', 'SSE-008', 'SSE-009', 'SSE-010'],
    capability: 'streaming',
    cooperative: true,
    async run(context) {
      const directives: TestDirectiveRequest[] = [
        { outcome: 'failed' },
        { outcome: 'rejected' },
        { outcome: 'input-required' },
        { outcome: 'auth-required' },
        { steps: 3, stepMs: 20 },
      ];
      const streams = await Promise.all(
        directives.map((directive) =>
          openStream(
            context,
            'SendStreamingMessage',
            { message: directiveMessage(context, `conformance: ${JSON.stringify(directive)}`, directive) },
            { timeoutMs: context.timeoutMs * 2 },
          ),
        ),
      );
      for (const opened of streams) {
        examine(context, opened, { sse002: true });
        analyseTaskStream(context, opened, { first: 'SSE-007', ending: 'SSE-008' });
      }
    },
  },
  {
    id: 'sse-refusals',
    title: `SendStreamingMessage on an unknown task is ${errorLabel('TaskNotFoundError')} and on a terminal task ${errorLabel('UnsupportedOperationError')}, never task events`,
    requirements: ['SSE-011'],
    capability: 'streaming',
    cooperative: true,
    async run(context) {
      const unknown = await openStream(
        context,
        'SendStreamingMessage',
        { message: context.message('conformance: continue a task that does not exist', { taskId: unknownTaskId() }) },
        { timeoutMs: context.timeoutMs },
      );
      expectStreamRefusal(context, 'SSE-011', unknown, 'TaskNotFoundError');
      const finished = await terminalTask(context);
      if (!finished.ok) {
        context.skip('SSE-011', 'precondition-not-met', `no terminal task to continue: ${finished.reason}`);
        return;
      }
      const terminal = await openStream(
        context,
        'SendStreamingMessage',
        { message: context.message('conformance: continue a finished task', { taskId: finished.value.id }) },
        { timeoutMs: context.timeoutMs },
      );
      expectStreamRefusal(context, 'SSE-011', terminal, 'UnsupportedOperationError');
    },
  },
  {
    id: 'sse-artifact-chunks',
    title: 'An artifact streamed in chunks: append only to artifacts already sent, lastChunk on the last chunk',
    requirements: ['SSE-012'],
    capability: 'streaming',
    cooperative: true,
    async run(context) {
      const opened = await openStream(
        context,
        'SendStreamingMessage',
        { message: directiveMessage(context, 'conformance: a reply long enough to be sent in several chunks', { chunks: 4 }) },
        { timeoutMs: context.timeoutMs * 2 },
      );
      if (!examine(context, opened, { sse002: true })) {
        context.fail('SSE-012', {
          message: 'SendStreamingMessage opened no stream',
          expected: 'a task stream with artifact chunks',
          observed: describeEnding(opened.exchange),
          exchange: opened.exchange,
        });
        return;
      }
      analyseTaskStream(context, opened, { first: 'SSE-007', ending: 'SSE-008' });
      const artifacts = new Map<string, { chunks: number; last: boolean; text: string }>();
      const problems: string[] = [];
      let chunks = 0;
      for (const [index, event] of opened.exchange.events.entries()) {
        const update = payloadOf(event.frame, 'artifactUpdate');
        if (update === undefined) continue;
        chunks += 1;
        const artifact = update['artifact'];
        const artifactId = isRecord(artifact) && typeof artifact['artifactId'] === 'string' ? artifact['artifactId'] : undefined;
        if (artifactId === undefined) continue;
        const text = concatenatedText(artifact);
        const known = artifacts.get(artifactId);
        if (update['append'] === true && known === undefined)
          problems.push(`event ${index}: append: true for artifact ${artifactId}, which the stream has not sent before`);
        if (known?.last === true) problems.push(`event ${index}: a chunk of artifact ${artifactId} after its lastChunk`);
        const entry = update['append'] === true && known !== undefined ? known : { chunks: 0, last: false, text: '' };
        entry.chunks += 1;
        entry.text += text;
        entry.last = update['lastChunk'] === true;
        artifacts.set(artifactId, entry);
      }
      for (const [artifactId, entry] of artifacts)
        if (!entry.last) problems.push(`artifact ${artifactId}: its last chunk (of ${entry.chunks}) has no lastChunk: true`);
      if (problems.length > 0) {
        context.fail('SSE-012', {
          message: 'the artifact chunks are inconsistent',
          expected: 'append: true only on artifactIds sent earlier; lastChunk: true on each artifact’s last chunk',
          observed: problems.slice(0, 5).join('; '),
          exchange: opened.exchange,
        });
        return;
      }
      if (chunks < 2) {
        context.skip(
          'SSE-012',
          'inconclusive',
          `the agent sent ${chunks} artifactUpdate event(s) although 4 chunks were asked for: chunking was not exercised`,
        );
        return;
      }
      const texts = [...artifacts.values()].map((entry) => entry.text);
      if (texts.every((text) => text === '')) {
        context.fail('SSE-012', {
          message: 'the assembled artifact text is empty',
          expected: 'the chunks assemble into the reply text',
          observed: `${chunks} chunks with no text`,
          exchange: opened.exchange,
        });
        return;
      }
      // The chunks must assemble into exactly the artifact the task holds: a duplicated or lost
      // chunk is only visible against the stored result.
      const taskId = payloadOf(opened.exchange.events[0]?.frame, 'task')?.['id'];
      if (typeof taskId === 'string') {
        const stored = await context.transport.call('GetTask', { id: taskId });
        const result = stored.result as { artifacts?: { artifactId: string }[] } | undefined;
        for (const [artifactId, entry] of artifacts) {
          const final = result?.artifacts?.find((artifact) => artifact.artifactId === artifactId);
          const finalText = concatenatedText(final);
          if (final !== undefined && finalText !== entry.text) {
            context.fail('SSE-012', {
              message: `the chunks of artifact ${artifactId} do not assemble into the artifact the task holds`,
              expected: JSON.stringify(finalText.slice(0, 200)),
              observed: JSON.stringify(entry.text.slice(0, 200)),
              exchange: opened.exchange,
            });
            return;
          }
        }
      }
      context.pass(
        'SSE-012',
        `${chunks} chunks over ${artifacts.size} artifact(s), assembled: ${JSON.stringify(texts.join(' | ').slice(0, 120))}`,
      );
    },
  },
  {
    id: 'sse-drop-does-not-cancel',
    title: 'Dropping a SendStreamingMessage or SubscribeToTask connection leaves the task running to completion',
    requirements: ['SSE-013'],
    capability: 'streaming',
    cooperative: true,
    async run(context) {
      const untilStatus = (event: SseEvent): boolean => kindOf(event.frame) === 'statusUpdate';
      const bound = STREAM_SLOW_MS + context.timeoutMs;
      const viaSend = async (): Promise<void> => {
        const opened = await openStream(
          context,
          'SendStreamingMessage',
          { message: directiveMessage(context, 'conformance: slow task, dropped stream', { ...STREAM_SLOW_WORK }) },
          { timeoutMs: context.timeoutMs, until: untilStatus },
        );
        examine(context, opened, { sse002: true });
        await expectCompletes(opened);
      };
      const viaSubscribe = async (): Promise<void> => {
        const started = await slowTask(context, 'conformance: slow task, dropped subscription', STREAM_SLOW_WORK);
        if (!started.ok) {
          context.skip('SSE-013', 'precondition-not-met', started.reason);
          return;
        }
        const opened = await openStream(
          context,
          'SubscribeToTask',
          { id: started.value.id },
          { timeoutMs: context.timeoutMs, until: untilStatus },
        );
        examine(context, opened);
        await expectCompletes(opened, started.value.id);
      };
      const expectCompletes = async (opened: Opened, knownId?: string): Promise<void> => {
        const { exchange } = opened;
        const taskId = knownId ?? idsIn(exchange.events.find((event) => idsIn(event.frame) !== undefined)?.frame)?.taskId;
        if (exchange.ending !== 'stopped' || typeof taskId !== 'string') {
          context.skip(
            'SSE-013',
            'precondition-not-met',
            `${opened.method}: could not drop the stream while the task worked (${describeEnding(exchange)}; ${describeEvents(exchange.events)})`,
          );
          return;
        }
        const polled = await pollUntilTerminal(context, taskId, bound);
        if (polled.state === 'TASK_STATE_COMPLETED') {
          context.pass(
            'SSE-013',
            `${opened.method}: dropped after the first statusUpdate; the task still completed (${polled.waitedMs} ms later)`,
          );
          return;
        }
        context.fail('SSE-013', {
          message:
            polled.state === 'TASK_STATE_CANCELED'
              ? `dropping the ${opened.method} stream canceled the task`
              : `after the ${opened.method} stream was dropped the task did not complete`,
          expected: `GetTask shows TASK_STATE_COMPLETED within ${bound} ms (the task was asked to complete after ${STREAM_SLOW_MS} ms of work)`,
          observed:
            polled.state === undefined ? `GetTask did not return the task ${taskId}` : `${polled.state} after ${polled.waitedMs} ms`,
          exchange,
        });
      };
      await Promise.all([viaSend(), viaSubscribe()]);
    },
  },
  {
    id: 'sub-unknown-task',
    title: 'SubscribeToTask on an unknown task is TaskNotFoundError',
    requirements: ['SUB-003'],
    capability: 'streaming',
    async run(context) {
      const opened = await openStream(context, 'SubscribeToTask', { id: unknownTaskId() }, { timeoutMs: context.timeoutMs });
      expectStreamRefusal(context, 'SUB-003', opened, 'TaskNotFoundError');
    },
  },
  {
    id: 'sub-terminal-task',
    title: 'SubscribeToTask on a terminal task is UnsupportedOperationError',
    requirements: ['SUB-002'],
    capability: 'streaming',
    cooperative: true,
    async run(context) {
      const finished = await terminalTask(context);
      if (!finished.ok) {
        context.skip('SUB-002', 'precondition-not-met', finished.reason);
        return;
      }
      const opened = await openStream(context, 'SubscribeToTask', { id: finished.value.id }, { timeoutMs: context.timeoutMs });
      expectStreamRefusal(context, 'SUB-002', opened, 'UnsupportedOperationError');
    },
  },
  {
    id: 'sub-working-task',
    title: 'SubscribeToTask on a working task: the current task first, then the stream ends at the terminal state',
    requirements: ['SUB-004', 'SUB-005'],
    capability: 'streaming',
    cooperative: true,
    async run(context) {
      const started = await slowTask(context, 'conformance: slow task to subscribe to', STREAM_SLOW_WORK);
      if (!started.ok) {
        skipAll(context, ['SUB-004', 'SUB-005'], 'precondition-not-met', started.reason);
        return;
      }
      const id = started.value.id;
      const before = (await currentTask(context, id))?.state ?? started.value.state;
      const opened = await openStream(context, 'SubscribeToTask', { id }, { timeoutMs: STREAM_SLOW_MS + context.timeoutMs * 2 });
      if (!examine(context, opened)) {
        context.fail('SUB-004', {
          message: 'SubscribeToTask on a working task opened no stream',
          expected: 'an SSE stream starting with the task',
          observed: describeEnding(opened.exchange),
          exchange: opened.exchange,
        });
        context.skip('SUB-005', 'precondition-not-met', 'no stream was opened');
        return;
      }
      const summary = analyseTaskStream(context, opened, { first: 'SUB-004', ending: 'SUB-005', taskId: id });
      const snapshot = summary?.firstState;
      if (snapshot !== undefined && snapshot !== before && !canTransition(before, snapshot)) {
        context.fail('SUB-004', {
          message: 'the task event does not hold the task’s current state',
          expected: `${stateLabel(before)} (GetTask just before) or a state it can move to`,
          observed: stateLabel(snapshot),
          exchange: opened.exchange,
        });
      } else if (snapshot !== undefined && isTerminalState(snapshot) && !isTerminalState(before)) {
        context.warn('SUB-004', {
          message: 'the task finished between GetTask and SubscribeToTask, so the snapshot could not be compared',
          observed: stateLabel(snapshot),
          exchange: opened.exchange,
        });
      }
    },
  },
  {
    id: 'sub-fan-out',
    title: 'Concurrent SubscribeToTask streams get the same events, and closing one does not disturb the others',
    requirements: ['SUB-006'],
    capability: 'streaming',
    cooperative: true,
    async run(context) {
      const started = await slowTask(context, 'conformance: slow task with several subscribers', STREAM_SLOW_WORK);
      if (!started.ok) {
        context.skip('SUB-006', 'precondition-not-met', started.reason);
        return;
      }
      const id = started.value.id;
      const limit = STREAM_SLOW_MS + context.timeoutMs * 2;
      const [a, b, early] = await Promise.all([
        openStream(context, 'SubscribeToTask', { id }, { timeoutMs: limit }),
        openStream(context, 'SubscribeToTask', { id }, { timeoutMs: limit }),
        // Closed by the suite as soon as it has seen one event after the snapshot.
        openStream(context, 'SubscribeToTask', { id }, { timeoutMs: limit, until: (_event, events) => events.length >= 2 }),
      ]);
      for (const opened of [a, b, early]) examine(context, opened);
      const problems: string[] = [];
      for (const [name, opened] of [
        ['first', a],
        ['second', b],
      ] as const) {
        const events = opened.exchange.events;
        if (kindOf(events[0]?.frame) !== 'task') problems.push(`the ${name} stream did not start with a task (${describeEvents(events)})`);
        const states = events.map((event) => stateIn(event.frame)).filter((state): state is TaskState => state !== undefined);
        const last = states.at(-1);
        if (last === undefined || !isTerminalState(last))
          problems.push(
            `the ${name} stream did not reach a terminal state (last: ${last === undefined ? 'none' : stateLabel(last)}; ${describeEnding(opened.exchange)})`,
          );
        else if (opened.exchange.ending !== 'closed')
          problems.push(`the ${name} stream did not end after ${stateLabel(last)} (${describeEnding(opened.exchange)})`);
      }
      const snapshotA = numericId(a.exchange.events[0]);
      const snapshotB = numericId(b.exchange.events[0]);
      let compared: string;
      if (snapshotA !== undefined && snapshotB !== undefined) {
        const after = Math.max(snapshotA, snapshotB);
        const tailA = eventsAfterId(a.exchange.events, after);
        const tailB = eventsAfterId(b.exchange.events, after);
        const difference = sameEvents(tailA, tailB, true);
        if (difference !== undefined) problems.push(`after id ${after} the streams differ: ${difference}`);
        compared = `${tailA.length} events after id ${after}`;
      } else {
        // Without sequence ids: what the later subscriber got after its snapshot must be the tail of the other's.
        const restA = a.exchange.events.slice(1);
        const restB = b.exchange.events.slice(1);
        const [longer, shorter] = restA.length >= restB.length ? [restA, restB] : [restB, restA];
        const difference = sameEvents(longer.slice(longer.length - shorter.length), shorter, false);
        if (difference !== undefined) problems.push(`the later stream is not a tail of the earlier one: ${difference}`);
        compared = `the last ${shorter.length} events`;
      }
      if (problems.length > 0) {
        context.fail('SUB-006', {
          message: 'concurrent subscribers did not receive the same events',
          expected:
            'the same events in the same order on every stream, each reaching the terminal state although a third stream was closed early',
          observed: `${problems.slice(0, 4).join('; ')}; first: ${describeEvents(a.exchange.events)}; second: ${describeEvents(b.exchange.events)}`,
          exchange: a.exchange,
        });
        return;
      }
      const earlyNote =
        early.exchange.ending === 'stopped'
          ? `; a third stream closed after ${early.exchange.events.length} events did not disturb them`
          : '';
      context.pass('SUB-006', `two subscribers got identical events (${compared}) and both reached the terminal state${earlyNote}`);
    },
  },
  {
    id: 'hub-last-event-id-replay',
    title: 'SubscribeToTask with Last-Event-ID: the snapshot, then the missed status frames, then live frames',
    requirements: ['HUB-003'],
    capability: 'streaming',
    cooperative: true,
    async run(context) {
      const started = await slowTask(context, 'conformance: slow task to resubscribe to', STREAM_SLOW_WORK);
      if (!started.ok) {
        context.skip('HUB-003', 'precondition-not-met', started.reason);
        return;
      }
      const id = started.value.id;
      const limit = STREAM_SLOW_MS + context.timeoutMs * 2;
      // A subscriber that reads everything, to know which frames the task produced.
      const observing = openStream(context, 'SubscribeToTask', { id }, { timeoutMs: limit });
      const first = await openStream(
        context,
        'SubscribeToTask',
        { id },
        { timeoutMs: limit, until: (event) => (numericId(event) ?? -1) >= 3 },
      );
      examine(context, first);
      const mark = first.exchange.events.find((event) => (numericId(event) ?? -1) >= 3);
      const lastId = numericId(mark);
      if (mark?.id === undefined || lastId === undefined) {
        examine(context, await observing);
        if (first.exchange.events.some((event) => event.id !== undefined))
          context.skip(
            'HUB-003',
            'inconclusive',
            `no event with a numeric id ≥ 3 before the stream ended (${describeEvents(first.exchange.events)})`,
          );
        else context.skip('HUB-003', 'feature-absent', 'the stream events carry no ids');
        return;
      }
      await sleep(200);
      const second = await openStream(context, 'SubscribeToTask', { id }, { timeoutMs: limit, headers: { 'last-event-id': mark.id } });
      const observer = await observing;
      examine(context, observer);
      if (!examine(context, second)) {
        if (isError(second.exchange, 'UnsupportedOperationError'))
          context.skip('HUB-003', 'precondition-not-met', 'the task finished before the suite could resubscribe');
        else
          context.fail('HUB-003', {
            message: 'SubscribeToTask with Last-Event-ID opened no stream',
            expected: 'the snapshot, then the missed status frames',
            observed: describeEnding(second.exchange),
            exchange: second.exchange,
          });
        return;
      }
      const events = second.exchange.events;
      const problems: string[] = [];
      const snapshotId = numericId(events[0]);
      if (kindOf(events[0]?.frame) !== 'task')
        problems.push(`the first event is ${events[0] === undefined ? 'missing' : describeEvent(events[0])}, not the task snapshot`);
      if (snapshotId === undefined) problems.push(`the snapshot has no numeric id (${String(events[0]?.id)})`);
      const rest = events.slice(1);
      let previousId = -1;
      for (const [offset, event] of rest.entries()) {
        const eventId = numericId(event);
        if (eventId === undefined) problems.push(`event ${offset + 1} has no numeric id`);
        else if (eventId <= previousId) problems.push(`event ${offset + 1} (id ${eventId}) does not come after id ${previousId}`);
        previousId = eventId ?? previousId;
      }
      const replayed = snapshotId === undefined ? [] : rest.filter((event) => (numericId(event) ?? Infinity) <= snapshotId);
      const live = snapshotId === undefined ? rest : rest.filter((event) => (numericId(event) ?? Infinity) > snapshotId);
      for (const event of replayed) {
        const eventId = numericId(event) ?? -1;
        if (kindOf(event.frame) !== 'statusUpdate') problems.push(`replayed id ${eventId} is ${describeEvent(event)}, not a statusUpdate`);
        if (eventId <= lastId) problems.push(`replayed id ${eventId} is not later than Last-Event-ID ${lastId}`);
      }
      // Compare with what a subscriber that never left received.
      const observed = observer.exchange.events;
      const observerSnapshot = numericId(observed[0]);
      if (snapshotId !== undefined && observerSnapshot !== undefined && observerSnapshot <= lastId) {
        const missed = eventsAfterId(observed, lastId).filter(
          (event) => (numericId(event) ?? Infinity) <= snapshotId && kindOf(event.frame) === 'statusUpdate',
        );
        const difference = sameEvents(replayed, missed, true);
        if (difference !== undefined) {
          problems.push(
            `the replay is not the status frames after id ${lastId} up to the snapshot (${snapshotId}): ${difference}; replayed ${replayed.map((event) => event.id).join(',') || 'none'}, expected ${missed.map((event) => event.id).join(',') || 'none'}`,
          );
        }
      }
      if (
        snapshotId !== undefined &&
        observer.exchange.ending === 'closed' &&
        observerSnapshot !== undefined &&
        observerSnapshot <= snapshotId
      ) {
        const difference = sameEvents(live, eventsAfterId(observed, snapshotId), true);
        if (difference !== undefined)
          problems.push(`the live frames after the snapshot differ from a concurrent subscriber's: ${difference}`);
      }
      const lastState = events
        .map((event) => stateIn(event.frame))
        .filter((state): state is TaskState => state !== undefined)
        .at(-1);
      if (lastState === undefined || !isTerminalState(lastState) || second.exchange.ending !== 'closed') {
        problems.push(
          `the resumed stream did not run to the terminal state and close (last state ${lastState === undefined ? 'none' : stateLabel(lastState)}; ${describeEnding(second.exchange)})`,
        );
      }
      if (problems.length > 0) {
        context.fail('HUB-003', {
          message: 'SubscribeToTask with Last-Event-ID did not send the snapshot, then only the missed status frames, then live frames',
          expected: `the task snapshot, then statusUpdate frames with ids > ${lastId} up to the snapshot's id, then live frames to the end`,
          observed: `${problems.slice(0, 5).join('; ')}; events: ${describeEvents(events)}`,
          exchange: second.exchange,
        });
        return;
      }
      context.pass(
        'HUB-003',
        `Last-Event-ID ${lastId}: snapshot id ${String(snapshotId)}, replayed ${replayed.map((event) => event.id).join(',') || 'nothing'}, then ${live.length} live frames to the end`,
      );
    },
  },
];
