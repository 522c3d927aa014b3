import type { Message } from '@a2a-js/sdk';
import type { Plan } from './sdk-agent.js';

/*
 * The official A2A TCK's system-under-test convention, written from its published scenario files
 * (a2aproject/a2a-tck scenarios/core_operations.feature and scenarios/streaming.feature), not
 * from a2a-hub's table of it: the messageId prefix of a message picks what the agent does. An
 * agent built this way is what every official SDK's TCK agent is, so the conformance suite's
 * tck profile is tested against an implementation it did not grow up with.
 */

/** The TCK's streaming timeout (TCK_STREAMING_TIMEOUT, 2 s by default). */
const STREAMING_TIMEOUT_MS = 2000;

/** Longest prefix first, so that no scenario takes a longer one's messages. */
const SCENARIOS: readonly (readonly [prefix: string, plan: Plan])[] = [
  ['tck-stream-artifact-chunked', { outcome: 'completed', steps: 0, stepMs: 0, progress: false, chunks: ['chunk-1 ', 'chunk-2'] }],
  [
    'test-resubscribe-message-id',
    // Working, then twice the streaming timeout, then completed: one silent step.
    { outcome: 'completed', steps: 1, stepMs: 2 * STREAMING_TIMEOUT_MS, progress: false },
  ],
  ['tck-delayed-complete', { outcome: 'completed', steps: 1, stepMs: STREAMING_TIMEOUT_MS, progress: false, text: 'Done after delay' }],
  ['tck-stream-artifact-text', { outcome: 'completed', steps: 0, stepMs: 0, progress: false, chunks: ['Streamed text content'] }],
  ['tck-stream-ordering-001', { outcome: 'completed', steps: 0, stepMs: 0, progress: false, chunks: ['Ordered output'] }],
  ['tck-stream-001', { outcome: 'completed', steps: 0, stepMs: 0, progress: false, chunks: ['Stream hello from TCK'] }],
  ['tck-stream-003', { outcome: 'completed', steps: 0, stepMs: 0, progress: false, chunks: ['Stream task lifecycle'] }],
  ['tck-message-response', { outcome: 'message', steps: 0, stepMs: 0, progress: false, text: 'Direct message response' }],
  ['tck-input-required', { outcome: 'input-required', steps: 0, stepMs: 0, progress: false }],
  ['tck-artifact-text', { outcome: 'completed', steps: 0, stepMs: 0, progress: false, chunks: ['Generated text content'] }],
  ['tck-complete-task', { outcome: 'completed', steps: 0, stepMs: 0, progress: false, text: 'Hello from TCK' }],
  ['tck-reject-task', { outcome: 'rejected', steps: 0, stepMs: 0, progress: false }],
];

/** What a TCK agent does with a message; one without a known prefix (a follow-up, say) completes like tck-complete-task. */
export function tckPlan(message: Message): Plan {
  const found = SCENARIOS.find(([prefix]) => message.messageId.startsWith(prefix));
  return found?.[1] ?? { outcome: 'completed', steps: 0, stepMs: 0, progress: false, text: 'Hello from TCK' };
}
