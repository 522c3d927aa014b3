import { describe, expect, it } from 'vitest';
import { pipeFramesToSse } from '../../src/http/sse-frames.js';
import type { SseStream } from '../../src/http/sse.js';
import { FrameQueue } from '../../src/server/frame-queue.js';

/** An SSE stream whose client takes one frame per `release()`: a reader as slow as we like. */
function slowClient() {
  const written: { data: string; id?: number }[] = [];
  const waiting: (() => void)[] = [];
  const closeListeners: (() => void)[] = [];
  let closed = false;
  const sse: SseStream = {
    get closed() {
      return closed;
    },
    send(data, id) {
      written.push({ data, ...(id === undefined ? {} : { id }) });
      return new Promise<void>((resolve) => waiting.push(resolve));
    },
    end() {
      closed = true;
      for (const listener of closeListeners.splice(0)) listener();
    },
    onClose(listener) {
      if (closed) listener();
      else closeListeners.push(listener);
    },
  };
  return {
    sse,
    written,
    release: () => waiting.shift()?.(),
    get closed() {
      return closed;
    },
  };
}

const frame = (n: number) => ({
  statusUpdate: {
    taskId: 't',
    contextId: 'c',
    status: { state: 'TASK_STATE_WORKING' as const, timestamp: `2026-01-01T00:00:${String(n % 60).padStart(2, '0')}.000Z` },
  },
});

describe('delivering frames over SSE', () => {
  it('writes one frame at a time, waiting for the client, in order, then ends', async () => {
    const frames = new FrameQueue();
    const client = slowClient();
    pipeFramesToSse(frames, client.sse, (f) => JSON.stringify(f));
    for (let n = 1; n <= 5; n += 1) frames.push(frame(n), n);
    frames.end();
    expect(client.written).toHaveLength(1);
    for (let n = 0; n < 5; n += 1) {
      client.release();
      await new Promise((resolve) => setImmediate(resolve));
    }
    expect(client.written.map((entry) => entry.id)).toEqual([1, 2, 3, 4, 5]);
    expect(client.closed).toBe(true);
  });

  it('cuts off a client that falls more than 1000 frames behind, and detaches from the task', async () => {
    const frames = new FrameQueue();
    const client = slowClient();
    let detached = false;
    frames.onDetach(() => (detached = true));
    pipeFramesToSse(frames, client.sse, (f) => JSON.stringify(f));
    for (let n = 1; n <= 1100; n += 1) frames.push(frame(n), n);
    expect(client.closed).toBe(true);
    expect(detached).toBe(true);
    expect(client.written.length).toBeLessThan(5);
    await Promise.resolve();
  });
});
