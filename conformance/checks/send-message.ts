import { randomUUID } from 'node:crypto';
import { isInterruptedState, isTerminalState } from '../../generated/a2a/1.0/task-states.js';
import type { Message, Part, Task } from '../../generated/a2a/1.0/types.js';
import { mediaRangeCovers } from '../../src/protocol/media-types.js';
import { isRecord } from '../../src/support/records.js';
import { errorLabel, isError, observedOf, short } from '../core/answers.js';
import type { Check } from '../core/check.js';
import { capabilityDeclared, cardModes } from './support/card.js';
import { canAsk, directiveMessage, SLOW_WORK } from './support/directives.js';
import { finishedTask, getTask, noTask, send, sendRaw } from './support/tasks.js';
import { expectA2AError, recordErrorCode, skipAll } from './support/verdicts.js';

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
    title:
      'A plain text message: exactly one of task/message, a well-formed Task with a server-chosen id and contextId, blocking semantics',
    requirements: ['SEND-001', 'SEND-002', 'SEND-003', 'SEND-004', 'SEND-005', 'SEND-019', 'DATA-003'],
    async run(context) {
      const sends = [
        await send(context, { message: context.message('hello') }),
        await send(context, { message: context.message('hello again') }),
      ];
      const good = sends.filter((sent) => sent.kind === 'task' || sent.kind === 'message');
      if (good.length > 0) context.pass('SEND-001', `answered with ${good.map((sent) => sent.kind).join(' and ')}`);
      const [first, second] = sends;
      if (first === undefined || second === undefined) return;
      if (first.kind === 'error' || second.kind === 'error') {
        skipAll(context, ['SEND-001', 'SEND-003', 'SEND-005'], 'precondition-not-met', noTask(first.kind === 'error' ? first : second));
        return;
      }
      if (first.kind !== 'task' || second.kind !== 'task') {
        skipAll(context, ['SEND-003', 'SEND-005'], 'precondition-not-met', noTask(first.kind !== 'task' ? first : second));
        return;
      }
      if (first.task.id !== '' && first.task.id !== second.task.id)
        context.pass('SEND-003', 'two new tasks got distinct server-chosen ids');
      else
        context.fail('SEND-003', {
          message: 'two new tasks share an id, or the id is empty',
          expected: 'distinct, non-empty task ids',
          observed: `ids ${JSON.stringify(first.task.id)} and ${JSON.stringify(second.task.id)}`,
          path: 'result.task.id',
          exchange: second.exchange,
        });

      for (const sent of [first, second]) {
        const state = sent.task.status.state;
        if (!isTerminalState(state) && !isInterruptedState(state)) {
          context.fail('SEND-005', {
            message: 'a blocking SendMessage returned a task that is still running',
            expected: 'a terminal (COMPLETED, FAILED, CANCELED, REJECTED) or interrupted (INPUT_REQUIRED, AUTH_REQUIRED) state',
            observed: state,
            path: 'result.task.status.state',
            exchange: sent.exchange,
          });
          continue;
        }
        // Every artifact produced: a later GetTask of the settled task has no more than the reply had.
        const later = await getTask(context, { id: sent.task.id });
        const replied = new Map(
          (sent.task.artifacts ?? []).map((artifact) => [artifact.artifactId, Array.isArray(artifact.parts) ? artifact.parts.length : 0]),
        );
        const missing = (later.task?.artifacts ?? []).filter(
          (artifact) => replied.get(artifact.artifactId) !== (Array.isArray(artifact.parts) ? artifact.parts.length : 0),
        );
        if (later.task !== undefined && isTerminalState(state) && missing.length > 0) {
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
      const jsonExcluded = modes.length > 0 && !modes.some((mode) => mediaRangeCovers(mode, 'application/json'));
      for (const value of [[1, 2, 3], 'a string', 42, true, null] as unknown[]) {
        const sent = await send(context, { message: { ...context.message(''), parts: [{ data: value, mediaType: 'application/json' }] } });
        if (sent.kind === 'task' || sent.kind === 'message')
          context.pass('DATA-003', `a data part holding ${JSON.stringify(value)} was accepted`);
        else if (sent.kind === 'error' && jsonExcluded && isError(sent.exchange, 'ContentTypeNotSupportedError')) {
          context.skip(
            'DATA-003',
            'not-applicable',
            `the card's input modes (${modes.join(', ')}) leave out application/json and the agent refuses data parts with ${errorLabel('ContentTypeNotSupportedError')}`,
          );
          return;
        } else if (sent.kind === 'error') {
          context.fail('DATA-003', {
            message: `a data part holding ${JSON.stringify(value)} was refused`,
            expected: 'accepted: Part.data is a google.protobuf.Value, any JSON value',
            observed: observedOf(sent.exchange),
            exchange: sent.exchange,
          });
        }
      }
    },
  },
  {
    id: 'send-return-immediately',
    title: 'returnImmediately returns the task while it still works',
    requirements: ['SEND-006'],
    needs: ['slow'],
    async run(context) {
      const sent = await send(context, {
        message: directiveMessage(context, 'slow work', SLOW_WORK),
        configuration: { returnImmediately: true },
      });
      if (sent.kind !== 'task') {
        context.skip('SEND-006', 'precondition-not-met', noTask(sent));
        return;
      }
      const work = SLOW_WORK.steps * SLOW_WORK.stepMs;
      const state = sent.task.status.state;
      if (isTerminalState(state) || isInterruptedState(state)) {
        context.fail('SEND-006', {
          message: 'returnImmediately returned a task that had already finished',
          expected: `a task still SUBMITTED or WORKING (the directive asks for ${work} ms of work)`,
          observed: `${state} after ${sent.exchange.durationMs} ms`,
          exchange: sent.exchange,
        });
      } else if (sent.exchange.durationMs > work / 2) {
        context.fail('SEND-006', {
          message: 'returnImmediately did not return promptly',
          expected: `an answer well before the ${work} ms of work end`,
          observed: `answered after ${sent.exchange.durationMs} ms`,
          exchange: sent.exchange,
        });
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
      const interrupted = canAsk(context, { outcome: 'input-required' });
      const message = (): Message => directiveMessage(context, 'hello', { outcome: 'input-required' });
      const one = await send(context, { message: message(), configuration: { historyLength: 1 } });
      if (one.kind !== 'task') {
        context.skip('SEND-007', 'precondition-not-met', noTask(one));
        return;
      }
      const history = historyOf(one.task);
      if (history === undefined || history.length <= 1)
        context.pass(
          'SEND-007',
          `historyLength 1 gave ${history?.length ?? 0} messages${interrupted ? ' (of an INPUT_REQUIRED task)' : ''}`,
        );
      else
        context.fail('SEND-007', {
          message: 'historyLength 1 returned more history',
          expected: 'at most 1 history message',
          observed: `${history.length} messages`,
          path: 'result.task.history',
          exchange: one.exchange,
        });
      const none = await send(context, { message: message(), configuration: { historyLength: 0 } });
      if (none.kind !== 'task') {
        context.skip('SEND-007', 'precondition-not-met', noTask(none));
        return;
      }
      // Leave no interrupted task behind.
      if (interrupted) for (const sent of [one, none]) await context.transport.call('CancelTask', { id: sent.task.id });
      const empty = none.task.history;
      if (empty === undefined) context.pass('SEND-007', 'historyLength 0 left history out');
      else if (Array.isArray(empty) && empty.length === 0)
        context.warn('SEND-007', {
          message: 'historyLength 0 returned an empty history member',
          expected: 'no history member',
          observed: 'history: []',
          path: 'result.task.history',
          exchange: none.exchange,
        });
      else
        context.fail('SEND-007', {
          message: 'historyLength 0 returned history messages',
          expected: 'no history member',
          observed: `${Array.isArray(empty) ? empty.length : short(empty)} messages`,
          path: 'result.task.history',
          exchange: none.exchange,
        });
    },
  },
  {
    id: 'send-unknown-task',
    title: 'A message naming a task that does not exist is TaskNotFound and creates nothing',
    requirements: ['SEND-008', 'JSONRPC-ENV-009'],
    async run(context) {
      const contextId = randomUUID();
      const sent = await send(context, { message: context.message('hello', { taskId: randomUUID(), contextId }) });
      expectA2AError(context, 'SEND-008', sent.exchange, 'TaskNotFoundError');
      const listed = await context.transport.call('ListTasks', { contextId });
      const tasks = isRecord(listed.result) && Array.isArray(listed.result['tasks']) ? listed.result['tasks'] : undefined;
      if (tasks !== undefined && tasks.length > 0) {
        context.fail('SEND-008', {
          message: 'a task was created for a message naming an unknown task',
          expected: `no task in context ${contextId}`,
          observed: `ListTasks finds ${tasks.length}: ${short(tasks, 200)}`,
          exchange: listed,
        });
      }
    },
  },
  {
    id: 'send-to-terminal-task',
    title: 'A message to a completed task is UnsupportedOperation and leaves it unchanged',
    requirements: ['SEND-009', 'JSONRPC-ENV-009'],
    async run(context) {
      const done = await finishedTask(context, 'finish');
      if (!done.ok) {
        context.skip('SEND-009', 'precondition-not-met', `no finished task to write to: ${done.reason}`);
        return;
      }
      const { task } = done.value;
      const message = context.message('one more thing', { taskId: task.id, ...(task.contextId ? { contextId: task.contextId } : {}) });
      const again = await send(context, { message });
      expectA2AError(context, 'SEND-009', again.exchange, 'UnsupportedOperationError');
      const after = await getTask(context, { id: task.id });
      if (after.task === undefined) return;
      const changed =
        after.task.status.state !== task.status.state || (after.task.history ?? []).some((entry) => entry.messageId === message.messageId);
      if (changed) {
        context.fail('SEND-009', {
          message: 'the terminal task changed after the refused message',
          expected: `still ${task.status.state}, without the new message in its history`,
          observed: `${after.task.status.state}, history ${short(after.task.history, 200)}`,
          exchange: again.exchange,
        });
      }
    },
  },
  {
    id: 'send-interrupted-follow-up',
    title: 'Follow-ups to an INPUT_REQUIRED task: a mismatched contextId is refused, taskId alone continues it',
    requirements: ['SEND-010', 'SEND-011', 'SEND-012'],
    needs: ['input-required'],
    async run(context) {
      const asked = await send(context, { message: directiveMessage(context, 'ask me for more', { outcome: 'input-required' }) });
      if (asked.kind !== 'task' || asked.task.status.state !== 'TASK_STATE_INPUT_REQUIRED') {
        skipAll(
          context,
          ['SEND-010', 'SEND-011', 'SEND-012'],
          'precondition-not-met',
          asked.kind === 'task' ? `the input-required directive left the task in ${asked.task.status.state}` : noTask(asked),
        );
        return;
      }
      const task = asked.task;
      if (!task.contextId) context.skip('SEND-010', 'precondition-not-met', 'the interrupted task has no contextId to mismatch');
      else {
        const stray = context.message('wrong context', { taskId: task.id, contextId: randomUUID() });
        const refused = await send(context, { message: stray });
        if (isError(refused.exchange, 'InvalidParamsError')) context.pass('SEND-010', `refused with ${errorLabel('InvalidParamsError')}`);
        else if (refused.exchange.error)
          context.warn('SEND-010', {
            message: `refused, but not with ${errorLabel('InvalidParamsError')}`,
            expected: `error ${errorLabel('InvalidParamsError')}`,
            observed: observedOf(refused.exchange),
            exchange: refused.exchange,
          });
        else
          context.fail('SEND-010', {
            message: 'a message whose contextId differs from its task was accepted',
            expected: `an error (${errorLabel('InvalidParamsError')})`,
            observed: observedOf(refused.exchange),
            exchange: refused.exchange,
          });
        const after = await getTask(context, { id: task.id });
        if (
          after.task !== undefined &&
          (after.task.status.state !== 'TASK_STATE_INPUT_REQUIRED' ||
            (after.task.history ?? []).some((entry) => entry.messageId === stray.messageId))
        ) {
          context.fail('SEND-010', {
            message: 'the task changed after the mismatched message',
            expected: 'still INPUT_REQUIRED, without the stray message in its history',
            observed: `${after.task.status.state}, history ${short(after.task.history, 200)}`,
            exchange: refused.exchange,
          });
        }
      }

      const follow = await send(context, { message: context.message('here is more input', { taskId: task.id }) });
      if (follow.kind === 'error' || follow.kind === 'invalid') {
        const observed = observedOf(follow.exchange);
        context.fail('SEND-011', {
          message: 'a follow-up giving only the taskId of an interrupted task was not accepted',
          expected: 'a Task or Message continuing the task',
          observed,
          exchange: follow.exchange,
        });
        context.fail('SEND-012', {
          message: 'the INPUT_REQUIRED task could not be continued',
          expected: 'the same task, moved on from INPUT_REQUIRED',
          observed,
          exchange: follow.exchange,
        });
        return;
      }
      const answer = follow.kind === 'task' ? follow.task : follow.message;
      if (answer.contextId === task.contextId) context.pass('SEND-011', "the follow-up kept the task's contextId");
      else
        context.fail('SEND-011', {
          message: 'the follow-up answer has another contextId than the task',
          expected: `contextId ${JSON.stringify(task.contextId)}`,
          observed: `contextId ${JSON.stringify(answer.contextId)}`,
          path: `result.${follow.kind}.contextId`,
          exchange: follow.exchange,
        });
      const id = follow.kind === 'task' ? follow.task.id : follow.message.taskId;
      const now = follow.kind === 'task' ? follow.task : (await getTask(context, { id: task.id })).task;
      const movedOn =
        now !== undefined && (now.status.state !== 'TASK_STATE_INPUT_REQUIRED' || now.status.timestamp !== task.status.timestamp);
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
      if (modes.length === 0 || modes.some((mode) => mediaRangeCovers(mode, 'x/y'))) {
        context.skip(
          'SEND-013',
          'not-applicable',
          modes.length === 0 ? 'the card declares no input modes' : 'the card accepts every media type (*/*)',
        );
        return;
      }
      const candidate = UNSUPPORTED_CANDIDATES.find((entry) => !modes.some((mode) => mediaRangeCovers(mode, entry.mediaType)));
      if (candidate === undefined) {
        context.skip(
          'SEND-013',
          'not-applicable',
          `the card's input modes (${modes.join(', ')}) leave out none of the media types the suite tries`,
        );
        return;
      }
      const part: Part = { raw: candidate.raw, mediaType: candidate.mediaType, filename: candidate.filename };
      const sent = await send(context, { message: { ...context.message(''), parts: [part] } });
      if (sent.exchange.error === undefined && sent.exchange.status !== 0) {
        context.fail('SEND-013', {
          message: `a ${candidate.mediaType} part was accepted though the card's input modes leave it out`,
          expected: `error ${errorLabel('ContentTypeNotSupportedError')}: the card declares only ${modes.join(', ')}`,
          observed: observedOf(sent.exchange),
          exchange: sent.exchange,
        });
        return;
      }
      expectA2AError(context, 'SEND-013', sent.exchange, 'ContentTypeNotSupportedError', false);
    },
  },
  {
    id: 'send-invalid-message',
    title: `A missing or malformed message is a validation error (${errorLabel('InvalidParamsError')})`,
    requirements: ['SEND-014'],
    async run(context) {
      const valid = (): Record<string, unknown> => ({ ...context.message('hello') });
      const without = (member: string): Record<string, unknown> =>
        Object.fromEntries(Object.entries(valid()).filter(([key]) => key !== member));
      const cases: Record<string, unknown>[] = [
        {},
        { message: without('messageId') },
        { message: without('role') },
        { message: without('parts') },
        { message: { ...valid(), parts: [] } },
        { message: { ...valid(), role: 'user' } },
        { message: { ...valid(), role: 'ROLE_UNSPECIFIED' } },
      ];
      for (const params of cases)
        context.expectError('SEND-014', await context.transport.callRaw('SendMessage', params), 'InvalidParamsError');
    },
  },
  {
    id: 'send-invalid-part',
    title: `A part with no content member, or two, is a validation error (${errorLabel('InvalidParamsError')})`,
    requirements: ['SEND-015'],
    async run(context) {
      const parts: unknown[] = [
        {},
        { mediaType: 'text/plain' },
        { text: 'a', data: { b: 1 } },
        { text: 'a', url: 'https://example.com/a.txt' },
        { raw: 'AAEC', url: 'https://example.com/a.bin' },
      ];
      for (const part of parts) {
        const exchange = await context.transport.callRaw('SendMessage', { message: { ...context.message('x'), parts: [part] } });
        context.expectError('SEND-015', exchange, 'InvalidParamsError');
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
        if (sent.exchange.status === 0) context.skip('SEND-016', 'inconclusive', `no answer: ${observedOf(sent.exchange)}`);
        else context.pass('SEND-016', `refused the client-chosen contextId (${observedOf(sent.exchange)}), which is allowed`);
        return;
      }
      if (sent.kind === 'invalid') {
        context.skip('SEND-016', 'precondition-not-met', noTask(sent));
        return;
      }
      const answer = sent.kind === 'task' ? sent.task : sent.message;
      if (answer.contextId === contextId) context.pass('SEND-016', 'kept the client-chosen contextId');
      else
        context.fail('SEND-016', {
          message: 'the server replaced the client-chosen contextId',
          expected: `contextId ${contextId}, or an error`,
          observed: `contextId ${JSON.stringify(answer.contextId)}`,
          path: `result.${sent.kind}.contextId`,
          exchange: sent.exchange,
        });
    },
  },
  {
    id: 'send-unknown-members',
    title: 'Members the proto does not define are ignored',
    requirements: ['SEND-017'],
    async run(context) {
      const message = context.message('hello');
      const variants: [string, Record<string, unknown>][] = [
        [
          'kind on the message and its part (A2A 0.3 style)',
          { message: { ...message, kind: 'message', parts: [{ kind: 'text', text: 'hello' }] } },
        ],
        ['an unknown member in params', { message: context.message('hello'), conformanceUnknownMember: { nested: true } }],
      ];
      for (const [what, params] of variants) {
        const sent = await sendRaw(context, params);
        if (sent.kind === 'task' || sent.kind === 'message') context.pass('SEND-017', `${what} was ignored`);
        else if (sent.kind === 'error')
          context.fail('SEND-017', {
            message: `${what} was not ignored`,
            expected: 'processed as if the unknown members were absent',
            observed: observedOf(sent.exchange),
            exchange: sent.exchange,
          });
      }
    },
  },
  {
    id: 'send-push-config-unsupported',
    title: `Inline push config without the push capability is refused with ${errorLabel('PushNotificationNotSupportedError')}`,
    requirements: ['SEND-018', 'JSONRPC-ENV-009'],
    async run(context) {
      if (capabilityDeclared(context, 'pushNotifications')) {
        context.skip('SEND-018', 'capability-declared', 'the card declares capabilities.pushNotifications');
        return;
      }
      const sent = await send(context, {
        message: context.message('hello'),
        configuration: { taskPushNotificationConfig: { url: 'https://example.invalid/a2a-conformance-webhook' } },
      });
      recordErrorCode(context, sent.exchange, 'PushNotificationNotSupportedError', false);
      if (isError(sent.exchange, 'PushNotificationNotSupportedError'))
        context.pass('SEND-018', `refused with ${errorLabel('PushNotificationNotSupportedError')}`);
      else {
        context.warn('SEND-018', {
          message: sent.exchange.error ? 'refused, but not with PushNotificationNotSupportedError' : 'the push config was silently ignored',
          expected: `error ${errorLabel('PushNotificationNotSupportedError')}: the card does not declare capabilities.pushNotifications`,
          observed: observedOf(sent.exchange),
          exchange: sent.exchange,
        });
      }
    },
  },
];
