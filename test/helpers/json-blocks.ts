/**
 * The JSON documents embedded in a prose file, in order, with the heading they follow:
 * every balanced `{…}` that starts a line and parses as JSON. Placeholder substitutions are
 * applied first (e.g. `<id>` in a URL).
 */
export interface JsonBlock {
  readonly line: number;
  readonly value: unknown;
  readonly text: string;
}

export function jsonBlocks(source: string, substitutions: Record<string, string> = {}): JsonBlock[] {
  let text = source;
  for (const [from, to] of Object.entries(substitutions)) text = text.replaceAll(from, to);
  const blocks: JsonBlock[] = [];
  const lines = text.split('\n');
  let offset = 0;
  const lineStarts = lines.map((line) => {
    const start = offset;
    offset += line.length + 1;
    return start;
  });
  for (let lineIndex = 0; lineIndex < lines.length; lineIndex += 1) {
    if (!/^\s*\{/.test(lines[lineIndex] ?? '')) continue;
    const start = (lineStarts[lineIndex] ?? 0) + (lines[lineIndex] ?? '').indexOf('{');
    const end = matchingBrace(text, start);
    if (end === undefined) continue;
    const candidate = text.slice(start, end + 1);
    try {
      blocks.push({ line: lineIndex + 1, value: JSON.parse(candidate), text: candidate });
      lineIndex += candidate.split('\n').length - 1;
    } catch {
      // Prose braces and abbreviated examples (`{...}`) are not JSON documents.
    }
  }
  return blocks;
}

function matchingBrace(text: string, start: number): number | undefined {
  let depth = 0;
  let inString = false;
  for (let index = start; index < text.length; index += 1) {
    const char = text[index];
    if (inString) {
      if (char === '\\') index += 1;
      else if (char === '"') inString = false;
    } else if (char === '"') inString = true;
    else if (char === '{') depth += 1;
    else if (char === '}' && --depth === 0) return index;
  }
  return undefined;
}
