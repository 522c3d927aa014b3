import { isDeepStrictEqual } from 'node:util';
import fc from 'fast-check';
import type { MethodName } from '../../generated/a2a/1.0/methods.js';
import { canTransition, isInterruptedState, isTerminalState, TASK_STATES } from '../../generated/a2a/1.0/task-states.js';
import type { Message, TaskState } from '../../generated/a2a/1.0/types.js';
import { TEST_OUTCOMES, type TestOutcome } from '../../generated/hub/test-directives.js';
import { brokenAnswer, isError, observedOf } from '../core/answers.js';
import type { Check, CheckContext } from '../core/check.js';
import type { Exchange } from '../core/exchange.js';
import { missingAsks, type Profile } from '../core/profiles.js';
import type { ParamsOf, RpcExchange, SseEvent } from '../core/transport.js';
import { capabilityDeclared } from './support/card.js';
import { directiveMessage } from './support/directives.js';
import { checkAgainstAgent, PropertyViolation } from './support/property-runs.js';
import { isTaskState } from './support/states.js';

/**
 * Model-based checks of the task store (STATE-001..005). fast-check draws sequences of
 * commands (send, continue, get, list, cancel, subscribe, resend) and runs them against the
 * agent in a fresh context per run; a model of what was observed (each task's last state, and
 * for terminal tasks a snapshot) is held against every answer. A broken invariant throws, so
 * fast-check shrinks the sequence; the shrunk sequence and the seed are the counterexample.
 */

type StateRequirement = 'STATE-001' | 'STATE-002' | 'STATE-003' | 'STATE-004' | 'STATE-005';
const ALL: readonly StateRequirement[] = ['STATE-001', 'STATE-002', 'STATE-003', 'STATE-004', 'STATE-005'];
/** What a black-box run exercises, on the tasks the agent finishes on its own: STATE-004 needs slow work of a chosen length. */
const BLACK_BOX: readonly StateRequirement[] = ['STATE-001', 'STATE-002', 'STATE-003', 'STATE-005'];
const LIST_PAGE_SIZE = 2;
const MAX_PAGES = 100;

interface WireTask {
  readonly id: string;
  readonly contextId?: unknown;
  readonly status?: { readonly state?: unknown; readonly timestamp?: unknown };
  readonly artifacts?: unknown;
  readonly history?: unknown;
}

interface TaskModel {
  /** Creation order within the run, as commands and counterexamples name tasks: #0, #1… */
  readonly index: number;
  state?: TaskState;
  terminal: boolean;
  /** What GetTask showed once the task was terminal: it must never change again. */
  snapshot?: unknown;
}

interface Model {
  contextId: string;
  readonly tasks: Map<string, TaskModel>;
  /** Task ids in creation order. */
  readonly order: string[];
  /** A send went unanswered: the context may hold a task the model does not know. */
  uncertain: boolean;
}

/** The agent, and what the runs of one check have exercised. */
class Session {
  constructor(
    readonly context: CheckContext,
    readonly active: ReadonlySet<StateRequirement>,
    readonly muted: ReadonlySet<StateRequirement>,
    readonly exercised: Map<StateRequirement, number>,
  ) {}

  call<M extends MethodName>(method: M, params: ParamsOf<M>): Promise<RpcExchange> {
    return this.context.transport.call(method, params);
  }

  /** Evaluates an invariant of an active requirement: a broken one throws, unless the requirement has already failed. */
  require(
    requirement: StateRequirement,
    holds: boolean,
    violation: () => { message: string; expected: string; observed: string; exchange?: Exchange; path?: string },
  ): void {
    if (!this.active.has(requirement)) return;
    this.exercised.set(requirement, (this.exercised.get(requirement) ?? 0) + 1);
    if (holds || this.muted.has(requirement)) return;
    const { message, expected, observed, exchange, path } = violation();
    throw new PropertyViolation(message, observed, exchange, { requirement, expected, ...(path === undefined ? {} : { path }) });
  }

  checks(requirement: StateRequirement): boolean {
    return this.active.has(requirement);
  }
}

function wireTaskOf(value: unknown): WireTask | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const task = value as Record<string, unknown>;
  return typeof task['id'] === 'string' ? (task as unknown as WireTask) : undefined;
}

