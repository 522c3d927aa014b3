import { isTerminalState as isTerminal03 } from '../../../generated/a2a/0.3/task-states.js';
import type * as V03 from '../../../generated/a2a/0.3/types.js';
import { isRecord } from '../../../src/support/records.js';
import { observedOf } from '../../core/answers.js';
import type { Check } from '../../core/check.js';
import {
  call03,
  expectError03,
  isError03,
  label03,
  message03,
  sentTask03,
  shape03,
  stream03,
  streamRefusal03,
  taskOf,
  terminal03,
  unknownTaskId03,
} from './support.js';

/*
 * message/send, tasks/get, tasks/cancel and tasks/resubscribe in 0.3: results held to the 0.3
 * defs of their kind, ids and contexts kept, terminal tasks kept terminal, and the 0.3 codes for
 * what cannot be done.
 */

export const tasks03Checks: readonly Check[] = [
  {
    id: 'v03-send',
    title: 'message/send answers a valid 0.3 Task or Message, in the context asked for',
    protocol: '0.3',
    requirements: ['V03-SEND-001', 'V03-SEND-002', 'V03-SEND-003', 'V03-SEND-005'],
    async run(context) {
      const exchange = await call03(context, 'message/send', { message: message03(context, 'conformance: hello in 0.3') });
      const result = exchange.result;
      const kind = isRecord(result) ? result['kind'] : undefined;
      if (exchange.error !== undefined || (kind !== 'task' && kind !== 'message')) {
        context.fail('V03-SEND-001', {
          message: 'message/send answered neither a Task nor a Message',
          expected: 'a result with kind "task" or "message"',
          observed: observedOf(exchange),
          exchange,
        });
      } else if (
        shape03(context, 'V03-SEND-001', kind === 'task' ? 'Task' : 'Message', result, { exchange, what: `the ${String(kind)}` })
      ) {
        context.pass('V03-SEND-001', `a valid 0.3 ${kind === 'task' ? 'Task' : 'Message'}`);
      }
      const task = taskOf(exchange);
      if (task === undefined) {
        for (const id of ['V03-SEND-002', 'V03-SEND-003', 'V03-SEND-005'] as const)
          context.skip(id, 'not-observable', 'the agent answered with a Message, not a Task');
        return;
      }
      if (task.id !== '' && task.contextId !== '') context.pass('V03-SEND-002', 'the task has an id and a context the server made');
      else context.fail('V03-SEND-002', { message: 'the task has an empty id or contextId', observed: observedOf(exchange), exchange });

      const again = await call03(context, 'message/send', {
        message: message03(context, 'conformance: same context', {}, { contextId: task.contextId }),
      });
      const inContext = taskOf(again);
      if (inContext === undefined) context.skip('V03-SEND-003', 'not-observable', 'the second message got no Task');
      else if (inContext.contextId === task.contextId) context.pass('V03-SEND-003', 'the task is in the context the message named');
      else
        context.fail('V03-SEND-003', {
          message: 'a message naming a contextId got a task in another context',
          expected: `contextId ${task.contextId}`,
          observed: `contextId ${inContext.contextId}`,
          exchange: again,
        });

      const trimmed = await call03(context, 'message/send', {
        message: message03(context, 'conformance: history 1'),
        configuration: { historyLength: 1, blocking: true },
      });
      const short = taskOf(trimmed);
      if (short === undefined) context.skip('V03-SEND-005', 'not-observable', 'the message got no Task');
      else if ((short.history ?? []).length <= 1) context.pass('V03-SEND-005', `history of ${(short.history ?? []).length} message(s)`);
      else
        context.fail('V03-SEND-005', {
          message: 'configuration.historyLength 1 answered a longer history',
          expected: 'at most one history message',
          observed: `${(short.history ?? []).length} messages`,
          exchange: trimmed,
        });
    },
  },
  {
    id: 'v03-tasks',
    title: 'tasks/get, tasks/cancel and tasks/resubscribe on finished and unknown tasks; a finished task stays finished',
    protocol: '0.3',
    requirements: ['V03-TASK-001', 'V03-TASK-002', 'V03-TASK-003', 'V03-TASK-004', 'V03-SEND-004', 'V03-STATE-001'],
    async run(context) {
      const missing = unknownTaskId03();
      expectError03(
        context,
        'V03-TASK-002',
        await call03(context, 'tasks/get', { id: missing }),
        'TaskNotFoundError',
        'tasks/get of an unknown task',
      );
      expectError03(
        context,
        'V03-TASK-002',
        await call03(context, 'tasks/cancel', { id: missing }),
        'TaskNotFoundError',
        'tasks/cancel of an unknown task',
      );
      if (context.target.card.capabilities?.streaming === true) {
        const resubscribed = await stream03(context, 'tasks/resubscribe', { id: missing });
        const error = streamRefusal03(resubscribed);
        const notFound = label03('TaskNotFoundError');
        if (isError03(error, 'TaskNotFoundError')) context.pass('V03-TASK-002', `tasks/resubscribe of an unknown task: ${notFound}`);
        else
          context.fail('V03-TASK-002', {
            message: `tasks/resubscribe of an unknown task did not answer ${notFound}`,
            expected: `error ${notFound}`,
            observed: observedOf(resubscribed),
            exchange: resubscribed,
          });
      }

      const sent = await sentTask03(context, 'conformance: a task to read in 0.3');
      if (!sent.ok) {
        for (const id of ['V03-TASK-001', 'V03-TASK-003', 'V03-TASK-004', 'V03-SEND-004', 'V03-STATE-001'] as const)
          context.skip(id, 'precondition-not-met', `no task: ${sent.reason}`);
        return;
      }
      // Reading a task needs any task; what a terminal one does needs it finished.
      const made = sent.value.task;
      const got = await call03(context, 'tasks/get', { id: made.id });
      if (taskOf(got)?.id === made.id && shape03(context, 'V03-TASK-001', 'Task', got.result, { exchange: got, what: 'the task' }))
        context.pass('V03-TASK-001', 'tasks/get answered the task, valid 0.3');
      else if (taskOf(got)?.id !== made.id)
        context.fail('V03-TASK-001', {
          message: `tasks/get of ${made.id} did not answer that task`,
          observed: observedOf(got),
          exchange: got,
        });
      const history = await call03(context, 'tasks/get', { id: made.id, historyLength: 1 });
      const trimmed = taskOf(history);
      if (trimmed !== undefined && (trimmed.history ?? []).length <= 1) context.pass('V03-TASK-003', 'at most one history message');
      else
        context.fail('V03-TASK-003', {
          message: 'tasks/get with historyLength 1 answered more history, or no task',
          observed: observedOf(history),
          exchange: history,
        });

      const finished = await terminal03(context, made);
      if (!finished.ok) {
        for (const id of ['V03-TASK-004', 'V03-SEND-004', 'V03-STATE-001'] as const)
          context.skip(id, 'precondition-not-met', `no finished task: ${finished.reason}`);
        return;
      }
      const task = finished.value;
      const again = await call03(context, 'tasks/get', { id: task.id });
      if (taskOf(again)?.status.state === task.status.state) context.pass('V03-STATE-001', `still ${task.status.state}`);
      else
        context.fail('V03-STATE-001', {
          message: `task ${task.id} left its terminal state ${task.status.state}`,
          observed: observedOf(again),
          exchange: again,
        });

      expectError03(
        context,
        'V03-TASK-004',
        await call03(context, 'tasks/cancel', { id: task.id }),
        'TaskNotCancelableError',
        `tasks/cancel of the ${task.status.state} task`,
      );

      const restart = await call03(context, 'message/send', {
        message: message03(context, 'conformance: to a finished task', {}, { taskId: task.id, contextId: task.contextId }),
      });
      if (restart.error !== undefined)
        context.pass('V03-SEND-004', `a message to the ${task.status.state} task was refused (error ${restart.error.code})`);
      else
        context.fail('V03-SEND-004', {
          message: `a message naming the ${task.status.state} task ${task.id} was taken`,
          expected: 'an error: a terminal task cannot be restarted',
          observed: observedOf(restart),
          exchange: restart,
        });
    },
  },
  {
    id: 'v03-cancel',
    title: 'tasks/cancel of a working task cancels it',
    protocol: '0.3',
    needs: ['slow'],
    requirements: ['V03-TASK-005'],
    async run(context) {
      const sent = await call03(context, 'message/send', {
        message: message03(context, 'conformance: slow work to cancel', { outcome: 'completed', steps: 100, stepMs: 100 }),
        configuration: { blocking: false },
      });
      const task = taskOf(sent);
      if (task === undefined || isTerminal03(task.status.state)) {
        context.skip('V03-TASK-005', 'precondition-not-met', `no working task to cancel (${observedOf(sent)})`);
        return;
      }
      const canceled = await call03(context, 'tasks/cancel', { id: task.id });
      if (isError03(canceled.error, 'TaskNotCancelableError')) {
        context.pass('V03-TASK-005', `the agent could not cancel it and said so with ${label03('TaskNotCancelableError')}`);
        return;
      }
      const after = taskOf(await call03(context, 'tasks/get', { id: task.id }));
      const state: V03.TaskState | undefined = after?.status.state;
      if (taskOf(canceled)?.status.state === 'canceled' && state === 'canceled')
        context.pass('V03-TASK-005', 'canceled, and tasks/get shows it canceled');
      else
        context.fail('V03-TASK-005', {
          message: 'tasks/cancel of a working task did not leave it canceled',
          expected: 'the task in state canceled, then tasks/get canceled',
          observed: `${observedOf(canceled)}; tasks/get then: ${state ?? 'no task'}`,
          exchange: canceled,
        });
    },
  },
];
