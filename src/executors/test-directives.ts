import type { Message } from '../../generated/a2a/1.0/types.js';

/**
 * The test-directive convention: how a client asks an agent for a given lifecycle so that a
 * conformance suite can reach every state deterministically. The `echo` preset implements it
 * and advertises it on its card as the extension below; docs/test-directives.md publishes it
 * for any agent to implement.
 *
 * A directive is given either in message metadata, `{"a2a-hub/test": {"outcome": "input-required", "steps": 5, "stepMs": 50}}`,
 * or as a line of the message text, `::input-required`, `::slow 5`, `::chunks 4`.
 */
export const TEST_DIRECTIVES_EXTENSION = 'https://a2a-hub.dev/extensions/test-directives/v1';
export const TEST_DIRECTIVE_METADATA_KEY = 'a2a-hub/test';

export type TestOutcome = 'completed' | 'input-required' | 'auth-required' | 'failed' | 'rejected' | 'message';

export interface TestDirective {
  readonly outcome: TestOutcome;
  /** Work in this many cancellable steps, each reported as a WORKING status update. */
  readonly steps: number;
  readonly stepMs: number;
  /** Split the reply artifact into this many chunks. */
  readonly chunks: number;
}

const OUTCOMES: readonly TestOutcome[] = ['completed', 'input-required', 'auth-required', 'failed', 'rejected', 'message'];
const TEXT_ALIASES: ReadonlyMap<string, TestOutcome> = new Map([
  ['input-required', 'input-required'],
  ['auth-required', 'auth-required'],
  ['fail', 'failed'],
  ['failed', 'failed'],
  ['reject', 'rejected'],
  ['rejected', 'rejected'],
  ['message', 'message'],
  ['complete', 'completed'],
]);
const LIMITS = { steps: 1000, stepMs: 10_000, chunks: 100 };

export function parseTestDirective(message: Message, text: string): TestDirective {
  const directive: { outcome: TestOutcome; steps: number; stepMs: number; chunks: number } = { outcome: 'completed', steps: 0, stepMs: 100, chunks: 3 };
  // Most messages hold no directive line: skip splitting them.
  for (const line of text.includes('::') ? text.split('\n') : []) {
    const match = /^::([a-z-]+)(?:\s+(\d+))?\s*$/.exec(line.trim());
    if (!match?.[1]) continue;
    const [, word, count] = match;
    const outcome = TEXT_ALIASES.get(word);
    if (outcome) directive.outcome = outcome;
    else if (word === 'slow') directive.steps = clamp(Number(count ?? 10), LIMITS.steps);
    else if (word === 'chunks') directive.chunks = Math.max(1, clamp(Number(count ?? 3), LIMITS.chunks));
  }
  const meta = message.metadata?.[TEST_DIRECTIVE_METADATA_KEY];
  if (typeof meta === 'object' && meta !== null) {
    const { outcome, steps, stepMs, chunks } = meta as Record<string, unknown>;
    if (typeof outcome === 'string' && (OUTCOMES as readonly string[]).includes(outcome)) directive.outcome = outcome as TestOutcome;
    if (typeof steps === 'number') directive.steps = clamp(steps, LIMITS.steps);
    if (typeof stepMs === 'number') directive.stepMs = clamp(stepMs, LIMITS.stepMs);
    if (typeof chunks === 'number') directive.chunks = Math.max(1, clamp(chunks, LIMITS.chunks));
  }
  return directive;
}

function clamp(value: number, max: number): number {
  return Number.isFinite(value) ? Math.min(Math.max(0, Math.floor(value)), max) : 0;
}
