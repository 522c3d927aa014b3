/**
 * How deep a parsed JSON value nests, checked without recursion: a value nested thousands of
 * levels deep overflows the stack of whatever walks it recursively later (a validator, a
 * serialiser), so it is measured here with a loop, once, before anything else touches it.
 */

/** The path (member names and indices) to the first value nested deeper than `limit`, or undefined when none is. */
export function deeperThan(value: unknown, limit: number): (string | number)[] | undefined {
  // Each entry: a container, its depth (the root is 1), and where it came from, for the path.
  const stack: { value: object; depth: number; parent: number; key: string | number }[] = [];
  const visited: { parent: number; key: string | number }[] = [];
  if (typeof value !== 'object' || value === null) return undefined;
  stack.push({ value, depth: 1, parent: -1, key: '' });
  while (stack.length > 0) {
    const entry = stack.pop();
    if (entry === undefined) break;
    const index = visited.push({ parent: entry.parent, key: entry.key }) - 1;
    if (entry.depth > limit) return pathTo(visited, index);
    const children: [string | number, unknown][] = Array.isArray(entry.value)
      ? entry.value.map((child, position) => [position, child])
      : Object.entries(entry.value);
    for (const [key, child] of children) {
      if (typeof child === 'object' && child !== null) stack.push({ value: child, depth: entry.depth + 1, parent: index, key });
    }
  }
  return undefined;
}

function pathTo(visited: readonly { parent: number; key: string | number }[], index: number): (string | number)[] {
  const path: (string | number)[] = [];
  for (let at = index; at > 0; at = visited[at]?.parent ?? 0) path.push(visited[at]?.key ?? '');
  return path.reverse();
}
