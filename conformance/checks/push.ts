import { randomUUID } from 'node:crypto';
import { MEDIA_TYPES } from '../../generated/a2a/1.0/protocol.js';
import { canTransition, isInterruptedState, isTerminalState } from '../../generated/a2a/1.0/task-states.js';
import type { Task, TaskPushNotificationConfig, TaskState } from '../../generated/a2a/1.0/types.js';
import type { RequirementId } from '../../generated/conformance/requirements.js';
import { essenceOf } from '../../src/protocol/media-types.js';
import { isRecord } from '../../src/support/records.js';
import { errorLabel, isError, observedOf, short } from '../core/answers.js';
import type { Check, CheckContext } from '../core/check.js';
import type { RpcExchange } from '../core/transport.js';
import type { WebhookDelivery, WebhookInbox } from '../core/webhook-receiver.js';
import { SLOW_WORK, directiveMessage } from './support/directives.js';
import { idsIn, kindsOf, payloadOf, stateIn } from './support/frames.js';
import { stateLabel } from './support/states.js';
import { currentTask, noTask, pollTask, probeTask, send, unknownTaskId } from './support/tasks.js';
import { expectA2AError, passOnce, skipAll } from './support/verdicts.js';

/*
 * Push notifications on an agent whose card declares capabilities.pushNotifications (spec
 * §3.1.7–3.1.10, §4.3.3): the four config methods black-box, on a task the agent made for an
 * ordinary message, then delivery to the suite's own webhook receiver (core/webhook-receiver.ts,
 * on loopback unless --webhook-host says otherwise). Without the capability the checks of
 * discovery.ts (PUSH-001) and send-message.ts (SEND-018) apply instead.
 */

/**
 * Where the CRUD checks point their configs: a name that never resolves (RFC 2606), so that
 * an agent which delivers to it (a task snapshot on registration, say) reaches nobody.
 */
function placeholderUrl(): string {
  return `https://example.invalid/a2a-conformance-webhook/${randomUUID()}`;
}

/** A token and credentials no agent can have seen, to tell an echo of them from anything else. */
function freshSecrets(): { token: string; credentials: string } {
  return { token: `conform-token-${randomUUID()}`, credentials: `conform-credentials-${randomUUID()}` };
}

const CRUD: readonly RequirementId[] = ['PUSH-002', 'PUSH-004', 'PUSH-005', 'PUSH-006', 'PUSH-012', 'PUSH-013'];
const DELIVERY: readonly RequirementId[] = ['PUSH-007', 'PUSH-008', 'PUSH-009', 'PUSH-010', 'PUSH-015'];
/** Pages of ListTaskPushNotificationConfigs the suite follows before it stops looking. */
const MAX_PAGES = 20;

