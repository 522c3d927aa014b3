import { describe, expect, it } from 'vitest';
import type { Message, Part } from '../../generated/a2a/1.0/types.js';
import { Conversation } from '../../src/executors/standard/conversation.js';
import {
  MAX_IMAGE_BYTES,
  MAX_IMAGES_BYTES,
  MAX_TEXT_FILE_CHARS,
  modelInputOf,
  type ModelPiece,
} from '../../src/executors/standard/file-parts.js';
import { ASK_USER_TOOL, checkToolCall } from '../../src/executors/standard/tool-use.js';
import { TOOL_INPUT_SCHEMA } from '../../src/outbound/tool-arguments.js';

/**
 * What the standard preset gives a model of a user's parts (file-parts.ts) and how it checks a
 * model's tool arguments (tool-use.ts), without a hub; standard-preset.test.ts covers both over HTTP.
 */

const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==', 'base64');

/** A PNG of `bytes` bytes: the signature, then zeros (only the signature is looked at). */
function png(bytes: number): Buffer {
  const image = Buffer.alloc(bytes);
  PNG.copy(image);
  return image;
}

const kinds = (pieces: readonly ModelPiece[]) => pieces.map((piece) => piece.kind);

describe('modelInputOf: what the model is given of file parts', () => {
  it('tells a media type from the file name or the bytes when the part does not say (or says application/octet-stream)', () => {
    const { pieces, notGiven } = modelInputOf([
      { raw: PNG.toString('base64') },
      { raw: Buffer.from('a,b\n1,2').toString('base64'), filename: 'table.csv', mediaType: 'application/octet-stream' },
      { url: 'https://images.example/photo.webp?size=large' },
    ]);
    expect(notGiven).toEqual([]);
    expect(pieces).toEqual([
      { kind: 'image', url: `data:image/png;base64,${PNG.toString('base64')}`, bytes: PNG.length, label: 'parts[0]' },
      { kind: 'text', text: '[file table.csv (text/csv)]\na,b\n1,2\n[end of file table.csv]' },
      { kind: 'image', url: 'https://images.example/photo.webp?size=large', bytes: 44, label: 'parts[2]' },
    ]);
  });

  it('reads data: URLs like raw bytes, and decodes text in the charset the part names', () => {
    const { pieces, notGiven } = modelInputOf([
      { url: `data:image/png;base64,${PNG.toString('base64')}`, filename: 'dot.png' },
      { url: 'data:text/plain,caf%C3%A9', filename: 'a.txt' },
      { raw: Buffer.from([0x63, 0x61, 0x66, 0xe9]).toString('base64'), mediaType: 'text/plain; charset=ISO-8859-1', filename: 'b.txt' },
    ]);
    expect(notGiven).toEqual([]);
    expect(kinds(pieces)).toEqual(['image', 'text', 'text']);
    expect(pieces[1]).toEqual({ kind: 'text', text: '[file a.txt (text/plain)]\ncafé\n[end of file a.txt]' });
    expect(pieces[2]).toEqual({ kind: 'text', text: '[file b.txt (text/plain)]\ncafé\n[end of file b.txt]' });
  });

  it('gives an image up to MAX_IMAGE_BYTES, and not one byte more', () => {
    const fits = modelInputOf([{ raw: png(MAX_IMAGE_BYTES).toString('base64'), mediaType: 'image/png', filename: 'fits.png' }]);
    expect(kinds(fits.pieces)).toEqual(['image']);
    const over = modelInputOf([{ raw: png(MAX_IMAGE_BYTES + 1).toString('base64'), mediaType: 'image/png', filename: 'over.png' }]);
    expect(over.notGiven).toEqual([
      { index: 0, filename: 'over.png', mediaType: 'image/png', reason: '5.1 MiB is over the 5 MiB limit for images' },
    ]);
    expect(over.pieces).toEqual([
      { kind: 'text', text: '[file over.png (image/png): not given to you: 5.1 MiB is over the 5 MiB limit for images]' },
    ]);
  });

  it('gives one message images up to MAX_IMAGES_BYTES in all', () => {
    const each = 4 * 1024 * 1024;
    const count = Math.floor(MAX_IMAGES_BYTES / each) + 1;
    const image = png(each).toString('base64');
    const parts: Part[] = Array.from({ length: count }, (_, index) => ({ raw: image, mediaType: 'image/png', filename: `${index}.png` }));
    const { pieces, notGiven } = modelInputOf(parts);
    expect(kinds(pieces)).toEqual([...Array.from({ length: count - 1 }, () => 'image'), 'text']);
    expect(notGiven).toEqual([
      { index: count - 1, filename: `${count - 1}.png`, mediaType: 'image/png', reason: "the message's images are over 20 MiB in all" },
    ]);
  });

  it('cuts a text file at MAX_TEXT_FILE_CHARS and says so to the model and the user', () => {
    const text = 'x'.repeat(MAX_TEXT_FILE_CHARS + 5);
    const { pieces, notGiven } = modelInputOf([
      { raw: Buffer.from(text).toString('base64'), mediaType: 'text/markdown', filename: 'long.md' },
    ]);
    const reason = `only its first ${MAX_TEXT_FILE_CHARS} of ${MAX_TEXT_FILE_CHARS + 5} characters were given to the model`;
    expect(notGiven).toEqual([{ index: 0, filename: 'long.md', mediaType: 'text/markdown', reason }]);
    expect(pieces).toEqual([
      { kind: 'text', text: `[file long.md (text/markdown)]\n${'x'.repeat(MAX_TEXT_FILE_CHARS)}\n[file long.md cut here: ${reason}]` },
    ]);
  });

  it.each<{ what: string; part: Part; reason: string }>([
    {
      what: 'an image format endpoints do not take',
      part: { raw: Buffer.from('<svg/>').toString('base64'), mediaType: 'image/svg+xml' },
      reason: 'image/svg+xml images are not given to the model; only PNG, JPEG, GIF and WebP are',
    },
    {
      what: 'bytes that are not the image the part says',
      part: { raw: Buffer.from('not a picture').toString('base64'), mediaType: 'image/png' },
      reason: 'its bytes are not a PNG, JPEG, GIF or WebP image',
    },
    {
      what: 'a binary type',
      part: { raw: Buffer.from([0, 1, 2]).toString('base64'), mediaType: 'application/zip' },
      reason: 'application/zip files are not given to the model; only images (PNG, JPEG, GIF, WebP) and text files are',
    },
    {
      what: 'bytes of no known type',
      part: { raw: Buffer.from([0, 1, 2]).toString('base64') },
      reason: 'its media type could not be told from the part, its name or its bytes; only images and text files are given to the model',
    },
    {
      what: 'a text file that is not UTF-8',
      part: { raw: Buffer.from([0xff, 0xfe, 0x00]).toString('base64'), mediaType: 'text/plain' },
      reason: 'it is not valid UTF-8 text',
    },
    {
      what: 'a charset nobody knows',
      part: { raw: Buffer.from('hi').toString('base64'), mediaType: 'text/plain; charset=x-unknown' },
      reason: 'its charset x-unknown is not supported',
    },
    {
      what: 'a URL of a text file (the hub does not fetch)',
      part: { url: 'https://files.example/notes.txt' },
      reason: 'the hub does not fetch files from URLs; only images are given to the model by URL',
    },
    {
      what: 'an image URL the endpoint could not fetch',
      part: { url: 'ftp://files.example/photo.png' },
      reason: 'only http, https and data: URLs are given to the model',
    },
  ])('does not give $what', ({ part, reason }) => {
    const { pieces, notGiven } = modelInputOf([part]);
    expect(notGiven.map((entry) => entry.reason)).toEqual([reason]);
    expect(pieces).toHaveLength(1);
    expect(pieces[0]).toMatchObject({ kind: 'text', text: expect.stringContaining(`not given to you: ${reason}`) as unknown });
  });
});