/** The state a stream event gives the task, from its snapshot or its status update. */
function streamedState(event: SseEvent, taskId: string): unknown {
  // Frames are the agent's: read them as unknown JSON, they may be malformed.
  const frame = event.frame as { task?: unknown; statusUpdate?: { taskId?: unknown; status?: { state?: unknown } } } | undefined;
  const snapshot = wireTaskOf(frame?.task);
  if (snapshot?.id === taskId) return snapshot.status?.state;
  return frame?.statusUpdate?.taskId === taskId ? frame.statusUpdate.status?.state : undefined;
}

/** The task of a SendMessage answer, if it was one. */
function sentTask(exchange: RpcExchange): WireTask | undefined {
  return wireTaskOf((exchange.result as { task?: unknown } | undefined)?.task);
}

function label(model: Model, taskId: string): string {
  const entry = model.tasks.get(taskId);
  return entry === undefined ? taskId : `#${entry.index} (${taskId})`;
}

function register(model: Model, task: WireTask): TaskModel | undefined {
  if (task.contextId !== model.contextId) return undefined;
  const known = model.tasks.get(task.id);
  if (known !== undefined) return known;
  const entry: TaskModel = { index: model.order.length, terminal: false };
  model.tasks.set(task.id, entry);
  model.order.push(task.id);
  return entry;
}

/** Holds a newly seen state of a task against the last one (STATE-005). */
function observe(session: Session, model: Model, taskId: string, state: unknown, exchange: Exchange, path: string): void {
  const entry = model.tasks.get(taskId);
  if (entry === undefined || !isTaskState(state)) return;
  const previous = entry.state;
  session.require('STATE-005', previous === undefined || previous === state || canTransition(previous, state), () => ({
    message: `task ${label(model, taskId)} went from ${previous ?? '?'} to ${state}, which the task state machine does not allow`,
    expected:
      previous === undefined || isTerminalState(previous)
        ? `${previous ?? '?'} for good: a terminal task never changes`
        : `one of the states ${previous} may move to: ${TASK_STATES[previous].transitions.join(', ')}`,
    observed: state,
    exchange,
    path,
  }));
  entry.state = state;
  entry.terminal = isTerminalState(state);
}

function snapshotOf(task: WireTask): unknown {
  return { state: task.status?.state, timestamp: task.status?.timestamp, artifacts: task.artifacts ?? [], history: task.history ?? [] };
}

/** A GetTask of a terminal task: the first one is the snapshot, every later one must equal it (STATE-002). */
function holdTerminal(session: Session, model: Model, taskId: string, task: WireTask, exchange: Exchange): void {
  const entry = model.tasks.get(taskId);
  if (entry === undefined || !entry.terminal) return;
  const now = snapshotOf(task);
  if (entry.snapshot === undefined) {
    entry.snapshot = now;
    return;
  }
  const before = entry.snapshot;
  session.require('STATE-002', isDeepStrictEqual(before, now), () => ({
    message: `terminal task ${label(model, taskId)} changed after it ended`,
    expected: `state, status timestamp, artifacts and history as first seen: ${JSON.stringify(before).slice(0, 300)}`,
    observed: JSON.stringify(now).slice(0, 300),
    exchange,
    path: 'result',
  }));
}

/** GetTask, with everything the model holds a task to. Returns the exchange. */
async function observeTask(session: Session, model: Model, taskId: string, requirement: 'STATE-001' | undefined): Promise<RpcExchange> {
  const exchange = await session.call('GetTask', { id: taskId });
  const task = wireTaskOf(exchange.result);
  if (requirement !== undefined) {
    session.require(requirement, task?.id === taskId, () => ({
      message: `GetTask of task ${label(model, taskId)}, created by SendMessage in this run, did not return it${isError(exchange, 'TaskNotFoundError') ? ' (TaskNotFoundError)' : ''}`,
      expected: `the task ${taskId}`,
      observed: observedOf(exchange),
      exchange,
    }));
  }
  if (task === undefined || task.id !== taskId) return exchange;
  observe(session, model, taskId, task.status?.state, exchange, 'result.status.state');
  holdTerminal(session, model, taskId, task, exchange);
  return exchange;
}

