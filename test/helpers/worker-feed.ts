import { createParser } from 'eventsource-parser';
import type { WorkerAssignment, WorkerRelease } from '../../generated/hub/types.js';
import { validateWorkerAssignment, validateWorkerRelease } from '../../generated/hub/validators.js';

/**
 * A worker's side of the worker preset over real HTTP, as docs/worker.md describes it: the feed
 * (`GET <endpoint>/worker/feed`, SSE, the instance's token) and its events, each held to its
 * generated validator.
 */
export type FeedEvent =
  { readonly event: 'assigned'; readonly data: WorkerAssignment } | { readonly event: 'released'; readonly data: WorkerRelease };

export interface OpenFeed {
  readonly status: number;
  readonly events: FeedEvent[];
  /** Resolves with the first event not taken yet that matches, waiting for it if need be. */
  next(matching?: (event: FeedEvent) => boolean, timeoutMs?: number): Promise<FeedEvent>;
  /** Resolves when the stream has ended: `ended` when the hub finished the response, `broken` when the connection was cut (or close() was called). */
  readonly ended: Promise<'ended' | 'broken'>;
  close(): void;
}

export async function openFeed(endpoint: string, token: string | undefined): Promise<OpenFeed> {
  const controller = new AbortController();
  const response = await fetch(`${endpoint}/worker/feed`, {
    headers: token === undefined ? {} : { authorization: `Bearer ${token}` },
    signal: controller.signal,
  });
  const events: FeedEvent[] = [];
  const taken = new Set<FeedEvent>();
  const waiters: (() => void)[] = [];
  let ended: Promise<'ended' | 'broken'> = Promise.resolve('ended');
  if (response.ok && response.body !== null) {
    const parser = createParser({
      onEvent(message) {
        const data: unknown = JSON.parse(message.data);
        if (message.event === 'assigned' && validateWorkerAssignment(data)) events.push({ event: 'assigned', data });
        else if (message.event === 'released' && validateWorkerRelease(data)) events.push({ event: 'released', data });
        else throw new Error(`the feed sent an event that is not a WorkerAssignment or WorkerRelease: ${message.event} ${message.data}`);
        for (const wake of waiters.splice(0)) wake();
      },
    });
    ended = (async () => {
      const decoder = new TextDecoder();
      try {
        for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>)
          parser.feed(decoder.decode(chunk, { stream: true }));
        return 'ended' as const;
      } catch {
        return 'broken' as const;
      }
    })();
  }
  return {
    status: response.status,
    events,
    ended,
    async next(matching = () => true, timeoutMs = 5000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const found = events.find((event) => !taken.has(event) && matching(event));
        if (found !== undefined) {
          taken.add(found);
          return found;
        }
        if (Date.now() > deadline) throw new Error(`no matching feed event within ${timeoutMs} ms; got ${JSON.stringify(events)}`);
        await new Promise<void>((resolve) => {
          waiters.push(resolve);
          setTimeout(resolve, 50);
        });
      }
    },
    close: () => controller.abort(),
  };
}
