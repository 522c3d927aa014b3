import type { Part } from '../../../generated/a2a/1.0/types.js';

/**
 * What the model is given of a user message's parts: text and data as text, images as image
 * content parts, text files as their text; and, for each part it could not be given, why. The
 * hub never fetches a URL for the model: an image URL is handed to the model's endpoint as it
 * is, and any other URL is not given.
 */

const MiB = 1024 * 1024;

/**
 * The largest image given to the model, decoded. Model APIs refuse larger ones (Anthropic at
 * 5 MB; OpenAI's per-request limit is reached by a few), and the request carries it as base64
 * in every later call of the conversation.
 */
export const MAX_IMAGE_BYTES = 5 * MiB;

/**
 * Images, decoded, that one message may give the model, and that a conversation keeps in all:
 * beyond it the oldest images of earlier messages are replaced by a note, so that what each
 * model call carries (and what a session holds in memory) stays bounded.
 */
export const MAX_IMAGES_BYTES = 20 * MiB;

/** The characters of one text file given to the model; the rest is cut, and the user is told so. */
export const MAX_TEXT_FILE_CHARS = 100_000;

/** The image formats OpenAI-compatible endpoints take, by the media type a data: URL names them with. */
const IMAGE_TYPES: readonly string[] = ['image/png', 'image/jpeg', 'image/gif', 'image/webp'];

/** application/* types that are text; text/*, +json, +xml and +yaml are recognised by their form. */
const TEXT_APPLICATION_TYPES = new Set([
  'application/json',
  'application/ld+json',
  'application/x-ndjson',
  'application/jsonl',
  'application/xml',
  'application/yaml',
  'application/x-yaml',
  'application/toml',
  'application/javascript',
  'application/ecmascript',
  'application/typescript',
  'application/x-sh',
  'application/sql',
  'application/graphql',
  'application/csv',
]);

/** Media types by file extension, for parts that do not name theirs. */
const TYPES_BY_EXTENSION: Readonly<Record<string, string>> = {
  png: 'image/png',
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  gif: 'image/gif',
  webp: 'image/webp',
  txt: 'text/plain',
  text: 'text/plain',
  log: 'text/plain',
  md: 'text/markdown',
  markdown: 'text/markdown',
  csv: 'text/csv',
  tsv: 'text/tab-separated-values',
  html: 'text/html',
  htm: 'text/html',
  css: 'text/css',
  json: 'application/json',
  jsonl: 'application/jsonl',
  ndjson: 'application/x-ndjson',
  xml: 'application/xml',
  yaml: 'application/yaml',
  yml: 'application/yaml',
  toml: 'application/toml',
  js: 'application/javascript',
  ts: 'application/typescript',
  sh: 'application/x-sh',
  sql: 'application/sql',
};

/** A piece of what the model is given, in the order of the message's parts. */
export type ModelPiece =
  | { readonly kind: 'text'; readonly text: string }
  | {
      readonly kind: 'image';
      /** A data: URL, or the http(s) URL the endpoint fetches. */
      readonly url: string;
      /** Decoded size for a data: URL; the URL's length for one the endpoint fetches. */
      readonly bytes: number;
      /** How the image is named in notes: its file name, or its part. */
      readonly label: string;
    };

/** A part the model was not given, or given only in part, and why: for the user. */
export interface NotGiven {
  /** Its index in the message's parts. */
  readonly index: number;
  readonly filename?: string;
  readonly mediaType?: string;
  readonly reason: string;
}

export interface ModelInput {
  readonly pieces: readonly ModelPiece[];
  readonly notGiven: readonly NotGiven[];
}

