/**
 * Trimming a run of one character. A regular expression such as /\/+$/ retries from every
 * position of a long run before it fails (quadratic: a 16 KB path of slashes cost 0.45 s of the
 * event loop), so request input is trimmed by these loops instead.
 */

/** `text` without the run of `char` (one UTF-16 unit) at its end. */
export function trimTrailing(text: string, char: string): string {
  let end = text.length;
  while (end > 0 && text[end - 1] === char) end -= 1;
  return end === text.length ? text : text.slice(0, end);
}

/** `text` without the run of `char` at its start. */
export function trimLeading(text: string, char: string): string {
  let start = 0;
  while (start < text.length && text[start] === char) start += 1;
  return start === 0 ? text : text.slice(start);
}

/** `text` up to the first `char`, or all of it when there is none (a zone id: `fe80::1%eth0`). */
export function beforeFirst(text: string, char: string): string {
  const index = text.indexOf(char);
  return index === -1 ? text : text.slice(0, index);
}
