import type * as V03 from '../../../generated/a2a/0.3/types.js';
import type * as V10 from '../../../generated/a2a/1.0/types.js';
import { isInterruptedState, isTerminalState } from '../../../generated/a2a/1.0/task-states.js';
import { withoutUndefined } from '../../support/records.js';
import { messageFrom03, messageTo03 } from './messages.js';
import { artifactFrom03, artifactTo03, statusFrom03, statusTo03, taskFrom03, taskTo03 } from './tasks.js';

/**
 * Stream events and send results. 1.0 wraps each in a member that names it (`{"statusUpdate":
 * …}`); 0.3 sends the bare object, told apart by `kind`. 0.3's status event also says `final`,
 * which 1.0 dropped: the stream ends after a terminal or interrupted state, and that is when
 * `final` is true, so it is derived going to 0.3 and dropped coming back.
 */
export function statusUpdateTo03(event: V10.TaskStatusUpdateEvent): V03.TaskStatusUpdateEvent {
  const state = event.status.state;
  return withoutUndefined({
    kind: 'status-update',
    taskId: event.taskId,
    contextId: event.contextId,
    status: statusTo03(event.status),
    final: isTerminalState(state) || isInterruptedState(state),
    metadata: event.metadata,
  });
}

export function statusUpdateFrom03(event: V03.TaskStatusUpdateEvent): V10.TaskStatusUpdateEvent {
  return withoutUndefined({
    taskId: event.taskId,
    contextId: event.contextId,
    status: statusFrom03(event.status),
    metadata: event.metadata,
  });
}

export function artifactUpdateTo03(event: V10.TaskArtifactUpdateEvent): V03.TaskArtifactUpdateEvent {
  return withoutUndefined({ kind: 'artifact-update', ...event, artifact: artifactTo03(event.artifact) });
}

export function artifactUpdateFrom03(event: V03.TaskArtifactUpdateEvent): V10.TaskArtifactUpdateEvent {
  const { kind: _kind, ...members } = event;
  return withoutUndefined({ ...members, artifact: artifactFrom03(event.artifact) });
}

export function streamResponseTo03(response: V10.StreamResponse): V03.SendStreamingMessageResult {
  if (response.task !== undefined) return taskTo03(response.task);
  if (response.message !== undefined) return messageTo03(response.message);
  if (response.statusUpdate !== undefined) return statusUpdateTo03(response.statusUpdate);
  return artifactUpdateTo03(response.artifactUpdate);
}

export function streamResponseFrom03(result: V03.SendStreamingMessageResult): V10.StreamResponse {
  switch (result.kind) {
    case 'task':
      return { task: taskFrom03(result) };
    case 'message':
      return { message: messageFrom03(result) };
    case 'status-update':
      return { statusUpdate: statusUpdateFrom03(result) };
    case 'artifact-update':
      return { artifactUpdate: artifactUpdateFrom03(result) };
  }
}

export function sendResultTo03(response: V10.SendMessageResponse): V03.SendMessageResult {
  return response.task !== undefined ? taskTo03(response.task) : messageTo03(response.message);
}

export function sendResultFrom03(result: V03.SendMessageResult): V10.SendMessageResponse {
  return result.kind === 'task' ? { task: taskFrom03(result) } : { message: messageFrom03(result) };
}
