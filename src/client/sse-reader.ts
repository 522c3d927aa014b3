import { createParser, type EventSourceMessage } from 'eventsource-parser';
import { MEDIA_TYPES } from '../../generated/a2a/1.0/protocol.js';
import { describeError } from '../support/describe-error.js';
import { A2ATransportError, abortError } from './transport-error.js';

/**
 * Server-sent events from a fetch Response, for any binding that streams over SSE: what an
 * event's data means is the binding's business. Reading stops, and the body is released, when
 * the consumer stops pulling.
 */

export type { EventSourceMessage };

/** Whether the response is an event stream rather than a single answer. */
export function isEventStream(response: Response): boolean {
  return (response.headers.get('content-type') ?? '').startsWith(MEDIA_TYPES.eventStream);
}

/**
 * Yields the events of `response` as they arrive. A broken connection is an A2ATransportError
 * without status (worth resuming); when `signal` ended it, the abort's error instead. `what`
 * names the call in error messages.
 */
export async function* readEventStream(
  what: string,
  response: Response,
  signal: AbortSignal,
): AsyncGenerator<EventSourceMessage, void, undefined> {
  const body = response.body;
  if (body === null) return;
  const queue: EventSourceMessage[] = [];
  const parser = createParser({ onEvent: (message) => queue.push(message) });
  const reader = body.getReader() as ReadableStreamDefaultReader<Uint8Array>;
  const decoder = new TextDecoder();
  try {
    for (;;) {
      let chunk: Awaited<ReturnType<typeof reader.read>>;
      try {
        chunk = await reader.read();
      } catch (error) {
        if (signal.aborted) throw abortError(what, signal, error);
        throw new A2ATransportError(`${what}: the stream broke: ${describeError(error)}`, { cause: error });
      }
      if (chunk.done) parser.feed(decoder.decode());
      else parser.feed(decoder.decode(chunk.value, { stream: true }));
      while (queue.length > 0) yield queue.shift() as EventSourceMessage;
      if (chunk.done) return;
    }
  } finally {
    await reader.cancel().catch(() => undefined);
  }
}
