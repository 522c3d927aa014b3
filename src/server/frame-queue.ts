import type { StreamResponse } from '../../generated/a2a/1.0/types.js';
import type { A2AError } from '../protocol/a2a-error.js';

/** Where a transport writes stream frames (SSE today; other bindings later). */
export interface FrameSink {
  /** `eventId` is the frame's sequence number in the task's event log (SSE `id:`). */
  send(frame: StreamResponse, eventId: number): void;
  end(): void;
  /** Ends the stream with `error`, after the frames sent before it. */
  fail(error: A2AError): void;
}

/**
 * Buffers a stream's frames from the moment the protocol layer subscribes (while the
 * request is still being handled) until the transport attaches, then forwards them live.
 * This is how the first frame can be the Task snapshot with nothing lost before the
 * transport has written its headers.
 */
export class FrameQueue {
  #buffer: { frame: StreamResponse; eventId: number }[] = [];
  #sink: FrameSink | undefined;
  #ended = false;
  /** Why the stream ended early, until a sink attaches to be told. */
  #failure: A2AError | undefined;
  #onDetach: (() => void)[] = [];

  push(frame: StreamResponse, eventId: number): void {
    if (this.#ended) return;
    if (this.#sink === undefined) this.#buffer.push({ frame, eventId });
    else this.#sink.send(frame, eventId);
  }

  end(): void {
    if (this.#ended) return;
    this.#ended = true;
    this.#sink?.end();
    this.#release();
  }

  /** Ends the stream with `error` (the task's progress could not be stored): the client learns why it ended. */
  fail(error: A2AError): void {
    if (this.#ended) return;
    this.#ended = true;
    if (this.#sink === undefined) this.#failure = error;
    else this.#sink.fail(error);
    this.#release();
  }

  get ended(): boolean {
    return this.#ended;
  }

  /** Registers cleanup (e.g. unsubscribing from the task) for when the stream ends or detaches. */
  onDetach(cleanup: () => void): void {
    if (this.#ended) cleanup();
    else this.#onDetach.push(cleanup);
  }

  /** Starts delivery; returns a function the transport calls when its client goes away. */
  attach(sink: FrameSink): () => void {
    this.#sink = sink;
    for (const { frame, eventId } of this.#buffer) sink.send(frame, eventId);
    this.#buffer = [];
    if (this.#ended) {
      if (this.#failure === undefined) sink.end();
      else sink.fail(this.#failure);
      this.#release();
    }
    return () => {
      this.#ended = true;
      this.#release();
    };
  }

  #release(): void {
    const cleanups = this.#onDetach;
    this.#onDetach = [];
    for (const cleanup of cleanups) cleanup();
  }
}
