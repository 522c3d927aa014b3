/**
 * Page tokens of ListTaskPushNotificationConfigs: opaque to clients, and bound to the task
 * they were given for, so a token from another task's listing is refused rather than read as
 * a position in this one. A task holds few configs (push.maxConfigsPerTask), so a position
 * in its creation-ordered list is all a token needs.
 */

const VERSION = 'p1';

export function encodePageToken(taskId: string, offset: number): string {
  return Buffer.from(JSON.stringify([VERSION, taskId, offset]), 'utf8').toString('base64url');
}

/** The position a token names, or undefined for anything this hub did not give for this task. */
export function decodePageToken(token: string, taskId: string): number | undefined {
  let value: unknown;
  try {
    value = JSON.parse(Buffer.from(token, 'base64url').toString('utf8'));
  } catch {
    return undefined;
  }
  if (!Array.isArray(value) || value.length !== 3) return undefined;
  const [version, forTask, offset] = value as unknown[];
  if (version !== VERSION || forTask !== taskId || typeof offset !== 'number' || !Number.isSafeInteger(offset) || offset < 0)
    return undefined;
  return offset;
}
