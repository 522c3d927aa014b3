import type { PresetRegistry } from '../executors/presets.js';
import type { InboundRegistry } from '../inbound/inbound-registry.js';
import type { OutboundRegistry } from '../outbound/outbound-registry.js';
import type { ToolRegistry } from '../outbound/tool-registry.js';
import type { ContextBindings, TaskReads } from '../store/task-store.js';
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
  readonly store: Pick<TaskReads, 'getTask' | 'getTaskInfo' | 'browseTasks'> & Pick<ContextBindings, 'getContext'>;
  readonly sessions: Pick<SessionRegistry, 'list' | 'get' | 'release'>;
  readonly presets: Pick<PresetRegistry, 'list'>;
  readonly tools: Pick<ToolRegistry, 'list'>;
  readonly peers: PeerTracker;
}
