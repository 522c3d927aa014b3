import fc from 'fast-check';
import type { RequirementId } from '../../../generated/conformance/requirements.js';
import type { CheckContext } from '../../core/check.js';
import type { Exchange } from '../../core/exchange.js';

/*
 * Properties run against the agent: fast-check with the run's seed and number of runs, each
 * failure shrunk within a time budget (every shrink step is a request). The property and the
 * stateful checks use it.
 */

/** What a violation is about, beyond the message. */
export interface ViolationDetails {
  /** What was really sent (fresh ids included), when it differs from the generated value. */
  readonly sent?: unknown;
  /** The requirement it breaks, when the property covers several. */
  readonly requirement?: RequirementId;
  readonly expected?: string;
  readonly path?: string;
}

/** Why one generated input failed a property; thrown inside the property so fast-check shrinks it. */
export class PropertyViolation extends Error {
  constructor(
    message: string,
    readonly observed: string,
    readonly exchange?: Exchange,
    readonly details: ViolationDetails = {},
  ) {
    super(message);
    this.name = 'PropertyViolation';
  }
}

export interface PropertyOutcome<T> {
  /** Runs that passed before the first failure (all of them when none failed). */
  readonly runs: number;
  readonly failure?: {
    /** The shrunk value. */
    readonly value: T;
    readonly violation: PropertyViolation;
    /** fast-check's counterexample path: `{ seed, path }` replays it. */
    readonly path: string;
    readonly shrinks: number;
  };
}

export interface PropertyRun {
  /** A failure was found and fast-check is now shrinking it. */
  readonly shrinking: boolean;
  /** Index of this run among the initial (non-shrinking) runs. */
  readonly run: number;
}

/** How long a failure may be shrunk: each shrink step is a request, against a hanging agent a timeout. */
export function shrinkBudgetMs(context: CheckContext): number {
  return Math.min(15_000, Math.max(3000, 2 * context.timeoutMs));
}

/**
 * Runs a property against the agent: fc.check with the context's runs and seed, shrinking a
 * failure for a bounded time (each shrink step is a request; against a hanging agent it is a
 * timeout), so the counterexample reported is small but the check still ends. Shrinking is on:
 * `endOnFailure` would stop at the first failing input without shrinking it.
 */
export async function checkAgainstAgent<T>(
  context: CheckContext,
  arbitrary: fc.Arbitrary<T>,
  predicate: (value: T, run: PropertyRun) => Promise<PropertyViolation | undefined>,
  options: { readonly path?: string; readonly numRuns?: number; readonly budgetMs?: number } = {},
): Promise<PropertyOutcome<T>> {
  const budgetMs = options.budgetMs ?? shrinkBudgetMs(context);
  let shrinkingSince: number | undefined;
  let run = 0;
  const property = fc.asyncProperty(arbitrary, async (value) => {
    // Out of shrinking time: let the shrinker run dry without asking the agent again.
    if (shrinkingSince !== undefined && Date.now() - shrinkingSince > budgetMs) return true;
    const violation = await predicate(value, { shrinking: shrinkingSince !== undefined, run });
    if (shrinkingSince === undefined) run += 1;
    if (violation === undefined) return true;
    shrinkingSince ??= Date.now();
    throw violation;
  });
  const details = await fc.check(property, {
    numRuns: options.numRuns ?? Math.max(1, context.runs),
    seed: context.seed,
    endOnFailure: false,
    ...(options.path === undefined ? {} : { path: options.path }),
  });
  if (!details.failed) return { runs: details.numRuns };
  if (details.errorInstance instanceof PropertyViolation && details.counterexample !== null) {
    return {
      runs: details.numRuns,
      failure: {
        value: details.counterexample[0],
        violation: details.errorInstance,
        path: details.counterexamplePath,
        shrinks: details.numShrinks,
      },
    };
  }
  // Anything else thrown is a bug of the suite: let the runner report ERROR.
  if (details.errorInstance instanceof Error) throw details.errorInstance;
  throw new Error(
    `fast-check stopped without a counterexample after ${details.numRuns} runs${details.interrupted ? ' (interrupted)' : ''}`,
  );
}
