import { randomUUID } from 'node:crypto';
import { METHODS as METHODS_03, type MethodName as Method03, type MethodTypes as Types03 } from '../../generated/a2a/0.3/methods.js';
import { METHODS, type MethodName, type MethodTypes } from '../../generated/a2a/1.0/methods.js';
import type { SendMessageRequest, StreamResponse, TaskPushNotificationConfig } from '../../generated/a2a/1.0/types.js';
import type { GatewaySendConfiguration } from '../../generated/hub/types.js';
import { HUB } from '../protocol/hub-schema.js';
import { isRecord } from '../support/records.js';
import { a2aError, isA2AError, type A2AError } from '../protocol/a2a-error.js';
import { A2A_0_3 } from '../protocol/a2a-schema.js';
import { checkParams, invalidParams } from '../protocol/params.js';
import { projectToSchema } from '../protocol/project.js';
import { agentCardTo03 } from '../protocol/v03/agent-cards.js';
import { sendResultTo03, streamResponseTo03 } from '../protocol/v03/events.js';
import * as params03 from '../protocol/v03/params.js';
import { taskPushConfigTo03 } from '../protocol/v03/push-configs.js';
import { taskTo03 } from '../protocol/v03/tasks.js';
import { UntranslatableError } from '../protocol/untranslatable.js';
import { checkValue } from '../protocol/validation.js';
import { underPrefix } from '../protocol/violations.js';
import type { A2AHandler, CallContext, CallResult } from './a2a-handler.js';

/**
 * A2A 0.3 calls served by the 1.0 handler: the 0.3 params are checked against spec/a2a/0.3,
 * translated (src/protocol/v03), checked again as the 1.0 request (1.0 constrains values 0.3
 * leaves free), and the 1.0 result or stream frames are translated back. Tasks are the same
 * tasks whichever version created or reads them. Transport-neutral, like the handler.
 */
export interface Call03 {
  readonly method: Method03;
  readonly params: unknown;
  /** Seed 004's `configuration.skills` of a send: the skills the task may run (gateway.schema.json GatewaySendConfiguration). */
  readonly skills?: readonly string[];
}

/** A 0.3 result, or a stream whose 1.0 frames the binding renders with `frame`. */
export type Result03 =
  | { readonly kind: 'result'; readonly result: unknown; readonly headers?: CallResult['headers'] }
  | {
      readonly kind: 'stream';
      readonly frames: Extract<CallResult, { kind: 'stream' }>['frames'];
      /** A frame in 0.3; undefined for one sent after the final status event, which ends a 0.3 stream. */
      readonly frame: (frame: StreamResponse) => unknown;
      /** The 1.0 method whose frames these are, which they are self-checked as before translation. */
      readonly streamedAs: MethodName;
      readonly headers?: CallResult['headers'];
    };

/**
 * The 0.3 method a name selects: its own slash name, or (seed 004's gateway aliases) the 1.0
 * PascalCase name of the same operation, which a request made in 0.3 may use with 0.3 shapes.
 */
export function method03Of(name: string): Method03 | undefined {
  if (Object.hasOwn(METHODS_03, name)) return name as Method03;
  const legacy = Object.hasOwn(METHODS, name) ? METHODS[name as MethodName].legacyName : null;
  return legacy !== null && Object.hasOwn(METHODS_03, legacy) ? (legacy as Method03) : undefined;
}

/** Resolves and checks a 0.3 call: -32601 for a method 0.3 does not have, -32602 for params its schema refuses. */
export function resolve03Call(
  name: string,
  raw: unknown,
  fieldPrefix: string,
): { ok: true; value: Call03 } | { ok: false; error: A2AError } {
  const method = method03Of(name);
  if (method === undefined)
    return {
      ok: false,
      error: a2aError(
        'MethodNotFoundError',
        `method ${JSON.stringify(name)} does not exist in A2A 0.3 (send A2A-Version: 1.0 for the 1.0 methods)`,
        {
          metadata: { method: name },
        },
      ),
    };
  const definition = METHODS_03[method];
  if (raw === undefined && !definition.paramsOptional)
    return {
      ok: false,
      error: invalidParams([{ field: fieldPrefix, description: 'is required' }], `${method} needs params (a ${definition.paramsType})`),
    };
  const sends = definition.paramsType === 'MessageSendParams';
  const given = sends ? withGatewayMessageDefaults(raw) : raw;
  const checked = checkValue(A2A_0_3, definition.paramsType as never, given ?? {}, fieldPrefix === '' ? {} : { fieldPrefix });
  if (!checked.ok) return { ok: false, error: invalidParams(checked.violations) };
  const params = projectToSchema(A2A_0_3.document, definition.paramsType, checked.value);
  const gateway = sends ? gatewayConfigurationOf(raw, fieldPrefix) : { ok: true as const, value: {} };
  if (!gateway.ok) return gateway;
  return { ok: true, value: { method, params, ...(gateway.value.skills === undefined ? {} : { skills: gateway.value.skills }) } };
}

