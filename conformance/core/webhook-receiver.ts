import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * The suite's own webhook receiver, for the push delivery checks: a plain HTTP server that
 * answers every POST 204 and keeps what arrived. Each registration gets a path of its own
 * (`/webhooks/<random>`), so the deliveries of one check are never mistaken for another's, and
 * a stray request to any other path is kept apart. It listens on loopback unless `--webhook-host`
 * names another address (an agent in a container or on another machine cannot reach loopback).
 */

/** One request the receiver got, as it arrived. */
export interface WebhookDelivery {
  readonly method: string;
  /** Header names lower-cased; a repeated header joined with `, `. */
  readonly headers: Readonly<Record<string, string>>;
  readonly bodyText: string;
  /** The body parsed as JSON, when it was JSON. */
  readonly json?: unknown;
  readonly receivedAtMs: number;
}

/** A webhook URL for one registration, and what reached it. */
export interface WebhookInbox {
  readonly url: string;
  /** Everything that arrived so far, in arrival order. */
  deliveries(): readonly WebhookDelivery[];
  /**
   * Resolves with the deliveries once `done` holds for them, or when `withinMs` has passed
   * (then `done` did not hold): an agent may deliver slowly, so callers give generous bounds.
   */
  waitFor(done: (deliveries: readonly WebhookDelivery[]) => boolean, withinMs: number): Promise<readonly WebhookDelivery[]>;
}

export interface WebhookReceiver {
  /** The base URL agents are given (`http://<host>:<port>`). */
  readonly baseUrl: string;
  /** A fresh inbox with its own URL. */
  inbox(): WebhookInbox;
  close(): Promise<void>;
}

/** Loopback: what the receiver binds and advertises unless told otherwise. */
export const DEFAULT_WEBHOOK_HOST = '127.0.0.1';
/** A body larger than this is cut (kept as far as it came): a notification is one StreamResponse. */
const MAX_BODY_BYTES = 1024 * 1024;
const INBOX_PREFIX = '/webhooks/';

/** Starts a receiver on `host` (default loopback), on a port of the system's choosing. */
export async function startWebhookReceiver(host: string = DEFAULT_WEBHOOK_HOST): Promise<WebhookReceiver> {
  const inboxes = new Map<string, Inbox>();
  const server = createServer((request, response) => {
    void readBody(request).then((bodyText) => {
      const path = (request.url ?? '').split('?')[0] ?? '';
      const inbox = path.startsWith(INBOX_PREFIX) ? inboxes.get(path.slice(INBOX_PREFIX.length)) : undefined;
      inbox?.add(deliveryOf(request, bodyText));
      response.writeHead(inbox === undefined ? 404 : 204).end();
    });
  });
  await listen(server, host);
  const { port } = server.address() as AddressInfo;
  const baseUrl = `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
  return {
    baseUrl,
    inbox() {
      const key = randomUUID();
      const inbox = new Inbox(`${baseUrl}${INBOX_PREFIX}${key}`);
      inboxes.set(key, inbox);
      return inbox;
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const inbox of inboxes.values()) inbox.wake();
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

class Inbox implements WebhookInbox {
  private readonly arrived: WebhookDelivery[] = [];
  private readonly waiters = new Set<() => void>();

  constructor(readonly url: string) {}

  deliveries(): readonly WebhookDelivery[] {
    return [...this.arrived];
  }

  add(delivery: WebhookDelivery): void {
    this.arrived.push(delivery);
    this.wake();
  }

  wake(): void {
    for (const waiter of this.waiters) waiter();
  }

  waitFor(done: (deliveries: readonly WebhookDelivery[]) => boolean, withinMs: number): Promise<readonly WebhookDelivery[]> {
    return new Promise((resolve) => {
      const finish = (): void => {
        clearTimeout(timer);
        this.waiters.delete(check);
        resolve(this.deliveries());
      };
      const check = (): void => {
        if (done(this.arrived)) finish();
      };
      const timer = setTimeout(finish, withinMs);
      this.waiters.add(check);
      check();
    });
  }
}

function deliveryOf(request: IncomingMessage, bodyText: string): WebhookDelivery {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(request.headers)) {
    if (value !== undefined) headers[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : value;
  }
  let json: unknown;
  try {
    json = JSON.parse(bodyText);
  } catch {
    json = undefined;
  }
  return { method: request.method ?? '', headers, bodyText, ...(json === undefined ? {} : { json }), receivedAtMs: Date.now() };
}

function readBody(request: IncomingMessage): Promise<string> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    request.on('data', (chunk: Buffer) => {
      if (size >= MAX_BODY_BYTES) return;
      size += chunk.length;
      chunks.push(chunk);
    });
    const done = (): void => resolve(Buffer.concat(chunks).toString('utf8'));
    request.on('end', done);
    request.on('error', done);
  });
}

function listen(server: Server, host: string): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
}
