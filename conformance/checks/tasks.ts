import { randomUUID } from 'node:crypto';
import { FAILURE_STATES, INTERRUPTED_STATES, isInterruptedState, isTerminalState } from '../../generated/a2a/1.0/task-states.js';
import type { Task } from '../../generated/a2a/1.0/types.js';
import type { RequirementId } from '../../generated/conformance/requirements.js';
import { isRecord } from '../../src/support/records.js';
import { errorLabel, isError, observedOf, short } from '../core/answers.js';
import type { Check, CheckContext } from '../core/check.js';
import type { RpcExchange } from '../core/transport.js';
import { canAsk, directiveMessage, SLOW_WORK } from './support/directives.js';
import { sameJson } from './support/json.js';
import { finishedTask, getTask, inspectTask, isTaskLike, listTasks, noTask, pollTask, send } from './support/tasks.js';
import { stateLabel } from './support/states.js';
import { expectA2AError, recordErrorCode, skipAll } from './support/verdicts.js';

/** -1, 0 or 1 as `a` is before, equal to or after `b`; undefined when either is unreadable. */
function compareTimestamps(a: string | undefined, b: string | undefined): number | undefined {
  if (a === undefined || b === undefined) return undefined;
  const shape = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/;
  const [ma, mb] = [shape.exec(a), shape.exec(b)];
  if (ma && mb && (ma[1] ?? '').length === (mb[1] ?? '').length) return a < b ? -1 : a > b ? 1 : 0;
  const [ta, tb] = [Date.parse(a), Date.parse(b)];
  if (Number.isNaN(ta) || Number.isNaN(tb)) return undefined;
  return Math.sign(ta - tb);
}

/** LIST-003 over a sequence of tasks (one page, or pages in order): newest status first. */
function checkOrder(context: CheckContext, tasks: readonly Task[], exchange: RpcExchange, what: string): void {
  for (let index = 1; index < tasks.length; index += 1) {
    const [before, after] = [tasks[index - 1], tasks[index]];
    if (before === undefined || after === undefined) continue;
    const order = compareTimestamps(before.status.timestamp, after.status.timestamp);
    if (order === undefined) {
      context.skip(
        'LIST-003',
        'inconclusive',
        `the order cannot be checked: a task has no readable status.timestamp (${JSON.stringify(before.status.timestamp)} then ${JSON.stringify(after.status.timestamp)})`,
      );
      return;
    }
    if (order < 0) {
      context.fail('LIST-003', {
        message: `tasks are not sorted newest first ${what}`,
        expected: 'status.timestamp descending',
        observed: `task ${before.id} (${before.status.timestamp}) comes before task ${after.id} (${after.status.timestamp})`,
        exchange,
      });
      return;
    }
  }
  if (tasks.length > 1) context.pass('LIST-003', `sorted newest first ${what}`);
}

interface Fixture {
  readonly contextId: string;
  /** In creation order, as the send returned them. */
  readonly tasks: readonly Task[];
}

const FIXTURE_SIZE = 5;

/**
 * Several tasks in one fresh context, so that listing is deterministic even on a shared agent.
 * The context is client-chosen; an agent that refuses that gets the server's context from the
 * first task instead. In cooperative mode the second task is made to fail, so the status filter
 * has two states to tell apart.
 */
async function seedContext(context: CheckContext): Promise<Fixture | string> {
  let contextId: string = randomUUID();
  const tasks: Task[] = [];
  for (let index = 0; index < FIXTURE_SIZE; index += 1) {
    // A profile that cannot ask for failure gets a plain message: the fixture then has one state.
    let sent = await send(context, {
      message:
        index === 1
          ? directiveMessage(context, `listing fixture ${index + 1}`, { outcome: 'failed' }, { contextId })
          : context.message(`listing fixture ${index + 1}`, { contextId }),
    });
    if (index === 0 && sent.kind === 'error') {
      sent = await send(context, { message: context.message('listing fixture 1') });
      if (sent.kind === 'task' && sent.task.contextId) contextId = sent.task.contextId;
    }
    if (sent.kind !== 'task') return noTask(sent);
    if (sent.task.contextId !== contextId)
      return `the agent put the task in context ${JSON.stringify(sent.task.contextId)} rather than ${contextId}`;
    tasks.push(sent.task);
  }
  return { contextId, tasks };
}

