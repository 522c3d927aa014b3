import { setTimeout as sleep } from 'node:timers/promises';
import { canTransition, isTerminalState } from '../../generated/a2a/1.0/task-states.js';
import type { TaskState } from '../../generated/a2a/1.0/types.js';
import type { TestDirectiveRequest } from '../../generated/hub/test-directives.js';
import { isRecord } from '../../src/support/records.js';
import { errorLabel, isError } from '../core/answers.js';
import type { Check, CheckContext } from '../core/check.js';
import type { SseEvent } from '../core/transport.js';
import { asksOf, missingAsks } from '../core/profiles.js';
import { canAsk, directiveMessage } from './support/directives.js';
import { analyseTaskStream, checkMessageStream, examine, expectStreamRefusal, openStream, type Opened } from './support/streams.js';
import {
  describeEnding,
  describeEvent,
  describeEvents,
  eventsAfterId,
  idsIn,
  kindOf,
  numericId,
  payloadOf,
  sameEvents,
  stateIn,
} from './support/frames.js';
import { sameJson } from './support/json.js';
import { stateLabel } from './support/states.js';
import { currentTask, noTask, pollUntilTerminal, send, slowTask, terminalTask, unknownTaskId } from './support/tasks.js';
import { concatenatedText } from './support/text.js';
import { skipAll } from './support/verdicts.js';

/*
 * Streaming checks (SSE-*, SUB-*, HUB-003, HUB-006). How a stream is judged (examine,
 * analyseTaskStream) is support/streams.ts.
 */

/** A slow task for the cooperative checks: 10 steps of 100 ms, about one second of work. */
const STREAM_SLOW_WORK = { steps: 10, stepMs: 100 } as const satisfies TestDirectiveRequest;
const STREAM_SLOW_MS = STREAM_SLOW_WORK.steps * STREAM_SLOW_WORK.stepMs;
/** A stream whose terminal event comes sooner than this cannot show buffering. */
const BUFFERING_VISIBLE_MS = 500;

/** How long a stream of slow work may take: the work (as the profile makes it) and the request timeout, twice. */
function slowBoundMs(context: CheckContext): number {
  return Math.max(STREAM_SLOW_MS, context.profile.slowMs) + context.timeoutMs * 2;
}

/**
 * The events without the Task snapshot a stream may send after its terminal status (§11.7):
 * it repeats the state, and may repeat the status event's id, so id order leaves it out.
 */
function withoutClosingTask(events: readonly SseEvent[]): readonly SseEvent[] {
  const last = events.at(-1);
  const before = events.at(-2);
  const state = stateIn(before?.frame);
  const closing =
    kindOf(last?.frame) === 'task' && kindOf(before?.frame) === 'statusUpdate' && state !== undefined && isTerminalState(state);
  return closing ? events.slice(0, -1) : events;
}

/**
 * What a resumed stream sends after its snapshot, given the frames a subscriber that never left
 * saw after Last-Event-ID: those up to the status the snapshot shows (the snapshot already holds
 * their artifacts) as status updates only, then the rest as they are.
 */
function replayOf(missed: readonly SseEvent[], snapshot: SseEvent | undefined): SseEvent[] {
  const status = payloadOf(snapshot?.frame, 'task')?.['status'];
  let reached = -1;
  missed.forEach((event, index) => {
    if (status !== undefined && sameJson(payloadOf(event.frame, 'statusUpdate')?.['status'], status)) reached = index;
  });
  return [...missed.slice(0, reached + 1).filter((event) => kindOf(event.frame) === 'statusUpdate'), ...missed.slice(reached + 1)];
}

