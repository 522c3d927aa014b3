import type * as V03 from '../../../generated/a2a/0.3/types.js';
import type * as V10 from '../../../generated/a2a/1.0/types.js';
import { withoutUndefined } from '../../support/records.js';
import { UntranslatableError } from '../untranslatable.js';

/**
 * Push notification configs. 1.0 flattened 0.3's `{taskId, pushNotificationConfig: {id, url,
 * token, authentication: {schemes, credentials}}}` into one object and made the scheme single.
 *
 * Lossy toward 0.3: `tenant` (0.3 has none). Lossy toward 1.0: every authentication scheme but
 * the first (1.0 has one).
 */
export function pushConfigTo03(config: V10.TaskPushNotificationConfig): V03.PushNotificationConfig {
  return withoutUndefined({
    id: config.id,
    url: config.url,
    token: config.token,
    authentication:
      config.authentication === undefined
        ? undefined
        : withoutUndefined({ schemes: [config.authentication.scheme], credentials: config.authentication.credentials }),
  });
}

/** An inline config (SendMessage's configuration) names no task; a stored one does, as `taskId`. */
export function pushConfigFrom03(
  config: V03.PushNotificationConfig,
  taskId?: string,
  path = 'pushNotificationConfig',
): V10.TaskPushNotificationConfig {
  const authentication = config.authentication;
  const scheme = authentication?.schemes[0];
  if (authentication !== undefined && scheme === undefined)
    throw new UntranslatableError(`${path}.authentication.schemes`, 'lists no scheme, and A2A 1.0 needs one');
  return withoutUndefined({
    id: config.id,
    taskId,
    url: config.url,
    token: config.token,
    authentication: scheme === undefined ? undefined : withoutUndefined({ scheme, credentials: authentication?.credentials }),
  });
}

export function taskPushConfigTo03(config: V10.TaskPushNotificationConfig): V03.TaskPushNotificationConfig {
  if (config.taskId === undefined) throw new UntranslatableError('taskId', 'a stored push config names its task in A2A 0.3');
  return { taskId: config.taskId, pushNotificationConfig: pushConfigTo03(config) };
}

export function taskPushConfigFrom03(config: V03.TaskPushNotificationConfig): V10.TaskPushNotificationConfig {
  return pushConfigFrom03(config.pushNotificationConfig, config.taskId);
}
