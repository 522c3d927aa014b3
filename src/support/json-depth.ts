/**
 * How deep a JSON text nests, read from the text itself before anything parses it: a body of
 * millions of nested brackets costs JSON.parse seconds of event loop and hundreds of megabytes
 * (10 MB nested 5 million deep: 1.3 s and 330 MB), and overflows the stack of whatever walks the
 * result recursively later. This scan stops at the first bracket past the limit, and only looks
 * at a string's characters to find where it ends (indexOf), so it costs little on any body.
 *
 * It assumes nothing about validity: on a text that is not JSON it may answer anything, and
 * JSON.parse, which runs after it, refuses the text as usual.
 */

/** `"` `\` `[` `]` `{` `}` `:` `,` as char codes. */
const QUOTE = 34;
const BACKSLASH = 92;
const OPEN_ARRAY = 91;
const CLOSE_ARRAY = 93;
const OPEN_OBJECT = 123;
const CLOSE_OBJECT = 125;
const COLON = 58;
const COMMA = 44;

/** One open container: in an array, the index of the element being read; in an object, the offsets of the member name being read. */
interface Level {
  readonly array: boolean;
  index: number;
  keyStart: number;
  keyEnd: number;
  /** In an object: the next string is a member name (after `{` or `,`), not a value. */
  expectingKey: boolean;
}

/** Where a text nests too deep: the first `named` steps of the path there, and whether it goes on. */
export interface TooDeep {
  readonly path: readonly (string | number)[];
  readonly more: boolean;
}

/**
 * The path (member names and indices) to the first container nested deeper than `limit` in
 * the JSON text (the outermost container is level 1), or undefined when none is. Only the
 * first `named` steps of the path are read out (`more` says there are others).
 */
export function jsonTextDeeperThan(text: string, limit: number, named = 16): TooDeep | undefined {
  // Most texts are shallow: they are measured without building anything, and only one that is
  // too deep is read again for the path.
  return nestsDeeperThan(text, limit) ? pathToDepth(text, limit, named) : undefined;
}

/** Whether a bracket outside the strings of the text opens a level past `limit`. */
function nestsDeeperThan(text: string, limit: number): boolean {
  let depth = 0;
  let index = 0;
  while (index < text.length) {
    const code = text.charCodeAt(index);
    if (code === QUOTE) {
      index = stringEnd(text, index) + 1;
      continue;
    }
    if (code === OPEN_ARRAY || code === OPEN_OBJECT) {
      depth += 1;
      if (depth > limit) return true;
    } else if (code === CLOSE_ARRAY || code === CLOSE_OBJECT) depth -= 1;
    index += 1;
  }
  return false;
}

/** The path to the first level past `limit` of a text known to have one. */
function pathToDepth(text: string, limit: number, named: number): TooDeep | undefined {
  const levels: Level[] = [];
  let index = 0;
  while (index < text.length) {
    const code = text.charCodeAt(index);
    if (code === QUOTE) {
      const end = stringEnd(text, index);
      const level = levels.at(-1);
      if (level !== undefined && !level.array && level.expectingKey) {
        level.keyStart = index;
        level.keyEnd = end;
      }
      index = end + 1;
      continue;
    }
    if (code === OPEN_ARRAY || code === OPEN_OBJECT) {
      levels.push({ array: code === OPEN_ARRAY, index: 0, keyStart: -1, keyEnd: -1, expectingKey: code === OPEN_OBJECT });
      if (levels.length > limit) return pathOf(text, levels, named);
    } else if (code === CLOSE_ARRAY || code === CLOSE_OBJECT) {
      levels.pop();
    } else if (code === COLON) {
      const level = levels.at(-1);
      if (level !== undefined) level.expectingKey = false;
    } else if (code === COMMA) {
      const level = levels.at(-1);
      if (level !== undefined) {
        if (level.array) level.index += 1;
        else level.expectingKey = true;
      }
    }
    index += 1;
  }
  return undefined;
}

/** Where the string starting at `start` (its opening quote) ends: its closing quote, or the text's end. */
function stringEnd(text: string, start: number): number {
  let at = start;
  for (;;) {
    at = text.indexOf('"', at + 1);
    if (at === -1) return text.length;
    // Escaped when an odd number of backslashes stands before it.
    let backslashes = 0;
    while (text.charCodeAt(at - 1 - backslashes) === BACKSLASH) backslashes += 1;
    if (backslashes % 2 === 0) return at;
  }
}

/** The path to the innermost level: each level's place in the one around it. */
function pathOf(text: string, levels: readonly Level[], named: number): TooDeep {
  const path: (string | number)[] = [];
  // The outermost level is the text itself; each later one sits at its parent's current place.
  for (let depth = 0; depth < levels.length - 1 && depth < named; depth += 1) {
    const parent = levels[depth];
    if (parent === undefined) break;
    path.push(parent.array ? parent.index : memberName(text, parent));
  }
  return { path, more: levels.length - 1 > named };
}

function memberName(text: string, level: Level): string {
  if (level.keyStart < 0) return '';
  try {
    const name: unknown = JSON.parse(text.slice(level.keyStart, level.keyEnd + 1));
    return typeof name === 'string' ? name : '';
  } catch {
    return text.slice(level.keyStart + 1, level.keyEnd);
  }
}
