import type { StreamResponse, TaskState } from '../../../generated/a2a/1.0/types.js';
import { isRecord } from '../../../src/support/records.js';
import type { SseEvent, StreamExchange } from '../../core/transport.js';
import { sameJson } from './json.js';
import { isTaskState, stateLabel } from './states.js';

/* Reading SSE events and the StreamResponse frames they carry, and describing them for findings. */

/** The payload members of a StreamResponse (its oneof). */
export type FrameKind = keyof StreamResponse;

/** Every member of the oneof, exhaustive by type, in schema order. */
const FRAME_KIND_SET: { readonly [K in FrameKind]: true } = { task: true, message: true, statusUpdate: true, artifactUpdate: true };
const FRAME_KINDS = Object.keys(FRAME_KIND_SET) as readonly FrameKind[];

/** The payload members a frame holds (exactly one when it is well-formed). */
export function kindsOf(frame: unknown): FrameKind[] {
  return isRecord(frame) ? FRAME_KINDS.filter((kind) => frame[kind] !== undefined) : [];
}

/** The one payload kind of a frame, or undefined when it has zero or several (SSE-005 reports those). */
export function kindOf(frame: unknown): FrameKind | undefined {
  const kinds = kindsOf(frame);
  return kinds.length === 1 ? kinds[0] : undefined;
}

/** The payload of a frame under `kind`, when it is an object. */
export function payloadOf(frame: unknown, kind: FrameKind): Record<string, unknown> | undefined {
  if (!isRecord(frame)) return undefined;
  const value = frame[kind];
  return isRecord(value) ? value : undefined;
}

/** The task state a task or statusUpdate frame carries. */
export function stateIn(frame: unknown): TaskState | undefined {
  const holder = payloadOf(frame, 'task') ?? payloadOf(frame, 'statusUpdate');
  const status = holder?.['status'];
  const state = isRecord(status) ? status['state'] : undefined;
  return isTaskState(state) ? state : undefined;
}

/** The task and context a task, statusUpdate or artifactUpdate frame is about. */
export function idsIn(frame: unknown): { taskId: unknown; contextId: unknown } | undefined {
  const task = payloadOf(frame, 'task');
  if (task !== undefined) return { taskId: task['id'], contextId: task['contextId'] };
  const update = payloadOf(frame, 'statusUpdate') ?? payloadOf(frame, 'artifactUpdate');
  return update === undefined ? undefined : { taskId: update['taskId'], contextId: update['contextId'] };
}

/** The SSE id of an event, when it is a decimal number. */
export function numericId(event: SseEvent | undefined): number | undefined {
  return event?.id !== undefined && /^\d+$/.test(event.id) ? Number(event.id) : undefined;
}

/** The events after the snapshot with a numeric id above `after`. */
export function eventsAfterId(events: readonly SseEvent[], after: number): SseEvent[] {
  return events.slice(1).filter((event) => (numericId(event) ?? -1) > after);
}

/** Where two event lists differ (frames compared regardless of member order), or undefined when they carry the same. */
export function sameEvents(left: readonly SseEvent[], right: readonly SseEvent[], compareIds: boolean): string | undefined {
  if (left.length !== right.length) return `${left.length} events against ${right.length}`;
  for (const [index, event] of left.entries()) {
    const other = right[index];
    if (other === undefined) return `event ${index} is missing`;
    if (compareIds && event.id !== other.id) return `event ${index}: id ${String(event.id)} against ${String(other.id)}`;
    if (!sameJson(event.frame, other.frame)) return `event ${index}: ${describeEvent(event)} against ${describeEvent(other)}`;
  }
  return undefined;
}

export function describeEvent(event: SseEvent): string {
  if (event.error !== undefined) return `error ${event.error.code}`;
  if (event.frame === undefined) return event.json === undefined ? 'non-JSON data' : 'JSON without a result';
  const kinds = kindsOf(event.frame);
  if (kinds.length !== 1) return `a frame with ${kinds.length} payload members`;
  const state = stateIn(event.frame);
  return `${kinds[0] ?? ''}${state === undefined ? '' : ` ${stateLabel(state)}`}`;
}

export function describeEvents(events: readonly SseEvent[], from = 0): string {
  const shown = events
    .slice(from, from + 15)
    .map((event, index) => `[${from + index}${event.id === undefined ? '' : ` id ${event.id}`}] ${describeEvent(event)}`);
  if (events.length - from > 15) shown.push(`… ${events.length - from - 15} more`);
  return shown.length === 0 ? '(no events)' : shown.join(', ');
}

export function describeEnding(exchange: StreamExchange): string {
  if (exchange.ending === 'not-a-stream')
    return `not a stream: HTTP ${exchange.status}, Content-Type ${exchange.headers['content-type'] ?? '(none)'}: ${exchange.bodyText.slice(0, 300)}`;
  if (exchange.ending === 'transport-error') return `transport-error: ${exchange.transportError ?? 'the connection failed'}`;
  return `${exchange.ending} after ${exchange.durationMs} ms`;
}
