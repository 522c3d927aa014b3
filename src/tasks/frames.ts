import { randomUUID } from 'node:crypto';
import type { Artifact, Message, StreamResponse, TaskState, TaskStatus } from '../../generated/a2a/1.0/types.js';
import { toParts, type ArtifactChunk, type Content } from '../executors/executor.js';

/** An agent message for a task, with the ids the proto says server messages carry. */
export function agentMessage(content: Content, taskId: string | undefined, contextId: string): Message {
  return {
    messageId: randomUUID(),
    role: 'ROLE_AGENT',
    parts: toParts(content),
    contextId,
    ...(taskId === undefined ? {} : { taskId }),
  };
}

export function status(state: TaskState, timestamp: string, message?: Message): TaskStatus {
  return message === undefined ? { state, timestamp } : { state, message, timestamp };
}

export function statusFrame(taskId: string, contextId: string, taskStatus: TaskStatus): StreamResponse {
  return { statusUpdate: { taskId, contextId, status: taskStatus } };
}

/** ProtoJSON leaves out false booleans, so `append` and `lastChunk` appear only when true. */
export function artifactFrame(taskId: string, contextId: string, artifact: Artifact, append: boolean, lastChunk: boolean): StreamResponse {
  return {
    artifactUpdate: {
      taskId,
      contextId,
      artifact,
      ...(append ? { append: true } : {}),
      ...(lastChunk ? { lastChunk: true } : {}),
    },
  };
}

export function artifactOf(chunk: ArtifactChunk, artifactId: string): Artifact {
  return {
    artifactId,
    ...(chunk.name === undefined ? {} : { name: chunk.name }),
    ...(chunk.description === undefined ? {} : { description: chunk.description }),
    parts: toParts(chunk.parts),
    ...(chunk.metadata === undefined ? {} : { metadata: chunk.metadata }),
  };
}

/** Timestamps in milliseconds that never go backwards, even if the wall clock does. */
export function monotonicClock(wall: () => number = Date.now): () => string {
  let last = 0;
  return () => {
    last = Math.max(last, wall());
    return new Date(last).toISOString();
  };
}
