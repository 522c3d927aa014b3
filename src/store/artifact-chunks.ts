import type { Artifact, Part } from '../../generated/a2a/1.0/types.js';
import { setOwn } from '../support/own-property.js';

/**
 * An artifact without its parts. The stores keep parts apart from the rest so that an
 * appended chunk adds parts without rewriting those already stored.
 */
export type ArtifactHeader = Omit<Artifact, 'parts'>;

/*
 * Artifacts are plain JSON objects (no inherited members), walked with Object.keys: these run
 * for every chunk, and Object.entries allocates a pair per member.
 */

export function headerOf(artifact: Artifact): ArtifactHeader {
  // A copy minus `parts` that keeps members the type does not name, so they round-trip too.
  const source = artifact as unknown as Record<string, unknown>;
  const header: Record<string, unknown> = {};
  for (const key of Object.keys(source)) if (key !== 'parts') setOwn(header, key, source[key]);
  return header as ArtifactHeader;
}

/** Whether an appended chunk changes the header: any member besides the id and parts. */
export function changesHeader(chunk: Artifact): boolean {
  const source = chunk as unknown as Record<string, unknown>;
  for (const key of Object.keys(source)) {
    if (key !== 'artifactId' && key !== 'parts' && source[key] !== undefined) return true;
  }
  return false;
}

/** The header after an appended chunk: members the chunk gives replace the stored ones. */
export function mergeHeader(stored: ArtifactHeader, chunk: Artifact): ArtifactHeader {
  const merged: Record<string, unknown> = { ...stored };
  const source = chunk as unknown as Record<string, unknown>;
  for (const key of Object.keys(source)) {
    if (key !== 'parts' && source[key] !== undefined) setOwn(merged, key, source[key]);
  }
  return merged as ArtifactHeader;
}

export function withParts(header: ArtifactHeader, parts: readonly Part[]): Artifact {
  return { ...header, parts: [...parts] };
}

/** An artifact as its chunks so far make it. */
export interface AssembledArtifact {
  header: ArtifactHeader;
  readonly parts: Part[];
}

/**
 * Applies a chunk the way every store does: an append to a known artifact adds its parts (and
 * any header members it gives); anything else sets the artifact anew. Keeps the parts array.
 */
export function applyChunk(artifacts: Map<string, AssembledArtifact>, chunk: Artifact, append: boolean): void {
  const stored = artifacts.get(chunk.artifactId);
  if (append && stored !== undefined) {
    if (changesHeader(chunk)) stored.header = mergeHeader(stored.header, chunk);
    stored.parts.push(...chunk.parts);
  } else {
    artifacts.set(chunk.artifactId, { header: headerOf(chunk), parts: [...chunk.parts] });
  }
}
