import type { AgentCard, Message } from '../../generated/a2a/1.0/types.js';
import { TCK_SCENARIOS, type TckScenario } from '../../generated/hub/tck-scenarios.js';
import {
  TEST_DIRECTIVES_EXTENSION,
  TEST_OUTCOMES,
  testDirectiveMetadata,
  type TestDirectiveRequest,
  type TestOutcome,
} from '../../generated/hub/test-directives.js';

/*
 * Cooperation profiles: the conventions by which the suite can ask an agent for a lifecycle
 * (slow work, input-required, a direct Message…). A check names what it needs to ask for; a run
 * whose profile cannot ask for it skips the check and says which ask was missing. Without a
 * profile (black-box) the suite asks for nothing and judges what the agent does on its own.
 */

export type ProfileId = 'none' | 'directives' | 'tck';

/** What a check can ask an agent for. `timed`: slow work of a length the suite chooses, with progress updates. */
export type Ask = TestOutcome | 'slow' | 'timed' | 'chunks';

export interface Profile {
  readonly id: ProfileId;
  /** For messages: `the test directives (docs/test-directives.md)`. */
  readonly title: string;
  readonly asks: ReadonlySet<Ask>;
  /** At least how long slow work lasts, in ms (0 when the profile cannot ask for it). */
  readonly slowMs: number;
  /** The message, changed to ask for `request`; only what `asks` holds may be asked. */
  steer(message: Message, request: TestDirectiveRequest): Message;
}

/** What a directive request asks for. */
export function asksOf(request: TestDirectiveRequest): Ask[] {
  return [
    request.outcome ?? 'completed',
    ...((request.steps ?? 0) > 0 ? (['slow'] as const) : []),
    ...((request.chunks ?? 1) > 1 ? (['chunks'] as const) : []),
  ];
}

const NONE: Profile = {
  id: 'none',
  title: 'no cooperation profile (black-box)',
  asks: new Set<Ask>(),
  slowMs: 0,
  steer: (message) => message,
};

const DIRECTIVES: Profile = {
  id: 'directives',
  title: 'the a2a-hub test directives (docs/test-directives.md)',
  asks: new Set<Ask>([...TEST_OUTCOMES.map((outcome) => outcome.name), 'slow', 'timed', 'chunks']),
  slowMs: 0,
  steer: (message, request) => ({ ...message, metadata: { ...message.metadata, ...testDirectiveMetadata(request) } }),
};

/** The TCK scenario that does what `request` asks, if there is one. */
function tckScenarioFor(request: TestDirectiveRequest): TckScenario | undefined {
  const outcome = request.outcome ?? 'completed';
  const slow = (request.steps ?? 0) > 0;
  const chunked = (request.chunks ?? 1) > 1;
  return TCK_SCENARIOS.find((scenario) => scenario.outcome === outcome && scenario.slow === slow && scenario.chunked === chunked);
}

const TCK: Profile = {
  id: 'tck',
  title: "the official A2A TCK's messageId-prefix scenarios",
  asks: new Set<Ask>(
    TCK_SCENARIOS.flatMap((scenario) =>
      asksOf({ outcome: scenario.outcome, ...(scenario.slow ? { steps: 1 } : {}), ...(scenario.chunked ? { chunks: 2 } : {}) }),
    ),
  ),
  slowMs: Math.min(...TCK_SCENARIOS.filter((scenario) => scenario.slow).map((scenario) => scenario.minimumMs)),
  steer(message, request) {
    // The plain completion with an artifact, unless the request asks for more.
    const scenario = tckScenarioFor(request) ?? tckScenarioFor({ outcome: 'completed' });
    return scenario === undefined ? message : { ...message, messageId: `${scenario.prefix}-${message.messageId}` };
  },
};

export const PROFILES: Readonly<Record<ProfileId, Profile>> = { none: NONE, directives: DIRECTIVES, tck: TCK };

export function isProfileId(value: unknown): value is ProfileId {
  return typeof value === 'string' && Object.hasOwn(PROFILES, value);
}

/** The profile an agent advertises on its card: the test-directive extension, else none (the TCK convention has no marker). */
export function advertisedProfile(card: AgentCard): ProfileId {
  return (card.capabilities?.extensions ?? []).some((extension) => extension.uri === TEST_DIRECTIVES_EXTENSION) ? 'directives' : 'none';
}

/** Why a check that needs `needs` cannot run under `profile`, or undefined when it can. */
export function missingAsks(profile: Profile, needs: readonly Ask[]): string | undefined {
  const missing = needs.filter((ask) => !profile.asks.has(ask));
  if (missing.length === 0) return undefined;
  const what = missing.map(describeAsk).join(', ');
  if (profile.id === 'none')
    return `needs an agent that can be asked for ${what}; a black-box run asks for nothing (--profile directives or --profile tck, if the agent follows one)`;
  return `needs an agent that can be asked for ${what}, which ${profile.title} cannot ask for`;
}

function describeAsk(ask: Ask): string {
  switch (ask) {
    case 'slow':
      return 'slow work';
    case 'timed':
      return 'slow work of a chosen length with progress updates';
    case 'chunks':
      return 'an artifact in several chunks';
    case 'message':
      return 'a direct Message';
    case 'completed':
      return 'a completed task';
    default:
      return `a task ending ${ask}`;
  }
}
