import type { PresetRegistry } from '../executors/presets.js';
import type { InboundRegistry } from '../inbound/inbound-registry.js';
import type { OutboundRegistry } from '../outbound/outbound-registry.js';
import type { ToolRegistry } from '../outbound/tool-registry.js';
import type { PushConfigs, PushOutbox } from '../store/push-store.js';
import type { ContextBindings, TaskReads } from '../store/task-store.js';
import type { RetentionSweeper } from '../tasks/retention-sweeper.js';
import type { SessionRegistry } from '../tasks/sessions.js';
import type { TaskRuntime } from '../tasks/task-runtime.js';
import type { PeerTracker } from './peers.js';

/**
 * What the control API reads and drives, and nothing more: the registries it manages, the task
 * runtime it sends test messages and cancels through, and read access to stored tasks. The hub
 * (src/hub.ts) satisfies it; the control API never reaches for the hub itself.
 */
export interface ControlDeps {
  readonly inbounds: InboundRegistry;
  readonly outbounds: OutboundRegistry;
  readonly runtime: Pick<TaskRuntime, 'send' | 'settled' | 'getTask' | 'cancel'>;
  readonly store: Pick<TaskReads, 'getTask' | 'getTaskInfo' | 'browseTasks'> & Pick<ContextBindings, 'getContext'> & PushControlStore;
  readonly sessions: Pick<SessionRegistry, 'list' | 'get' | 'release'>;
  readonly presets: Pick<PresetRegistry, 'list'>;
  readonly tools: Pick<ToolRegistry, 'list'>;
  readonly peers: PeerTracker;
  /** push.retry: the config is active again with its pending deliveries due now, and the dispatcher wakes (PushDispatcher.retryNow). */
  readonly retryPush: (taskId: string, configId: string) => Promise<void>;
  /** task.prune and the snapshot's retention summary. */
  readonly retention: Pick<RetentionSweeper, 'sweep' | 'summary'>;
}

/**
 * What the control API reads and changes of push configs. Their sealed secrets are never
 * read here: the views copy named members only (src/control/push-view.ts).
 */
export type PushControlStore = Pick<
  PushConfigs,
  'getPushConfig' | 'listPushConfigs' | 'deletePushConfig' | 'setPushHealth' | 'unhealthyPushConfigs' | 'unhealthyPushConfigCounts'
> &
  Pick<PushOutbox, 'rescheduleConfig' | 'pendingDeliveries' | 'listAttempts'>;
