import { setTimeout as sleep } from 'node:timers/promises';
import type { Part } from '../../generated/a2a/1.0/types.js';
import type { AgentExecutor, ExecutionEvents, ExecutionRequest } from './executor.js';
import { parseTestDirective } from './test-directives.js';

/**
 * Chunks only show on a stream: a caller that does not stream reads the task as stored, where
 * each chunk is a part of its own, so it gets the answer in one part unless a directive asks.
 */
const UNSTREAMED_DEFAULTS = { chunks: 1 } as const;

/**
 * The `echo` preset: answers every message with `echo: <text>`, as artifact chunks to a
 * caller that streams, and obeys the test directives (test-directives.ts) so every lifecycle
 * can be reached.
 */
export const echoExecutor: AgentExecutor = {
  async execute(request: ExecutionRequest, events: ExecutionEvents, signal: AbortSignal): Promise<void> {
    const directive = parseTestDirective(request.message, request.text, request.streaming ? {} : UNSTREAMED_DEFAULTS);
    if (directive.outcome === 'message' && !request.resumed) {
      events.reply(`echo: ${describe(request.message.parts)}`);
      return;
    }
    events.working();
    for (let step = 1; step <= directive.steps; step += 1) {
      await sleep(directive.stepMs, undefined, { signal }).catch(() => undefined);
      if (signal.aborted) return;
      events.working(`step ${step} of ${directive.steps}`);
    }
    switch (directive.outcome) {
      case 'input-required':
        return events.inputRequired('echo needs more input: send another message with this taskId');
      case 'auth-required':
        return events.authRequired('echo needs authentication: send another message with this taskId once authorised');
      case 'failed':
        return events.fail('echo failed as the test directive asked');
      case 'rejected':
        return events.reject('echo rejected the task as the test directive asked');
      // A resumed task cannot answer with a direct message: it completes.
      case 'message':
      case 'completed':
        break;
      default:
        // An outcome added to spec/hub/test-directives.json does not compile until echo has a case for it.
        return unhandled(directive.outcome);
    }
    const reply = `echo: ${describe(request.message.parts)}`;
    const chunks = split(reply, directive.chunks);
    const last = chunks.length - 1;
    const artifactId = events.artifact({ name: 'echo', parts: chunks[0] ?? '', append: false, lastChunk: last === 0 });
    for (let index = 1; index <= last; index += 1) {
      events.artifact({ artifactId, parts: chunks[index] ?? '', append: true, lastChunk: index === last });
    }
    events.complete();
  },
};

/** What the message said, with non-text parts named rather than dumped. */
function describe(parts: readonly Part[]): string {
  let described = '';
  for (const part of parts) {
    const text = describePart(part);
    if (text !== '') described = described === '' ? text : `${described}\n${text}`;
  }
  return described;
}

function describePart(part: Part): string {
  if (typeof part.text === 'string') return (part.text.includes('::') ? part.text.replace(/^::.*$/gm, '') : part.text).trim();
  const kind = part.raw !== undefined ? 'file' : part.url !== undefined ? `link ${part.url}` : 'data';
  return `[${kind}${part.filename ? ` ${part.filename}` : ''}${part.mediaType ? ` ${part.mediaType}` : ''}]`;
}

function split(text: string, count: number): string[] {
  const size = Math.max(1, Math.ceil(text.length / count));
  const chunks: string[] = [];
  for (let start = 0; start < text.length; start += size) chunks.push(text.slice(start, start + size));
  return chunks.length > 0 ? chunks : [''];
}

function unhandled(outcome: never): never {
  throw new Error(`echo has no case for the test outcome ${String(outcome)}`);
}
