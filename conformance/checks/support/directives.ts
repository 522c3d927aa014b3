import type { Message, TaskState } from '../../../generated/a2a/1.0/types.js';
import { TEST_OUTCOMES, type TestDirectiveRequest, type TestOutcome } from '../../../generated/hub/test-directives.js';
import type { CheckContext } from '../../core/check.js';
import { asksOf } from '../../core/profiles.js';
import { isTaskState } from './states.js';

/*
 * Asking the agent for a lifecycle. A request is written in the test-directive vocabulary
 * (generated/hub/test-directives.ts); the run's cooperation profile (core/profiles.ts) turns it
 * into what the agent understands: directive metadata, a TCK messageId prefix, or nothing on a
 * black-box run.
 */

/** Slow, cancellable work: about 2 s in 20 steps, long enough to act on the task meanwhile. */
export const SLOW_WORK = { steps: 20, stepMs: 100 } as const satisfies TestDirectiveRequest;

/** Whether the run's profile can ask for everything `request` asks. */
export function canAsk(context: CheckContext, request: TestDirectiveRequest): boolean {
  return asksOf(request).every((ask) => context.profile.asks.has(ask));
}

/** A user message asking for `request` as the run's profile can (a plain message when it cannot). */
export function directiveMessage(
  context: CheckContext,
  text: string,
  request: TestDirectiveRequest,
  extra: Partial<Message> = {},
): Message {
  const message = context.message(text, extra);
  return canAsk(context, request) ? context.profile.steer(message, request) : message;
}

/** The state a task asked for `outcome` ends in; undefined for `message`, which makes no task. */
export function stateOfOutcome(outcome: TestOutcome): TaskState | undefined {
  const state = TEST_OUTCOMES.find((entry) => entry.name === outcome)?.state;
  return isTaskState(state) ? state : undefined;
}