describe('Conversation: images in the conversation stay bounded', () => {
  const message = (parts: Part[]): Message => ({ messageId: `m-${Math.random()}`, role: 'ROLE_USER', parts });

  it('keeps the images of the newest messages up to MAX_IMAGES_BYTES, and replaces older ones by a note', () => {
    const conversation = new Conversation();
    const each = 4 * 1024 * 1024;
    const count = Math.floor(MAX_IMAGES_BYTES / each) + 1;
    for (let index = 0; index < count; index += 1)
      conversation.addUser(message([{ text: `picture ${index}` }, { raw: png(each).toString('base64'), filename: `${index}.png` }]), 't');
    const users = conversation.messages(undefined).filter((entry) => entry.role === 'user');
    expect(users[0]?.content).toEqual([
      { type: 'text', text: 'picture 0' },
      { type: 'text', text: '[image 0.png: shown to you earlier, no longer attached]' },
    ]);
    for (const later of users.slice(1))
      expect((later.content as { type: string }[]).map((part) => part.type)).toEqual(['text', 'image_url']);
  });
});

describe('checkToolCall: arguments against the offered schema', () => {
  const ask = (args: string) => checkToolCall({ id: 'c', name: 'ask_user', arguments: args }, ASK_USER_TOOL.function.parameters);
  const tool = (args: string) => checkToolCall({ id: 'c', name: 'a2a__x__chat', arguments: args }, TOOL_INPUT_SCHEMA);

  it.each([
    ['{}', 'invalid arguments for ask_user: question is required'],
    ['', 'invalid arguments for ask_user: question is required'],
    ['{"q":"x"}', 'invalid arguments for ask_user: question is required; q is not a member of this object; known members: question'],
    ['{"question":""}', 'invalid arguments for ask_user: question must not be empty'],
    ['{"question":" \\n "}', 'invalid arguments for ask_user: question must not be blank'],
    ['{"question":5}', 'invalid arguments for ask_user: question must be a string, got a number'],
    ['["Which?"]', 'invalid arguments for ask_user: the arguments must be an object, got an array'],
    ['Which city?', 'invalid arguments for ask_user: the arguments are not JSON'],
  ])('ask_user %s: %s', (args, problem) => {
    expect(ask(args)).toEqual({ ok: false, problem });
  });

  it('passes valid arguments through as a value', () => {
    expect(ask('{"question":"Which city?"}')).toEqual({ ok: true, args: { question: 'Which city?' } });
    expect(tool('{"prompt":"hi","taskId":"t1"}')).toEqual({ ok: true, args: { prompt: 'hi', taskId: 't1' } });
  });

  it("checks an outbound tool's arguments against its inputSchema", () => {
    expect(tool('{"prompt":"hi","extra":1}')).toEqual({
      ok: false,
      problem: 'invalid arguments for a2a__x__chat: extra is not a member of this object; known members: prompt, taskId',
    });
    expect(tool('{"taskId":""}')).toEqual({
      ok: false,
      problem: 'invalid arguments for a2a__x__chat: prompt is required; taskId must not be empty',
    });
  });

  it('leaves a tool with no schema (not offered) to whoever refuses it', () => {
    expect(checkToolCall({ id: 'c', name: 'nope', arguments: '{"a":1}' }, undefined)).toEqual({ ok: true, args: { a: 1 } });
  });
});