export const pushChecks: readonly Check[] = [
  {
    id: 'push-config-crud',
    title: 'Create, Get, List, re-create and Delete a push config of a task the agent made',
    requirements: [...CRUD, 'WIRE-001'],
    capability: 'pushNotifications',
    async run(context) {
      const sent = await send(context, { message: context.message('conformance: a task to register a webhook for') });
      if (sent.kind !== 'task') return skipAll(context, CRUD, 'precondition-not-met', noTask(sent));
      const taskId = sent.task.id;
      const secrets = freshSecrets();
      const register = (url: string): Promise<RpcExchange> =>
        context.transport.call('CreateTaskPushNotificationConfig', {
          taskId,
          url,
          token: secrets.token,
          authentication: { scheme: 'Bearer', credentials: secrets.credentials },
        });
      let nextUrl = placeholderUrl;
      let url = nextUrl();
      let created = await register(url);
      if (created.error !== undefined && !isError(created, 'TaskNotFoundError') && !isError(created, 'PushNotificationNotSupportedError')) {
        // An agent that resolves the host at create time refuses the placeholder: the suite's own receiver resolves.
        const receiver = await context.webhooks();
        nextUrl = () => receiver.inbox().url;
        url = nextUrl();
        created = await register(url);
      }
      if (created.error !== undefined) {
        if (isError(created, 'TaskNotFoundError') || isError(created, 'PushNotificationNotSupportedError'))
          context.fail('PUSH-002', {
            message: 'CreateTaskPushNotificationConfig for a task the agent just returned was refused',
            expected: `a TaskPushNotificationConfig for task ${taskId} (the card declares capabilities.pushNotifications)`,
            observed: observedOf(created),
            exchange: created,
          });
        else
          skipAll(
            context,
            CRUD,
            'precondition-not-met',
            `the agent refused to register a webhook at ${url}, and at an address that does not resolve before it (${observedOf(created)}), so no config could be read back`,
          );
        return;
      }
      const config = configIn(context, 'PUSH-002', created);
      if (config === undefined) return;
      const problems = mismatches(config, { taskId, url });
      if (typeof config.id !== 'string' || config.id === '') problems.unshift(`id is ${short(config.id, 60)}`);
      if (problems.length === 0) context.pass('PUSH-002', 'Create returned the config with an assigned id, its taskId and url');
      else
        context.fail('PUSH-002', {
          message: 'the config Create returned does not describe what was registered',
          expected: `a non-empty id, taskId ${taskId}, url ${url}`,
          observed: problems.join('; '),
          path: 'result',
          exchange: created,
        });
      const id = config.id;
      if (typeof id !== 'string' || id === '') {
        const message = 'Create returned no config id, so Get, List, re-create and Delete have nothing to name';
        return skipAll(context, ['PUSH-004', 'PUSH-005', 'PUSH-006', 'PUSH-012'], 'precondition-not-met', message);
      }
      const echo = (value: unknown, exchange: RpcExchange, what: string): void => judgeRedaction(context, value, exchange, what, secrets);

      const got = await context.transport.call('GetTaskPushNotificationConfig', { taskId, id });
      const stored = expectConfig(context, 'PUSH-004', got, { taskId, id, url }, 'Get of the config just created');
      if (stored !== undefined) echo(stored, got, 'Get');

      const listed = await listConfigs(context, 'PUSH-005', taskId);
      if (listed.configs !== undefined) {
        const found = listed.configs.filter((entry) => entry.id === id);
        if (found.length > 0) context.pass('PUSH-005', 'List shows the config just created');
        else
          context.fail('PUSH-005', {
            message: 'List does not show the config just created',
            expected: `a config with id ${id} in configs`,
            observed: `ids ${listed.configs.map((entry) => JSON.stringify(entry.id)).join(', ') || '(none)'}`,
            ...(listed.exchange === undefined ? {} : { exchange: listed.exchange }),
          });
        if (listed.exchange !== undefined && found.length > 0) echo(found, listed.exchange, 'List');
      }

      await judgeReplacement(context, taskId, id, nextUrl());
      await judgeDeletion(context, taskId, id);
    },
  },
  {
    id: 'push-config-unknown',
    title: `Push configs of an unknown task or an unknown config id are refused with ${errorLabel('TaskNotFoundError')}`,
    requirements: ['PUSH-003', 'PUSH-004', 'PUSH-014', 'JSONRPC-ENV-009'],
    capability: 'pushNotifications',
    async run(context) {
      const missingTask = unknownTaskId();
      const configId = `conform-config-${randomUUID()}`;
      const url = placeholderUrl();
      expectA2AError(
        context,
        'PUSH-003',
        await context.transport.call('CreateTaskPushNotificationConfig', { taskId: missingTask, url }),
        'TaskNotFoundError',
      );
      expectA2AError(
        context,
        'PUSH-004',
        await context.transport.call('GetTaskPushNotificationConfig', { taskId: missingTask, id: configId }),
        'TaskNotFoundError',
      );
      expectA2AError(
        context,
        'PUSH-014',
        await context.transport.call('ListTaskPushNotificationConfigs', { taskId: missingTask }),
        'TaskNotFoundError',
      );
      expectA2AError(
        context,
        'PUSH-014',
        await context.transport.call('DeleteTaskPushNotificationConfig', { taskId: missingTask, id: configId }),
        'TaskNotFoundError',
      );
      const { taskId, exchange } = await probeTask(context);
      if (taskId === undefined) {
        const message = `no task could be made to ask for an unknown config of (${observedOf(exchange)})`;
        return skipAll(context, ['PUSH-004', 'PUSH-014'], 'precondition-not-met', message);
      }
      expectA2AError(
        context,
        'PUSH-004',
        await context.transport.call('GetTaskPushNotificationConfig', { taskId, id: configId }),
        'TaskNotFoundError',
      );
      const deleted = await context.transport.call('DeleteTaskPushNotificationConfig', { taskId, id: configId });
      if (deleted.error === undefined || isError(deleted, 'TaskNotFoundError'))
        context.pass(
          'PUSH-014',
          `Delete of a config the task never had ${deleted.error === undefined ? 'succeeds' : 'is TaskNotFoundError'}`,
        );
      else
        context.fail('PUSH-014', {
          message: 'Delete of a config id the task never had failed with another error',
          expected: `success (delete is idempotent) or ${errorLabel('TaskNotFoundError')}`,
          observed: observedOf(deleted),
          exchange: deleted,
        });
    },
  },
  {
    id: 'push-config-loopback-refused',
    title: 'A webhook on a loopback address is refused when it is registered (SSRF)',
    requirements: ['PUSH-011'],
    capability: 'pushNotifications',
    async run(context) {
      const sent = await send(context, { message: context.message('conformance: a task to register a loopback webhook for') });
      if (sent.kind !== 'task') return context.skip('PUSH-011', 'precondition-not-met', noTask(sent));
      const taskId = sent.task.id;
      // https, so that an agent refusing plain http is not mistaken for one refusing loopback;
      // the IPv4-mapped IPv6 form is the one guards that compare address strings let through.
      // Port 9 (discard) on the agent's own loopback: an agent that accepts them reaches nothing.
      const probes = [`https://127.0.0.1:9/`, `https://[::ffff:127.0.0.1]:9/`].map(
        (base) => `${base}a2a-conformance-ssrf-probe/${randomUUID()}`,
      );
      const otherwise: string[] = [];
      let last: RpcExchange | undefined;
      for (const url of probes) {
        const created = await context.transport.call('CreateTaskPushNotificationConfig', { taskId, url });
        last = created;
        if (created.error === undefined) {
          context.fail('PUSH-011', {
            message: `a webhook on a loopback address was accepted: ${url}`,
            expected:
              'an error: webhook URLs on loopback, private or link-local addresses are refused (spec §13.2), unless configured otherwise',
            observed: observedOf(created),
            exchange: created,
          });
          const id = isRecord(created.result) ? created.result['id'] : undefined;
          if (typeof id === 'string' && id !== '') await context.transport.call('DeleteTaskPushNotificationConfig', { taskId, id });
          return;
        }
        if (isError(created, 'TaskNotFoundError') || isError(created, 'PushNotificationNotSupportedError'))
          return context.skip('PUSH-011', 'precondition-not-met', `Create was refused for another reason (${observedOf(created)})`);
        if (isError(created, 'InternalError'))
          return context.fail('PUSH-011', {
            message: `a loopback webhook (${url}) made Create fail with InternalError, not a refusal`,
            expected: 'InvalidParamsError naming the url',
            observed: observedOf(created),
            exchange: created,
          });
        if (!isError(created, 'InvalidParamsError')) otherwise.push(`${url}: ${observedOf(created)}`);
      }
      if (otherwise.length > 0)
        return context.warn('PUSH-011', {
          message: 'a loopback webhook was refused, but not as invalid params',
          expected: `${errorLabel('InvalidParamsError')} naming the url`,
          observed: otherwise.join('; '),
          ...(last === undefined ? {} : { exchange: last }),
        });
      context.pass(
        'PUSH-011',
        `loopback webhooks (${probes.length} forms, IPv4-mapped included) are refused at create time as invalid params`,
      );
    },
  },
  {
    id: 'push-delivery-inline',
    title: "A webhook given inline with SendMessage receives the task's events, authenticated, in order",
    requirements: [...DELIVERY, 'WIRE-001'],
    capability: 'pushNotifications',
    async run(context) {
      const inbox = (await context.webhooks()).inbox();
      const credentials = freshSecrets().credentials;
      const sent = await send(context, {
        message: context.message('conformance: a task whose events go to a webhook'),
        configuration: { taskPushNotificationConfig: { url: inbox.url, authentication: { scheme: 'Bearer', credentials } } },
      });
      if (sent.kind !== 'task') {
        if (sent.kind === 'error' && isError(sent.exchange, 'PushNotificationNotSupportedError'))
          return context.fail('PUSH-007', {
            message: 'SendMessage with an inline push config was refused as unsupported',
            expected: 'the config accepted: the card declares capabilities.pushNotifications',
            observed: observedOf(sent.exchange),
            exchange: sent.exchange,
          });
        const why =
          sent.kind === 'error'
            ? `the agent refused SendMessage with an inline push config for ${inbox.url} (${observedOf(sent.exchange)}), so no delivery could be observed${webhookHostHint(inbox)}`
            : noTask(sent);
        return skipAll(context, DELIVERY, 'precondition-not-met', why);
      }
      await awaitDeliveries(context, inbox, sent.task, sent.exchange, `Bearer ${credentials}`);
    },
  },
  {
    id: 'push-delivery-created',
    title: "A webhook created for a running task receives the task's later events, authenticated, in order",
    requirements: [...DELIVERY, 'WIRE-001'],
    capability: 'pushNotifications',
    async run(context) {
      // Black-box, the task is running only if the agent is slow; a profile that can ask for slow work does.
      const sent = await send(context, {
        message: directiveMessage(context, 'conformance: a running task to register a webhook for', SLOW_WORK),
        configuration: { returnImmediately: true },
      });
      if (sent.kind !== 'task') return skipAll(context, DELIVERY, 'precondition-not-met', noTask(sent));
      const state = sent.task.status.state;
      if (isTerminalState(state) || isInterruptedState(state))
        return skipAll(
          context,
          DELIVERY,
          'precondition-not-met',
          `the task was already ${stateLabel(state)} when SendMessage (returnImmediately) answered, so no later event could be delivered`,
        );
      const inbox = (await context.webhooks()).inbox();
      const credentials = freshSecrets().credentials;
      const created = await context.transport.call('CreateTaskPushNotificationConfig', {
        taskId: sent.task.id,
        url: inbox.url,
        authentication: { scheme: 'Bearer', credentials },
      });
      if (created.error !== undefined || created.result === undefined)
        return skipAll(
          context,
          DELIVERY,
          'precondition-not-met',
          `the agent refused to register ${inbox.url} for running task ${sent.task.id} (${observedOf(created)})${webhookHostHint(inbox)}`,
        );
      // A task that ended while the webhook was being registered owes it nothing: that is no failure to deliver.
      const after = await currentTask(context, sent.task.id);
      const endedFirst = after !== undefined && isFinal(after.state) ? after.state : undefined;
      await awaitDeliveries(context, inbox, sent.task, created, `Bearer ${credentials}`, endedFirst);
    },
  },
];

