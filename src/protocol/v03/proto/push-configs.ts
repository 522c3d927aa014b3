import { METHODS as METHODS_03 } from '../../../../generated/a2a/0.3/methods.js';
import type * as V03 from '../../../../generated/a2a/0.3/types.js';
import type * as P from '../../../../generated/a2a/0.3/rest/types.js';
import { withoutUndefined } from '../../../support/records.js';
import { compileRoutes, namePatternOf, piecesOfName, resourceNameOf, type RestRoute } from '../../rest-routes.js';
import { UntranslatableError } from '../../untranslatable.js';

/**
 * Push notification configs. The config itself has the same members in both forms; a task's
 * config names its task by resource name in ProtoJSON (`tasks/{taskId}/pushNotificationConfigs/{id}`)
 * where the JSON form has `taskId`.
 */
export function pushConfigToProto(config: V03.PushNotificationConfig): P.PushNotificationConfig {
  return withoutUndefined({
    id: config.id,
    url: config.url,
    token: config.token,
    authentication: config.authentication === undefined ? undefined : withoutUndefined({ ...config.authentication }),
  });
}

export function pushConfigFromProto(config: P.PushNotificationConfig, path: string): V03.PushNotificationConfig {
  if (config.url === undefined || config.url === '') throw new UntranslatableError(`${path}.url`, 'is required');
  const authentication = config.authentication;
  return withoutUndefined({
    id: config.id === '' ? undefined : config.id,
    url: config.url,
    token: config.token === '' ? undefined : config.token,
    authentication:
      authentication === undefined
        ? undefined
        : withoutUndefined({
            schemes: authentication.schemes ?? [],
            credentials: authentication.credentials === '' ? undefined : authentication.credentials,
          }),
  });
}

/** Where the 0.3 proto spells a config's resource name: the `name` of its GET route. */
const CONFIG_NAME = {
  route: compileRoutes([METHODS_03['tasks/pushNotificationConfig/get']])[0] as RestRoute<string>,
  field: 'name',
} as const;

/** The resource name of a task's config. */
export function pushConfigName(taskId: string, configId: string): string {
  return resourceNameOf(CONFIG_NAME.route, CONFIG_NAME.field, [taskId, configId]);
}

/** The task and config ids of a config's resource name; the task is the one the caller knows when the name fits it. */
function parseConfigName(name: string, taskId: string | undefined): { task: string; config: string } | undefined {
  const pieces = piecesOfName(CONFIG_NAME.route, CONFIG_NAME.field, name, [taskId]);
  if (pieces === undefined) return undefined;
  const [task, config] = pieces as [string, string];
  return { task, config };
}

export function taskPushConfigToProto(config: V03.TaskPushNotificationConfig): P.TaskPushNotificationConfig {
  return {
    name: pushConfigName(config.taskId, config.pushNotificationConfig.id ?? ''),
    pushNotificationConfig: pushConfigToProto(config.pushNotificationConfig),
  };
}

/**
 * A task's config as the JSON form has it. The task is the one `taskId` names when the caller
 * knows it (a route's path); otherwise the resource name's. A config id only the name gives is
 * carried into the config.
 */
export function taskPushConfigFromProto(
  config: P.TaskPushNotificationConfig,
  path: string,
  taskId?: string,
): V03.TaskPushNotificationConfig {
  const named = config.name === undefined || config.name === '' ? undefined : (parseConfigName(config.name, taskId) ?? null);
  if (named === null) throw new UntranslatableError(`${path}.name`, `must be ${namePatternOf(CONFIG_NAME.route, CONFIG_NAME.field)}`);
  if (taskId !== undefined && named !== undefined && named.task !== taskId) {
    throw new UntranslatableError(
      `${path}.name`,
      `names task ${JSON.stringify(named.task)}, not ${JSON.stringify(taskId)}, the task of the path`,
    );
  }
  const task = taskId ?? named?.task;
  if (task === undefined) throw new UntranslatableError(`${path}.name`, 'is required: it names the task');
  if (config.pushNotificationConfig === undefined) throw new UntranslatableError(`${path}.pushNotificationConfig`, 'is required');
  const pushed = pushConfigFromProto(config.pushNotificationConfig, `${path}.pushNotificationConfig`);
  const nameId = named?.config === '' ? undefined : named?.config;
  if (pushed.id !== undefined && nameId !== undefined && pushed.id !== nameId) {
    throw new UntranslatableError(
      `${path}.name`,
      `names config ${JSON.stringify(nameId)}, but the config's id is ${JSON.stringify(pushed.id)}`,
    );
  }
  const id = pushed.id ?? nameId;
  return { taskId: task, pushNotificationConfig: withoutUndefined({ ...pushed, id }) };
}