/**
 * Seed 004's gateway takes a sent message without `kind` and `messageId` (its own example has
 * neither): the message kind is the only one a send's message can have, and a missing id gets a
 * fresh one, so such a message is never taken for a resend of another (docs/spec-policy.md 10.4).
 */
function withGatewayMessageDefaults(raw: unknown): unknown {
  if (!isRecord(raw) || !isRecord(raw['message'])) return raw;
  const message = raw['message'];
  if (message['kind'] !== undefined && message['messageId'] !== undefined) return raw;
  return { ...raw, message: { kind: 'message', messageId: randomUUID(), ...message } };
}

/** The members seed 004 adds to a send's configuration, which the 0.3 schema does not know. */
function gatewayConfigurationOf(
  raw: unknown,
  fieldPrefix: string,
): { ok: true; value: GatewaySendConfiguration } | { ok: false; error: A2AError } {
  const configuration = isRecord(raw) ? raw['configuration'] : undefined;
  if (configuration === undefined) return { ok: true, value: {} };
  const field = underPrefix(fieldPrefix, 'configuration');
  const checked = checkValue(HUB, 'GatewaySendConfiguration', configuration, { fieldPrefix: field });
  return checked.ok ? { ok: true, value: checked.value } : { ok: false, error: invalidParams(checked.violations) };
}

/**
 * A send limited to `skills` (seed 004): the skill the message names must be one of them, and
 * one that names none runs the first of them the agent advertises (or the first, which the
 * runtime then rejects as unknown, naming the skills the agent has).
 */
function limitedToSkills(request: SendMessageRequest, running: Running): SendMessageRequest {
  const skills = running.skills;
  if (skills === undefined) return request;
  const named = [request.message.metadata?.['skill'], request.metadata?.['skill']].find(
    (skill): skill is string => typeof skill === 'string' && skill !== '',
  );
  if (named !== undefined) {
    if (skills.includes(named)) return request;
    throw invalidParams([
      {
        field: underPrefix(running.fieldPrefix, 'configuration.skills'),
        description: `does not include ${JSON.stringify(named)}, the skill the message names`,
      },
    ]);
  }
  const skill = skills.find((candidate) => running.context.agent.skills.includes(candidate)) ?? skills[0];
  return { ...request, metadata: { ...request.metadata, skill } };
}

/** Runs a checked 0.3 call on the 1.0 handler and translates what comes back. */
export async function run03Call(handler: A2AHandler, call: Call03, context: CallContext, fieldPrefix: string): Promise<Result03> {
  const run = RUNS[call.method] as Run<Method03>;
  return run(call.params as never, { handler, context, fieldPrefix, ...(call.skills === undefined ? {} : { skills: call.skills }) });
}

interface Running {
  readonly handler: A2AHandler;
  readonly context: CallContext;
  readonly fieldPrefix: string;
  readonly skills?: readonly string[];
}

type Run<M extends Method03> = (params: Types03[M]['params'], running: Running) => Promise<Result03>;

