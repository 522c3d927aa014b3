import type { Context } from 'koa';
import getRawBody from 'raw-body';
import { MEDIA_TYPES } from '../../generated/a2a/1.0/protocol.js';
import type { FieldViolationReason } from '../../generated/hub/field-violations.js';
import { a2aError } from '../protocol/a2a-error.js';
import { fieldPath } from '../protocol/violations.js';
import { jsonTextDeeperThan, type TooDeep } from '../support/json-depth.js';

/** Why a request body could not be read as JSON; each caller answers it in its own API's terms. */
export type BodyProblem = 'media-type' | 'too-large' | 'unreadable' | 'not-json' | 'too-deep' | 'idle';

export class BodyError extends Error {
  constructor(
    readonly problem: BodyProblem,
    message: string,
    readonly limitBytes: number,
    options?: { cause?: unknown; field?: string },
  ) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'BodyError';
    this.field = options?.field;
  }

  /** With `too-deep`: where the body nests too deep, as a field path from its root. */
  readonly field: string | undefined;
}

/**
 * How deep a request body's JSON may nest (the body itself is level 1): protobuf's default
 * recursion limit, so whatever a JSON binding accepts, the gRPC binding and every peer's
 * protobuf parser accept too. Deeper bodies are refused before anything walks them: thousands
 * of levels overflowed the stack of the serialiser that wrote the answer.
 */
export const MAX_JSON_DEPTH = 100;

/** How many segments of a too-deep body's path the refusal shows, and how much of each. */
const SHOWN_SEGMENTS = 8;
const SHOWN_SEGMENT_LENGTH = 40;

/** The media types a JSON body may be sent as. */
const JSON_MEDIA_TYPES: readonly string[] = [MEDIA_TYPES.json, MEDIA_TYPES.a2aJson];

/**
 * Reads and parses a JSON request body under a size cap, for every JSON API the hub serves (the
 * A2A bindings and the control API). Oversized bodies are refused from Content-Length before
 * reading, or as soon as the stream passes the cap. A missing Content-Type is read as JSON; any
 * other type than `accepted` is refused (curl -d without -H sends form encoding). A byte order
 * mark is tolerated, as RFC 8259 §8.1 allows. No message quotes the body: it may hold a token.
 */
export interface BodyOptions {
  /** The media types accepted (default: application/json and application/a2a+json). */
  readonly accepted?: readonly string[];
  /** An empty body is undefined rather than a parse error. */
  readonly emptyIsNone?: boolean;
  /** The member that holds the request message (JSON-RPC's `params`), which may nest as deep as a bare one. */
  readonly messageAt?: string;
  /** How long the body may go without a byte before it is refused (`idle`); 0 or absent: no limit. */
  readonly idleMs?: number;
}

export async function readJsonBody(ctx: Context, limitBytes: number, options: BodyOptions = {}): Promise<unknown> {
  const { accepted = JSON_MEDIA_TYPES, emptyIsNone = false, messageAt, idleMs = 0 } = options;
  const type = (ctx.get('content-type').split(';')[0] ?? '').trim().toLowerCase();
  if (type !== '' && !accepted.includes(type)) {
    throw new BodyError('media-type', `Content-Type must be ${accepted.join(' or ')}, got ${JSON.stringify(type)}`, limitBytes);
  }
  let text: string;
  try {
    // As bytes, decoded here: raw-body's own decoding goes through iconv-lite, for UTF-8 too.
    const reading = getRawBody(ctx.req, { limit: limitBytes, length: ctx.get('content-length') || undefined });
    text = (await (idleMs > 0 ? withIdleLimit(ctx, reading, idleMs) : reading)).toString('utf8');
  } catch (error) {
    if (error instanceof BodyError) throw error;
    if ((error as { type?: string }).type === 'entity.too.large')
      throw new BodyError('too-large', `the body exceeds the limit of ${limitBytes} bytes`, limitBytes);
    throw new BodyError('unreadable', 'the body could not be read', limitBytes, { cause: error });
  }
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  if (emptyIsNone && text === '') return undefined;
  // Before JSON.parse: a body nested millions deep costs it seconds and hundreds of megabytes.
  // The request message (an envelope's `params`) may nest MAX_JSON_DEPTH levels, whatever holds it.
  const around = messageAt === undefined ? 0 : 1;
  const deep = jsonTextDeeperThan(text, MAX_JSON_DEPTH + around, around + SHOWN_SEGMENTS);
  if (deep !== undefined) {
    const field = shownPath(deep, deep.path[0] === messageAt ? around : 0);
    throw new BodyError('too-deep', `the request nests more than ${MAX_JSON_DEPTH} levels deep, at ${field}`, limitBytes, { field });
  }
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    // The parser's message quotes the body; give only the position.
    const position = /position (\d+)/.exec((error as Error).message)?.[1];
    throw new BodyError('not-json', `the body is not valid JSON${position === undefined ? '' : ` (at character ${position})`}`, limitBytes);
  }
}

