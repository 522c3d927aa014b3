import { createHash } from 'node:crypto';

/** Function-calling APIs accept names of at most 64 characters from this set. */
export const TOOL_NAME_PATTERN = /^[A-Za-z0-9_-]{1,64}$/;
export const TOOL_NAME_MAX_LENGTH = 64;
const FIRST_HASH_LENGTH = 6;

/** Every character outside [A-Za-z0-9_-] becomes `_` (one per code point, so an emoji is one `_`). */
export function normaliseToolName(text: string): string {
  return text.replace(/[^A-Za-z0-9_-]/gu, '_');
}

/** `a2a__<connection-name>__<skill-id>`, normalised and cut to 64 characters. */
export function baseToolName(connectionName: string, skillId: string): string {
  return normaliseToolName(`a2a__${connectionName}__${skillId}`).slice(0, TOOL_NAME_MAX_LENGTH);
}

/** Hex of sha256(`<connectionId>/<skillId>`): the same tool gets the same suffix on every start. */
export function toolHash(connectionId: string, skillId: string, salt = 0): string {
  const input = salt === 0 ? `${connectionId}/${skillId}` : `${connectionId}/${skillId}/${salt}`;
  return createHash('sha256').update(input, 'utf8').digest('hex');
}

/** The base name, cut so that `_<hash>` fits, with the hash appended. */
export function hashedToolName(base: string, hash: string): string {
  return `${base.slice(0, TOOL_NAME_MAX_LENGTH - hash.length - 1)}_${hash}`;
}

export interface ToolNameRequest {
  readonly connectionId: string;
  readonly connectionName: string;
  readonly skillId: string;
  /** Orders claims to a shared name: the lowest rank keeps the plain name (the connection's createdAt). */
  readonly rank: string;
}

/** The key assignToolNames answers under: JSON keeps ("a/b", "c") and ("a", "b/c") apart. */
export function toolKey(connectionId: string, skillId: string): string {
  return JSON.stringify([connectionId, skillId]);
}

/**
 * Names every tool, earliest first by (rank, connectionId, skillId): each takes its base name
 * if it is free, else `<base>_<6 hex>` of a hash of its connection id and skill id (longer only
 * if even that is taken). A newer connection therefore never renames an older one's tools, and
 * the result depends on the set of requests, not their order, so it survives a restart.
 */
export function assignToolNames(requests: readonly ToolNameRequest[]): Map<string, string> {
  const names = new Map<string, string>();
  const taken = new Set<string>();
  for (const request of [...requests].sort(compareRequests)) {
    const base = baseToolName(request.connectionName, request.skillId);
    const name = taken.has(base) ? firstFreeHashedName(base, request, taken) : base;
    taken.add(name);
    names.set(toolKey(request.connectionId, request.skillId), name);
  }
  return names;
}

function firstFreeHashedName(base: string, request: ToolNameRequest, taken: ReadonlySet<string>): string {
  for (let salt = 0; ; salt += 1) {
    const hash = toolHash(request.connectionId, request.skillId, salt);
    for (let length = FIRST_HASH_LENGTH; length < TOOL_NAME_MAX_LENGTH; length += 2) {
      const candidate = hashedToolName(base, hash.slice(0, length));
      if (!taken.has(candidate)) return candidate;
    }
  }
}

function compareRequests(a: ToolNameRequest, b: ToolNameRequest): number {
  return compare(a.rank, b.rank) || compare(a.connectionId, b.connectionId) || compare(a.skillId, b.skillId);
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
