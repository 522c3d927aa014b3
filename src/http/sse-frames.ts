import type { StreamResponse } from '../../generated/a2a/1.0/types.js';
import type { FrameQueue } from '../server/frame-queue.js';
import type { SseStream } from './sse.js';

/** Frames a stream may hold unsent for a slow reader before it is cut off (it can resubscribe). */
const MAX_BACKLOG = 1000;

/**
 * Delivers a FrameQueue over SSE in order, one write at a time, waiting for the client to
 * keep up. The client going away detaches from the task; it never cancels it.
 */
export function pipeFramesToSse(frames: FrameQueue, sse: SseStream, render: (frame: StreamResponse) => string): void {
  const backlog: { data: string; id: number }[] = [];
  let ended = false;
  let pumping = false;
  const pump = async (): Promise<void> => {
    if (pumping) return;
    pumping = true;
    while (backlog.length > 0 && !sse.closed) {
      const next = backlog.shift();
      if (next !== undefined) await sse.send(next.data, next.id);
    }
    pumping = false;
    if (ended) sse.end();
  };
  const detach = frames.attach({
    send(frame, eventId) {
      if (backlog.length >= MAX_BACKLOG) {
        sse.end();
        return;
      }
      backlog.push({ data: render(frame), id: eventId });
      void pump();
    },
    end() {
      ended = true;
      void pump();
    },
  });
  sse.onClose(detach);
}
