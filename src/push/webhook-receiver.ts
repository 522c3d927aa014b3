import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { MEDIA_TYPES } from '../../generated/a2a/1.0/protocol.js';
import type { FieldViolation, StreamResponse } from '../../generated/a2a/1.0/types.js';
import { A2A_1_0 } from '../protocol/a2a-schema.js';
import { checkValue } from '../protocol/validation.js';
import { WEBHOOK_ID_HEADER, WEBHOOK_TIMESTAMP_HEADER, verifyWebhook } from './signature.js';
import { summarizeFrame, type FrameSummary } from './stream-response-summary.js';

/**
 * A small webhook receiver (node:http) for people testing an agent's push notifications and for
 * our own tests: it checks each POST the way a careful receiver would (media type, one valid
 * StreamResponse, the Standard Webhooks signature, the task id) and remembers what came.
 */

export interface WebhookReceiverOptions {
  /** Default 127.0.0.1: a test receiver is for this machine unless asked otherwise. */
  readonly host?: string;
  /** Default 0: a free port. */
  readonly port?: number;
  /** The config's signing secret (`whsec_…`); when given, an unsigned or badly signed delivery is refused with 401. */
  readonly secret?: string;
  /** When given, a delivery about another task is refused with 400 (spec §13.2: receivers validate the task id). */
  readonly expectTaskId?: string;
  /** The status a good delivery gets; default 204. Anything else lets one test the sender's retries. */
  readonly answerStatus?: number;
  /** Called for every request recorded, good or refused, after it was answered. */
  readonly onDelivery?: (delivery: WebhookDelivery) => void;
  /**
   * How many deliveries `deliveries` keeps, newest last (default 1000), and as many accepted
   * webhook-ids are remembered to mark duplicates: a receiver left running must not grow forever.
   */
  readonly historyLimit?: number;
}

export type SignatureCheck = 'ok' | 'bad' | 'none';

/** One POST as the receiver saw and judged it. */
export interface WebhookDelivery {
  /** RFC 3339. */
  readonly receivedAt: string;
  readonly path: string;
  /** What the receiver answered. */
  readonly status: number;
  /** Why it was refused; absent when it was accepted. */
  readonly reason?: string;
  readonly webhookId?: string;
  readonly webhookTimestamp?: string;
  /** `none` when the receiver has no secret to check with. */
  readonly signature: SignatureCheck;
  /** The same webhook-id came before: a retry of a delivery already accepted. */
  readonly duplicate: boolean;
  /** The request headers as received (Authorization included: this is the receiver's own record). */
  readonly headers: IncomingHttpHeaders;
  /** The body as UTF-8 text (the signature was checked over its raw bytes). */
  readonly body: string;
  /** The parsed StreamResponse, when the body was one. */
  readonly frame?: StreamResponse;
  /** What the frame is about, when the body was a StreamResponse. */
  readonly summary?: FrameSummary;
}

export interface WebhookReceiver {
  /** Where to point a push config, e.g. `http://127.0.0.1:40123/`. */
  readonly url: string;
  /** The newest `historyLimit` requests recorded, in arrival order. */
  readonly deliveries: readonly WebhookDelivery[];
  close(): Promise<void>;
}

/** Larger bodies get 413 unread: one StreamResponse of a test agent is far smaller. */
const BODY_LIMIT_BYTES = 10 * 1024 * 1024;
const DEFAULT_HISTORY_LIMIT = 1000;
const UTF8 = new TextDecoder('utf-8', { fatal: true });