// ---------------------------------------------------------------------------------------------
// Configs

/** The result of a config call as a TaskPushNotificationConfig, its shape judged under `requirement`; undefined when it is none. */
function configIn(context: CheckContext, requirement: RequirementId, exchange: RpcExchange): TaskPushNotificationConfig | undefined {
  const result = exchange.result;
  context.checkShape(requirement, 'TaskPushNotificationConfig', result, { exchange, path: 'result' });
  if (isRecord(result) && typeof result['url'] === 'string') return result as unknown as TaskPushNotificationConfig;
  context.fail(requirement, {
    message: 'the answer is not a push config',
    expected: 'a TaskPushNotificationConfig with its url',
    observed: observedOf(exchange),
    exchange,
  });
  return undefined;
}

/** Where a returned config differs from what it should be. */
function mismatches(config: TaskPushNotificationConfig, wanted: { taskId: string; url: string; id?: string }): string[] {
  const problems: string[] = [];
  if (wanted.id !== undefined && config.id !== wanted.id) problems.push(`id is ${JSON.stringify(config.id)}, not ${wanted.id}`);
  if (config.taskId !== wanted.taskId) problems.push(`taskId is ${JSON.stringify(config.taskId)}, not ${wanted.taskId}`);
  if (config.url !== wanted.url) problems.push(`url is ${JSON.stringify(config.url)}, not ${wanted.url}`);
  return problems;
}

