import { describe, expect, it } from 'vitest';
import type { JSONRPCError, RestErrorResponse, StreamResponse } from '../../generated/a2a/1.0/types.js';
import { A2A_1_0 } from '../../src/protocol/a2a-schema.js';
import { checkValue } from '../../src/protocol/validation.js';
import type { A2AError } from '../../src/protocol/a2a-error.js';
import { errorResponse, successResponse } from '../../src/protocol/jsonrpc.js';
import { expectNamedError, expectNamedStatus } from '../helpers/errors.js';
import { pipeFramesToSse } from '../../src/http/sse-frames.js';
import type { SseStream } from '../../src/http/sse.js';
import { FrameQueue } from '../../src/server/frame-queue.js';

/** An SSE stream whose client takes one frame per `release()`: a reader as slow as we like. */
function slowClient() {
  const written: { data: string; id?: number; event?: string }[] = [];
  const waiting: (() => void)[] = [];
  const closeListeners: (() => void)[] = [];
  let closed = false;
  const sse: SseStream = {
    get closed() {
      return closed;
    },
    send(data, id, event) {
      written.push({ data, ...(id === undefined ? {} : { id }), ...(event === undefined ? {} : { event }) });
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

const renderFrame = (f: StreamResponse) => JSON.stringify(successResponse(7, f));
const renderError = (error: A2AError) => JSON.stringify(errorResponse(7, error));
const jsonRpc = { frame: renderFrame, error: renderError };

describe('delivering frames over SSE', () => {
  it('writes one frame at a time, waiting for the client, in order, then ends', async () => {
    const frames = new FrameQueue();
    const client = slowClient();
    pipeFramesToSse(frames, client.sse, jsonRpc);
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

  it('cuts off a client that falls more than 1000 frames behind with an error event saying how to resume, and detaches from the task', async () => {
    const frames = new FrameQueue();
    const client = slowClient();
    let detached = false;
    frames.onDetach(() => (detached = true));
    pipeFramesToSse(frames, client.sse, jsonRpc);
    for (let n = 1; n <= 1100; n += 1) frames.push(frame(n), n);
    expect(client.closed).toBe(true);
    expect(detached).toBe(true);
    expect(client.written.length).toBeLessThan(5);
    const [sent, cutOff] = [client.written.slice(0, -1), client.written.at(-1)];
    expect(sent.every((entry) => 'result' in (JSON.parse(entry.data) as object))).toBe(true);
    // The error event repeats the id of the last frame sent, so Last-Event-ID resumes after it.
    expect(cutOff?.id).toBe(sent.at(-1)?.id);
    const body = JSON.parse(cutOff?.data ?? '{}') as { id: unknown; error: JSONRPCError };
    expectNamedError(body.error, 'StreamOverrunError');
    expect(body.id).toBe(7);
    expect(body.error.message).toMatch(/too slowly/);
    expect(body.error.message).toContain('SubscribeToTask');
    expect(body.error.message).toContain('task t');
    await Promise.resolve();
  });
  it('on HTTP+JSON the cut-off is an `error` event whose data is the Status body, after bare frames', async () => {
    const frames = new FrameQueue();
    const client = slowClient();
    pipeFramesToSse(frames, client.sse, {
      frame: (f) => JSON.stringify(f),
      error: (error) => JSON.stringify(error.toRestErrorResponse()),
      errorEvent: 'error',
    });
    for (let n = 1; n <= 1100; n += 1) frames.push(frame(n), n);
    const [sent, cutOff] = [client.written.slice(0, -1), client.written.at(-1)];
    expect(sent.every((entry) => entry.event === undefined && 'statusUpdate' in (JSON.parse(entry.data) as object))).toBe(true);
    expect(cutOff?.event).toBe('error');
    expect(cutOff?.id).toBe(sent.at(-1)?.id);
    const body = JSON.parse(cutOff?.data ?? '{}') as RestErrorResponse;
    expect(checkValue(A2A_1_0, 'RestErrorResponse', body, { flavour: 'exact' })).toMatchObject({ ok: true });
    expectNamedStatus(body.error, 'StreamOverrunError');
    await Promise.resolve();
  });
});
