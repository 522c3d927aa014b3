import type { Message, TaskState } from '../../../generated/a2a/1.0/types.js';
import {
  TEST_OUTCOMES,
  testDirectiveMetadata,
  type TestDirectiveRequest,
  type TestOutcome,
} from '../../../generated/hub/test-directives.js';
import type { CheckContext } from '../../core/check.js';
import { isTaskState } from './states.js';

/*
 * The test directives (docs/test-directives.md) as the cooperative checks send them. The
 * contract (metadata key, outcomes, parameters) is generated/hub/test-directives.ts: every
 * directive the suite sends is built by its testDirectiveMetadata.
 */

/** Slow, cancellable work: about 2 s in 20 steps, long enough to act on the task meanwhile. */
export const SLOW_WORK = { steps: 20, stepMs: 100 } as const satisfies TestDirectiveRequest;

/** Message metadata asking for `outcome`, with optional slow work. */
export function directive(outcome: TestOutcome, work?: { readonly steps: number; readonly stepMs: number }): Record<string, unknown> {
  return testDirectiveMetadata({ outcome, ...work });
}

/** A user message carrying the directive `request`. */
export function directiveMessage(
  context: CheckContext,
  text: string,
  request: TestDirectiveRequest,
  extra: Partial<Message> = {},
): Message {
  return context.message(text, { ...extra, metadata: testDirectiveMetadata(request) });
}

/** The state a task asked for `outcome` ends in; undefined for `message`, which makes no task. */
export function stateOfOutcome(outcome: TestOutcome): TaskState | undefined {
  const state = TEST_OUTCOMES.find((entry) => entry.name === outcome)?.state;
  return isTaskState(state) ? state : undefined;
}