/** A Get (or Create) answer that must be the config `wanted`: PASS, or FAIL saying what differs. */
function expectConfig(
  context: CheckContext,
  requirement: RequirementId,
  exchange: RpcExchange,
  wanted: { taskId: string; id: string; url: string },
  what: string,
): TaskPushNotificationConfig | undefined {
  if (exchange.error !== undefined || exchange.result === undefined) {
    context.fail(requirement, {
      message: `${what} failed`,
      expected: `the config ${wanted.id} of task ${wanted.taskId}`,
      observed: observedOf(exchange),
      exchange,
    });
    return undefined;
  }
  const config = configIn(context, requirement, exchange);
  if (config === undefined) return undefined;
  const problems = mismatches(config, wanted);
  if (problems.length === 0) context.pass(requirement, `${what} returned the config with its url`);
  else
    context.fail(requirement, {
      message: `${what} returned another config`,
      expected: `id ${wanted.id}, taskId ${wanted.taskId}, url ${wanted.url}`,
      observed: problems.join('; '),
      path: 'result',
      exchange,
    });
  return config;
}

/** Every config List shows for the task, following nextPageToken; `configs` undefined when a page failed (already a FAIL). */
async function listConfigs(
  context: CheckContext,
  requirement: RequirementId,
  taskId: string,
): Promise<{ configs?: TaskPushNotificationConfig[]; exchange?: RpcExchange }> {
  const configs: TaskPushNotificationConfig[] = [];
  let pageToken: string | undefined;
  let exchange: RpcExchange | undefined;
  for (let page = 0; page < MAX_PAGES; page++) {
    exchange = await context.transport.call('ListTaskPushNotificationConfigs', {
      taskId,
      ...(pageToken === undefined ? {} : { pageToken }),
    });
    const result = exchange.result;
    if (exchange.error !== undefined || !isRecord(result)) {
      context.fail(requirement, {
        message: 'ListTaskPushNotificationConfigs failed for a task with a config',
        expected: 'a ListTaskPushNotificationConfigsResponse',
        observed: observedOf(exchange),
        exchange,
      });
      return { exchange };
    }
    if (!context.checkShape(requirement, 'ListTaskPushNotificationConfigsResponse', result, { exchange, path: 'result' }))
      return { exchange };
    const listed = Array.isArray(result['configs']) ? (result['configs'] as TaskPushNotificationConfig[]) : [];
    configs.push(...listed);
    const next = result['nextPageToken'];
    if (typeof next !== 'string' || next === '' || next === pageToken) break;
    pageToken = next;
  }
  return { configs, exchange };
}

