import { CONTROL_ENDPOINTS, type ControlActionTypes } from '../../generated/control/api.js';
import type { ActionSuccess } from '../../generated/control/types.js';
import { OperationError } from '../support/operation-error.js';
import type { ControlDeps } from './control-deps.js';

type PushActionName = 'push.retry' | 'push.delete';

const PUSH_READ_PATH = CONTROL_ENDPOINTS['GET /a2a/api/push'].path;

/**
 * The push actions of the control API. Like every action, a failure is an OperationError the
 * router answers with 409; the task is looked up first, so an unknown task always reads the
 * same as it does for task.cancel.
 */
export const PUSH_ACTION_HANDLERS: {
  readonly [A in PushActionName]: (action: ControlActionTypes[A], deps: ControlDeps) => Promise<ActionSuccess>;
} = {
  'push.retry': async ({ taskId, configId }, { store, retryPush }) => {
    await requireTask(store, taskId);
    const record = await store.getPushConfig(taskId, configId);
    if (record === undefined)
      throw new OperationError(`task ${taskId} has no push config "${configId}"; GET ${PUSH_READ_PATH}?taskId=${taskId} lists its configs`);
    const { health } = record;
    await retryPush(taskId, configId);
    const pending = await store.pendingDeliveries(taskId, configId);
    const now = health.state === 'active' ? 'is active' : 'is active again';
    const dropped = health.state === 'disabled' ? '; it had been disabled, and the deliveries dropped then are not restored' : '';
    return {
      ok: true,
      message: `push config "${configId}" of task ${taskId} ${now}: ${plural(pending, 'pending delivery', 'pending deliveries')} due now${dropped}`,
      taskId,
      id: configId,
    };
  },
  'push.delete': async ({ taskId, configId }, { store }) => {
    await requireTask(store, taskId);
    const pending = await store.pendingDeliveries(taskId, configId);
    const deleted = await store.deletePushConfig(taskId, configId);
    const message = deleted
      ? `push config "${configId}" of task ${taskId} deleted with ${plural(pending, 'pending delivery', 'pending deliveries')}`
      : `task ${taskId} has no push config "${configId}" (already deleted): nothing to do`;
    return { ok: true, message, taskId, id: configId };
  },
};

async function requireTask(store: ControlDeps['store'], taskId: string): Promise<void> {
  if ((await store.getTaskInfo(taskId)) === undefined) throw new OperationError(`no task has id "${taskId}"`);
}

function plural(count: number, one: string, many: string): string {
  return `${count} ${count === 1 ? one : many}`;
}
