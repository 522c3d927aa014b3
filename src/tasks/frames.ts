import { randomUUID } from 'node:crypto';
import type { Artifact, Message, StreamResponse, TaskArtifactUpdateEvent, TaskState, TaskStatus } from '../../generated/a2a/1.0/types.js';
import { toParts, type ArtifactChunk, type Content } from '../executors/executor.js';

/*
 * These run several times per task, so they build objects member by member instead of
 * spreading conditional fragments (each spread is an object thrown away). Members are added
 * in proto field order, which is the order they appear in the JSON.
 */

/** An agent message for a task, with the ids the proto says server messages carry. */
export function agentMessage(content: Content, taskId: string | undefined, contextId: string): Message {
  const message: Message = { messageId: randomUUID(), role: 'ROLE_AGENT', parts: toParts(content), contextId };
  if (taskId !== undefined) message.taskId = taskId;
  return message;
}

export function status(state: TaskState, timestamp: string, message?: Message): TaskStatus {
  return message === undefined ? { state, timestamp } : { state, message, timestamp };
}

export function statusFrame(taskId: string, contextId: string, taskStatus: TaskStatus): StreamResponse {
  return { statusUpdate: { taskId, contextId, status: taskStatus } };
}

/** ProtoJSON leaves out false booleans, so `append` and `lastChunk` appear only when true. */
export function artifactFrame(taskId: string, contextId: string, artifact: Artifact, append: boolean, lastChunk: boolean): StreamResponse {
  const update: TaskArtifactUpdateEvent = { taskId, contextId, artifact };
  if (append) update.append = true;
  if (lastChunk) update.lastChunk = true;
  return { artifactUpdate: update };
}

export function artifactOf(chunk: ArtifactChunk, artifactId: string): Artifact {
  const artifact: Partial<Artifact> & { artifactId: string } = { artifactId };
  if (chunk.name !== undefined) artifact.name = chunk.name;
  if (chunk.description !== undefined) artifact.description = chunk.description;
  artifact.parts = toParts(chunk.parts);
  if (chunk.metadata !== undefined) artifact.metadata = chunk.metadata;
  if (chunk.extensions !== undefined) artifact.extensions = [...chunk.extensions];
  return artifact as Artifact;
}

/** Timestamps in milliseconds that never go backwards, even if the wall clock does. */
export function monotonicClock(wall: () => number = Date.now): () => string {
  let last = 0;
  let text = '';
  return () => {
    const millis = Math.max(last, wall());
    // A busy hub asks many times per millisecond; format each millisecond once.
    if (millis !== last || text === '') {
      last = millis;
      text = new Date(millis).toISOString();
    }
    return text;
  };
}