/** PUSH-013: the secrets given at create time do not come back. */
function judgeRedaction(
  context: CheckContext,
  value: unknown,
  exchange: RpcExchange,
  what: string,
  secrets: { token: string; credentials: string },
): void {
  const text = JSON.stringify(value);
  const echoed = [
    ...(text.includes(secrets.token) ? ['token'] : []),
    ...(text.includes(secrets.credentials) ? ['authentication.credentials'] : []),
  ];
  if (echoed.length === 0) return passOnce(context, 'PUSH-013', `${what} does not return the token or the credentials`, `PUSH-013:${what}`);
  context.warn('PUSH-013', {
    message: `${what} returns the config's ${echoed.join(' and ')} as given`,
    expected: 'token and authentication.credentials left out or masked on the way out',
    observed: `${echoed.join(' and ')} echoed verbatim`,
    exchange,
  });
}

/** PUSH-012: a Create with the id of an existing config replaces it. */
async function judgeReplacement(context: CheckContext, taskId: string, id: string, url: string): Promise<void> {
  const wanted = { taskId, id, url };
  const replaced = await context.transport.call('CreateTaskPushNotificationConfig', { taskId, id, url });
  if (expectConfig(context, 'PUSH-012', replaced, wanted, 'Create with the id of an existing config') === undefined) return;
  expectConfig(
    context,
    'PUSH-012',
    await context.transport.call('GetTaskPushNotificationConfig', { taskId, id }),
    wanted,
    'Get after the re-create',
  );
  const listed = await listConfigs(context, 'PUSH-012', taskId);
  if (listed.configs === undefined) return;
  const same = listed.configs.filter((entry) => entry.id === id);
  if (same.length === 1 && same[0]?.url === url) context.pass('PUSH-012', 'List holds the re-created config once, with its new url');
  else
    context.fail('PUSH-012', {
      message: 'after a re-create List does not hold the config once with its new url',
      expected: `one config with id ${id} and url ${url}`,
      observed: `${same.length} with that id${same.length > 0 ? `: urls ${same.map((entry) => JSON.stringify(entry.url)).join(', ')}` : ''}`,
      ...(listed.exchange === undefined ? {} : { exchange: listed.exchange }),
    });
}