function userMessage(
  session: Session,
  model: Model,
  text: string,
  extra: Record<string, unknown> = {},
): ReturnType<CheckContext['message']> {
  return session.context.message(text, { contextId: model.contextId, ...extra });
}

interface Directive {
  readonly outcome: TestOutcome;
  readonly steps: number;
}

/** The outcomes the random sequences ask for: every one but auth-required (input-required covers the interrupted case). */
const OUTCOMES: readonly TestOutcome[] = TEST_OUTCOMES.map((outcome) => outcome.name).filter((name) => name !== 'auth-required');

/** A message in the run's context asking for `directive` as the run's profile can (plain without one). */
function directedMessage(session: Session, model: Model, text: string, directive: Directive | undefined): Message {
  return directive === undefined
    ? userMessage(session, model, text)
    : directiveMessage(
        session.context,
        text,
        { outcome: directive.outcome, steps: directive.steps, stepMs: 50 },
        { contextId: model.contextId },
      );
}

/** What the random sequences may ask the run's profile for: timed work and interruptions only where it can ask for them. */
interface Repertoire {
  readonly outcomes: readonly TestOutcome[];
  readonly timed: boolean;
  readonly interrupts: boolean;
}

function repertoireOf(profile: Profile): Repertoire {
  return {
    outcomes: OUTCOMES.filter((outcome) => profile.asks.has(outcome)),
    timed: profile.asks.has('timed'),
    interrupts: profile.asks.has('input-required'),
  };
}

/** A plain SendMessage in the run's context; the task it created, registered, or undefined. */
async function sendPlain(session: Session, model: Model, text: string): Promise<string | undefined> {
  const exchange = await session.call('SendMessage', {
    message: userMessage(session, model, text),
    configuration: { returnImmediately: true },
  });
  if (brokenAnswer(exchange)) model.uncertain = true;
  const task = sentTask(exchange);
  if (task === undefined || register(model, task) === undefined) return undefined;
  observe(session, model, task.id, task.status?.state, exchange, 'result.task.status.state');
  return task.id;
}

/** Pages through ListTasks for a context until `taskId` shows up. */
async function listed(session: Session, contextId: string, taskId: string): Promise<{ found: boolean; exchange: RpcExchange | undefined }> {
  let token = '';
  let exchange: RpcExchange | undefined;
  for (let page = 0; page < 20; page += 1) {
    exchange = await session.call('ListTasks', { contextId, pageSize: 50, ...(token === '' ? {} : { pageToken: token }) });
    const result = exchange.result as { tasks?: unknown; nextPageToken?: unknown } | undefined;
    if (!Array.isArray(result?.tasks)) break;
    if (result.tasks.some((task) => wireTaskOf(task)?.id === taskId)) return { found: true, exchange };
    if (typeof result.nextPageToken !== 'string' || result.nextPageToken === '' || result.nextPageToken === token) break;
    token = result.nextPageToken;
  }
  return { found: false, exchange };
}

/**
 * A terminal task before and after something that must not change it (a cancel, a follow-up
 * message): GetTask on both sides, held to the snapshot (STATE-002).
 */
async function unchangedBy(session: Session, model: Model, taskId: string, what: string, act: () => Promise<RpcExchange>): Promise<void> {
  if (!session.checks('STATE-002')) {
    await act();
    return;
  }
  await observeTask(session, model, taskId, undefined);
  const exchange = await act();
  const answered = sentTask(exchange) ?? wireTaskOf(exchange.result);
  if (answered !== undefined && answered.id === taskId) {
    const before = model.tasks.get(taskId)?.state;
    session.require('STATE-002', answered.status?.state === before, () => ({
      message: `${what} on terminal task ${label(model, taskId)} answered it in another state`,
      expected: `${before ?? '?'}, or an error`,
      observed: String(answered.status?.state),
      exchange,
    }));
  }
  await observeTask(session, model, taskId, undefined);
}

function pick(model: Readonly<Model>, index: number, filter: (entry: TaskModel) => boolean = () => true): string | undefined {
  const candidates = model.order.filter((id) => {
    const entry = model.tasks.get(id);
    return entry !== undefined && filter(entry);
  });
  return candidates[index % Math.max(1, candidates.length)];
}

type StateCommand = fc.AsyncCommand<Model, Session>;

