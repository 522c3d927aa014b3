import type * as V03 from '../../../../generated/a2a/0.3/types.js';
import type * as P from '../../../../generated/a2a/0.3/rest/types.js';
import { withoutUndefined } from '../../../support/records.js';
import { UntranslatableError } from '../../untranslatable.js';
import { messageFromProto, messageToProto } from './messages.js';
import { artifactFromProto, artifactToProto, statusFromProto, statusToProto, taskFromProto, taskToProto } from './tasks.js';

/**
 * What message:send answers and a stream carries. The JSON form sends the Task, Message or
 * event bare with its `kind`; ProtoJSON wraps it in SendMessageResponse or StreamResponse,
 * whose member names say what it is (`task`, `message`, `statusUpdate`, `artifactUpdate`).
 */
export type StreamEvent03 = V03.Task | V03.Message | V03.TaskStatusUpdateEvent | V03.TaskArtifactUpdateEvent;

export function sendResultToProto(result: V03.Task | V03.Message): P.SendMessageResponse {
  return result.kind === 'task' ? { task: taskToProto(result) } : { message: messageToProto(result) };
}

export function sendResultFromProto(response: P.SendMessageResponse, path = ''): V03.Task | V03.Message {
  if (response.task !== undefined) return taskFromProto(response.task, join(path, 'task'));
  if (response.message !== undefined) return messageFromProto(response.message, join(path, 'message'));
  throw new UntranslatableError(path === '' ? 'payload' : path, 'holds neither a task nor a message');
}

export function streamEventToProto(event: StreamEvent03): P.StreamResponse {
  switch (event.kind) {
    case 'task':
      return { task: taskToProto(event) };
    case 'message':
      return { message: messageToProto(event) };
    case 'status-update':
      return {
        statusUpdate: withoutUndefined({
          taskId: event.taskId,
          contextId: event.contextId,
          status: statusToProto(event.status),
          final: event.final,
          metadata: event.metadata,
        }),
      };
    case 'artifact-update':
      return {
        artifactUpdate: withoutUndefined({
          taskId: event.taskId,
          contextId: event.contextId,
          artifact: artifactToProto(event.artifact),
          append: event.append,
          lastChunk: event.lastChunk,
          metadata: event.metadata,
        }),
      };
  }
}

export function streamEventFromProto(response: P.StreamResponse, path = ''): StreamEvent03 {
  if (response.statusUpdate !== undefined) {
    const update = response.statusUpdate;
    return withoutUndefined({
      kind: 'status-update',
      taskId: update.taskId ?? '',
      contextId: update.contextId ?? '',
      status: statusFromProto(update.status, join(path, 'statusUpdate.status')),
      final: update.final ?? false,
      metadata: update.metadata,
    });
  }
  if (response.artifactUpdate !== undefined) {
    const update = response.artifactUpdate;
    if (update.artifact === undefined) throw new UntranslatableError(join(path, 'artifactUpdate.artifact'), 'is required');
    return withoutUndefined({
      kind: 'artifact-update',
      taskId: update.taskId ?? '',
      contextId: update.contextId ?? '',
      artifact: artifactFromProto(update.artifact, join(path, 'artifactUpdate.artifact')),
      append: update.append,
      lastChunk: update.lastChunk,
      metadata: update.metadata,
    });
  }
  return sendResultFromProto(response, path);
}

function join(path: string, member: string): string {
  return path === '' ? member : `${path}.${member}`;
}