/** PUSH-006: Delete, then Get and List no longer see it, and a repeated Delete succeeds. */
async function judgeDeletion(context: CheckContext, taskId: string, id: string): Promise<void> {
  const deleted = await context.transport.call('DeleteTaskPushNotificationConfig', { taskId, id });
  if (deleted.error !== undefined) {
    context.fail('PUSH-006', {
      message: 'Delete of an existing config failed',
      expected: 'success (an Empty result)',
      observed: observedOf(deleted),
      exchange: deleted,
    });
    return;
  }
  context.pass('PUSH-006', 'Delete of an existing config succeeds');
  expectA2AError(context, 'PUSH-006', await context.transport.call('GetTaskPushNotificationConfig', { taskId, id }), 'TaskNotFoundError');
  const listed = await listConfigs(context, 'PUSH-006', taskId);
  if (listed.configs !== undefined) {
    if (listed.configs.some((entry) => entry.id === id))
      context.fail('PUSH-006', {
        message: 'List still shows the deleted config',
        expected: `no config with id ${id}`,
        observed: `ids ${listed.configs.map((entry) => JSON.stringify(entry.id)).join(', ')}`,
        ...(listed.exchange === undefined ? {} : { exchange: listed.exchange }),
      });
    else context.pass('PUSH-006', 'List no longer shows the deleted config');
  }
  const again = await context.transport.call('DeleteTaskPushNotificationConfig', { taskId, id });
  if (again.error === undefined) context.pass('PUSH-006', 'deleting the same config again succeeds');
  else if (isError(again, 'TaskNotFoundError'))
    context.warn('PUSH-006', {
      message: 'deleting the same config again is refused with TaskNotFoundError',
      expected: 'success: delete is idempotent, a repeat has the same effect',
      observed: observedOf(again),
      exchange: again,
    });
  else
    context.fail('PUSH-006', {
      message: 'deleting the same config again failed',
      expected: `success, or at most ${errorLabel('TaskNotFoundError')}`,
      observed: observedOf(again),
      exchange: again,
    });
}

// ---------------------------------------------------------------------------------------------
// Deliveries

/** A task state after which nothing more is owed: the task ended or waits for its client. */
function isFinal(state: TaskState | undefined): boolean {
  return state !== undefined && (isTerminalState(state) || isInterruptedState(state));
}

/**
 * Waits (up to --webhook-timeout) until the webhook has seen the task's final state, then judges
 * every delivery. The final state is the one the task settles in, read with GetTask when the
 * answer that registered the webhook showed the task still running.
 */
async function awaitDeliveries(
  context: CheckContext,
  inbox: WebhookInbox,
  answered: Task,
  evidence: RpcExchange,
  authorization: string,
  /** The task was already in this final state just after the webhook was registered (a created config). */
  endedFirst?: TaskState,
): Promise<void> {
  let finalState = isFinal(answered.status.state) ? answered.status.state : undefined;
  if (finalState === undefined) {
    const polled = await pollTask(context, answered.id, (task) => isFinal(task.status.state), context.webhookTimeoutMs);
    finalState = polled.task !== undefined && isFinal(polled.task.status.state) ? polled.task.status.state : undefined;
  }
  // A task that had settled before its webhook existed owes it nothing, so waiting the whole
  // --webhook-timeout for it would only slow the run: stragglers get one quiet period.
  const waitMs = endedFirst === undefined ? context.webhookTimeoutMs : Math.min(context.webhookTimeoutMs, QUIET_MS);
  const started = Date.now();
  await inbox.waitFor(
    (arrived) =>
      arrived.some((delivery) => (finalState === undefined ? isFinal(stateIn(delivery.json)) : stateIn(delivery.json) === finalState)),
    waitMs,
  );
  const deliveries = await quietInbox(inbox, Math.max(0, waitMs - (Date.now() - started)));
  if (deliveries.length === 0 && endedFirst !== undefined)
    return skipAll(
      context,
      DELIVERY,
      'precondition-not-met',
      `the task was ${stateLabel(endedFirst)} by the time its webhook was registered, and nothing arrived: it may have had no later event to deliver`,
    );
  judgeDeliveries(context, deliveries, { taskId: answered.id, finalState, authorization, inbox, evidence });
}

