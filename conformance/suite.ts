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
import { card03Checks } from './checks/v03/card.js';
import { protocolRules03Checks } from './checks/v03/protocol-rules.js';
import { rest03Checks } from './checks/v03/rest.js';
import { streaming03Checks } from './checks/v03/streaming.js';
import { tasks03Checks } from './checks/v03/tasks.js';
import type { Check } from './core/check.js';
import { PROTOCOL_VERSION } from '../generated/a2a/1.0/protocol.js';
import { CATALOG_VERSIONS, type ProtocolVersion } from '../generated/conformance/requirements.js';
import { transportsFor, type BindingSelection, type ProtocolSelection } from './core/bindings.js';
import { advertisedProfile, PROFILES, type Profile, type ProfileId } from './core/profiles.js';
import { exitCodeOf, runSuite, type Level, type RunOptions } from './core/runner.js';
import { JsonRpcTransport } from './core/jsonrpc-transport.js';
import { curlOf } from './core/exchange.js';
import { setOwn } from '../src/support/own-property.js';
import { packageVersion } from '../src/support/package-version.js';
import { resolveTarget, TargetError, type Target, type Untestable } from './core/target.js';

// The library's surface (`a2a-hub/conformance`, docs/conformance.md "The suite as a library"): the
// run and its options, the report and its writers (those of `a2a-hub conform`), baselines, and the
// error of a run that cannot start.
export {
  BaselineError,
  baselineFromReport,
  loadBaseline,
  parseBaseline,
  renderConsole,
  renderHtml,
  renderJson,
  renderJUnit,
  summaryLine,
  type BaselineOptions,
  type ConsoleOptions,
} from './report/index.js';
export { TargetError } from './core/target.js';
export type { BindingSelection, ProtocolSelection } from './core/bindings.js';
export type { Check } from './core/check.js';
export type { ProfileId } from './core/profiles.js';
export type { Level } from './core/runner.js';
export type { ConformanceReport, Finding, RequirementResult, Verdict } from '../generated/conformance/types.js';

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
  // A2A 0.3 (spec/conformance/requirements-0.3.json), on the agent's 0.3 interface.
  ...card03Checks,
  ...protocolRules03Checks,
  ...tasks03Checks,
  ...streaming03Checks,
  ...rest03Checks,
];

/** Per-request timeout when none is given (`--timeout`). */
const DEFAULT_TIMEOUT_MS = 10_000;

export interface ConformOptions {
  /** Sent as `Authorization: Bearer <token>` with every request (`--token`); an empty token sends nothing. */
  readonly token?: string | undefined;
  /** Extra headers sent with every request (`--header`); an `Authorization` here wins over `token`. */
  readonly headers?: Readonly<Record<string, string>>;
  /** The bindings to test (`--binding`): by default every one the card declares that the suite speaks. */
  readonly binding?: BindingSelection;
  /** The protocol versions to test (`--protocol`): by default every one the card declares that the suite has a catalog of. */
  readonly protocol?: ProtocolSelection;
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

/**
 * The headers the suite sends with every request: `token` as `Authorization: Bearer <token>`,
 * then `headers`, whose names are lowercased (HTTP compares them case-insensitively, so an
 * `Authorization` given there replaces the token's instead of travelling beside it).
 */
export function conformHeaders(options: Pick<ConformOptions, 'token' | 'headers'>): Record<string, string> {
  const headers: Record<string, string> = {};
  if (options.token !== undefined && options.token !== '') headers['authorization'] = `Bearer ${options.token}`;
  for (const [name, value] of Object.entries(options.headers ?? {})) setOwn(headers, name.toLowerCase(), value);
  return headers;
}

/**
 * Resolves the target, runs the suite and computes the exit code (0: no MUST failed, 1: one did;
 * with a baseline: the failures are not exactly the listed ones). Throws TargetError where the
 * CLI exits 2: only another agent's card, credentials missing or refused (`unauthenticated`), an
 * agent that says it cannot serve, a binding asked for that the card does not declare.
 */
export async function runConformance(url: string, options: ConformOptions = {}): Promise<{ report: ConformanceReport; exitCode: number }> {
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const headers = conformHeaders(options);
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
  const protocol = options.protocol ?? 'all';
  const transports = transportsFor(target, selection, { headers, timeoutMs }, protocol);
  if (transports.length === 0) {
    const declared = target.interfaces.map((entry) => `${entry.binding} ${entry.protocolVersion}`).join(' and ');
    const versions = protocol === 'all' ? CATALOG_VERSIONS.join(' or ') : protocol;
    const message = `the agent at ${url} declares no ${selection === 'all' ? '' : `${selection} `}interface for protocol version ${versions} (it declares ${declared})`;
    // An agent of another version is a finding about the version asked for (an A2A 0.3 agent has no 1.0 interface);
    // a binding that is not declared is a wrong flag (exit 2).
    if (selection !== 'all' || protocol === 'all' || target.cardExchange === undefined) throw new TargetError(message);
    const card = { json: target.cardExchange.json as Record<string, unknown>, url: target.cardUrl ?? url, exchange: target.cardExchange };
    const requirement = protocol === PROTOCOL_VERSION ? 'CARD-005' : 'V03-CARD-001';
    const untestable = new TargetError(message, {
      untestable: { problems: [{ requirement, message, exchange: target.cardExchange }], card },
    });
    return runUntestable(url, untestable, options, protocol);
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
  protocolVersion: ProtocolVersion = PROTOCOL_VERSION,
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
  const transport = new JsonRpcTransport({ endpoint: url, timeoutMs, protocolVersion, headers: conformHeaders(options) });
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
    toolVersion: packageVersion(),
  };
}
