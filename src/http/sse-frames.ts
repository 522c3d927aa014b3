import type { StreamResponse } from '../../generated/a2a/1.0/types.js';
import { a2aError, type A2AError } from '../protocol/a2a-error.js';
import type { FrameQueue } from '../server/frame-queue.js';
import type { SseStream } from './sse.js';

/** Frames a stream may hold unsent for a slow reader before it is cut off (it can resubscribe). */
const MAX_BACKLOG = 1000;

/** How a binding writes a stream: frames and the error that ends a stream early. */
export interface SseRendering {
  /** The data of a frame's event; undefined sends no event for it (a frame the binding's version has no place for). */
  frame(frame: StreamResponse): string | undefined;
  error(error: A2AError): string;
  /** The SSE event type of the error (`error` on HTTP+JSON); the default type when undefined. */
  readonly errorEvent?: string;
}

/**
 * Delivers a FrameQueue over SSE in order, one write at a time, waiting for the client to
 * keep up. The client going away detaches from the task; it never cancels it. A client too
 * slow to keep up is told so in one error event before its stream ends. Both bindings use
 * it, so `id:` lines, the cut-off and the end of a stream are the same on each.
 */
export function pipeFramesToSse(frames: FrameQueue, sse: SseStream, rendering: SseRendering): void {
  const backlog: { data: string; id: number | undefined; error?: true }[] = [];
  let ended = false;
  let pumping = false;
  let taskId: string | undefined;
  /** The id of the last frame written, from which a resubscribing client goes on. */
  let lastWrittenId: number | undefined;
  const pump = async (): Promise<void> => {
    if (pumping) return;
    pumping = true;
    while (backlog.length > 0 && !sse.closed) {
      const next = backlog.shift();
      if (next === undefined) continue;
      if (next.error === true) await sse.send(next.data, next.id, rendering.errorEvent);
      else {
        lastWrittenId = next.id;
        await sse.send(next.data, next.id);
      }
    }
    pumping = false;
    if (ended) sse.end();
  };
  const fail = (error: A2AError): void => {
    // After the frames the client has not read yet, then the stream ends; like the cut-off, the
    // event repeats the id of the frame before it, from which the client resumes.
    backlog.push({ data: rendering.error(error), id: backlog.at(-1)?.id ?? lastWrittenId, error: true });
    ended = true;
    void pump();
  };
  const cutOff = (): void => {
    backlog.length = 0;
    // Not awaited: the error goes out after what the client has not read yet, then the stream ends.
    void sse.send(rendering.error(tooSlow(taskId, lastWrittenId)), lastWrittenId, rendering.errorEvent);
    sse.end();
  };
  const detach = frames.attach({
    send(frame, eventId) {
      if (sse.closed) return;
      if (backlog.length >= MAX_BACKLOG) {
        cutOff();
        return;
      }
      const data = rendering.frame(frame);
      if (data === undefined) return;
      backlog.push({ data, id: eventId });
      taskId ??= taskIdOf(frame);
      void pump();
    },
    end() {
      ended = true;
      void pump();
    },
    fail(error) {
      if (!sse.closed) fail(error);
    },
  });
  sse.onClose(detach);
}

function tooSlow(taskId: string | undefined, lastEventId: number | undefined): A2AError {
  const resume = lastEventId === undefined ? 'SubscribeToTask' : `SubscribeToTask with Last-Event-ID ${lastEventId}, the id of this event`;
  return a2aError(
    'StreamOverrunError',
    `the client read this stream too slowly: more than ${MAX_BACKLOG} frames were waiting, so the stream ends here; ` +
      `the task goes on: resume with ${resume}${taskId === undefined ? '' : ` (task ${taskId})`}`,
    taskId === undefined ? {} : { metadata: { taskId } },
  );
}

function taskIdOf(frame: StreamResponse): string | undefined {
  return frame.task?.id ?? frame.statusUpdate?.taskId ?? frame.artifactUpdate?.taskId;
}