/** SendMessage of a new message in the run's context: the task is then found by GetTask and ListTasks (STATE-001). */
class Send implements StateCommand {
  constructor(
    readonly directive: Directive | undefined,
    readonly returnImmediately: boolean,
  ) {}
  check(): boolean {
    return true;
  }
  async run(model: Model, session: Session): Promise<void> {
    const params = {
      message: directedMessage(session, model, 'conformance state check', this.directive),
      configuration: { returnImmediately: this.returnImmediately },
    };
    const exchange = await session.call('SendMessage', params);
    if (brokenAnswer(exchange)) model.uncertain = true;
    const task = sentTask(exchange);
    if (task === undefined) return;
    register(model, task);
    observe(session, model, task.id, task.status?.state, exchange, 'result.task.status.state');
    const get = await observeTask(session, model, task.id, 'STATE-001');
    const got = wireTaskOf(get.result);
    session.require('STATE-001', got === undefined || got.contextId === task.contextId, () => ({
      message: `GetTask returned task ${label(model, task.id)} with another contextId than SendMessage did`,
      expected: String(task.contextId),
      observed: String(got?.contextId),
      exchange: get,
      path: 'result.contextId',
    }));
    if (typeof task.contextId !== 'string' || task.contextId === '') return;
    const { found, exchange: list } = await listed(session, task.contextId, task.id);
    session.require('STATE-001', found, () => ({
      message: `task ${label(model, task.id)}, just created, is not listed by ListTasks filtered by its contextId`,
      expected: `a page containing task ${task.id}`,
      observed: list === undefined ? 'no answer' : observedOf(list),
      ...(list === undefined ? {} : { exchange: list }),
    }));
  }
  toString(): string {
    const what =
      this.directive === undefined
        ? 'plain'
        : `${this.directive.outcome}${this.directive.steps > 0 ? `, ${this.directive.steps} slow steps` : ''}`;
    return `Send(${what}${this.returnImmediately ? ', returnImmediately' : ''})`;
  }
}

/** A follow-up message: resumes an interrupted task, or is refused by a terminal one without changing it. */
class Continue implements StateCommand {
  constructor(readonly which: number) {}
  check(model: Readonly<Model>): boolean {
    return model.order.some((id) => {
      const state = model.tasks.get(id)?.state;
      return state !== undefined && (isInterruptedState(state) || isTerminalState(state));
    });
  }
  async run(model: Model, session: Session): Promise<void> {
    const interrupted = pick(model, this.which, (entry) => entry.state !== undefined && isInterruptedState(entry.state));
    const taskId = interrupted ?? pick(model, this.which, (entry) => entry.terminal);
    if (taskId === undefined) return;
    const send = async (): Promise<RpcExchange> => {
      const exchange = await session.call('SendMessage', { message: userMessage(session, model, 'conformance follow-up', { taskId }) });
      // An agent may start a new task for a follow-up to an ended one: the model must know it.
      const task = sentTask(exchange);
      if (task !== undefined && task.id !== taskId) register(model, task);
      return exchange;
    };
    if (interrupted === undefined) {
      await unchangedBy(session, model, taskId, 'a follow-up message', send);
      return;
    }
    const exchange = await send();
    const task = sentTask(exchange);
    if (task?.id === taskId) observe(session, model, taskId, task.status?.state, exchange, 'result.task.status.state');
  }
  toString(): string {
    return `Continue(${this.which})`;
  }
}

/** GetTask of a task of the run: found (STATE-001), allowed transitions (STATE-005), terminal tasks frozen (STATE-002). */
class Get implements StateCommand {
  constructor(readonly which: number) {}
  check(model: Readonly<Model>): boolean {
    return model.order.length > 0;
  }
  async run(model: Model, session: Session): Promise<void> {
    const taskId = pick(model, this.which);
    if (taskId !== undefined) await observeTask(session, model, taskId, 'STATE-001');
  }
  toString(): string {
    return `Get(${this.which})`;
  }
}

