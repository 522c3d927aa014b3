import { isRecord } from '../../../src/support/records.js';

/** A value in one line for a finding: strings as they are, anything else as JSON, cut at `max` characters with an ellipsis. */
export function short(value: unknown, max = 300): string {
  const text = typeof value === 'string' ? value : (JSON.stringify(value) ?? String(value));
  return text.length > max ? `${text.slice(0, max)}…` : text;
}

/**
 * The text parts of a message or an artifact (anything with `parts`), concatenated with no
 * separator: how a status message reads, and how streamed chunks assemble. Other parts count as ''.
 */
export function concatenatedText(holder: unknown): string {
  if (!isRecord(holder) || !Array.isArray(holder['parts'])) return '';
  return (holder['parts'] as unknown[]).map((part) => (isRecord(part) && typeof part['text'] === 'string' ? part['text'] : '')).join('');
}
