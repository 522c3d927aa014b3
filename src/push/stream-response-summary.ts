import type { StreamResponse, TaskState } from '../../generated/a2a/1.0/types.js';

/** Which member of StreamResponse's `payload` oneof a frame carries. */
export type FrameKind = keyof StreamResponse;

/** What one pushed StreamResponse is about, for a line of output or a test's check. */
export interface FrameSummary {
  readonly kind: FrameKind;
  /** Absent only for a message that belongs to no task. */
  readonly taskId?: string;
  readonly contextId?: string;
  /** The task's state, for a task snapshot and a status update. */
  readonly state?: TaskState;
  readonly artifactId?: string;
}

/** Summarises a frame that has passed StreamResponse validation (exactly one payload member is present). */
export function summarizeFrame(frame: StreamResponse): FrameSummary {
  if (frame.task !== undefined) {
    const { id, contextId, status } = frame.task;
    return { kind: 'task', taskId: id, contextId, state: status.state };
  }
  if (frame.statusUpdate !== undefined) {
    const { taskId, contextId, status } = frame.statusUpdate;
    return { kind: 'statusUpdate', taskId, contextId, state: status.state };
  }
  if (frame.artifactUpdate !== undefined) {
    const { taskId, contextId, artifact } = frame.artifactUpdate;
    return { kind: 'artifactUpdate', taskId, contextId, artifactId: artifact.artifactId };
  }
  const message = frame.message;
  return {
    kind: 'message',
    ...(message?.taskId === undefined ? {} : { taskId: message.taskId }),
    ...(message?.contextId === undefined ? {} : { contextId: message.contextId }),
  };
}
