import { randomUUID } from 'node:crypto';

/**
 * A UUID version 7 (RFC 9562): the creation time in milliseconds, then 74 random bits. Ids the
 * hub makes for tasks and contexts are keys of unique indexes; time-ordered ids are added at
 * the end of those B-trees, where random ones dirtied a page each anywhere in them (and each
 * such page is a 4 KiB frame in the WAL at commit). They are as unguessable as version 4 ids
 * apart from revealing when they were made, which the task's timestamps say anyway.
 */
export function timeOrderedId(now: number = Date.now()): string {
  // randomUUID is buffered and cheap; its version-4 random bits past the version nibble, with
  // the variant bits already set, are exactly what version 7 wants there.
  return `${timePrefix(now)}${randomUUID().slice(15)}`;
}

/** `tttttttt-tttt-7` for a millisecond, remembered for the last one: ids come in bursts. */
let lastMillis = -1;
let lastPrefix = '';

function timePrefix(now: number): string {
  const millis = Math.max(0, Math.floor(now));
  if (millis !== lastMillis) {
    const time = millis.toString(16).padStart(12, '0').slice(-12);
    lastMillis = millis;
    lastPrefix = `${time.slice(0, 8)}-${time.slice(8, 12)}-7`;
  }
  return lastPrefix;
}
