import { readFileSync } from 'node:fs';
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
import { advertisedProfile, PROFILES, type ProfileId } from './core/profiles.js';
import { exitCodeOf, runSuite, type Level, type RunOptions } from './core/runner.js';
import { resolveTarget, TargetError } from './core/target.js';

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
  const timeoutMs = options.timeoutMs ?? 10_000;
  const headers = options.headers ?? {};
  const target = await resolveTarget(url, { headers, timeoutMs });
  const profile =
    options.profile ?? (options.cooperative === undefined ? advertisedProfile(target.card) : options.cooperative ? 'directives' : 'none');
  const selection = options.binding ?? 'all';
  const transports = transportsFor(target, selection, { headers, timeoutMs });
  if (transports.length === 0) {
    const declared = target.interfaces.map((entry) => entry.binding).join(' and ');
    throw new TargetError(`the agent at ${url} declares no ${selection} interface for protocol version 1.x (it declares ${declared})`);
  }
  const report = await runSuite(target, transports, options.checks ?? ALL_CHECKS, {
    level: options.level ?? 'may',
    runs: options.runs ?? 50,
    seed: options.seed ?? Math.floor(Math.random() * 2 ** 31),
    timeoutMs,
    profile: PROFILES[profile],
    ...(options.only ? { only: options.only } : {}),
    ...(options.skip ? { skip: options.skip } : {}),
    ...(options.baseline ? { baseline: options.baseline } : {}),
    ...(options.onProgress ? { onProgress: options.onProgress } : {}),
    ...(options.webhookHost === undefined ? {} : { webhookHost: options.webhookHost }),
    ...(options.webhookTimeoutMs === undefined ? {} : { webhookTimeoutMs: options.webhookTimeoutMs }),
    toolVersion: (JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string }).version,
  });
  return { report, exitCode: exitCodeOf(report, options.baseline !== undefined) };
}
