import { isRecord } from '../../../src/support/records.js';

/**
 * The text parts of a message or an artifact (anything with `parts`), concatenated with no
 * separator: how a status message reads, and how streamed chunks assemble. Other parts count as ''.
 */
export function concatenatedText(holder: unknown): string {
  if (!isRecord(holder) || !Array.isArray(holder['parts'])) return '';
  return (holder['parts'] as unknown[]).map((part) => (isRecord(part) && typeof part['text'] === 'string' ? part['text'] : '')).join('');
}
