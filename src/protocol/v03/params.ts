import type * as V03 from '../../../generated/a2a/0.3/types.js';
import type * as V10 from '../../../generated/a2a/1.0/types.js';
import { withoutUndefined } from '../../support/records.js';
import { messageFrom03, messageTo03 } from './messages.js';
import { pushConfigFrom03, pushConfigTo03, taskPushConfigFrom03, taskPushConfigTo03 } from './push-configs.js';

/**
 * Method params. 1.0 added `tenant` to every request (lossy toward 0.3), renamed the send
 * configuration's `blocking` to its negation `returnImmediately` (absent stays absent, so both
 * defaults, "wait", meet), and names push configs `{taskId, id}` where 0.3 said
 * `{id, pushNotificationConfigId}`. 0.3's `metadata` on task queries, subscriptions and push
 * config requests has no 1.0 member and is dropped coming in.
 */
export function sendConfigurationTo03(configuration: V10.SendMessageConfiguration): V03.MessageSendConfiguration {
  return withoutUndefined({
    acceptedOutputModes: configuration.acceptedOutputModes,
    blocking: configuration.returnImmediately === undefined ? undefined : !configuration.returnImmediately,
    historyLength: configuration.historyLength,
    pushNotificationConfig:
      configuration.taskPushNotificationConfig === undefined ? undefined : pushConfigTo03(configuration.taskPushNotificationConfig),
  });
}

export function sendConfigurationFrom03(configuration: V03.MessageSendConfiguration): V10.SendMessageConfiguration {
  return withoutUndefined({
    acceptedOutputModes: configuration.acceptedOutputModes,
    returnImmediately: configuration.blocking === undefined ? undefined : !configuration.blocking,
    historyLength: configuration.historyLength,
    taskPushNotificationConfig:
      configuration.pushNotificationConfig === undefined
        ? undefined
        : pushConfigFrom03(configuration.pushNotificationConfig, undefined, 'configuration.pushNotificationConfig'),
  });
}

export function sendParamsTo03(request: V10.SendMessageRequest): V03.MessageSendParams {
  return withoutUndefined({
    message: messageTo03(request.message),
    configuration: request.configuration === undefined ? undefined : sendConfigurationTo03(request.configuration),
    metadata: request.metadata,
  });
}

export function sendParamsFrom03(params: V03.MessageSendParams): V10.SendMessageRequest {
  return withoutUndefined({
    message: messageFrom03(params.message),
    configuration: params.configuration === undefined ? undefined : sendConfigurationFrom03(params.configuration),
    metadata: params.metadata,
  });
}

export function getTaskParamsTo03(request: V10.GetTaskRequest): V03.TaskQueryParams {
  return withoutUndefined({ id: request.id, historyLength: request.historyLength });
}

export function getTaskParamsFrom03(params: V03.TaskQueryParams): V10.GetTaskRequest {
  return withoutUndefined({ id: params.id, historyLength: params.historyLength });
}

export function cancelParamsTo03(request: V10.CancelTaskRequest): V03.TaskIdParams {
  return withoutUndefined({ id: request.id, metadata: request.metadata });
}

export function cancelParamsFrom03(params: V03.TaskIdParams): V10.CancelTaskRequest {
  return withoutUndefined({ id: params.id, metadata: params.metadata });
}

export function subscribeParamsTo03(request: V10.SubscribeToTaskRequest): V03.TaskIdParams {
  return { id: request.id };
}

export function subscribeParamsFrom03(params: V03.TaskIdParams): V10.SubscribeToTaskRequest {
  return { id: params.id };
}

export const setPushConfigParamsTo03 = taskPushConfigTo03;
export const setPushConfigParamsFrom03 = taskPushConfigFrom03;

export function getPushConfigParamsTo03(request: V10.GetTaskPushNotificationConfigRequest): V03.GetTaskPushNotificationConfigParams {
  return { id: request.taskId, pushNotificationConfigId: request.id };
}

/**
 * 0.3 may ask for a task's push config by the task alone (`{id}`), meaning its only one; 1.0
 * always names the config. Without a config id the result has none, and the caller decides.
 */
export function getPushConfigParamsFrom03(
  params: V03.GetTaskPushNotificationConfigRequestParams,
): Omit<V10.GetTaskPushNotificationConfigRequest, 'id'> & { id?: string } {
  const configId = 'pushNotificationConfigId' in params ? params.pushNotificationConfigId : undefined;
  return withoutUndefined({ taskId: params.id, id: configId });
}

export function deletePushConfigParamsTo03(
  request: V10.DeleteTaskPushNotificationConfigRequest,
): V03.DeleteTaskPushNotificationConfigParams {
  return { id: request.taskId, pushNotificationConfigId: request.id };
}

export function deletePushConfigParamsFrom03(
  params: V03.DeleteTaskPushNotificationConfigParams,
): V10.DeleteTaskPushNotificationConfigRequest {
  return { taskId: params.id, id: params.pushNotificationConfigId };
}

/** 0.3 lists every config at once: 1.0's paging members have nowhere to go. */
export function listPushConfigParamsTo03(request: V10.ListTaskPushNotificationConfigsRequest): V03.ListTaskPushNotificationConfigParams {
  return { id: request.taskId };
}

export function listPushConfigParamsFrom03(params: V03.ListTaskPushNotificationConfigParams): V10.ListTaskPushNotificationConfigsRequest {
  return { taskId: params.id };
}

export function listPushConfigResultTo03(response: V10.ListTaskPushNotificationConfigsResponse): V03.ListTaskPushNotificationConfigResult {
  return (response.configs ?? []).map(taskPushConfigTo03);
}

export function listPushConfigResultFrom03(result: V03.ListTaskPushNotificationConfigResult): V10.ListTaskPushNotificationConfigsResponse {
  return { configs: result.map(taskPushConfigFrom03) };
}
