import type { MethodName as Method03 } from '../../../generated/a2a/0.3/methods.js';
import type * as V03 from '../../../generated/a2a/0.3/types.js';
import type { MethodName, MethodTypes, StreamingMethodName } from '../../../generated/a2a/1.0/methods.js';
import type * as V10 from '../../../generated/a2a/1.0/types.js';
import { agentCardFrom03 } from './agent-cards.js';
import { sendResultFrom03, streamResponseFrom03 } from './events.js';
import * as params03 from './params.js';
import { taskPushConfigFrom03 } from './push-configs.js';
import { taskFrom03 } from './tasks.js';

/**
 * A 1.0 call made of a 0.3 agent: the 0.3 method of the same operation, its params made from the
 * 1.0 request, and the 1.0 result made from the 0.3 one (already checked against spec/a2a/0.3).
 * One entry per 1.0 method, so a method added to spec/a2a/1.0/methods.json does not compile
 * until it says what it is in 0.3; `undefined` for what 0.3 has no method for (ListTasks).
 * A client, outbound tools and the conformance suite all call 0.3 agents through this table.
 */
export interface CallIn03<M extends MethodName> {
  readonly method: Method03;
  readonly params: (request: MethodTypes[M]['params']) => unknown;
  /** The 0.3 result → the 1.0 result; for a streaming method, one 0.3 frame → one StreamResponse. */
  readonly result: (result: never) => M extends StreamingMethodName ? V10.StreamResponse : MethodTypes[M]['result'];
}

export const CALLS_IN_03: { readonly [M in MethodName]: CallIn03<M> | undefined } = {
  SendMessage: {
    method: 'message/send',
    params: params03.sendParamsTo03,
    result: (result: V03.SendMessageResult) => sendResultFrom03(result),
  },
  SendStreamingMessage: {
    method: 'message/stream',
    params: params03.sendParamsTo03,
    result: (frame: V03.SendStreamingMessageResult) => streamResponseFrom03(frame),
  },
  GetTask: { method: 'tasks/get', params: params03.getTaskParamsTo03, result: (task: V03.Task) => taskFrom03(task) },
  ListTasks: undefined,
  CancelTask: { method: 'tasks/cancel', params: params03.cancelParamsTo03, result: (task: V03.Task) => taskFrom03(task) },
  SubscribeToTask: {
    method: 'tasks/resubscribe',
    params: params03.subscribeParamsTo03,
    result: (frame: V03.SendStreamingMessageResult) => streamResponseFrom03(frame),
  },
  CreateTaskPushNotificationConfig: {
    method: 'tasks/pushNotificationConfig/set',
    params: params03.setPushConfigParamsTo03,
    result: (config: V03.TaskPushNotificationConfig) => taskPushConfigFrom03(config),
  },
  GetTaskPushNotificationConfig: {
    method: 'tasks/pushNotificationConfig/get',
    params: params03.getPushConfigParamsTo03,
    result: (config: V03.TaskPushNotificationConfig) => taskPushConfigFrom03(config),
  },
  ListTaskPushNotificationConfigs: {
    method: 'tasks/pushNotificationConfig/list',
    params: params03.listPushConfigParamsTo03,
    result: (configs: V03.ListTaskPushNotificationConfigResult) => params03.listPushConfigResultFrom03(configs),
  },
  DeleteTaskPushNotificationConfig: {
    method: 'tasks/pushNotificationConfig/delete',
    params: params03.deletePushConfigParamsTo03,
    // 0.3 answers null; 1.0's Empty is `{}`.
    result: () => ({}),
  },
  GetExtendedAgentCard: {
    method: 'agent/getAuthenticatedExtendedCard',
    params: () => ({}),
    result: (card: V03.AgentCard) => agentCardFrom03(card),
  },
};

/** The 0.3 form of a 1.0 call, or undefined when 0.3 has no such operation. */
export function callIn03<M extends MethodName>(method: M): CallIn03<M> | undefined {
  return CALLS_IN_03[method];
}
