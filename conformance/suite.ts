import { readFileSync } from 'node:fs';
import type { AgentCard } from '../generated/a2a/1.0/types.js';
import type { ConformanceReport } from '../generated/conformance/types.js';
import { discoveryChecks } from './checks/discovery.js';
import { envelopeChecks } from './checks/envelope.js';
import { equivalenceChecks } from './checks/equivalence.js';
import { hubBehaviourChecks } from './checks/hub-behaviour.js';
import { propertyChecks } from './checks/properties.js';
import { pushChecks } from './checks/push.js';
import { restChecks } from './checks/rest.js';
import { securityChecks } from './checks/security.js';
import { sendMessageChecks } from './checks/send-message.js';
import { statefulChecks } from './checks/stateful.js';
import { streamingChecks } from './checks/streaming.js';
import { taskChecks } from './checks/tasks.js';
import { versioningChecks } from './checks/versioning.js';
import { wireChecks } from './checks/wire.js';
import type { Check } from './core/check.js';
import { transportsFor, type BindingSelection } from './core/bindings.js';
import { advertisedProfile, PROFILES, type Profile, type ProfileId } from './core/profiles.js';
import { exitCodeOf, runSuite, type Level, type RunOptions } from './core/runner.js';
import { JsonRpcTransport } from './core/jsonrpc-transport.js';
import { curlOf } from './core/exchange.js';
import { resolveTarget, TargetError, type Target, type Untestable } from './core/target.js';

/** Every check of the suite, in report order. */
export const ALL_CHECKS: readonly Check[] = [
  ...discoveryChecks,
  ...securityChecks,
  ...versioningChecks,
  ...envelopeChecks,
  ...restChecks,
  ...equivalenceChecks,
  ...sendMessageChecks,
  ...taskChecks,
  ...streamingChecks,
  ...pushChecks,
  ...hubBehaviourChecks,
  ...wireChecks,
  ...propertyChecks,
  ...statefulChecks,
];

/** Per-request timeout when none is given (`--timeout`). */
const DEFAULT_TIMEOUT_MS = 10_000;

export interface ConformOptions {
  readonly headers?: Readonly<Record<string, string>>;
  /** The bindings to test (`--binding`): by default every one the card declares that the suite speaks. */
  readonly binding?: BindingSelection;
  readonly level?: Level;
  readonly runs?: number;
  readonly seed?: number;
  readonly timeoutMs?: number;
  /** The cooperation profile (`--profile`); by default the one the card advertises (the test directives), else none. */
  readonly profile?: ProfileId;
  /** Older spelling: true is the directives profile, false none. `profile` wins. */
  readonly cooperative?: boolean;
  readonly only?: readonly string[];
  readonly skip?: readonly string[];
  readonly baseline?: ReadonlyMap<string, string>;
  readonly checks?: readonly Check[];
  readonly onProgress?: RunOptions['onProgress'];
  /** The address the push checks' webhook receiver binds and gives agents (`--webhook-host`). Default 127.0.0.1. */
  readonly webhookHost?: string;
  /** How long a push check waits for webhook deliveries (`--webhook-timeout`). Default 20000. */
  readonly webhookTimeoutMs?: number;
}

/** Resolves the target, runs the suite and computes the exit code (0: no MUST failed, 1: one did). */
export async function runConformance(url: string, options: ConformOptions = {}): Promise<{ report: ConformanceReport; exitCode: number }> {
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const headers = options.headers ?? {};
  let target: Target;
  try {
    target = await resolveTarget(url, { headers, timeoutMs });
  } catch (error) {
    // Nothing testable at the URL is a finding about the agent, reported like any other (exit 1, not 2).
    if (!(error instanceof TargetError) || error.untestable === undefined) throw error;
    return runUntestable(url, error, options);
  }
  const profile =
    options.profile ?? (options.cooperative === undefined ? advertisedProfile(target.card) : options.cooperative ? 'directives' : 'none');
  const selection = options.binding ?? 'all';
  const transports = transportsFor(target, selection, { headers, timeoutMs });
  if (transports.length === 0) {
    const declared = target.interfaces.map((entry) => entry.binding).join(' and ');
    throw new TargetError(`the agent at ${url} declares no ${selection} interface for protocol version 1.x (it declares ${declared})`);
  }
  const report = await runSuite(target, transports, options.checks ?? ALL_CHECKS, runOptionsOf(options, PROFILES[profile]));
  return { report, exitCode: exitCodeOf(report, options.baseline !== undefined) };
}

/**
 * The report on a URL where the suite found nothing it can test: the problems found are FAILs,
 * and a card that was read (but declares no interface the suite tests) gets the checks that
 * judge the card alone, so the report says what is wrong with it.
 */
async function runUntestable(
  url: string,
  error: TargetError,
  options: ConformOptions,
): Promise<{ report: ConformanceReport; exitCode: number }> {
  const untestable = error.untestable as Untestable;
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const card = untestable.card;
  const target: Target = {
    url,
    card: (card?.json ?? { name: 'no agent found', capabilities: {} }) as unknown as AgentCard,
    ...(card === undefined ? {} : { cardUrl: card.url, cardExchange: card.exchange }),
    endpoint: url,
    interfaces: [],
    assumedCard: card === undefined,
  };
  // The card checks fetch what they need by URL; the transport only carries their exchanges.
  const transport = new JsonRpcTransport({ endpoint: url, timeoutMs, ...(options.headers ? { headers: options.headers } : {}) });
  const checks =
    card === undefined ? [] : (options.checks ?? ALL_CHECKS).filter((check) => check.once && check.id !== 'bindings-equivalent');
  const report = await runSuite(target, [transport], checks, {
    ...runOptionsOf(options, PROFILES.none),
    untestable: {
      reason: `not tested: ${error.message}`,
      problems: untestable.problems.map((problem) => ({
        requirement: problem.requirement,
        finding: {
          verdict: 'FAIL',
          check: 'discovery',
          message: problem.message,
          ...(problem.exchange === undefined ? {} : { curl: curlOf(problem.exchange) }),
        },
      })),
    },
  });
  return { report, exitCode: exitCodeOf(report, options.baseline !== undefined) };
}

function runOptionsOf(options: ConformOptions, profile: Profile): RunOptions {
  return {
    level: options.level ?? 'may',
    runs: options.runs ?? 50,
    seed: options.seed ?? Math.floor(Math.random() * 2 ** 31),
    timeoutMs: options.timeoutMs ?? DEFAULT_TIMEOUT_MS,
    profile,
    ...(options.only ? { only: options.only } : {}),
    ...(options.skip ? { skip: options.skip } : {}),
    ...(options.baseline ? { baseline: options.baseline } : {}),
    ...(options.onProgress ? { onProgress: options.onProgress } : {}),
    ...(options.webhookHost === undefined ? {} : { webhookHost: options.webhookHost }),
    ...(options.webhookTimeoutMs === undefined ? {} : { webhookTimeoutMs: options.webhookTimeoutMs }),
    toolVersion: (JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string }).version,
  };
}