/** How long the webhook must stay quiet after the final state before the deliveries are judged. */
const QUIET_MS = 500;

/**
 * The deliveries once none has arrived for QUIET_MS (or `withinMs` ran out): an agent that
 * delivers out of order may send the final state first and the earlier events just after it.
 */
async function quietInbox(inbox: WebhookInbox, withinMs: number): Promise<readonly WebhookDelivery[]> {
  const deadline = Date.now() + withinMs;
  for (;;) {
    const seen = inbox.deliveries().length;
    const now = await inbox.waitFor((arrived) => arrived.length > seen, Math.min(QUIET_MS, Math.max(0, deadline - Date.now())));
    if (now.length === seen || Date.now() >= deadline) return now;
  }
}

interface Expected {
  readonly taskId: string;
  /** The state the task settled in, if the suite saw it settle. */
  readonly finalState: TaskState | undefined;
  readonly authorization: string;
  readonly inbox: WebhookInbox;
  /** The call that registered the webhook: the finding's curl command. */
  readonly evidence: RpcExchange;
}

function judgeDeliveries(context: CheckContext, deliveries: readonly WebhookDelivery[], expected: Expected): void {
  const exchange = expected.evidence;
  if (deliveries.length === 0) {
    const finding = {
      message: `no request reached the webhook within ${context.webhookTimeoutMs} ms`,
      expected: `at least one POST to ${expected.inbox.url} for task ${expected.taskId}`,
      observed: `nothing arrived (a slow agent needs a longer --webhook-timeout${webhookHostHint(expected.inbox)})`,
      exchange,
    };
    context.fail('PUSH-007', finding);
    context.fail('PUSH-009', finding);
    return;
  }
  for (const [index, delivery] of deliveries.entries()) judgeDelivery(context, delivery, index, expected);
  judgeOrder(context, deliveries, expected);
}

/** One webhook request: POST, the configured Authorization, the media type, one StreamResponse about the task. */
function judgeDelivery(context: CheckContext, delivery: WebhookDelivery, index: number, expected: Expected): void {
  const exchange = expected.evidence;
  const where = `delivery ${index + 1}`;
  if (delivery.method === 'POST') passOnce(context, 'PUSH-007', 'webhook notifications are POSTs', 'PUSH-007:method');
  else context.fail('PUSH-007', { message: `${where} is not a POST`, expected: 'POST', observed: delivery.method, exchange });
  const authorization = delivery.headers['authorization'];
  if (authorization !== undefined && sameAuthorization(authorization, expected.authorization))
    passOnce(context, 'PUSH-007', 'webhook notifications carry Authorization: <scheme> <credentials> as configured', 'PUSH-007:auth');
  else
    context.fail('PUSH-007', {
      message: `${where} does not carry the configured Authorization`,
      expected: 'Authorization: Bearer <the credentials of the config>',
      // The credentials are the suite's own, but a finding need not repeat them to make its point.
      observed:
        authorization === undefined
          ? 'no Authorization header'
          : `Authorization: ${authorization.split(/\s+/)[0] ?? ''} <other credentials>`,
      exchange,
    });
  const contentType = delivery.headers['content-type'];
  if (contentType !== undefined && essenceOf(contentType) === MEDIA_TYPES.a2aJson)
    passOnce(context, 'PUSH-008', `webhook notifications are ${MEDIA_TYPES.a2aJson}`);
  else
    context.fail('PUSH-008', {
      message: `${where} has another Content-Type`,
      expected: `Content-Type: ${MEDIA_TYPES.a2aJson}`,
      observed: contentType === undefined ? 'no Content-Type' : `Content-Type: ${contentType}`,
      exchange,
    });
  if (delivery.json === undefined) {
    context.fail('PUSH-007', {
      message: `${where} has no JSON body`,
      expected: 'a StreamResponse',
      observed: short(delivery.bodyText) || '(empty body)',
      exchange,
    });
    return;
  }
  const shaped = context.checkShape('PUSH-007', 'StreamResponse', delivery.json, { exchange, path: `webhook[${index}]` });
  if (shaped) passOnce(context, 'PUSH-007', 'webhook bodies are StreamResponse JSON', 'PUSH-007:body');
  const kinds = kindsOf(delivery.json);
  const taskId = idsIn(delivery.json)?.taskId ?? payloadOf(delivery.json, 'message')?.['taskId'];
  if (kinds.length === 1 && taskId === expected.taskId)
    passOnce(context, 'PUSH-010', 'every webhook body holds one StreamResponse member about the task');
  else
    context.fail('PUSH-010', {
      message: `${where} is not one StreamResponse member about task ${expected.taskId}`,
      expected: `exactly one of task, message, statusUpdate, artifactUpdate, carrying task id ${expected.taskId}`,
      observed: `members ${kinds.join(', ') || '(none)'}, task id ${JSON.stringify(taskId)}`,
      path: `webhook[${index}]`,
      exchange,
    });
}

