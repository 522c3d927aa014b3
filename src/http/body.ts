import getRawBody from 'raw-body';
import type { Context } from 'koa';
import { MEDIA_TYPES } from '../../generated/a2a/1.0/protocol.js';
import { a2aError } from '../protocol/a2a-error.js';

const JSON_TYPES: ReadonlySet<string> = new Set([MEDIA_TYPES.json, MEDIA_TYPES.a2aJson]);

/**
 * Reads and parses a JSON request body under a size cap. Oversized bodies are refused from
 * Content-Length before reading, or as soon as the stream passes the cap.
 */
export async function readJsonBody(ctx: Context, limitBytes: number): Promise<unknown> {
  const type = (ctx.get('content-type').split(';')[0] ?? '').trim().toLowerCase();
  // A missing Content-Type is read as JSON (curl without -H sends form encoding, which is refused).
  if (type !== '' && !JSON_TYPES.has(type)) {
    throw a2aError('UnsupportedMediaTypeError', `Content-Type must be ${MEDIA_TYPES.json} or ${MEDIA_TYPES.a2aJson}, got ${JSON.stringify(type)}`);
  }
  let text: string;
  try {
    // As bytes, decoded here: raw-body's own decoding goes through iconv-lite, for UTF-8 too.
    text = (await getRawBody(ctx.req, { limit: limitBytes, length: ctx.get('content-length') || undefined })).toString('utf8');
  } catch (error) {
    const failure = error as { type?: string };
    if (failure.type === 'entity.too.large') {
      throw a2aError('PayloadTooLargeError', `the request body exceeds the limit of ${limitBytes} bytes`, { metadata: { limitBytes: String(limitBytes) } });
    }
    throw a2aError('JSONParseError', 'the request body could not be read', { cause: error });
  }
  // A byte order mark is tolerated, as RFC 8259 §8.1 allows.
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    // The parser's message quotes the body; give only the position.
    const position = /position (\d+)/.exec((error as Error).message)?.[1];
    throw a2aError('JSONParseError', `the body is not valid JSON${position === undefined ? '' : ` (at character ${position})`}`);
  }
}