/** A user message's parts as the model is given them (see the module comment). */
export function modelInputOf(parts: readonly Part[]): ModelInput {
  const pieces: ModelPiece[] = [];
  const notGiven: NotGiven[] = [];
  let imageBytes = 0;
  parts.forEach((part, index) => {
    if (typeof part.text === 'string') {
      pieces.push({ kind: 'text', text: part.text });
      return;
    }
    if (part.data !== undefined) {
      pieces.push({ kind: 'text', text: JSON.stringify(part.data) });
      return;
    }
    const outcome = fileOf(part);
    const label = part.filename ? part.filename : `parts[${index}]`;
    const refuse = (reason: string, mediaType: string | undefined, given?: string): void => {
      notGiven.push({
        index,
        ...(part.filename ? { filename: part.filename } : {}),
        ...(mediaType === undefined ? {} : { mediaType }),
        reason,
      });
      // The model hears of the part too, so that it does not answer as if there were none.
      pieces.push({ kind: 'text', text: given ?? `[file ${label}${mediaType ? ` (${mediaType})` : ''}: not given to you: ${reason}]` });
    };
    switch (outcome.kind) {
      case 'image':
        if (imageBytes + outcome.bytes > MAX_IMAGES_BYTES) {
          refuse(`the message's images are over ${size(MAX_IMAGES_BYTES)} in all`, outcome.mediaType);
          return;
        }
        imageBytes += outcome.bytes;
        pieces.push({ kind: 'image', url: outcome.url, bytes: outcome.bytes, label });
        return;
      case 'text': {
        const cut = outcome.text.length > MAX_TEXT_FILE_CHARS;
        const shown = cut ? cutAt(outcome.text, MAX_TEXT_FILE_CHARS) : outcome.text;
        const head = `[file ${label} (${outcome.mediaType})]`;
        if (!cut) {
          pieces.push({ kind: 'text', text: `${head}\n${shown}\n[end of file ${label}]` });
          return;
        }
        const reason = `only its first ${MAX_TEXT_FILE_CHARS} of ${outcome.text.length} characters were given to the model`;
        refuse(reason, outcome.mediaType, `${head}\n${shown}\n[file ${label} cut here: ${reason}]`);
        return;
      }
      case 'refused':
        refuse(outcome.reason, outcome.mediaType);
        return;
    }
  });
  return { pieces, notGiven };
}

/** What a file part (raw bytes or a URL) can be for the model. */
type FileOutcome =
  | { readonly kind: 'image'; readonly url: string; readonly bytes: number; readonly mediaType: string }
  | { readonly kind: 'text'; readonly text: string; readonly mediaType: string }
  | { readonly kind: 'refused'; readonly reason: string; readonly mediaType: string | undefined };

function fileOf(part: Part): FileOutcome {
  // application/octet-stream says nothing of what the bytes are: the name or the bytes may tell.
  const named = part.mediaType ? essenceOf(part.mediaType) : undefined;
  const declared = named === 'application/octet-stream' ? undefined : named;
  const charset = part.mediaType === undefined ? undefined : charsetOf(part.mediaType);
  if (part.raw !== undefined) return bytesOf(Buffer.from(part.raw, 'base64'), declared ?? byExtension(part.filename), charset, named);
  const url = part.url ?? '';
  if (/^data:/i.test(url)) {
    const data = parseDataUrl(url);
    if (data === undefined) return { kind: 'refused', reason: 'its data: URL cannot be read', mediaType: declared };
    return bytesOf(data.bytes, declared ?? data.mediaType ?? byExtension(part.filename), charset ?? data.charset, named);
  }
  const type = declared ?? byExtension(part.filename) ?? byExtension(pathOf(url));
  if (type === undefined || !type.startsWith('image/'))
    return {
      kind: 'refused',
      reason: 'the hub does not fetch files from URLs; only images are given to the model by URL',
      mediaType: type,
    };
  if (!IMAGE_TYPES.includes(normalImageType(type))) return { kind: 'refused', reason: unsupportedImage(type), mediaType: type };
  if (!/^https?:\/\//i.test(url))
    return { kind: 'refused', reason: 'only http, https and data: URLs are given to the model', mediaType: type };
  // The endpoint fetches it: its size is not known here, and the URL is all the request carries.
  return { kind: 'image', url, bytes: url.length, mediaType: type };
}

/** Bytes of a file, by their media type (or, when none is known, by what they start with). */
function bytesOf(bytes: Buffer, declared: string | undefined, charset: string | undefined, named: string | undefined): FileOutcome {
  const sniffed = imageTypeOf(bytes);
  const type = declared ?? sniffed;
  if (type === undefined)
    return {
      kind: 'refused',
      reason: 'its media type could not be told from the part, its name or its bytes; only images and text files are given to the model',
      mediaType: named,
    };
  if (type.startsWith('image/')) {
    if (!IMAGE_TYPES.includes(normalImageType(type))) return { kind: 'refused', reason: unsupportedImage(type), mediaType: type };
    // A part whose bytes are not what it says would make the endpoint refuse the whole request.
    if (sniffed === undefined) return { kind: 'refused', reason: 'its bytes are not a PNG, JPEG, GIF or WebP image', mediaType: type };
    if (bytes.length > MAX_IMAGE_BYTES)
      return { kind: 'refused', reason: `${size(bytes.length)} is over the ${size(MAX_IMAGE_BYTES)} limit for images`, mediaType: type };
    return { kind: 'image', url: `data:${sniffed};base64,${bytes.toString('base64')}`, bytes: bytes.length, mediaType: type };
  }
  if (!isTextType(type))
    return {
      kind: 'refused',
      reason: `${type} files are not given to the model; only images (PNG, JPEG, GIF, WebP) and text files are`,
      mediaType: type,
    };
  let text: string;
  try {
    text = new TextDecoder(charset ?? 'utf-8', { fatal: true }).decode(bytes);
  } catch (error) {
    // The constructor throws a RangeError for a label it does not know, decode a TypeError for bytes that are not that text.
    const reason =
      error instanceof RangeError ? `its charset ${charset ?? ''} is not supported` : `it is not valid ${charset ?? 'UTF-8'} text`;
    return { kind: 'refused', reason, mediaType: type };
  }
  return { kind: 'text', text, mediaType: type };
}

function isTextType(type: string): boolean {
  return (
    type.startsWith('text/') ||
    TEXT_APPLICATION_TYPES.has(type) ||
    type.endsWith('+json') ||
    type.endsWith('+xml') ||
    type.endsWith('+yaml')
  );
}

/** The image format the bytes start with, as a media type, or undefined. */
function imageTypeOf(bytes: Buffer): string | undefined {
  if (bytes.length >= 8 && bytes.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]))) return 'image/png';
  if (bytes.length >= 3 && bytes[0] === 0xff && bytes[1] === 0xd8 && bytes[2] === 0xff) return 'image/jpeg';
  const ascii = bytes.subarray(0, 12).toString('latin1');
  if (ascii.startsWith('GIF87a') || ascii.startsWith('GIF89a')) return 'image/gif';
  if (ascii.startsWith('RIFF') && ascii.slice(8, 12) === 'WEBP') return 'image/webp';
  return undefined;
}

