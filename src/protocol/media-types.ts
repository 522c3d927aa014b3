import { MEDIA_TYPES } from '../../generated/a2a/1.0/protocol.js';
import type { Part } from '../../generated/a2a/1.0/types.js';

/** `Text/Plain; charset=utf-8` → `text/plain`: the type and subtype, lowercased, without parameters. */
export function essenceOf(mediaType: string): string {
  return (mediaType.split(';')[0] ?? '').trim().toLowerCase();
}

/** Whether a media range from a card or a request (`text/plain`, `image/*`, `*` + `/*`, with parameters) covers a media type. */
export function mediaRangeCovers(range: string, mediaType: string): boolean {
  const [rangeType = '', rangeSub = ''] = essenceOf(range).split('/');
  const [type = '', sub = ''] = essenceOf(mediaType).split('/');
  if (rangeType === '*' && (rangeSub === '' || rangeSub === '*')) return true;
  return rangeType === type && (rangeSub === '*' || rangeSub === sub);
}

/** A part's media type: its mediaType, else what its content implies (text/plain, application/json, application/octet-stream). */
export function mediaTypeOfPart(part: Part): string {
  if (part.mediaType) return essenceOf(part.mediaType);
  if (part.text !== undefined) return 'text/plain';
  if (part.data !== undefined) return MEDIA_TYPES.json;
  return 'application/octet-stream';
}

/** Whether an output mode admits a text reply: text/plain, text/*, * + /* and their parameterised forms. */
export function admitsText(mode: string): boolean {
  const essence = essenceOf(mode);
  return essence === '*/*' || essence === '*' || essence.startsWith('text/');
}