const LIST_REQUIREMENTS: readonly RequirementId[] = [
  'LIST-001',
  'LIST-002',
  'LIST-003',
  'LIST-004',
  'LIST-005',
  'LIST-006',
  'LIST-007',
  'LIST-008',
  'LIST-009',
  'LIST-011',
  'LIST-012',
];
/** What needs the tasks of the fixture context. */
const FIXTURE_REQUIREMENTS: readonly RequirementId[] = ['LIST-003', 'LIST-004', 'LIST-005', 'LIST-006', 'LIST-007', 'LIST-009', 'LIST-012'];

export const taskChecks: readonly Check[] = [
  {
    id: 'get-task',
    title: 'GetTask returns the bare Task, caps history, and the task is visible right after creation',
    requirements: ['GET-001', 'GET-003', 'GET-004', 'GET-005', 'STATE-001'],
    async run(context) {
      const sent = await send(context, { message: context.message('hello') });
      if (sent.kind !== 'task') {
        skipAll(context, ['GET-001', 'GET-003', 'GET-004', 'GET-005', 'STATE-001'], 'precondition-not-met', noTask(sent));
        return;
      }
      const created = sent.task;
      const got = await getTask(context, { id: created.id });
      const result = got.exchange.result;
      if (got.exchange.error || result === undefined) {
        for (const requirement of ['GET-001', 'STATE-001'] as const) {
          context.fail(requirement, {
            message: 'GetTask failed for a task just created',
            expected: `the Task ${created.id}`,
            observed: observedOf(got.exchange),
            exchange: got.exchange,
          });
        }
        return;
      }
      if (isRecord(result) && result['id'] === created.id) context.pass('GET-001', 'returned the bare Task');
      else
        context.fail('GET-001', {
          message: 'GetTask did not return the bare Task with the requested id',
          expected: `a Task (not wrapped) with id ${created.id}`,
          observed: isRecord(result) ? `members ${Object.keys(result).join(', ')}, id ${JSON.stringify(result['id'])}` : short(result),
          path: 'result',
          exchange: got.exchange,
        });

      if (got.task?.id === created.id && got.task.contextId === created.contextId)
        context.pass('STATE-001', 'GetTask returns the new task with its id and contextId');
      else
        context.fail('STATE-001', {
          message: 'GetTask right after SendMessage does not return the same task',
          expected: `id ${created.id}, contextId ${JSON.stringify(created.contextId)}`,
          observed: `id ${JSON.stringify(got.task?.id)}, contextId ${JSON.stringify(got.task?.contextId)}`,
          exchange: got.exchange,
        });
      if (created.contextId) {
        const listing = await listTasks(context, { contextId: created.contextId, pageSize: 100 });
        if (listing.page?.tasks.some((task) => task.id === created.id))
          context.pass('STATE-001', 'ListTasks by contextId includes the new task');
        else
          context.fail('STATE-001', {
            message: "ListTasks filtered by the task's contextId does not include it",
            expected: `task ${created.id} in the list`,
            observed: listing.page
              ? `ids ${listing.page.tasks.map((task) => task.id).join(', ') || '(none)'}`
              : observedOf(listing.exchange),
            exchange: listing.exchange,
          });
      }

      // GET-003: choose N below the full history when there is enough of it, so the cap bites. A
      // cooperative agent gives a longer history: the INPUT_REQUIRED status message joins the request.
      const asked = canAsk(context, { outcome: 'input-required' })
        ? await send(context, { message: directiveMessage(context, 'ask me for more', { outcome: 'input-required' }) })
        : undefined;
      const subject = asked?.kind === 'task' ? asked.task.id : created.id;
      const fullHistory = (subject === created.id ? got.task : (await getTask(context, { id: subject })).task)?.history ?? [];
      const full = fullHistory.length;
      const limit = full >= 2 ? full - 1 : 1;
      const capped = await getTask(context, { id: subject, historyLength: limit });
      if (subject !== created.id) await context.transport.call('CancelTask', { id: subject });
      if (capped.task === undefined)
        context.fail('GET-003', {
          message: `GetTask with historyLength ${limit} failed`,
          expected: 'the Task',
          observed: observedOf(capped.exchange),
          exchange: capped.exchange,
        });
      else if (full < 2)
        context.skip(
          'GET-003',
          'precondition-not-met',
          `the task's history holds ${full} message${full === 1 ? '' : 's'}, so a historyLength below it cannot be seen${canAsk(context, { outcome: 'input-required' }) ? '' : ' (a profile that can ask for input-required gives a longer one)'}`,
        );
      else if ((capped.task.history?.length ?? 0) > limit)
        context.fail('GET-003', {
          message: `historyLength ${limit} returned more history`,
          expected: `at most ${limit} messages`,
          observed: `${capped.task.history?.length ?? 0} messages`,
          path: 'result.history',
          exchange: capped.exchange,
        });
      else if (!isTail(capped.task.history ?? [], fullHistory)) {
        context.fail('GET-003', {
          message: `historyLength ${limit} did not return the most recent messages`,
          expected: `the last messages of the history: ${fullHistory
            .slice(-(capped.task.history?.length ?? 0))
            .map((m) => m.messageId)
            .join(', ')}`,
          observed: (capped.task.history ?? []).map((m) => m.messageId).join(', '),
          path: 'result.history',
          exchange: capped.exchange,
        });
      } else context.pass('GET-003', `historyLength ${limit} gave the ${capped.task.history?.length ?? 0} most recent of ${full} messages`);

      const none = await getTask(context, { id: created.id, historyLength: 0 });
      if (none.task === undefined)
        context.fail('GET-004', {
          message: 'GetTask with historyLength 0 failed',
          expected: 'the Task without history',
          observed: observedOf(none.exchange),
          exchange: none.exchange,
        });
      else if (none.task.history === undefined) context.pass('GET-004', 'historyLength 0 left history out');
      else
        context.fail('GET-004', {
          message: 'historyLength 0 returned a history member',
          expected: 'no history member',
          observed: `history: ${short(none.task.history, 200)}`,
          path: 'result.history',
          exchange: none.exchange,
        });

      const negative = await context.transport.call('GetTask', { id: created.id, historyLength: -1 });
      if (isError(negative, 'InvalidParamsError'))
        context.pass('GET-005', `refused historyLength -1 with ${errorLabel('InvalidParamsError')}`);
      else
        context.warn('GET-005', {
          message: `a negative historyLength was not refused with ${errorLabel('InvalidParamsError')}`,
          expected: `error ${errorLabel('InvalidParamsError')}`,
          observed: observedOf(negative),
          exchange: negative,
        });
    },
  },
  {
    id: 'get-unknown-task',
    title: 'GetTask for an id that does not exist is TaskNotFound',
    requirements: ['GET-002', 'JSONRPC-ENV-009'],
    async run(context) {
      for (const id of [randomUUID(), 'conform-no-such-task'])
        expectA2AError(context, 'GET-002', await context.transport.call('GetTask', { id }), 'TaskNotFoundError');
    },
  },
  {
    id: 'list-tasks',
    title: 'ListTasks: members, filters, order, artifacts, history, page sizes and cursor paging over a fresh context',
    requirements: LIST_REQUIREMENTS,
    async run(context) {
      // Probes that need no task of ours come first, so they run even on an agent that makes no tasks.
      // LIST-001 / LIST-002 on a context with no task: zeros are present, the token is "".
      const empty = await listTasks(context, { contextId: randomUUID() });
      if (empty.page) {
        const body = empty.exchange.result as Record<string, unknown>;
        if (empty.page.tasks.length === 0 && 'pageSize' in body && body['totalSize'] === 0)
          context.pass('LIST-001', 'an empty result still has pageSize and totalSize 0');
        else
          context.fail('LIST-001', {
            message: 'ListTasks of an unused context is not an empty result with totalSize 0',
            expected: 'tasks: [], pageSize, totalSize: 0',
            observed: short(body),
            exchange: empty.exchange,
          });
        if (empty.page.nextPageToken === '') context.pass('LIST-002', 'an empty result has nextPageToken ""');
        else
          context.fail('LIST-002', {
            message: 'an empty result is the last page but has a nextPageToken',
            expected: 'nextPageToken ""',
            observed: JSON.stringify(empty.page.nextPageToken),
            exchange: empty.exchange,
          });
      } else if (empty.exchange.error || empty.exchange.result === undefined) {
        context.fail('LIST-001', {
          message: 'ListTasks of an unused context failed',
          expected: 'an empty ListTasksResponse',
          observed: observedOf(empty.exchange),
          exchange: empty.exchange,
        });
      }

      // LIST-008: page size limits.
      const unbounded = await listTasks(context, {});
      if (unbounded.page && unbounded.page.tasks.length > 50)
        context.fail('LIST-008', {
          message: 'ListTasks without pageSize returned more than 50 tasks',
          expected: 'at most 50',
          observed: `${unbounded.page.tasks.length}`,
          exchange: unbounded.exchange,
        });
      else if (unbounded.page) context.pass('LIST-008', `no pageSize: ${unbounded.page.tasks.length} tasks`);
      for (const size of [150, 0]) {
        const exchange = await context.transport.call('ListTasks', { pageSize: size });
        const returned = isRecord(exchange.result) && Array.isArray(exchange.result['tasks']) ? exchange.result['tasks'].length : undefined;
        if (isError(exchange, 'InvalidParamsError'))
          context.pass('LIST-008', `pageSize ${size} refused with ${errorLabel('InvalidParamsError')}`);
        else if (returned !== undefined && returned > 100)
          context.fail('LIST-008', {
            message: `pageSize ${size} returned more than 100 tasks`,
            expected: `error ${errorLabel('InvalidParamsError')}, or at most 100 tasks`,
            observed: `${returned} tasks`,
            exchange,
          });
        else
          context.warn('LIST-008', {
            message: `pageSize ${size} was not refused with ${errorLabel('InvalidParamsError')}`,
            expected: `error ${errorLabel('InvalidParamsError')} (pageSize must be 1–100)`,
            observed: observedOf(exchange),
            exchange,
          });
      }

      // LIST-011: a status that is not a TaskState name.
      for (const status of ['finished', 'working'])
        context.expectError('LIST-011', await context.transport.callRaw('ListTasks', { status }), 'InvalidParamsError');

      const fixture = await seedContext(context);
      if (typeof fixture === 'string') {
        skipAll(context, FIXTURE_REQUIREMENTS, 'precondition-not-met', fixture);
        return;
      }
      const { contextId, tasks: ours } = fixture;
      const ids = new Set(ours.map((task) => task.id));

      // The whole context in one page.
      const all = await listTasks(context, { contextId, pageSize: 100 });
      if (all.page === undefined) {
        const observed = observedOf(all.exchange);
        for (const requirement of FIXTURE_REQUIREMENTS)
          context.fail(requirement, {
            message: 'ListTasks by contextId failed',
            expected: 'a ListTasksResponse',
            observed,
            exchange: all.exchange,
          });
        return;
      }
      const page = all.page;
      const strangers = page.tasks.filter((task) => task.contextId !== contextId);
      if (strangers.length === 0) context.pass('LIST-006', 'the contextId filter returns only that context');
      else
        context.fail('LIST-006', {
          message: 'the contextId filter returned tasks of another context',
          expected: `only tasks with contextId ${contextId}`,
          observed: strangers.map((task) => `${task.id} in ${JSON.stringify(task.contextId)}`).join(', '),
          exchange: all.exchange,
        });
      if (page.tasks.length >= ids.size && page.totalSize <= page.tasks.length && page.nextPageToken !== '') {
        context.warn('LIST-002', {
          message: 'a page holding every matching task has a nextPageToken (leading to an empty page)',
          expected: 'nextPageToken "" on the last page',
          observed: `${page.tasks.length} tasks of ${page.totalSize}, nextPageToken ${JSON.stringify(page.nextPageToken)}`,
          exchange: all.exchange,
        });
      }
      checkOrder(context, page.tasks, all.exchange, 'within a page');
      const withArtifacts = page.tasks.filter((task) => 'artifacts' in task);
      if (withArtifacts.length === 0) context.pass('LIST-004', 'no task carries artifacts without includeArtifacts');
      else
        context.fail('LIST-004', {
          message: 'ListTasks without includeArtifacts returned artifacts',
          expected: 'no artifacts member on any task',
          observed: `tasks ${withArtifacts.map((task) => task.id).join(', ')} have one`,
          exchange: all.exchange,
        });
      const explicitFalse = await listTasks(context, { contextId, includeArtifacts: false });
      const leaking = explicitFalse.page?.tasks.filter((task) => 'artifacts' in task) ?? [];
      if (leaking.length > 0)
        context.fail('LIST-004', {
          message: 'ListTasks with includeArtifacts false returned artifacts',
          expected: 'no artifacts member on any task',
          observed: `tasks ${leaking.map((task) => task.id).join(', ')} have one`,
          exchange: explicitFalse.exchange,
        });

      // LIST-005: artifacts come back on request for the tasks that have some.
      const producing = ours.filter((task) => (task.artifacts?.length ?? 0) > 0);
      if (producing.length === 0) context.skip('LIST-005', 'inconclusive', 'none of the tasks the suite created has artifacts');
      else {
        const full = await listTasks(context, { contextId, includeArtifacts: true });
        const lacking = producing.filter((task) => (full.page?.tasks.find((entry) => entry.id === task.id)?.artifacts?.length ?? 0) === 0);
        if (full.page && lacking.length === 0) context.pass('LIST-005', 'includeArtifacts returns the artifacts');
        else
          context.fail('LIST-005', {
            message: 'includeArtifacts true left out artifacts',
            expected: `artifacts on tasks ${producing.map((task) => task.id).join(', ')}`,
            observed: full.page ? `none on ${lacking.map((task) => task.id).join(', ')}` : observedOf(full.exchange),
            exchange: full.exchange,
          });
      }

      // LIST-006: the status filter, alone and with the context.
      const states = new Map(page.tasks.filter((task) => ids.has(task.id)).map((task) => [task.id, task.status.state]));
      const state = [...states.values()][0];
      if (state !== undefined) {
        const filtered = await listTasks(context, { contextId, status: state, pageSize: 100 });
        const wrong = filtered.page?.tasks.filter((task) => task.status.state !== state) ?? [];
        const expectedCount = [...states.values()].filter((entry) => entry === state).length;
        if (filtered.page === undefined)
          context.fail('LIST-006', {
            message: 'ListTasks with a status filter failed',
            expected: 'a ListTasksResponse',
            observed: observedOf(filtered.exchange),
            exchange: filtered.exchange,
          });
        else if (wrong.length > 0)
          context.fail('LIST-006', {
            message: 'the status filter returned tasks in another state',
            expected: `only ${state}`,
            observed: wrong.map((task) => `${task.id} ${task.status.state}`).join(', '),
            exchange: filtered.exchange,
          });
        else if (filtered.page.tasks.length !== expectedCount)
          context.fail('LIST-006', {
            message: 'the status filter left out matching tasks',
            expected: `${expectedCount} tasks in ${state} in this context`,
            observed: `${filtered.page.tasks.length}`,
            exchange: filtered.exchange,
          });
        else context.pass('LIST-006', `the status filter ${state} returns exactly those tasks`);
        const absent = [...FAILURE_STATES, ...INTERRUPTED_STATES].find((entry) => ![...states.values()].includes(entry));
        if (absent !== undefined) {
          const nothing = await listTasks(context, { contextId, status: absent });
          if (nothing.page && nothing.page.tasks.length > 0)
            context.fail('LIST-006', {
              message: `the status filter ${absent} returned tasks in other states`,
              expected: 'no task',
              observed: nothing.page.tasks.map((task) => `${task.id} ${task.status.state}`).join(', '),
              exchange: nothing.exchange,
            });
        }
        const anywhere = await listTasks(context, { status: state, pageSize: 20 });
        const elsewhere = anywhere.page?.tasks.filter((task) => task.status.state !== state) ?? [];
        if (elsewhere.length > 0)
          context.fail('LIST-006', {
            message: 'the status filter returned tasks in another state',
            expected: `only ${state}`,
            observed: elsewhere.map((task) => `${task.id} ${task.status.state}`).join(', '),
            exchange: anywhere.exchange,
          });
      }

      // LIST-007: statusTimestampAfter, from the middle task's own timestamp.
      const stamped = page.tasks.filter((task) => ids.has(task.id) && task.status.timestamp !== undefined);
      const middle = stamped[Math.floor(stamped.length / 2)]?.status.timestamp;
      if (middle === undefined) context.skip('LIST-007', 'inconclusive', 'the tasks carry no status.timestamp to filter by');
      else {
        const after = await listTasks(context, { contextId, statusTimestampAfter: middle, pageSize: 100 });
        const early = after.page?.tasks.filter((task) => (compareTimestamps(task.status.timestamp, middle) ?? -1) < 0) ?? [];
        const due = stamped.filter(
          (task) =>
            (compareTimestamps(task.status.timestamp, middle) ?? -1) >= 0 && !after.page?.tasks.some((entry) => entry.id === task.id),
        );
        if (after.page === undefined)
          context.fail('LIST-007', {
            message: 'ListTasks with statusTimestampAfter failed',
            expected: 'a ListTasksResponse',
            observed: observedOf(after.exchange),
            exchange: after.exchange,
          });
        else if (early.length > 0)
          context.fail('LIST-007', {
            message: 'statusTimestampAfter returned older tasks',
            expected: `only status.timestamp ≥ ${middle}`,
            observed: early.map((task) => `${task.id} ${task.status.timestamp}`).join(', '),
            exchange: after.exchange,
          });
        else if (due.length > 0)
          context.fail('LIST-007', {
            message: 'statusTimestampAfter left out tasks at or after the time',
            expected: `every task with status.timestamp ≥ ${middle}`,
            observed: `missing ${due.map((task) => `${task.id} ${task.status.timestamp}`).join(', ')}`,
            exchange: after.exchange,
          });
        else context.pass('LIST-007', `statusTimestampAfter ${middle} returns exactly the tasks at or after it`);
      }

      // LIST-009: walk the context two at a time.
      const seen: Task[] = [];
      const tokens = new Set<string>();
      let firstPage: RpcExchange | undefined;
      let token = '';
      let complete = false;
      let trailingEmpty = false;
      for (let pageNumber = 0; pageNumber < ids.size + 3; pageNumber += 1) {
        const walked = await listTasks(context, { contextId, pageSize: 2, ...(token ? { pageToken: token } : {}) });
        firstPage ??= walked.exchange;
        if (walked.page === undefined) {
          context.fail('LIST-009', {
            message: `page ${pageNumber + 1} of the walk failed`,
            expected: 'a ListTasksResponse',
            observed: observedOf(walked.exchange),
            exchange: walked.exchange,
          });
          return;
        }
        if (walked.page.tasks.length > 2)
          context.fail('LIST-009', {
            message: 'a page holds more tasks than pageSize',
            expected: 'at most 2 tasks',
            observed: `${walked.page.tasks.length}`,
            exchange: walked.exchange,
          });
        const foreign = walked.page.tasks.filter((task) => task.contextId !== contextId);
        if (foreign.length > 0)
          context.fail('LIST-006', {
            message: 'a page of the contextId walk has tasks of another context',
            expected: `only contextId ${contextId}`,
            observed: foreign.map((task) => task.id).join(', '),
            exchange: walked.exchange,
          });
        checkOrder(context, [...seen.slice(-1), ...walked.page.tasks], walked.exchange, 'across pages');
        if (walked.page.tasks.length === 0 && walked.page.nextPageToken === '' && pageNumber > 0) trailingEmpty = true;
        seen.push(...walked.page.tasks);
        token = walked.page.nextPageToken;
        if (token === '') {
          complete = true;
          break;
        }
        if (tokens.has(token)) {
          context.fail('LIST-009', {
            message: 'the walk came back to a page token it had already followed',
            expected: 'a new nextPageToken on every page',
            observed: `token ${JSON.stringify(token)} again`,
            exchange: walked.exchange,
          });
          return;
        }
        tokens.add(token);
      }
      const counts = new Map<string, number>();
      for (const task of seen) counts.set(task.id, (counts.get(task.id) ?? 0) + 1);
      const repeated = [...counts.entries()].filter(([, count]) => count > 1).map(([id]) => id);
      const gaps = [...ids].filter((id) => !counts.has(id));
      const walkRequest = firstPage ?? all.exchange;
      if (!complete)
        context.fail('LIST-009', {
          message: 'the walk did not reach a page with nextPageToken ""',
          expected: `the last page within ${ids.size + 3} pages`,
          observed: `${seen.length} tasks seen, still a token`,
          exchange: walkRequest,
        });
      else if (repeated.length > 0 || gaps.length > 0) {
        context.fail('LIST-009', {
          message: 'following nextPageToken did not visit every task exactly once',
          expected: `each of ${ids.size} tasks once`,
          observed: [
            repeated.length > 0 ? `repeated ${repeated.join(', ')}` : '',
            gaps.length > 0 ? `never visited ${gaps.join(', ')}` : '',
          ]
            .filter(Boolean)
            .join('; '),
          exchange: walkRequest,
        });
      } else context.pass('LIST-009', `visited ${ids.size} tasks exactly once in ${tokens.size + 1} pages`);
      if (complete && gaps.length === 0) {
        if (trailingEmpty)
          context.warn('LIST-002', {
            message: 'the page holding the last task still had a nextPageToken, leading to an empty page',
            expected: 'nextPageToken "" on the page with the last task',
            observed: 'an extra empty page at the end of the walk',
            exchange: walkRequest,
          });
        else context.pass('LIST-002', 'nextPageToken is set on every page but the last, "" on the last');
      }

      // LIST-012: historyLength caps every task's history.
      for (const limit of [1, 0]) {
        const capped = await listTasks(context, { contextId, historyLength: limit, pageSize: 100 });
        const over = capped.page?.tasks.filter((task) => (task.history?.length ?? 0) > limit) ?? [];
        if (capped.page === undefined)
          context.fail('LIST-012', {
            message: `ListTasks with historyLength ${limit} failed`,
            expected: 'a ListTasksResponse',
            observed: observedOf(capped.exchange),
            exchange: capped.exchange,
          });
        else if (over.length > 0)
          context.fail('LIST-012', {
            message: `historyLength ${limit} returned tasks with more history`,
            expected: `at most ${limit} messages per task`,
            observed: over.map((task) => `${task.id}: ${task.history?.length ?? 0}`).join(', '),
            exchange: capped.exchange,
          });
        else context.pass('LIST-012', `historyLength ${limit} caps every task`);
      }
    },
  },
  {
    id: 'cancel-unknown-task',
    title: 'CancelTask for an id that does not exist is TaskNotFound',
    requirements: ['CANCEL-002', 'JSONRPC-ENV-009'],
    async run(context) {
      expectA2AError(context, 'CANCEL-002', await context.transport.call('CancelTask', { id: randomUUID() }), 'TaskNotFoundError');
    },
  },
  {
    id: 'cancel-working-task',
    title: 'CancelTask stops a working task; a second cancel returns it again or is TaskNotCancelable',
    requirements: ['CANCEL-001', 'CANCEL-004', 'JSONRPC-ENV-009'],
    needs: ['slow'],
    async run(context) {
      const sent = await send(context, {
        message: directiveMessage(context, 'slow work to cancel', SLOW_WORK),
        configuration: { returnImmediately: true },
      });
      if (sent.kind !== 'task' || isTerminalState(sent.task.status.state) || isInterruptedState(sent.task.status.state)) {
        skipAll(
          context,
          ['CANCEL-001', 'CANCEL-004'],
          'precondition-not-met',
          sent.kind === 'task' ? `the slow task was already ${sent.task.status.state} when returned` : noTask(sent),
        );
        return;
      }
      const id = sent.task.id;
      const canceled = await context.transport.call('CancelTask', { id });
      if (canceled.error || canceled.result === undefined) {
        context.fail('CANCEL-001', {
          message: 'CancelTask on a working task failed',
          expected: 'the updated Task',
          observed: observedOf(canceled),
          exchange: canceled,
        });
        context.skip('CANCEL-004', 'precondition-not-met', 'the first cancel failed');
        return;
      }
      context.checkShape('CANCEL-001', 'Task', canceled.result, { exchange: canceled, path: 'result' });
      inspectTask(context, canceled.result, { exchange: canceled, path: 'result' });
      const reply = isTaskLike(canceled.result) ? canceled.result : undefined;
      if (reply?.id !== id) {
        context.fail('CANCEL-001', {
          message: 'CancelTask did not return the task',
          expected: `a Task with id ${id}`,
          observed: short(canceled.result),
          path: 'result',
          exchange: canceled,
        });
        context.skip('CANCEL-004', 'precondition-not-met', 'the first cancel did not return the task');
        return;
      }
      const settled =
        reply.status.state === 'TASK_STATE_CANCELED'
          ? reply
          : (await pollTask(context, id, (task) => isTerminalState(task.status.state), 3000)).task;
      if (settled?.status.state === 'TASK_STATE_CANCELED')
        context.pass('CANCEL-001', reply === settled ? 'the reply is the CANCELED task' : 'the task became CANCELED after the reply');
      else {
        context.fail('CANCEL-001', {
          message: 'the canceled task did not end in TASK_STATE_CANCELED',
          expected: 'TASK_STATE_CANCELED in the reply or a later GetTask',
          observed: `reply ${reply.status.state}, then ${settled?.status.state ?? 'GetTask failed'}`,
          exchange: canceled,
        });
        context.skip('CANCEL-004', 'precondition-not-met', 'the task never became CANCELED');
        return;
      }

      const again = await context.transport.call('CancelTask', { id });
      recordErrorCode(context, again, 'TaskNotCancelableError', false);
      if (isError(again, 'TaskNotCancelableError'))
        context.pass('CANCEL-004', `a second cancel is ${errorLabel('TaskNotCancelableError')}`);
      else if (
        again.error === undefined &&
        isTaskLike(again.result) &&
        again.result.id === id &&
        again.result.status.state === 'TASK_STATE_CANCELED'
      ) {
        context.checkShape('CANCEL-004', 'Task', again.result, { exchange: again, path: 'result' });
        context.pass('CANCEL-004', 'a second cancel returns the CANCELED task again');
      } else {
        context.fail('CANCEL-004', {
          message: 'a second cancel neither returned the CANCELED task nor TaskNotCancelable',
          expected: `the Task ${id} in TASK_STATE_CANCELED, or error ${errorLabel('TaskNotCancelableError')}`,
          observed: observedOf(again),
          exchange: again,
        });
      }
    },
  },
  {
    id: 'cancel-terminal-task',
    title: 'CancelTask on a completed task is TaskNotCancelable and leaves it unchanged',
    requirements: ['CANCEL-003', 'JSONRPC-ENV-009'],
    async run(context) {
      const done = await finishedTask(context, 'finish');
      if (!done.ok) {
        context.skip('CANCEL-003', 'precondition-not-met', `no finished task to cancel: ${done.reason}`);
        return;
      }
      const { task } = done.value;
      const refused = await context.transport.call('CancelTask', { id: task.id });
      expectA2AError(context, 'CANCEL-003', refused, 'TaskNotCancelableError');
      const after = await getTask(context, { id: task.id });
      if (after.task !== undefined && after.task.status.state !== task.status.state) {
        context.fail('CANCEL-003', {
          message: 'the terminal task changed state after the refused cancel',
          expected: `still ${task.status.state}`,
          observed: after.task.status.state,
          exchange: refused,
        });
      }
    },
  },
  {
    id: 'artifacts-persist',
    title: 'A completed task keeps its state and final artifacts in later GetTask calls',
    requirements: ['DATA-007'],
    async run(context) {
      const done = await finishedTask(context, 'keep this');
      if (!done.ok) {
        context.skip('DATA-007', 'precondition-not-met', `no finished task: ${done.reason}`);
        return;
      }
      const { task } = done.value;
      if (task.status.state !== 'TASK_STATE_COMPLETED' || (task.artifacts?.length ?? 0) === 0) {
        context.skip(
          'DATA-007',
          'precondition-not-met',
          `the task ended in ${stateLabel(task.status.state)} with ${task.artifacts?.length ?? 0} artifacts, so there are no final artifacts to compare`,
        );
        return;
      }
      await new Promise((resolve) => setTimeout(resolve, 200));
      const later = await getTask(context, { id: task.id });
      if (later.task === undefined) {
        context.fail('DATA-007', {
          message: 'GetTask of the completed task failed',
          expected: `the Task ${task.id}`,
          observed: observedOf(later.exchange),
          exchange: later.exchange,
        });
        return;
      }
      if (later.task.status.state === task.status.state && sameJson(later.task.artifacts, task.artifacts))
        context.pass('DATA-007', 'the same state and artifacts later');
      else
        context.fail('DATA-007', {
          message: 'GetTask does not return the state and artifacts the task completed with',
          expected: `${task.status.state} with artifacts ${short(task.artifacts, 200)}`,
          observed: `${later.task.status.state} with artifacts ${short(later.task.artifacts, 200)}`,
          exchange: later.exchange,
        });
    },
  },
];

/** Whether `part` is the end of `whole`, message by message (historyLength keeps the most recent). */
function isTail(part: readonly { messageId: string }[], whole: readonly { messageId: string }[]): boolean {
  const tail = whole.slice(whole.length - part.length);
  return part.length <= whole.length && part.every((message, index) => message.messageId === tail[index]?.messageId);
}