function normalImageType(type: string): string {
  return type === 'image/jpg' || type === 'image/pjpeg' ? 'image/jpeg' : type;
}

function unsupportedImage(type: string): string {
  return `${type} images are not given to the model; only PNG, JPEG, GIF and WebP are`;
}

/** `text/plain; charset=utf-8` → `text/plain`. */
function essenceOf(mediaType: string): string {
  return (mediaType.split(';')[0] ?? '').trim().toLowerCase();
}

function charsetOf(mediaType: string): string | undefined {
  const match = /;\s*charset\s*=\s*"?([^";\s]+)"?/i.exec(mediaType);
  return match?.[1]?.toLowerCase();
}

function byExtension(name: string | undefined): string | undefined {
  const match = /\.([A-Za-z0-9]+)$/.exec(name ?? '');
  return match?.[1] === undefined ? undefined : TYPES_BY_EXTENSION[match[1].toLowerCase()];
}

/** A URL's path, for its extension; '' when it is not a URL. */
function pathOf(url: string): string {
  try {
    return new URL(url).pathname;
  } catch {
    return '';
  }
}

/** The bytes and media type of a data: URL (RFC 2397), or undefined when it is not one. */
function parseDataUrl(url: string): { bytes: Buffer; mediaType?: string; charset?: string } | undefined {
  const comma = url.indexOf(',');
  if (comma === -1) return undefined;
  const header = url.slice('data:'.length, comma);
  const body = url.slice(comma + 1);
  const base64 = /;base64$/i.test(header);
  const type = base64 ? header.slice(0, -';base64'.length) : header;
  let bytes: Buffer;
  try {
    bytes = base64 ? Buffer.from(body, 'base64') : Buffer.from(decodeURIComponent(body), 'utf8');
  } catch {
    return undefined;
  }
  const essence = essenceOf(type);
  const charset = charsetOf(type);
  // As on a part, application/octet-stream says nothing; neither does an empty type (RFC 2397's text/plain default): the name or the bytes tell.
  const known = essence !== '' && essence !== 'application/octet-stream';
  return { bytes, ...(known ? { mediaType: essence } : {}), ...(charset === undefined ? {} : { charset }) };
}

/** The first `length` characters, not ending inside a surrogate pair. */
function cutAt(text: string, length: number): string {
  const code = text.charCodeAt(length - 1);
  return text.slice(0, code >= 0xd800 && code <= 0xdbff ? length - 1 : length);
}

/** A size as people read it: `5 MiB`, `5.2 MiB`, `300 KiB`. */
function size(bytes: number): string {
  // Rounded up, so that a size just over a limit does not read as the limit itself.
  if (bytes >= MiB) return `${Math.ceil((bytes / MiB) * 10) / 10} MiB`;
  return `${Math.ceil(bytes / 1024)} KiB`;
}