export async function startWebhookReceiver(options: WebhookReceiverOptions = {}): Promise<WebhookReceiver> {
  const limit = options.historyLimit ?? DEFAULT_HISTORY_LIMIT;
  if (!Number.isSafeInteger(limit) || limit < 1) throw new RangeError(`historyLimit is a whole number of at least 1, not ${limit}`);
  const deliveries: WebhookDelivery[] = [];
  const accepted = new Set<string>();
  const server = createServer((request, response) => {
    receive(request, options, accepted).then(
      (judged) => {
        answer(response, judged);
        if (judged.delivery === undefined) return;
        deliveries.push(judged.delivery);
        if (deliveries.length > limit) deliveries.shift();
        if (judged.delivery.status < 300 && judged.delivery.webhookId !== undefined) remember(accepted, judged.delivery.webhookId, limit);
        options.onDelivery?.(judged.delivery);
      },
      // Only reading the body can fail (the sender went away mid-request): there is no one left to answer.
      () => response.destroy(),
    );
  });
  const host = options.host ?? '127.0.0.1';
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://${host.includes(':') ? `[${host}]` : host}:${port}/`,
    deliveries,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** An answer, and the delivery to record (none for requests that are not deliveries at all). */
interface Judged {
  readonly status: number;
  readonly reason?: string;
  readonly headers?: Record<string, string>;
  readonly delivery?: WebhookDelivery;
}

async function receive(request: IncomingMessage, options: WebhookReceiverOptions, accepted: ReadonlySet<string>): Promise<Judged> {
  if (request.method !== 'POST') {
    request.resume();
    return { status: 405, reason: 'webhooks are POSTed', headers: { allow: 'POST' } };
  }
  const bytes = await readBody(request);
  const body = bytes === undefined ? undefined : utf8(bytes);
  const webhookId = headerText(request.headers, WEBHOOK_ID_HEADER);
  const webhookTimestamp = headerText(request.headers, WEBHOOK_TIMESTAMP_HEADER);
  const base = {
    receivedAt: new Date().toISOString(),
    path: request.url ?? '/',
    headers: request.headers,
    body: body ?? bytes?.toString('utf8') ?? '',
    duplicate: webhookId !== undefined && accepted.has(webhookId),
    ...(webhookId === undefined ? {} : { webhookId }),
    ...(webhookTimestamp === undefined ? {} : { webhookTimestamp }),
  };
  const signature =
    options.secret === undefined || bytes === undefined
      ? undefined
      : verifyWebhook({ secret: options.secret, body: bytes, headers: request.headers });
  const check: SignatureCheck = signature === undefined ? 'none' : signature.ok ? 'ok' : 'bad';
  const refuse = (status: number, reason: string, extra: Partial<WebhookDelivery> = {}): Judged => ({
    status,
    reason,
    delivery: { ...base, ...extra, status, reason, signature: check },
  });
  if (bytes === undefined) return refuse(413, `the body is larger than ${BODY_LIMIT_BYTES} bytes`);
  const mediaType = (request.headers['content-type'] ?? '').split(';')[0]?.trim().toLowerCase() ?? '';
  if (mediaType !== MEDIA_TYPES.a2aJson) {
    return refuse(
      415,
      `Content-Type is ${mediaType === '' ? 'missing' : JSON.stringify(mediaType)}; a push notification is ${MEDIA_TYPES.a2aJson}`,
    );
  }
  if (signature !== undefined && !signature.ok) return refuse(401, `signature: ${signature.reason}`);
  if (body === undefined) return refuse(400, 'the body is not valid UTF-8');
  const parsed = parseFrame(body);
  if (!parsed.ok) return refuse(400, parsed.reason);
  const summary = summarizeFrame(parsed.frame);
  const about = { frame: parsed.frame, summary };
  if (options.expectTaskId !== undefined && summary.taskId !== options.expectTaskId) {
    const got = summary.taskId === undefined ? 'no task id' : `task id ${JSON.stringify(summary.taskId)}`;
    return refuse(400, `the delivery carries ${got}, not the expected ${JSON.stringify(options.expectTaskId)}`, about);
  }
  const status = options.answerStatus ?? 204;
  return { status, delivery: { ...base, ...about, status, signature: check } };
}

type ParsedFrame = { readonly ok: true; readonly frame: StreamResponse } | { readonly ok: false; readonly reason: string };

function parseFrame(body: string): ParsedFrame {
  let data: unknown;
  try {
    data = JSON.parse(body) as unknown;
  } catch (error) {
    return { ok: false, reason: `the body is not JSON: ${(error as Error).message}` };
  }
  const checked = checkValue(A2A_1_0, 'StreamResponse', data);
  if (checked.ok) return { ok: true, frame: checked.value };
  return { ok: false, reason: `the body is not one StreamResponse: ${describeViolations(checked.violations)}` };
}

function describeViolations(violations: readonly FieldViolation[]): string {
  return violations
    .map((violation) => (violation.field === '' ? violation.description : `${violation.field}: ${violation.description}`))
    .join('; ');
}

/** The raw body, or undefined when it is over the limit (the rest is not read). */
async function readBody(request: IncomingMessage): Promise<Buffer | undefined> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > BODY_LIMIT_BYTES) {
      request.destroy();
      return undefined;
    }
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}

function utf8(bytes: Buffer): string | undefined {
  try {
    return UTF8.decode(bytes);
  } catch {
    return undefined;
  }
}

/** Adds `id`, forgetting the oldest once more than `limit` are held (a Set iterates in insertion order). */
function remember(ids: Set<string>, id: string, limit: number): void {
  ids.delete(id);
  ids.add(id);
  if (ids.size > limit) ids.delete(ids.values().next().value as string);
}

function headerText(headers: IncomingHttpHeaders, name: string): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? value.join(', ') : value;
}

function answer(response: ServerResponse, judged: Judged): void {
  if (response.destroyed) return;
  if (judged.reason === undefined) {
    response.writeHead(judged.status, judged.headers).end();
    return;
  }
  const text = JSON.stringify({ error: judged.reason });
  response
    .writeHead(judged.status, { ...judged.headers, 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) })
    .end(text);
}
