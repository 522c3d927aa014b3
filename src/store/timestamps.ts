import type { TaskStatus } from '../../generated/a2a/1.0/types.js';

/**
 * RFC 3339 date-time. Parsed by hand rather than with Date.parse alone, which also takes
 * date-only and offset-less forms (read as local time) and rolls 2024-02-30 over to March.
 */
const RFC_3339 = /^(\d{4}-\d{2}-\d{2})[Tt ](\d{2}:\d{2}):(\d{2})(?:\.(\d+))?(?:[Zz]|([+-])(\d{2}):(\d{2}))$/;

interface Instant {
  /** Milliseconds since the epoch, any finer fraction cut off. */
  readonly millis: number;
  /** Whether a fraction finer than a millisecond was cut off. */
  readonly truncated: boolean;
}

/** The last canonical timestamp parsed: a busy hub stamps many statuses in the same millisecond. */
let lastCanonical: { readonly text: string; readonly instant: Instant } | undefined;

function parse(timestamp: string): Instant {
  if (lastCanonical?.text === timestamp) return lastCanonical.instant;
  // The form the hub writes itself (toISOString): one Date.parse and two field checks.
  if (isIsoShaped(timestamp)) {
    const millis = Date.parse(timestamp);
    if (!Number.isNaN(millis) && !rolledOver(timestamp, millis)) {
      lastCanonical = { text: timestamp, instant: { millis, truncated: false } };
      return lastCanonical.instant;
    }
  }
  const match = RFC_3339.exec(timestamp);
  if (match === null) throw new RangeError(`not an RFC 3339 timestamp: ${timestamp}`);
  const [, date = '', hourMinute = '', second = '', fraction = '', sign, offsetHours = '0', offsetMinutes = '0'] = match;
  // A leap second is read as the first instant of the next minute; Date has no second 60.
  const leap = second === '60';
  const local = `${date}T${hourMinute}:${leap ? '59' : second}.${fraction.padEnd(3, '0').slice(0, 3)}Z`;
  const millis = Date.parse(local);
  const badOffset = Number(offsetHours) > 23 || Number(offsetMinutes) > 59;
  if (Number.isNaN(millis) || badOffset || new Date(millis).toISOString().slice(0, 16) !== local.slice(0, 16)) {
    throw new RangeError(`not an RFC 3339 timestamp: ${timestamp}`);
  }
  const offset = sign === undefined ? 0 : (sign === '-' ? -1 : 1) * (Number(offsetHours) * 60 + Number(offsetMinutes)) * 60_000;
  return { millis: millis + (leap ? 1000 : 0) - offset, truncated: /[1-9]/.test(fraction.slice(3)) };
}

/** `YYYY-MM-DDTHH:mm:ss.sssZ` by shape: digits and separators where toISOString puts them. */
function isIsoShaped(text: string): boolean {
  if (text.length !== 24) return false;
  for (let index = 0; index < 24; index += 1) {
    const code = text.charCodeAt(index);
    const expected = ISO_SEPARATORS[index];
    if (expected === undefined ? code < 48 || code > 57 : code !== expected) return false;
  }
  return true;
}

/** `-`, `-`, `T`, `:`, `:`, `.` and `Z` by position; digits everywhere else. */
const ISO_SEPARATORS: readonly (number | undefined)[] = Array.from('0000-00-00T00:00:00.000Z', (char) =>
  char === '0' ? undefined : char.charCodeAt(0),
);

/**
 * Date.parse reads an ISO date-time strictly except that it rolls a day past the month's end
 * (02-30) and hour 24 over into the next day; both show as a different day or hour.
 * Comparing two fields is much cheaper than formatting the instant back to text.
 */
function rolledOver(text: string, millis: number): boolean {
  const date = new Date(millis);
  return date.getUTCDate() !== twoDigits(text, 8) || date.getUTCHours() !== twoDigits(text, 11);
}

function twoDigits(text: string, at: number): number {
  return (text.charCodeAt(at) - 48) * 10 + text.charCodeAt(at + 1) - 48;
}

/** The instant at millisecond precision, rounded down: how stored timestamps are ordered. */
export function timestampMillis(timestamp: string): number {
  return parse(timestamp).millis;
}

/**
 * The instant rounded up to the millisecond: the bound of a ">=" filter, so that a
 * sub-millisecond bound never lets in a task from the millisecond before it.
 */
export function timestampMillisCeil(timestamp: string): number {
  const instant = parse(timestamp);
  return instant.millis + (instant.truncated ? 1 : 0);
}

export function millisToTimestamp(millis: number): string {
  return new Date(millis).toISOString();
}

/** Where a status places its task: its own timestamp, or else where the task already was. */
export function statusMillis(status: TaskStatus, previous: number): number {
  return status.timestamp === undefined ? previous : timestampMillis(status.timestamp);
}
