import type { MessageKey } from './task-store.js';

/**
 * The target a message names (its taskId and contextId as sent), as one string for a key: JSON,
 * so that an absent member (null) differs from every id, the empty one included, and no two
 * targets share a string.
 */
export function messageTarget(key: MessageKey): string {
  return JSON.stringify([key.taskId ?? null, key.contextId ?? null]);
}