/** CancelTask: a terminal task stays as it was (STATE-002), a live one moves by an allowed transition (STATE-005). */
class Cancel implements StateCommand {
  constructor(readonly which: number) {}
  check(model: Readonly<Model>): boolean {
    return model.order.length > 0;
  }
  async run(model: Model, session: Session): Promise<void> {
    const taskId = pick(model, this.which);
    if (taskId === undefined) return;
    const cancel = (): Promise<RpcExchange> => session.call('CancelTask', { id: taskId });
    if (model.tasks.get(taskId)?.terminal === true) {
      await unchangedBy(session, model, taskId, 'CancelTask', cancel);
      return;
    }
    const exchange = await cancel();
    const task = wireTaskOf(exchange.result);
    if (task?.id === taskId) observe(session, model, taskId, task.status?.state, exchange, 'result.status.state');
  }
  toString(): string {
    return `Cancel(${this.which})`;
  }
}

/** SubscribeToTask of a live task, read to the end: every state in the stream follows from the one before (STATE-005). */
class Subscribe implements StateCommand {
  constructor(readonly which: number) {}
  check(model: Readonly<Model>): boolean {
    return model.order.some((id) => model.tasks.get(id)?.terminal === false);
  }
  async run(model: Model, session: Session): Promise<void> {
    const taskId = pick(model, this.which, (entry) => !entry.terminal);
    if (taskId === undefined) return;
    const stream = await session.context.transport.stream(
      'SubscribeToTask',
      { id: taskId },
      {
        timeoutMs: Math.min(session.context.timeoutMs, 5000),
        // A subscription to an interrupted task may wait for a follow-up that this sequence
        // has not sent yet: its snapshot is all there is to read.
        until: (event, events) => {
          const state = streamedState(event, taskId);
          return events.length === 1 && isTaskState(state) && isInterruptedState(state);
        },
      },
    );
    stream.events.forEach((event, index) => {
      const state = streamedState(event, taskId);
      if (state !== undefined) observe(session, model, taskId, state, stream, `events[${index}].result`);
    });
  }
  toString(): string {
    return `Subscribe(${this.which})`;
  }
}

/**
 * ListTasks for the run's context, pageSize 2, all pages, with a new task sent between the
 * first and the second page: disjoint pages, newest first, every task that existed at the
 * first page exactly once, as many as its totalSize (STATE-003).
 */
