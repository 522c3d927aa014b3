import { randomUUID } from 'node:crypto';
import { isInterruptedState, isTerminalState } from '../../generated/a2a/1.0/task-states.js';
import { mediaRangeCovers } from '../../src/protocol/media-types.js';
import { errorLabel, isError, observedOf, short } from '../core/answers.js';
import type { Check } from '../core/check.js';
import { cardModes } from './support/card.js';
import { directiveMessage, SLOW_WORK } from './support/directives.js';
import { getTask, noTask, send } from './support/tasks.js';
import { concatenatedText } from './support/text.js';
import { recordErrorCode } from './support/verdicts.js';

/**
 * a2a-hub's own behaviour beyond the spec (HUB-*): all MAY, so another agent that does
 * something else valid gets a WARN, never a FAIL.
 */
export const hubBehaviourChecks: readonly Check[] = [
  {
    id: 'hub-idempotent-resend',
    title: 'Resending a messageId gives back the original task without a second turn',
    requirements: ['HUB-001'],
    async run(context) {
      const message = context.message('hello, once');
      const first = await send(context, { message });
      if (first.kind !== 'task') {
        context.skip('HUB-001', 'precondition-not-met', noTask(first));
        return;
      }
      const again = await send(context, { message });
      if (again.kind !== 'task' || again.task.id !== first.task.id) {
        context.warn('HUB-001', {
          message: 'resending the same messageId did not give back the original task',
          expected: `the Task ${first.task.id} again`,
          observed: again.kind === 'task' ? `a new task ${again.task.id}` : observedOf(again.exchange),
          exchange: again.exchange,
        });
        return;
      }
      const later = await getTask(context, { id: first.task.id });
      const copies = (later.task?.history ?? []).filter((entry) => entry.messageId === message.messageId).length;
      if (copies > 1)
        context.warn('HUB-001', {
          message: 'the resent message ran a second turn',
          expected: `message ${message.messageId} once in the history`,
          observed: `${copies} times`,
          exchange: again.exchange,
        });
      else context.pass('HUB-001', 'the resend returned the original task');
    },
  },
  {
    id: 'hub-unknown-skill',
    title: 'metadata.skill naming no advertised skill yields a REJECTED task listing the skills',
    requirements: ['HUB-002'],
    async run(context) {
      const skill = `conform-no-such-skill-${randomUUID().slice(0, 8)}`;
      const sent = await send(context, { message: context.message('hello', { metadata: { skill } }) });
      const advertised = (Array.isArray(context.target.card.skills) ? context.target.card.skills : []).map((entry) => entry.id);
      if (sent.kind !== 'task') {
        context.warn('HUB-002', {
          message: `metadata.skill "${skill}" did not yield a task`,
          expected: 'a Task in TASK_STATE_REJECTED',
          observed: observedOf(sent.exchange),
          exchange: sent.exchange,
        });
        return;
      }
      const text = concatenatedText(sent.task.status.message);
      const unnamed = advertised.filter((id) => !text.includes(id));
      if (sent.task.status.state === 'TASK_STATE_REJECTED' && unnamed.length === 0)
        context.pass('HUB-002', 'rejected, naming the advertised skills');
      else {
        context.warn('HUB-002', {
          message:
            sent.task.status.state === 'TASK_STATE_REJECTED'
              ? 'the rejection does not name every advertised skill'
              : 'an unknown metadata.skill did not reject the task',
          expected: `TASK_STATE_REJECTED with a status message naming ${advertised.join(', ') || '(no skills)'}`,
          observed: `${sent.task.status.state}, status message ${short(text, 200) || '(none)'}`,
          exchange: sent.exchange,
        });
      }
    },
  },
  {
    id: 'hub-output-modes',
    title: 'acceptedOutputModes without any text type is ContentTypeNotSupported',
    requirements: ['HUB-004', 'JSONRPC-ENV-009'],
    async run(context) {
      const outputs = cardModes(context.target.card, 'output');
      if (outputs.some((mode) => mediaRangeCovers(mode, 'image/png'))) {
        context.skip('HUB-004', 'not-applicable', 'the card can answer in image/png');
        return;
      }
      const sent = await send(context, { message: context.message('hello'), configuration: { acceptedOutputModes: ['image/png'] } });
      recordErrorCode(context, sent.exchange, 'ContentTypeNotSupportedError', false);
      if (isError(sent.exchange, 'ContentTypeNotSupportedError'))
        context.pass('HUB-004', `refused with ${errorLabel('ContentTypeNotSupportedError')}`);
      else {
        context.warn('HUB-004', {
          message: sent.exchange.error
            ? 'refused, but not with ContentTypeNotSupportedError'
            : 'a request accepting only image/png was served anyway',
          expected: `error ${errorLabel('ContentTypeNotSupportedError')}`,
          observed: observedOf(sent.exchange),
          exchange: sent.exchange,
        });
      }
    },
  },
  {
    id: 'hub-message-to-running-task',
    title: 'A message to a task that is still working is UnsupportedOperation',
    requirements: ['HUB-005', 'JSONRPC-ENV-009'],
    needs: ['slow'],
    async run(context) {
      const sent = await send(context, {
        message: directiveMessage(context, 'slow work', SLOW_WORK),
        configuration: { returnImmediately: true },
      });
      if (sent.kind !== 'task' || isTerminalState(sent.task.status.state) || isInterruptedState(sent.task.status.state)) {
        context.skip(
          'HUB-005',
          'precondition-not-met',
          sent.kind === 'task' ? `the slow task was already ${sent.task.status.state} when returned` : noTask(sent),
        );
        return;
      }
      const task = sent.task;
      try {
        const interrupting = await send(context, {
          message: context.message('are you done yet?', { taskId: task.id, ...(task.contextId ? { contextId: task.contextId } : {}) }),
          configuration: { returnImmediately: true },
        });
        recordErrorCode(context, interrupting.exchange, 'UnsupportedOperationError', false);
        if (isError(interrupting.exchange, 'UnsupportedOperationError'))
          context.pass('HUB-005', `refused with ${errorLabel('UnsupportedOperationError')}`);
        else {
          context.warn('HUB-005', {
            message: interrupting.exchange.error
              ? 'refused, but not with UnsupportedOperationError'
              : 'a message to a working task was accepted',
            expected: `error ${errorLabel('UnsupportedOperationError')}`,
            observed: observedOf(interrupting.exchange),
            exchange: interrupting.exchange,
          });
        }
      } finally {
        await context.transport.call('CancelTask', { id: task.id });
      }
    },
  },
];