export const streamingChecks: readonly Check[] = [
  {
    id: 'sse-send-stream',
    title:
      'SendStreamingMessage: an SSE stream of JSON-RPC frames that starts with the task, follows the state machine and ends at the terminal state',
    requirements: ['SSE-002', 'SSE-003', 'SSE-004', 'SSE-005', 'SSE-007', 'SSE-008', 'SSE-009', 'SSE-010', 'HUB-006'],
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
    needs: ['message'],
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
    async run(context) {
      const asked: TestDirectiveRequest[] = [
        { outcome: 'failed' },
        { outcome: 'rejected' },
        { outcome: 'input-required' },
        { outcome: 'auth-required' },
        { steps: 3, stepMs: 20 },
      ];
      // The outcomes the profile can ask for; a black-box run has the plain stream of sse-send-stream only.
      const directives = asked.filter((request) => canAsk(context, request));
      if (directives.length === 0) {
        skipAll(
          context,
          ['SSE-007', 'SSE-008', 'SSE-009', 'SSE-010'],
          'needs-cooperation',
          missingAsks(context.profile, [...new Set(asked.flatMap(asksOf))]) ?? 'no outcome to ask for',
        );
        return;
      }
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
          canAsk(context, { chunks: 4 })
            ? `the agent sent ${chunks} artifactUpdate event(s) although 4 chunks were asked for: chunking was not exercised`
            : `the agent sent ${chunks} artifactUpdate event(s) on its own, and ${context.profile.title} cannot ask for more: chunking was not exercised`,
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
    id: 'sse-not-buffered',
    title: 'A stream of slow work delivers its first event at once, not all events when the task ends',
    requirements: ['SSE-014'],
    capability: 'streaming',
    needs: ['slow'],
    async run(context) {
      const opened = await openStream(
        context,
        'SendStreamingMessage',
        { message: directiveMessage(context, 'conformance: slow task, streamed as it goes', STREAM_SLOW_WORK) },
        { timeoutMs: slowBoundMs(context) },
      );
      if (!examine(context, opened, { sse002: true })) {
        context.skip('SSE-014', 'precondition-not-met', `SendStreamingMessage opened no stream (${describeEnding(opened.exchange)})`);
        return;
      }
      const events = opened.exchange.events;
      const first = events[0];
      const last = events.findLast((event) => {
        const state = stateIn(event.frame);
        return state !== undefined && isTerminalState(state);
      });
      if (first === undefined || last === undefined) {
        context.skip('SSE-014', 'inconclusive', `the stream carried no terminal state to time against: ${describeEvents(events)}`);
        return;
      }
      const workMs = last.receivedAtMs - first.receivedAtMs;
      // Below this the work was too quick for buffering to show.
      if (last.receivedAtMs < BUFFERING_VISIBLE_MS) {
        context.skip(
          'SSE-014',
          'inconclusive',
          `the slow task ended ${last.receivedAtMs} ms after the request: too soon to tell buffering`,
        );
        return;
      }
      if (workMs < last.receivedAtMs / 4)
        context.fail('SSE-014', {
          message: `the first event arrived ${first.receivedAtMs} ms after the request, only ${workMs} ms before the terminal one: the stream was buffered`,
          expected: 'the task event at once, the terminal status when the work ends',
          observed: events.map((event) => `${kindOf(event.frame) ?? 'event'} at ${event.receivedAtMs} ms`).join(', '),
          exchange: opened.exchange,
        });
      else context.pass('SSE-014', `the first event came ${first.receivedAtMs} ms after the request, the terminal one ${workMs} ms later`);
    },
  },
  {
    id: 'sse-drop-does-not-cancel',
    title: 'Dropping a SendStreamingMessage or SubscribeToTask connection leaves the task running to completion',
    requirements: ['SSE-013'],
    capability: 'streaming',
    needs: ['slow'],
    async run(context) {
      const untilStatus = (event: SseEvent): boolean => kindOf(event.frame) === 'statusUpdate';
      const bound = Math.max(STREAM_SLOW_MS, context.profile.slowMs) + context.timeoutMs;
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
          expected: `GetTask shows TASK_STATE_COMPLETED within ${bound} ms (the task was asked to complete after ${Math.max(STREAM_SLOW_MS, context.profile.slowMs)} ms of work)`,
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
    needs: ['slow'],
    async run(context) {
      const started = await slowTask(context, 'conformance: slow task to subscribe to', STREAM_SLOW_WORK);
      if (!started.ok) {
        skipAll(context, ['SUB-004', 'SUB-005'], 'precondition-not-met', started.reason);
        return;
      }
      const id = started.value.id;
      const before = (await currentTask(context, id))?.state ?? started.value.state;
      const opened = await openStream(context, 'SubscribeToTask', { id }, { timeoutMs: slowBoundMs(context) });
      if (!examine(context, opened)) {
        failNoSubscription(context, opened, 'a working task');
        return;
      }
      const summary = analyseTaskStream(context, opened, { first: 'SUB-004', ending: 'SUB-005', taskId: id });
      if (opened.exchange.ending === 'timeout') {
        // A subscription that stays silent after its snapshot while the task finishes has dropped the updates.
        const now = await currentTask(context, id);
        if (now !== undefined && isTerminalState(now.state))
          context.fail('SUB-005', {
            message: `the task is ${stateLabel(now.state)} (GetTask), but the subscription delivered no update after the snapshot and stayed open`,
            expected: 'the task’s later events, then the end of the stream at its terminal state',
            observed: describeEvents(opened.exchange.events),
            exchange: opened.exchange,
          });
      }
      const snapshot = summary?.firstState;
      if (snapshot !== undefined && snapshot !== before && !canTransition(before, snapshot)) {
        context.fail('SUB-004', {
          message: 'the task event does not hold the task’s current state',
          expected: `${stateLabel(before)} (GetTask just before) or a state it can move to`,
          observed: stateLabel(snapshot),
          exchange: opened.exchange,
        });
      } else if (snapshot !== undefined && isTerminalState(snapshot) && !isTerminalState(before)) {
        context.skip(
          'SUB-004',
          'inconclusive',
          `the task finished between GetTask and SubscribeToTask (the snapshot holds ${stateLabel(snapshot)}), so the snapshot could not be compared`,
        );
      }
    },
  },
  {
    id: 'sub-interrupted-task',
    title: 'SubscribeToTask on an INPUT_REQUIRED task: the task first, then the stream follows the resumed turn to its terminal state',
    requirements: ['SUB-004', 'SUB-005'],
    capability: 'streaming',
    needs: ['input-required'],
    async run(context) {
      const asked = await send(context, {
        message: directiveMessage(context, 'conformance: ask me for more', { outcome: 'input-required' }),
      });
      if (asked.kind !== 'task' || asked.task.status.state !== 'TASK_STATE_INPUT_REQUIRED') {
        const reason =
          asked.kind === 'task' ? `the input-required directive left the task in ${stateLabel(asked.task.status.state)}` : noTask(asked);
        skipAll(context, ['SUB-004', 'SUB-005'], 'precondition-not-met', reason);
        return;
      }
      const id = asked.task.id;
      let snapshotArrived: () => void = () => undefined;
      const snapshotSeen = new Promise<void>((resolve) => (snapshotArrived = resolve));
      const subscribing = openStream(
        context,
        'SubscribeToTask',
        { id },
        {
          timeoutMs: context.timeoutMs * 2,
          until: () => {
            snapshotArrived();
            return false;
          },
        },
      );
      // The follow-up goes out once the subscriber holds the snapshot, or once the stream is over.
      await Promise.race([snapshotSeen, subscribing]);
      await send(context, { message: context.message('conformance: the answer', { taskId: id, contextId: asked.task.contextId }) });
      const opened = await subscribing;
      if (!examine(context, opened)) {
        failNoSubscription(context, opened, 'an INPUT_REQUIRED task');
        return;
      }
      const events = opened.exchange.events;
      if (events.length === 1 && opened.exchange.ending === 'closed' && stateIn(events[0]?.frame) === 'TASK_STATE_INPUT_REQUIRED') {
        context.pass('SUB-004', 'the first event is the task, INPUT_REQUIRED');
        // §11.7 lets a stream close at an interrupted state, §3.1.6 says it ends at a terminal one.
        context.warn('SUB-005', {
          message: 'the subscription closed at the INPUT_REQUIRED state it opened in, so the subscriber never saw the task resume',
          expected: 'the stream stays open while the task waits, then follows the resumed turn to its terminal state',
          observed: `${describeEvents(events)}; ${describeEnding(opened.exchange)}`,
          exchange: opened.exchange,
        });
        return;
      }
      analyseTaskStream(context, opened, { first: 'SUB-004', ending: 'SUB-005', taskId: id });
    },
  },
  {
    id: 'sub-fan-out',
    title: 'Concurrent SubscribeToTask streams get the same events, and closing one does not disturb the others',
    requirements: ['SUB-006'],
    capability: 'streaming',
    needs: ['slow'],
    async run(context) {
      const started = await slowTask(context, 'conformance: slow task with several subscribers', STREAM_SLOW_WORK);
      if (!started.ok) {
        context.skip('SUB-006', 'precondition-not-met', started.reason);
        return;
      }
      const id = started.value.id;
      const limit = slowBoundMs(context);
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
    needs: ['timed'],
    async run(context) {
      const started = await slowTask(context, 'conformance: slow task to resubscribe to', STREAM_SLOW_WORK);
      if (!started.ok) {
        context.skip('HUB-003', 'precondition-not-met', started.reason);
        return;
      }
      const id = started.value.id;
      const limit = slowBoundMs(context);
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
      const events = withoutClosingTask(second.exchange.events);
      const problems: string[] = [];
      const snapshot = events[0];
      if (kindOf(snapshot?.frame) !== 'task')
        problems.push(`the first event is ${snapshot === undefined ? 'missing' : describeEvent(snapshot)}, not the task snapshot`);
      const snapshotId = numericId(snapshot);
      if (snapshotId === undefined) problems.push(`the snapshot has no numeric id (${String(snapshot?.id)})`);
      const rest = events.slice(1);
      // Ids only go up, from the one the client resumed after: a client cut off anywhere resumes
      // from the last id it saw (the snapshot's included) and misses nothing.
      let previousId = lastId;
      for (const [offset, event] of rest.entries()) {
        const eventId = numericId(event);
        if (eventId === undefined) problems.push(`event ${offset + 1} has no numeric id`);
        else if (eventId <= previousId) problems.push(`event ${offset + 1} (id ${eventId}) does not come after id ${previousId}`);
        previousId = eventId ?? previousId;
      }
      const firstId = numericId(rest[0]);
      if (snapshotId !== undefined && firstId !== undefined && snapshotId >= firstId)
        problems.push(
          `the snapshot's id ${snapshotId} is not before the frames sent after it (from id ${firstId}): a client cut off after the snapshot would resume past them`,
        );
      // Compare with what a subscriber that never left received after that id: the frames the
      // snapshot already holds are replayed as their status updates only, the rest as they were.
      const observed = withoutClosingTask(observer.exchange.events);
      const observerSnapshot = numericId(observed[0]);
      if (observer.exchange.ending === 'closed' && observerSnapshot !== undefined && observerSnapshot <= lastId) {
        const missed = eventsAfterId(observed, lastId);
        const expected = replayOf(missed, snapshot);
        const difference = sameEvents(rest, expected, true);
        if (difference !== undefined) {
          problems.push(
            `the frames after Last-Event-ID ${lastId} are not the missed status updates, then the live frames, as a subscriber that never left saw them: ${difference}; got ${rest.map((event) => event.id).join(',') || 'none'}, expected ${expected.map((event) => event.id).join(',') || 'none'}`,
          );
        }
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
          expected: `the task snapshot, then the missed statusUpdate frames (ids > ${lastId}), then live frames to the end, ids going up`,
          observed: `${problems.slice(0, 5).join('; ')}; events: ${describeEvents(events)}`,
          exchange: second.exchange,
        });
        return;
      }
      context.pass(
        'HUB-003',
        `Last-Event-ID ${lastId}: snapshot id ${String(snapshotId)}, then ${rest.length} frames with ids going up to the end`,
      );
    },
  },
];

/** SUB-004 fails and SUB-005 cannot be judged when SubscribeToTask opened no stream. */
function failNoSubscription(context: CheckContext, opened: Opened, taskKind: string): void {
  context.fail('SUB-004', {
    message: `SubscribeToTask on ${taskKind} opened no stream`,
    expected: 'an SSE stream starting with the task',
    observed: describeEnding(opened.exchange),
    exchange: opened.exchange,
  });
  context.skip('SUB-005', 'precondition-not-met', 'no stream was opened');
}
