import type * as V03 from '../../../generated/a2a/0.3/types.js';
import type * as V10 from '../../../generated/a2a/1.0/types.js';
import { withoutUndefined } from '../../support/records.js';
import { messageFrom03, messageTo03 } from './messages.js';
import { partFrom03, partTo03 } from './parts.js';
import { stateFrom03, stateTo03 } from './states.js';
import { UntranslatableError } from '../untranslatable.js';

export function statusTo03(status: V10.TaskStatus): V03.TaskStatus {
  return withoutUndefined({
    state: stateTo03(status.state),
    message: status.message === undefined ? undefined : messageTo03(status.message),
    timestamp: status.timestamp,
  });
}

export function statusFrom03(status: V03.TaskStatus, path = 'status'): V10.TaskStatus {
  return withoutUndefined({
    state: stateFrom03(status.state, `${path}.state`),
    message: status.message === undefined ? undefined : messageFrom03(status.message),
    timestamp: status.timestamp,
  });
}

export function artifactTo03(artifact: V10.Artifact): V03.Artifact {
  return withoutUndefined({ ...artifact, parts: artifact.parts.map(partTo03) });
}

export function artifactFrom03(artifact: V03.Artifact): V10.Artifact {
  return withoutUndefined({ ...artifact, parts: artifact.parts.map(partFrom03) });
}

/** A 1.0 task without a contextId cannot be a 0.3 task, which requires one. */
export function taskTo03(task: V10.Task): V03.Task {
  if (task.contextId === undefined) throw new UntranslatableError('contextId', `task ${task.id} has no contextId, which A2A 0.3 requires`);
  return withoutUndefined({
    kind: 'task',
    id: task.id,
    contextId: task.contextId,
    status: statusTo03(task.status),
    artifacts: task.artifacts?.map(artifactTo03),
    history: task.history?.map(messageTo03),
    metadata: task.metadata,
  });
}

export function taskFrom03(task: V03.Task): V10.Task {
  return withoutUndefined({
    id: task.id,
    contextId: task.contextId,
    status: statusFrom03(task.status),
    artifacts: task.artifacts?.map(artifactFrom03),
    history: task.history?.map(messageFrom03),
    metadata: task.metadata,
  });
}