/**
 * `reading`, unless the body goes `idleMs` without a byte: then BodyError `idle`, and the
 * connection is closed once the refusal has been answered (what is left of the body is never read).
 */
function withIdleLimit(ctx: Context, reading: Promise<Buffer>, idleMs: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    let timer: NodeJS.Timeout | undefined;
    const arm = (): void => {
      clearTimeout(timer);
      timer = setTimeout(() => {
        ctx.req.off('data', arm);
        ctx.set('Connection', 'close');
        reject(new BodyError('idle', `the body stalled: no byte of it arrived for ${idleMs} ms`, 0));
      }, idleMs);
      timer.unref();
    };
    arm();
    ctx.req.on('data', arm);
    reading.then(
      (body) => {
        clearTimeout(timer);
        ctx.req.off('data', arm);
        resolve(body);
      },
      (error: unknown) => {
        clearTimeout(timer);
        ctx.req.off('data', arm);
        reject(error instanceof Error ? error : new Error(String(error)));
      },
    );
  });
}

/**
 * A too-deep path as a field, shortened: the segments that hold the request message (`skip`),
 * then its own first ones, each cut to a readable length.
 */
function shownPath(deep: TooDeep, skip: number): string {
  const pointer = deep.path
    .slice(0, skip + SHOWN_SEGMENTS)
    .map((segment) => {
      const text = String(segment);
      const shown = text.length > SHOWN_SEGMENT_LENGTH ? `${text.slice(0, SHOWN_SEGMENT_LENGTH)}…` : text;
      return `/${shown.replaceAll('~', '~0').replaceAll('/', '~1')}`;
    })
    .join('');
  return `${fieldPath(pointer)}${deep.more || deep.path.length > skip + SHOWN_SEGMENTS ? '…' : ''}`;
}

/**
 * readJsonBody for the A2A bindings: a body that cannot be read is the registry's error for it.
 * `messageAt` names the member that holds the request message (JSON-RPC's `params`), which may
 * nest as deep as a bare one (HTTP+JSON's body).
 * With `optional` (HTTP+JSON, where GET and DELETE carry none and a POST may omit an empty
 * request), a request without a body, or with an empty one, is undefined and needs no
 * Content-Type.
 */
export async function readA2ABody(
  ctx: Context,
  limitBytes: number,
  options: { readonly optional?: boolean; readonly messageAt?: string; readonly idleMs?: number } = {},
): Promise<unknown> {
  if (options.optional === true && !hasBody(ctx)) return undefined;
  try {
    return await readJsonBody(ctx, limitBytes, {
      emptyIsNone: options.optional === true,
      ...(options.messageAt === undefined ? {} : { messageAt: options.messageAt }),
      ...(options.idleMs === undefined ? {} : { idleMs: options.idleMs }),
    });
  } catch (error) {
    if (!(error instanceof BodyError)) throw error;
    switch (error.problem) {
      case 'media-type':
        throw a2aError('UnsupportedMediaTypeError', error.message);
      case 'too-large':
        throw a2aError('PayloadTooLargeError', error.message, { metadata: { limitBytes: String(limitBytes) } });
      case 'unreadable':
      case 'not-json':
        throw a2aError('JSONParseError', error.message, { cause: error.cause });
      case 'idle':
        throw a2aError('RequestTimeoutError', error.message);
      case 'too-deep':
        throw a2aError('InvalidParamsError', error.message, {
          violations: [
            {
              field: error.field ?? '',
              description: `nests more than ${MAX_JSON_DEPTH} levels deep (a request may nest ${MAX_JSON_DEPTH} at most)`,
              reason: 'TOO_DEEP' satisfies FieldViolationReason,
            },
          ],
        });
    }
  }
}

/** Whether the request announces a body: a non-zero Content-Length or a chunked transfer. */
function hasBody(ctx: Context): boolean {
  const length = ctx.get('content-length');
  return ctx.get('transfer-encoding') !== '' || (length !== '' && length !== '0');
}
