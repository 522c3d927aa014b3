import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { AuthenticationInfo, StreamResponse, Task } from '../../generated/a2a/1.0/types.js';
import type { PushSettings } from '../../generated/hub/types.js';
import type { HubParts } from '../../src/hub.js';
import { configIdentity } from '../../src/push/sealed-secrets.js';
import { generateSigningSecret } from '../../src/push/signature.js';

/**
 * Webhook delivery tests: registering configs and receivers that record what they get. No
 * vitest import here: the child-process hub of the restart test uses this file too.
 */

export interface ConfigRequest {
  readonly id: string;
  readonly url: string;
  readonly token?: string;
  readonly authentication?: AuthenticationInfo;
}

/**
 * Registers a push config for a task the hub holds and queues the task's snapshot for it, as
 * CreateTaskPushNotificationConfig will. Until that method is served this goes through the
 * store; switching to the API changes this function only. Returns the signing secret.
 */
export async function registerPushConfig(hub: Pick<HubParts, 'store' | 'push'>, task: Task, request: ConfigRequest): Promise<string> {
  const signingSecret = generateSigningSecret();
  const { token, authentication, ...shown } = request;
  const secrets = hub.push.sealer.seal(
    {
      signingSecret,
      ...(token === undefined ? {} : { token }),
      ...(authentication?.credentials === undefined ? {} : { credentials: authentication.credentials }),
    },
    configIdentity(task.id, request.id),
  );
  await hub.store.putPushConfig({
    taskId: task.id,
    id: request.id,
    config: { ...shown, taskId: task.id, ...(authentication === undefined ? {} : { authentication: { scheme: authentication.scheme } }) },
    secrets,
    createdAt: new Date().toISOString(),
  });
  await hub.store.enqueueDelivery(task.id, request.id, { task });
  hub.push.dispatcher.kick();
  return signingSecret;
}

export interface ReceivedWebhook {
  /** The request's path (one receiver can stand for several configs). */
  readonly path: string;
  readonly headers: IncomingHttpHeaders;
  readonly body: string;
  readonly frame: StreamResponse;
  /** The status the receiver answered; 0 when it never did. */
  readonly status: number;
}

export interface Answer {
  readonly status: number;
  readonly headers?: Record<string, string>;
  /** Never answer (the request hangs until the sender gives up or dies). */
  readonly hang?: boolean;
  /** Answer this much later, so that concurrent requests overlap at the receiver. */
  readonly delayMs?: number;
}

export interface Receiver {
  readonly url: string;
  /** Every request, in arrival order, answered or not. */
  readonly received: ReceivedWebhook[];
  /** Those answered 2xx. */
  readonly delivered: () => ReceivedWebhook[];
  /** Most requests open at the same time. */
  readonly maxInFlight: () => number;
  close(): Promise<void>;
}

/**
 * A webhook receiver on 127.0.0.1 port 0. `answer` decides each reply from the request's
 * position (0 for the first) and the request; the default accepts everything.
 */
export async function startReceiver(
  answer: (index: number, webhook: Omit<ReceivedWebhook, 'status'>) => Answer = () => ({ status: 204 }),
): Promise<Receiver> {
  const received: ReceivedWebhook[] = [];
  let open = 0;
  let most = 0;
  const server: Server = createServer((request, response) => {
    open += 1;
    most = Math.max(most, open);
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const webhook = { path: request.url ?? '', headers: request.headers, body, frame: JSON.parse(body) as StreamResponse };
      const reply = answer(received.length, webhook);
      received.push({ ...webhook, status: reply.hang === true ? 0 : reply.status });
      if (reply.hang === true) return;
      setTimeout(() => {
        response.writeHead(reply.status, reply.headers ?? {});
        response.end();
      }, reply.delayMs ?? 0);
    });
    // Once, whether answered or cut off (a hanging request ends when the sender gives up).
    response.on('close', () => (open -= 1));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hook`,
    received,
    delivered: () => received.filter((webhook) => webhook.status >= 200 && webhook.status < 300),
    maxInFlight: () => most,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A frame as a short label, for comparing sequences: `task:<state>`, `status:<state>[:text]`, `artifact:<text>`. */
export function labelOf(frame: StreamResponse): string {
  const short = (state: string): string => state.replace('TASK_STATE_', '').toLowerCase();
  if (frame.task !== undefined) return `task:${short(frame.task.status.state)}`;
  if (frame.statusUpdate !== undefined) {
    const text = frame.statusUpdate.status.message?.parts[0]?.text;
    return `status:${short(frame.statusUpdate.status.state)}${text === undefined ? '' : `:${text}`}`;
  }
  if (frame.artifactUpdate !== undefined) return `artifact:${frame.artifactUpdate.artifact.parts.map((part) => part.text ?? '').join('')}`;
  return 'message';
}

/** What a receiver that dedupes by webhook-id keeps, in the order first received. */
export function deduped(webhooks: readonly ReceivedWebhook[]): ReceivedWebhook[] {
  const seen = new Set<string>();
  return webhooks.filter((webhook) => {
    const id = String(webhook.headers['webhook-id']);
    if (seen.has(id)) return false;
    seen.add(id);
    return true;
  });
}

/** Push settings for tests: loopback receivers over plain HTTP, and short retries. */
export const TEST_PUSH: PushSettings = {
  destinations: { allowLoopback: true, allowedSchemes: ['http', 'https'] },
  retryMinMs: 10,
  retryMaxMs: 200,
  timeoutMs: 5000,
};