/** The scheme compares case-insensitively (RFC 9110 §11.1); the credentials exactly. */
function sameAuthorization(sent: string, wanted: string): boolean {
  const [sentScheme = '', ...sentRest] = sent.trim().split(/\s+/);
  const [wantedScheme = '', ...wantedRest] = wanted.split(' ');
  return sentScheme.toLowerCase() === wantedScheme.toLowerCase() && sentRest.join(' ') === wantedRest.join(' ');
}

/** PUSH-009 (the final state arrived) and PUSH-015 (the states arrived in an order the state machine allows). */
function judgeOrder(context: CheckContext, deliveries: readonly WebhookDelivery[], expected: Expected): void {
  const exchange = expected.evidence;
  const states = deliveries.flatMap((delivery) => {
    const state = stateIn(delivery.json);
    return state === undefined ? [] : [state];
  });
  const sequence = states.map(stateLabel).join(' → ') || '(no state)';
  const settled = expected.finalState;
  if (settled === undefined)
    context.skip(
      'PUSH-009',
      'inconclusive',
      `the task did not settle within ${context.webhookTimeoutMs} ms, so it is unknown which updates were owed (states delivered: ${sequence})`,
    );
  else if (states.includes(settled))
    context.pass('PUSH-009', `the webhook received the task's updates up to its final state ${stateLabel(settled)}`);
  else
    context.fail('PUSH-009', {
      message: `the final state ${stateLabel(settled)} never reached the webhook within ${context.webhookTimeoutMs} ms`,
      expected: `a delivery carrying ${settled}`,
      observed: `states delivered: ${sequence}`,
      exchange,
    });
  for (let index = 1; index < states.length; index++) {
    const from = states[index - 1] as TaskState;
    const to = states[index] as TaskState;
    if (from === to || canTransition(from, to)) continue;
    context.fail('PUSH-015', {
      message: `the webhook received ${stateLabel(to)} after ${stateLabel(from)}, which the state machine does not allow`,
      expected: 'deliveries in the order the task changed',
      observed: `states delivered: ${sequence}`,
      exchange,
    });
    return;
  }
  if (settled !== undefined && states.length > 0 && states.at(-1) !== settled) {
    context.fail('PUSH-015', {
      message: `the last state delivered is ${stateLabel(states.at(-1) as TaskState)}, not the final ${stateLabel(settled)}`,
      expected: `${settled} last`,
      observed: `states delivered: ${sequence}`,
      exchange,
    });
    return;
  }
  if (states.length > 0) context.pass('PUSH-015', `deliveries follow the task's state machine (${sequence})`);
  else context.skip('PUSH-015', 'inconclusive', 'no delivery carried a task state, so there is no order to judge');
}

/** Said beside every webhook that could not be reached or registered: the agent may not be allowed to reach loopback. */
function webhookHostHint(inbox: WebhookInbox): string {
  const host = new URL(inbox.url).hostname;
  return ['127.0.0.1', 'localhost', '[::1]'].includes(host)
    ? `; the webhook is on loopback (${host}): an agent that may not or cannot reach it needs --webhook-host <an address it can reach>`
    : '';
}