class List implements StateCommand {
  check(): boolean {
    return true;
  }
  async run(model: Model, session: Session): Promise<void> {
    const contextId = model.contextId;
    const existing = [...model.order];
    const stable = new Set(existing.filter((id) => model.tasks.get(id)?.terminal === true));
    const seen = new Map<string, number>();
    const walk: { id: string; timestamp: unknown; page: number; index: number }[] = [];
    const tokens = new Set<string>();
    let token = '';
    let firstTotal: number | undefined;
    let first: RpcExchange | undefined;
    let last: RpcExchange | undefined;
    let interleaved: string | undefined;
    let sentBetween = false;
    for (let page = 0; ; page += 1) {
      const exchange = await session.call('ListTasks', {
        contextId,
        pageSize: LIST_PAGE_SIZE,
        ...(token === '' ? {} : { pageToken: token }),
      });
      first ??= exchange;
      last = exchange;
      const result = exchange.result as { tasks?: unknown; totalSize?: unknown; nextPageToken?: unknown } | undefined;
      const tasks = Array.isArray(result?.tasks) ? result.tasks : undefined;
      const nextToken = result?.nextPageToken;
      session.require('STATE-003', tasks !== undefined && typeof result?.totalSize === 'number' && typeof nextToken === 'string', () => ({
        message: `page ${page + 1} of ListTasks is not a ListTasksResponse`,
        expected: 'tasks, totalSize and nextPageToken',
        observed: observedOf(exchange),
        exchange,
      }));
      if (tasks === undefined || typeof nextToken !== 'string') return;
      if (page === 0 && typeof result?.totalSize === 'number') firstTotal = result.totalSize;
      session.require('STATE-003', tasks.length <= LIST_PAGE_SIZE, () => ({
        message: `page ${page + 1} holds ${tasks.length} tasks with pageSize ${LIST_PAGE_SIZE}`,
        expected: `at most ${LIST_PAGE_SIZE} tasks`,
        observed: String(tasks.length),
        exchange,
        path: 'result.tasks',
      }));
      tasks.forEach((value, index) => {
        const task = wireTaskOf(value);
        if (task === undefined) return;
        const earlier = seen.get(task.id);
        session.require('STATE-003', earlier === undefined, () => ({
          message: `task ${label(model, task.id)} is on page ${(earlier ?? 0) + 1} and again on page ${page + 1}`,
          expected: 'disjoint pages',
          observed: `task ${task.id} twice`,
          exchange,
          path: `result.tasks[${index}].id`,
        }));
        session.require('STATE-003', task.contextId === undefined || task.contextId === contextId, () => ({
          message: `ListTasks filtered by contextId returned task ${task.id} of another context`,
          expected: contextId,
          observed: String(task.contextId),
          exchange,
          path: `result.tasks[${index}].contextId`,
        }));
        seen.set(task.id, earlier ?? page);
        walk.push({ id: task.id, timestamp: task.status?.timestamp, page, index });
        observe(session, model, task.id, task.status?.state, exchange, `result.tasks[${index}].status.state`);
      });
      if (nextToken === '') break;
      session.require('STATE-003', !tokens.has(nextToken) && page + 1 < MAX_PAGES, () => ({
        message: `ListTasks paging does not end: page ${page + 1} gives a nextPageToken already seen, or there are more than ${MAX_PAGES} pages`,
        expected: 'an empty nextPageToken on the last page',
        observed: nextToken,
        exchange,
      }));
      if (tokens.has(nextToken) || page + 1 >= MAX_PAGES) return;
      tokens.add(nextToken);
      token = nextToken;
      if (!sentBetween) {
        sentBetween = true;
        interleaved = await sendPlain(session, model, 'conformance task created between two ListTasks pages');
      }
    }
    const missing = existing.filter((id) => !seen.has(id));
    session.require('STATE-003', missing.length === 0, () => ({
      message: `paging ListTasks missed ${missing.length} task(s) that existed at the first page: ${missing.map((id) => label(model, id)).join(', ')}`,
      expected: 'every task of the context exactly once',
      observed: `${seen.size} distinct tasks over the pages`,
      ...(last === undefined ? {} : { exchange: last }),
    }));
    session.require('STATE-003', firstTotal === undefined || firstTotal === seen.size, () => ({
      message: `the pages held ${seen.size} distinct tasks, but the first page's totalSize is ${String(firstTotal)}${interleaved === undefined ? '' : ' (a task was created between the first and second page)'}`,
      expected: `as many tasks as the first page's totalSize (${String(firstTotal)})`,
      observed: `${seen.size} tasks: ${[...seen.keys()].map((id) => label(model, id)).join(', ')}`,
      ...(first === undefined ? {} : { exchange: first }),
      path: 'result.totalSize',
    }));
    const ordered = walk.filter(
      (entry) => stable.has(entry.id) && typeof entry.timestamp === 'string' && !Number.isNaN(Date.parse(entry.timestamp)),
    );
    ordered.slice(1).forEach((entry, index) => {
      const before = ordered[index];
      if (before === undefined) return;
      session.require('STATE-003', Date.parse(before.timestamp as string) >= Date.parse(entry.timestamp as string), () => ({
        message: `ListTasks is not newest-first: task ${label(model, entry.id)} (page ${entry.page + 1}) is newer than task ${label(model, before.id)} listed before it`,
        expected: 'tasks ordered by status timestamp, newest first',
        observed: `${String(before.timestamp)} before ${String(entry.timestamp)}`,
        ...(last === undefined ? {} : { exchange: last }),
      }));
    });
  }
  toString(): string {
    return 'List(pageSize 2, a Send between pages)';
  }
}

