import type { Artifact, Message, Task, TaskStatus } from '../../generated/a2a/1.0/types.js';
import type { TaskView } from './task-store.js';

/** Everything a task is made of, before a view trims it for the wire. */
export interface TaskContent {
  readonly id: string;
  readonly contextId: string;
  readonly status: TaskStatus;
  readonly metadata?: Record<string, unknown> | undefined;
  /** Oldest first. A loader may already have cut it to `historyLimit(view)`. */
  readonly history: readonly Message[];
  /** In first-creation order. A loader may leave it empty when `!wantsArtifacts(view)`. */
  readonly artifacts: readonly Artifact[];
}

/** How many of the newest messages the view asks for; undefined for all of them. */
export function historyLimit(view: TaskView): number | undefined {
  const length = view.historyLength;
  return length === undefined ? undefined : Math.max(0, Math.floor(length));
}

export function wantsArtifacts(view: TaskView): boolean {
  return view.includeArtifacts !== false;
}

/**
 * The task as the wire shows it. Members with nothing in them are omitted rather than sent
 * empty: `history` for historyLength 0 or no messages, `artifacts` when excluded or none,
 * `metadata` when empty (spec policy 5.5 and 5.7).
 */
export function toWireTask(content: TaskContent, view: TaskView = {}): Task {
  const task: Task = { id: content.id, contextId: content.contextId, status: content.status };
  if (wantsArtifacts(view) && content.artifacts.length > 0) task.artifacts = [...content.artifacts];
  const limit = historyLimit(view);
  const history = limit === undefined ? content.history : content.history.slice(Math.max(0, content.history.length - limit));
  if (history.length > 0) task.history = [...history];
  if (content.metadata !== undefined && Object.keys(content.metadata).length > 0) task.metadata = content.metadata;
  return task;
}
