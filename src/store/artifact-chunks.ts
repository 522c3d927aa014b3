import type { Artifact, Part } from '../../generated/a2a/1.0/types.js';

/**
 * An artifact without its parts. The stores keep parts apart from the rest so that an
 * appended chunk adds parts without rewriting those already stored.
 */
export type ArtifactHeader = Omit<Artifact, 'parts'>;

export function headerOf(artifact: Artifact): ArtifactHeader {
  // A copy minus `parts` that keeps members the type does not name, so they round-trip too.
  const header: Record<string, unknown> = { ...artifact };
  delete header['parts'];
  return header as ArtifactHeader;
}

/** Whether an appended chunk changes the header: any member besides the id and parts. */
export function changesHeader(chunk: Artifact): boolean {
  return Object.entries(headerOf(chunk)).some(([key, value]) => key !== 'artifactId' && value !== undefined);
}

/** The header after an appended chunk: members the chunk gives replace the stored ones. */
export function mergeHeader(stored: ArtifactHeader, chunk: Artifact): ArtifactHeader {
  const merged: Record<string, unknown> = { ...stored };
  for (const [key, value] of Object.entries(headerOf(chunk))) {
    if (value !== undefined) merged[key] = value;
  }
  return merged as ArtifactHeader;
}

export function withParts(header: ArtifactHeader, parts: readonly Part[]): Artifact {
  return { ...header, parts: [...parts] };
}