/** The same message twice while its slow task works: one task, and ListTasks counts one (STATE-004). */
class Resend implements StateCommand {
  check(): boolean {
    return true;
  }
  async run(model: Model, session: Session): Promise<void> {
    const message = directedMessage(session, model, 'conformance resend check', { outcome: 'completed', steps: 4 });
    const params = { message, configuration: { returnImmediately: true } };
    const first = await session.call('SendMessage', params);
    if (brokenAnswer(first)) model.uncertain = true;
    const task = sentTask(first);
    if (task === undefined || register(model, task) === undefined) return;
    observe(session, model, task.id, task.status?.state, first, 'result.task.status.state');
    const again = await session.call('SendMessage', params);
    if (brokenAnswer(again)) model.uncertain = true;
    const second = sentTask(again);
    if (second !== undefined && second.id !== task.id) register(model, second);
    session.require('STATE-004', second?.id === task.id, () => ({
      message: `resending messageId ${message.messageId} while its task ${label(model, task.id)} works did not return the same task`,
      expected: `the task ${task.id}`,
      observed: observedOf(again),
      exchange: again,
    }));
    if (model.uncertain) return;
    const list = await session.call('ListTasks', { contextId: model.contextId, pageSize: 1 });
    const total = (list.result as { totalSize?: unknown } | undefined)?.totalSize;
    session.require('STATE-004', total === model.order.length, () => ({
      message: `after resending a messageId, ListTasks counts ${String(total)} tasks in the context, the run created ${model.order.length}`,
      expected: String(model.order.length),
      observed: observedOf(list),
      exchange: list,
      path: 'result.totalSize',
    }));
  }
  toString(): string {
    return 'Resend(same messageId, slow task)';
  }
}

function commandArbitraries(repertoire: Repertoire, streaming: boolean): fc.Arbitrary<StateCommand>[] {
  const directive: fc.Arbitrary<Directive | undefined> =
    repertoire.outcomes.length > 0
      ? fc.option(
          fc.record({ outcome: fc.constantFrom(...repertoire.outcomes), steps: fc.integer({ min: 0, max: repertoire.timed ? 3 : 0 }) }),
          { nil: undefined },
        )
      : fc.constant(undefined);
  const which = fc.nat({ max: 9 });
  return [
    fc.tuple(directive, fc.boolean()).map(([chosen, immediately]): StateCommand => new Send(chosen, immediately)),
    which.map((index): StateCommand => new Get(index)),
    fc.constant(undefined).map((): StateCommand => new List()),
    which.map((index): StateCommand => new Cancel(index)),
    ...(streaming ? [which.map((index): StateCommand => new Subscribe(index))] : []),
    ...(repertoire.interrupts ? [which.map((index): StateCommand => new Continue(index))] : []),
    ...(repertoire.timed ? [fc.constant(undefined).map((): StateCommand => new Resend())] : []),
  ];
}

/** One sequence that reaches every requirement, run after the random ones so that none is left unexercised. */
function directedCommands(repertoire: Repertoire, streaming: boolean): StateCommand[] {
  // Gets first, so that the model knows which of the setup's tasks have ended.
  if (!repertoire.timed || !repertoire.interrupts) {
    return [
      new Send(undefined, false),
      new Get(0),
      new Get(1),
      new Get(2),
      new Get(3),
      new List(),
      new Cancel(0),
      ...(streaming ? [new Subscribe(0)] : []),
      new Get(0),
      new List(),
    ];
  }
  return [
    new Send({ outcome: 'input-required', steps: 0 }, false),
    new Send({ outcome: 'completed', steps: 3 }, true),
    new Resend(),
    new Get(0),
    new Get(1),
    new Get(2),
    ...(streaming ? [new Subscribe(1)] : []),
    new Continue(0),
    new Get(0),
    new List(),
    new Cancel(0),
    new Cancel(5),
    new Get(3),
    new Get(5),
    new List(),
  ];
}

/** A new context: a first message without contextId, then two more tasks in the context it got. */
async function setup(session: Session): Promise<{ model: Model; real: Session }> {
  const model: Model = { contextId: '', tasks: new Map(), order: [], uncertain: false };
  const opening = await session.call('SendMessage', {
    message: session.context.message('conformance state check: a new context'),
    configuration: { returnImmediately: true },
  });
  const answer = opening.result as { task?: { contextId?: unknown }; message?: { contextId?: unknown } } | undefined;
  const contextId = answer?.task?.contextId ?? answer?.message?.contextId;
  if (typeof contextId !== 'string' || contextId === '') {
    throw new PropertyViolation('SendMessage without contextId did not answer with a contextId', observedOf(opening), opening);
  }
  model.contextId = contextId;
  const task = sentTask(opening);
  if (task !== undefined && register(model, task) !== undefined)
    observe(session, model, task.id, task.status?.state, opening, 'result.task.status.state');
  await sendPlain(session, model, 'conformance state check: second task');
  await sendPlain(session, model, 'conformance state check: third task');
  return { model, real: session };
}

