import type { Artifact, StreamResponse } from '../../generated/a2a/1.0/types.js';
import type { StreamEvent } from './task-stream.js';

/** Reading what a task produced out of the frames of its stream. */

/**
 * Applies a stream's artifact frames (and task snapshots) in order and returns the resulting
 * artifacts: a snapshot replaces them, an `append` chunk extends the artifact with its id.
 */
export function assembleArtifacts(frames: Iterable<StreamResponse | StreamEvent>): Artifact[] {
  const artifacts = new Map<string, Artifact>();
  for (const item of frames) {
    const frame: StreamResponse = 'frame' in item ? item.frame : item;
    if (frame.task !== undefined) {
      for (const artifact of frame.task.artifacts ?? []) artifacts.set(artifact.artifactId, cloneArtifact(artifact));
    } else if (frame.artifactUpdate !== undefined) {
      const { artifact, append } = frame.artifactUpdate;
      const existing = artifacts.get(artifact.artifactId);
      if (append === true && existing !== undefined) {
        existing.parts.push(...artifact.parts);
        if (artifact.metadata !== undefined) existing.metadata = { ...existing.metadata, ...artifact.metadata };
      } else {
        artifacts.set(artifact.artifactId, cloneArtifact(artifact));
      }
    }
  }
  return [...artifacts.values()];
}

/**
 * The text parts of a message or artifact joined with the empty string, the way streamed
 * chunks of one text are concatenated; non-text parts count as ''. Callers that want parts on
 * separate lines must join them themselves.
 */
export function textOf(holder: { readonly parts: readonly { readonly text?: string }[] } | undefined): string {
  return (holder?.parts ?? []).map((part) => part.text ?? '').join('');
}

/** A copy whose parts can be extended by later chunks without touching the frame it came from. */
function cloneArtifact(artifact: Artifact): Artifact {
  return { ...artifact, parts: [...artifact.parts] };
}
