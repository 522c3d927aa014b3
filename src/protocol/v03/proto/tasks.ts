import type * as V03 from '../../../../generated/a2a/0.3/types.js';
import type * as P from '../../../../generated/a2a/0.3/rest/types.js';
import { withoutUndefined } from '../../../support/records.js';
import { messageFromProto, messageToProto } from './messages.js';
import { partFromProto, partToProto } from './parts.js';

/**
 * Tasks, statuses and artifacts. States are the proto enum names, where the 0.3 proto spells
 * one differently from 1.0 (`TASK_STATE_CANCELLED`); `unknown` is the enum's zero value, which
 * ProtoJSON leaves out. The status message is the proto's `update` field, whose JSON name is
 * `message`, so it keeps its name.
 */
const STATE_TO_PROTO: Record<Exclude<V03.TaskState, 'unknown'>, P.TaskState> = {
  submitted: 'TASK_STATE_SUBMITTED',
  working: 'TASK_STATE_WORKING',
  'input-required': 'TASK_STATE_INPUT_REQUIRED',
  completed: 'TASK_STATE_COMPLETED',
  canceled: 'TASK_STATE_CANCELLED',
  failed: 'TASK_STATE_FAILED',
  rejected: 'TASK_STATE_REJECTED',
  'auth-required': 'TASK_STATE_AUTH_REQUIRED',
};
const STATE_FROM_PROTO = Object.fromEntries(Object.entries(STATE_TO_PROTO).map(([state, proto]) => [proto, state])) as Record<
  P.TaskState,
  V03.TaskState
>;

export function stateToProto(state: V03.TaskState): P.TaskState | undefined {
  return state === 'unknown' ? undefined : STATE_TO_PROTO[state];
}

export function stateFromProto(state: P.TaskState | undefined): V03.TaskState {
  return state === undefined ? 'unknown' : STATE_FROM_PROTO[state];
}

export function statusToProto(status: V03.TaskStatus): P.TaskStatus {
  return withoutUndefined({
    state: stateToProto(status.state),
    message: status.message === undefined ? undefined : messageToProto(status.message),
    timestamp: status.timestamp,
  });
}

export function statusFromProto(status: P.TaskStatus | undefined, path: string): V03.TaskStatus {
  return withoutUndefined({
    state: stateFromProto(status?.state),
    message: status?.message === undefined ? undefined : messageFromProto(status.message, `${path}.message`),
    timestamp: status?.timestamp,
  });
}

export function artifactToProto(artifact: V03.Artifact): P.Artifact {
  return withoutUndefined({
    artifactId: artifact.artifactId,
    name: artifact.name,
    description: artifact.description,
    parts: artifact.parts.map(partToProto),
    metadata: artifact.metadata,
    extensions: artifact.extensions,
  });
}

export function artifactFromProto(artifact: P.Artifact, path: string): V03.Artifact {
  return withoutUndefined({
    artifactId: artifact.artifactId ?? '',
    name: artifact.name === '' ? undefined : artifact.name,
    description: artifact.description === '' ? undefined : artifact.description,
    parts: (artifact.parts ?? []).map((part, index) => partFromProto(part, `${path}.parts[${index}]`)),
    metadata: artifact.metadata,
    extensions: artifact.extensions,
  });
}

export function taskToProto(task: V03.Task): P.Task {
  return withoutUndefined({
    id: task.id,
    contextId: task.contextId,
    status: statusToProto(task.status),
    artifacts: task.artifacts?.map(artifactToProto),
    history: task.history?.map(messageToProto),
    metadata: task.metadata,
  });
}

export function taskFromProto(task: P.Task, path: string): V03.Task {
  return withoutUndefined({
    kind: 'task',
    id: task.id ?? '',
    contextId: task.contextId ?? '',
    status: statusFromProto(task.status, `${path}.status`),
    artifacts: task.artifacts?.map((artifact, index) => artifactFromProto(artifact, `${path}.artifacts[${index}]`)),
    history: task.history?.map((message, index) => messageFromProto(message, `${path}.history[${index}]`)),
    metadata: task.metadata,
  });
}