/** The commands that ran (fast-check's commands value prints those), in order. */
function describeCommands(commands: Iterable<StateCommand>): string {
  if (Array.isArray(commands)) return (commands as StateCommand[]).map((command) => command.toString()).join(', ');
  return (commands as unknown as { toString(): string }).toString();
}

async function runCommands(session: Session, commands: Iterable<StateCommand>): Promise<PropertyViolation | undefined> {
  try {
    await fc.asyncModelRun(() => setup(session), commands);
    return undefined;
  } catch (error) {
    if (!(error instanceof PropertyViolation)) throw error;
    // Taken now: the commands that ran, up to the one that failed.
    return new PropertyViolation(error.message, error.observed, error.exchange, { ...error.details, sent: describeCommands(commands) });
  }
}

async function checkTaskStates(context: CheckContext): Promise<void> {
  const streaming = capabilityDeclared(context, 'streaming');
  const repertoire = repertoireOf(context.profile);
  const active = new Set<StateRequirement>(repertoire.timed ? ALL : BLACK_BOX);
  if (!repertoire.timed)
    context.skip('STATE-004', 'needs-cooperation', missingAsks(context.profile, ['timed']) ?? 'needs slow work of a chosen length');
  const probe = await context.transport.call('SendMessage', {
    message: context.message('conformance state check: does SendMessage make tasks?'),
    configuration: { returnImmediately: true },
  });
  if (sentTask(probe) === undefined) {
    const reason =
      probe.error || brokenAnswer(probe)
        ? `SendMessage failed (${observedOf(probe)})`
        : 'SendMessage answered with a Message, not a task: there is no task state to check';
    for (const requirement of active) context.skip(requirement, 'precondition-not-met', reason);
    return;
  }
  const muted = new Set<StateRequirement>();
  const exercised = new Map<StateRequirement, number>();
  const fail = (violation: PropertyViolation, shrunk: string): boolean => {
    const requirement = violation.details.requirement as StateRequirement | undefined;
    if (requirement === undefined) {
      for (const each of active)
        if (!muted.has(each))
          context.skip(each, 'precondition-not-met', `a run could not start: ${violation.message} (${violation.observed})`);
      return false;
    }
    context.fail(requirement, {
      message: `${violation.message} ${shrunk}`,
      ...(violation.details.expected === undefined ? {} : { expected: violation.details.expected }),
      observed: violation.observed,
      ...(violation.details.path === undefined ? {} : { path: violation.details.path }),
      ...(violation.exchange === undefined ? {} : { exchange: violation.exchange }),
      counterexample: { commands: violation.details.sent, profile: context.profile.id },
      seed: context.seed,
    });
    muted.add(requirement);
    return true;
  };

  const numRuns = Math.max(3, Math.floor(context.runs / 10));
  const commands = fc.commands(commandArbitraries(repertoire, streaming), { maxCommands: 15, size: 'medium' });
  const started = Date.now();
  // A failure mutes its requirement and the runs start over, so that one broken invariant does not hide another.
  while (muted.size < active.size && Date.now() - started < 30_000) {
    const session = new Session(context, active, muted, exercised);
    const outcome = await checkAgainstAgent(context, commands, (sequence) => runCommands(session, sequence), { numRuns });
    if (outcome.failure === undefined) break;
    if (!fail(outcome.failure.violation, `(shrunk ${outcome.failure.shrinks} times)`)) return;
  }
  // Then one sequence that reaches every requirement, so that none depends on what the random ones happened to do.
  if (muted.size < active.size) {
    const directed = await runCommands(new Session(context, active, muted, exercised), directedCommands(repertoire, streaming));
    if (directed !== undefined && !fail(directed, '(in the directed command sequence, not shrunk)')) return;
  }
  for (const requirement of active) {
    if (muted.has(requirement)) continue;
    const count = exercised.get(requirement) ?? 0;
    if (count > 0) context.pass(requirement, `${count} invariant checks held over ${numRuns} random command sequences and a directed one`);
    else context.skip(requirement, 'not-reached', 'no command sequence reached this requirement');
  }
}

export const statefulChecks: readonly Check[] = [
  {
    id: 'state-model',
    title: 'Task store and lifecycle under random command sequences (model-based)',
    requirements: [...ALL],
    run: checkTaskStates,
  },
];