/** One entry per 0.3 method: a method added to spec/a2a/0.3/methods.json does not compile until it has one. */
const RUNS: { readonly [M in Method03]: Run<M> } = {
  'message/send': async (params, running) =>
    result(
      await call(
        running,
        'SendMessage',
        limitedToSkills(
          translated(() => params03.sendParamsFrom03(params), running),
          running,
        ),
      ),
      sendResultTo03,
    ),
  'message/stream': async (params, running) =>
    stream(
      'SendStreamingMessage',
      await call(
        running,
        'SendStreamingMessage',
        limitedToSkills(
          translated(() => params03.sendParamsFrom03(params), running),
          running,
        ),
      ),
    ),
  'tasks/get': async (params, running) => result(await call(running, 'GetTask', params03.getTaskParamsFrom03(params)), taskTo03),
  'tasks/cancel': async (params, running) => result(await call(running, 'CancelTask', params03.cancelParamsFrom03(params)), taskTo03),
  'tasks/resubscribe': async (params, running) =>
    stream('SubscribeToTask', await call(running, 'SubscribeToTask', params03.subscribeParamsFrom03(params))),
  'tasks/pushNotificationConfig/set': async (params, running) =>
    result(
      await call(
        running,
        'CreateTaskPushNotificationConfig',
        translated(() => params03.setPushConfigParamsFrom03(params), running),
      ),
      taskPushConfigTo03,
    ),
  'tasks/pushNotificationConfig/get': async (params, running) => {
    const request = params03.getPushConfigParamsFrom03(params);
    if (request.id !== undefined)
      return result(await call(running, 'GetTaskPushNotificationConfig', { taskId: request.taskId, id: request.id }), taskPushConfigTo03);
    // 0.3 asks by the task alone for the task's one config (0.2 had one per task): the first stored.
    const configs = await allConfigs(running, request.taskId);
    const first = configs[0];
    if (first === undefined)
      throw invalidParams(
        [{ field: underPrefix(running.fieldPrefix, 'id'), description: 'names a task without push notification configs' }],
        `task ${request.taskId} has no push notification config`,
      );
    return { kind: 'result', result: taskPushConfigTo03(first) };
  },
  'tasks/pushNotificationConfig/list': async (params, running) => ({
    kind: 'result',
    result: (await allConfigs(running, params03.listPushConfigParamsFrom03(params).taskId)).map(taskPushConfigTo03),
  }),
  'tasks/pushNotificationConfig/delete': async (params, running) =>
    result(await call(running, 'DeleteTaskPushNotificationConfig', params03.deletePushConfigParamsFrom03(params)), () => null),
  'agent/getAuthenticatedExtendedCard': async (_params, running) => result(await call(running, 'GetExtendedAgentCard', {}), agentCardTo03),
};

/** 0.3 lists every config of a task at once; 1.0 pages, so every page is read. */
async function allConfigs(running: Running, taskId: string): Promise<TaskPushNotificationConfig[]> {
  const configs: TaskPushNotificationConfig[] = [];
  let pageToken: string | undefined;
  do {
    const page = await call(running, 'ListTaskPushNotificationConfigs', { taskId, ...(pageToken === undefined ? {} : { pageToken }) });
    if (page.kind !== 'result') break;
    const listed = page.result as MethodTypes['ListTaskPushNotificationConfigs']['result'];
    configs.push(...(listed.configs ?? []));
    pageToken = listed.nextPageToken === '' ? undefined : listed.nextPageToken;
  } while (pageToken !== undefined);
  return configs;
}

/**
 * The translated request, checked as the 1.0 request message of `method`: the values 1.0
 * constrains (non-empty ids and parts, timestamps, base64) are refused with field paths, as
 * they would be for a 1.0 caller.
 */
async function call<M extends MethodName>(running: Running, method: M, request: MethodTypes[M]['params']): Promise<CallResult> {
  const checked = checkParams(method, request, running.fieldPrefix);
  if (!checked.ok) throw checked.error;
  return running.handler.call(method, checked.value as MethodTypes[M]['params'], running.context).catch((error: unknown) => {
    throw isA2AError(error) ? error.withFieldPrefix(running.fieldPrefix) : error;
  });
}

/** A 0.3 value with no 1.0 counterpart (e.g. an empty authentication scheme list) is an invalid param. */
function translated<T>(translate: () => T, running: Running): T {
  try {
    return translate();
  } catch (error) {
    if (!(error instanceof UntranslatableError)) throw error;
    throw invalidParams([{ field: underPrefix(running.fieldPrefix, error.path), description: error.message.slice(error.path.length + 2) }]);
  }
}

function result(answer: CallResult, translate: (value: never) => unknown): Result03 {
  if (answer.kind !== 'result') throw new Error('a 0.3 unary method got a stream from the handler');
  return {
    kind: 'result',
    result: translate(answer.result as never),
    ...(answer.headers === undefined ? {} : { headers: answer.headers }),
  };
}

function stream(streamedAs: MethodName, answer: CallResult): Result03 {
  if (answer.kind !== 'stream') return { kind: 'result', result: answer.result };
  // A 0.3 client reads `final: true` as the end of the stream: the Task snapshot a 1.0 stream
  // closes with after its terminal status event has no place in 0.3 (docs/spec-policy.md 10.3).
  let ended = false;
  return {
    kind: 'stream',
    frames: answer.frames,
    streamedAs,
    frame: (frame) => {
      if (ended) return undefined;
      const translated = streamResponseTo03(frame);
      ended = translated.kind === 'status-update' && translated.final;
      return translated;
    },
    ...(answer.headers === undefined ? {} : { headers: answer.headers }),
  };
}
