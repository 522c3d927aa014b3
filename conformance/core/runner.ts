import { randomUUID } from 'node:crypto';
import { ERRORS } from '../../generated/a2a/1.0/errors.js';
import { PROTOCOL_VERSION } from '../../generated/a2a/1.0/protocol.js';
import type { Message } from '../../generated/a2a/1.0/types.js';
import {
  CATALOG_VERSIONS,
  isRequirementId,
  REQUIREMENT_BY_ID,
  REQUIREMENTS,
  type ProtocolVersion,
  type Requirement,
  type RequirementId,
} from '../../generated/conformance/requirements.js';
import type { ConformanceReport, Finding, RequirementResult, SkipReason, Verdict } from '../../generated/conformance/types.js';
import { A2A_1_0 } from '../../src/protocol/a2a-schema.js';
import { checkValue } from '../../src/protocol/validation.js';
import { errorLabel, observedOf, reasonOf } from './answers.js';
import type { Check, CheckContext, FindingInput } from './check.js';
import { curlOf } from './exchange.js';
import { missingAsks, type Profile } from './profiles.js';
import type { Target } from './target.js';
import type { Binding, Transport } from './transport.js';
import { DEFAULT_WEBHOOK_HOST, startWebhookReceiver, type WebhookReceiver } from './webhook-receiver.js';

export type Level = 'must' | 'should' | 'may';

export interface RunOptions {
  readonly level: Level;
  readonly runs: number;
  readonly seed: number;
  readonly timeoutMs: number;
  /** How the suite may ask the agent for lifecycles; PROFILES.none is a black-box run. */
  readonly profile: Profile;
  readonly only?: readonly string[];
  readonly skip?: readonly string[];
  /** Expected failures: requirement id → reason. */
  readonly baseline?: ReadonlyMap<string, string>;
  /** Longest a single check may run before it is an ERROR. Default 60 s plus two webhook waits (a push check may wait twice). */
  readonly checkTimeoutMs?: number;
  /** The address the webhook receiver of the push checks binds and gives agents. Default 127.0.0.1. */
  readonly webhookHost?: string;
  /** How long a push check waits for deliveries. Default 20 s. */
  readonly webhookTimeoutMs?: number;
  /**
   * Set when the suite found nothing it can test at the URL (runUntestable in suite.ts): the problems are
   * recorded as FAILs before any check, and every requirement no check judged is a SKIP saying why.
   */
  readonly untestable?: { readonly reason: string; readonly problems: readonly { requirement: RequirementId; finding: Finding }[] };
  readonly onProgress?: (event: { check: Check; index: number; total: number; binding?: Binding }) => void;
  readonly toolVersion: string;
}

const LEVEL_RANK: Record<Requirement['level'], number> = { MUST: 0, SHOULD: 1, MAY: 2 };
const CUTOFF: Record<Level, number> = { must: 0, should: 1, may: 2 };
const SEVERITY: Record<Verdict, number> = { FAIL: 4, ERROR: 3, WARN: 2, PASS: 1, SKIP: 0 };
/** The requirement that compares the bindings with each other: moot when one was tested. */
const EQUIVALENCE: RequirementId = 'REST-ENV-008';
const DEFAULT_CHECK_TIMEOUT_MS = 60_000;
export const DEFAULT_WEBHOOK_TIMEOUT_MS = 20_000;

/** Runs checks against a target and turns their findings into a report with a verdict on every requirement. */
export async function runSuite(
  target: Target,
  transportOrList: Transport | readonly Transport[],
  checks: readonly Check[],
  options: RunOptions,
): Promise<ConformanceReport> {
  const transports: readonly Transport[] = Array.isArray(transportOrList) ? transportOrList : [transportOrList as Transport];
  if (transports.length === 0) throw new Error('runSuite needs at least one transport');
  // Each version tested brings its own catalog; the others are not part of the report.
  const protocols = CATALOG_VERSIONS.filter((version) => transports.some((transport) => transport.protocolVersion === version));
  const started = Date.now();
  const findings = new Map<RequirementId, Finding[]>();
  /** Exchanges behind each requirement's verdict: those of every check run that judged it. */
  const evidence = new Map<RequirementId, number>();
  /** The requirements the running check has judged (recorded something other than a SKIP on). */
  let judged = new Set<RequirementId>();
  const requestsSoFar = (): number => transports.reduce((sum, transport) => sum + transport.stats.requests, 0);
  const selected = (id: RequirementId): boolean => {
    const requirement = REQUIREMENT_BY_ID.get(id);
    if (requirement === undefined || !protocols.includes(requirement.protocol)) return false;
    if (options.only && options.only.length > 0 && !options.only.includes(id)) return false;
    if (options.skip?.includes(id)) return false;
    return LEVEL_RANK[requirement.level] <= CUTOFF[options.level];
  };
  const record = (requirement: RequirementId, finding: Finding): void => {
    // The type keeps unknown ids out; this keeps a cast from dropping a verdict silently.
    if (!isRequirementId(requirement))
      throw new Error(`${finding.check} recorded a verdict on ${JSON.stringify(requirement)}, which is not a requirement of the catalog`);
    if (!selected(requirement)) return;
    // A check run on one binding may touch requirements of another (a JSON-RPC envelope rule beside a
    // method's outcome): only the run on that binding judges them.
    if (finding.binding !== undefined && !REQUIREMENT_BY_ID.get(requirement)?.bindings.includes(finding.binding)) return;
    const list = findings.get(requirement) ?? [];
    const entry = REQUIREMENT_BY_ID.get(requirement) as Requirement;
    // Only the catalog's warns may soften a MUST; a WARN anywhere else on a MUST is the suite's mistake.
    if (finding.verdict === 'WARN' && entry.level === 'MUST' && entry.warns === undefined)
      throw new Error(
        `${finding.check} warned on ${requirement}, a MUST whose catalog entry allows no warning (a violation of a MUST is a FAIL): ${finding.message}`,
      );
    // One PASS per check and message is evidence enough; repeats would only bloat the report.
    if (
      finding.verdict === 'PASS' &&
      list.some(
        (seen) =>
          seen.verdict === 'PASS' && seen.check === finding.check && seen.binding === finding.binding && seen.message === finding.message,
      )
    )
      return;
    list.push(finding.verdict === 'FAIL' ? asViolationOf(entry, finding) : finding);
    findings.set(requirement, list);
    if (finding.verdict !== 'SKIP') judged.add(requirement);
  };
  // A card read as found (an A2A 0.3 card, say) may lack capabilities altogether.
  const capabilities = (target.card.capabilities ?? {}) as Record<string, boolean | undefined>;
  for (const { requirement, finding } of options.untestable?.problems ?? []) {
    record(requirement, finding);
    evidence.set(requirement, (evidence.get(requirement) ?? 0) + 1);
  }
  const webhooks = new LazyReceiver(options.webhookHost ?? DEFAULT_WEBHOOK_HOST);
  const webhookTimeoutMs = options.webhookTimeoutMs ?? DEFAULT_WEBHOOK_TIMEOUT_MS;
  // A push check may wait out two webhook windows; that is slowness the user allowed, not a hang.
  const checkTimeoutMs = options.checkTimeoutMs ?? DEFAULT_CHECK_TIMEOUT_MS + 2 * webhookTimeoutMs;
  const runnable = checks.filter((check) => check.requirements.some(selected));

  // Every check on each binding it applies to: the binding-neutral ones on every transport, in turn.
  for (const check of runnable) {
    const stray = check.requirements.find((id) => REQUIREMENT_BY_ID.get(id)?.protocol !== protocolOf(check));
    if (stray !== undefined)
      throw new Error(`check ${check.id} (A2A ${protocolOf(check)}) names ${stray}, a requirement of another version's catalog`);
  }
  const runs = runnable.flatMap((check) => runsOf(check, transports).map((transport) => ({ check, transport })));
  try {
    for (const [index, { check, transport }] of runs.entries()) {
      options.onProgress?.({
        check,
        index,
        total: runs.length,
        ...(transports.length > 1 && transport !== undefined ? { binding: transport.binding } : {}),
      });
      const binding = check.once ? undefined : transport?.binding;
      if (check.capability !== undefined && capabilities[check.capability] !== true) {
        for (const requirement of check.requirements)
          record(requirement, {
            ...skipFinding(check.id, 'capability-not-declared', `the card does not declare capabilities.${check.capability}`),
            ...(binding === undefined ? {} : { binding }),
          });
        continue;
      }
      const missing = check.needs === undefined ? undefined : missingAsks(options.profile, check.needs);
      if (missing !== undefined) {
        for (const requirement of check.requirements)
          record(requirement, { ...skipFinding(check.id, 'needs-cooperation', missing), ...(binding === undefined ? {} : { binding }) });
        continue;
      }
      // A check compares the bindings of its own version only.
      const peers = transports.filter((candidate) => candidate.protocolVersion === protocolOf(check));
      const context = createContext(check, target, transport ?? (peers[0] as Transport), peers, binding, options, record, {
        webhooks: () => webhooks.get(),
        webhookTimeoutMs,
      });
      judged = new Set();
      const before = requestsSoFar();
      try {
        await withTimeout(check.run(context), checkTimeoutMs, check.id);
      } catch (error) {
        for (const requirement of check.requirements) {
          if (!(findings.get(requirement) ?? []).some((finding) => finding.check === check.id && finding.binding === binding)) {
            record(requirement, {
              verdict: 'ERROR',
              check: check.id,
              ...(binding === undefined ? {} : { binding }),
              message: `the check itself failed: ${error instanceof Error ? error.message : String(error)}`,
            });
          }
        }
      }
      // A check that judged from the card alone sent nothing: the card the target was resolved from is its exchange.
      const made = requestsSoFar() - before || (check.once && target.cardExchange !== undefined ? 1 : 0);
      for (const requirement of judged) evidence.set(requirement, (evidence.get(requirement) ?? 0) + made);
    }
  } finally {
    await webhooks.close();
  }

  const tested = transports.map((transport) => transport.binding);
  const results = REQUIREMENTS.filter((requirement) => protocols.includes(requirement.protocol)).map((requirement) =>
    resultOf(
      requirement,
      findings.get(requirement.id),
      evidence.get(requirement.id) ?? 0,
      selected(requirement.id),
      options,
      target,
      tested,
    ),
  );
  const stats = transports.reduce(
    (sum, transport) => ({
      requests: sum.requests + transport.stats.requests,
      denied: sum.denied + transport.stats.denied,
      rateLimited: sum.rateLimited + transport.stats.rateLimited,
    }),
    { requests: 0, denied: 0, rateLimited: 0 },
  );
  const summary = summarise(results, stats, options);
  const warnings: string[] = [];
  if (stats.requests > 10 && stats.denied / stats.requests > 0.5) {
    warnings.push(
      `${stats.denied} of ${stats.requests} requests were refused (401, 403, or a 404 that is no A2A error): this run proves little (wrong URL or missing --token?)`,
    );
  }
  if (stats.rateLimited > 0)
    warnings.push(
      `the agent answered 429 (rate limited) ${stats.rateLimited} times: the suite waited as its Retry-After said and sent those requests again`,
    );
  const first = transports[0] as Transport;
  if (target.assumedCard)
    warnings.push('no agent card was found: a minimal card without capabilities was assumed, so capability-dependent checks were skipped');
  return {
    formatVersion: '1',
    tool: { name: 'a2a-hub', version: options.toolVersion },
    specVersion: PROTOCOL_VERSION,
    startedAt: new Date(started).toISOString(),
    durationMs: Date.now() - started,
    target: {
      url: target.url,
      ...(target.cardUrl ? { cardUrl: target.cardUrl } : {}),
      endpoint: first.endpoint,
      binding: first.binding,
      interfaces: transports.map((transport) => ({
        binding: transport.binding,
        protocolVersion: transport.protocolVersion,
        endpoint: transport.endpoint,
      })),
      protocolVersions: [...protocols],
      agentName: target.card.name,
      assumedCard: target.assumedCard,
      mode: options.profile.id === 'none' ? 'black-box' : 'cooperative',
      profile: options.profile.id,
    },
    options: {
      level: options.level,
      runs: options.runs,
      seed: options.seed,
      timeoutMs: options.timeoutMs,
      ...(options.only?.length ? { only: [...options.only] } : {}),
      ...(options.skip?.length ? { skip: [...options.skip] } : {}),
    },
    summary,
    warnings,
    results,
  };
}

/** The protocol version a check is written for. */
function protocolOf(check: Check): ProtocolVersion {
  return check.protocol ?? PROTOCOL_VERSION;
}

/**
 * The transports a check runs on: those of its protocol version it applies to, or only the
 * first of them for a check that does not depend on the binding; none when its version is not tested.
 */
function runsOf(check: Check, transports: readonly Transport[]): (Transport | undefined)[] {
  const own = transports.filter((transport) => transport.protocolVersion === protocolOf(check));
  if (own.length === 0) return [];
  if (check.once) return [own[0]];
  const applicable = own.filter((transport) => check.bindings === undefined || check.bindings.includes(transport.binding));
  // A check for bindings none of which is tested does not run; its requirements get the runner's other-binding skip.
  return applicable;
}

function resultOf(
  requirement: Requirement,
  found: Finding[] | undefined,
  evidence: number,
  selected: boolean,
  options: RunOptions,
  target: Target,
  tested: readonly Binding[],
): RequirementResult {
  const base = {
    id: requirement.id,
    protocol: requirement.protocol,
    section: requirement.section,
    level: requirement.level,
    text: requirement.text,
    evidence,
  };
  const list = found ?? [];
  if (!selected)
    return { ...base, verdict: 'SKIP', findings: [skipFinding('runner', 'not-selected', 'not selected (--level, --only or --skip)')] };
  if (list.length === 0) return { ...base, verdict: 'SKIP', findings: [unreachedFinding(requirement, options, target, tested)] };
  const verdict = worstOf(list);
  // A baseline may also accept a WARN, so a documented policy need not be a standing warning.
  const baselined = verdict === 'FAIL' || verdict === 'WARN' ? options.baseline?.get(requirement.id) : undefined;
  const perBinding: NonNullable<RequirementResult['bindings']> = {};
  if (tested.length > 1) {
    for (const binding of tested) {
      const own = list.filter((finding) => finding.binding === binding);
      if (own.length > 0) perBinding[binding] = worstOf(own);
    }
  }
  return {
    ...base,
    verdict,
    ...(baselined === undefined ? {} : { baselined }),
    ...(Object.keys(perBinding).length > 0 ? { bindings: perBinding } : {}),
    findings: list,
  };
}

function worstOf(list: readonly Finding[]): Verdict {
  return list.reduce<Verdict>((worst, finding) => (SEVERITY[finding.verdict] > SEVERITY[worst] ? finding.verdict : worst), 'SKIP');
}

/** Why no check judged a requirement that was selected. */
function unreachedFinding(requirement: Requirement, options: RunOptions, target: Target, tested: readonly Binding[]): Finding {
  if (options.untestable !== undefined) return skipFinding('runner', 'precondition-not-met', options.untestable.reason);
  const declared = ((target.card.capabilities ?? {}) as Record<string, boolean | undefined>)[requirement.capability ?? ''] === true;
  if (!requirement.bindings.some((binding) => tested.includes(binding as Binding))) {
    return skipFinding(
      'runner',
      'other-binding',
      `applies to the ${requirement.bindings.join('/')} binding, not to ${tested.join(' or ')} (${tested.length > 1 ? 'the ones' : 'the one'} tested)`,
    );
  }
  if (requirement.id === EQUIVALENCE && tested.length < 2)
    return skipFinding(
      'runner',
      'other-binding',
      'compares two bindings, and this run tested one (the card declares one, or --binding chose one)',
    );
  if (requirement.capability !== null && !declared)
    return skipFinding('runner', 'capability-not-declared', `the card does not declare capabilities.${requirement.capability}`);
  if (requirement.mode === 'unreachable') return skipFinding('runner', 'not-observable', 'not observable from outside the agent');
  if (requirement.mode === 'cooperative' && options.profile.id === 'none')
    return skipFinding(
      'runner',
      'needs-cooperation',
      'needs an agent that can be asked for a lifecycle, and the run is black-box (--profile directives or --profile tck)',
    );
  return skipFinding('runner', 'not-reached', 'no check reached this requirement');
}

/** A FAIL recorded on a requirement, as its level makes it: a FAIL of a MUST, a WARN of a SHOULD or MAY. */
function asViolationOf(requirement: Requirement, finding: Finding): Finding {
  if (requirement.violation === 'FAIL') return finding;
  const what = requirement.level === 'SHOULD' ? 'recommended behaviour not met' : 'optional behaviour not offered';
  return { ...finding, verdict: 'WARN', message: `${what}: ${finding.message}` };
}

function skipFinding(check: string, reason: SkipReason, message: string): Finding {
  return { verdict: 'SKIP', check, message, skipReason: reason };
}

function summarise(
  results: RequirementResult[],
  stats: { requests: number; denied: number },
  options: RunOptions,
): ConformanceReport['summary'] {
  const count = (verdict: Verdict) => results.filter((result) => result.verdict === verdict).length;
  const stale = [...(options.baseline?.keys() ?? [])].filter(
    (id) => !['FAIL', 'WARN'].includes(results.find((result) => result.id === id)?.verdict ?? 'SKIP'),
  );
  return {
    PASS: count('PASS'),
    FAIL: count('FAIL'),
    WARN: count('WARN'),
    SKIP: count('SKIP'),
    ERROR: count('ERROR'),
    mustFailures: results.filter((result) => result.verdict === 'FAIL' && result.level === 'MUST' && result.baselined === undefined).length,
    requests: stats.requests,
    deniedRequests: stats.denied,
    baselineStale: stale,
  };
}

/** 0: no MUST failed (and the baseline, if any, matches exactly); 1 otherwise. */
export function exitCodeOf(report: ConformanceReport, usedBaseline: boolean): number {
  if (usedBaseline) {
    const unlisted = report.results.some((result) => result.verdict === 'FAIL' && result.baselined === undefined);
    return unlisted || report.summary.baselineStale.length > 0 ? 1 : 0;
  }
  return report.summary.mustFailures > 0 ? 1 : 0;
}

function createContext(
  check: Check,
  target: Target,
  transport: Transport,
  transports: readonly Transport[],
  binding: Binding | undefined,
  options: RunOptions,
  record: (requirement: RequirementId, finding: Finding) => void,
  push: Pick<CheckContext, 'webhooks' | 'webhookTimeoutMs'>,
): CheckContext {
  const tagged = binding === undefined ? {} : { binding };
  const finding = (verdict: Verdict, input: FindingInput): Finding => ({
    verdict,
    check: check.id,
    ...tagged,
    message: input.message,
    ...(input.expected === undefined ? {} : { expected: input.expected }),
    ...(input.observed === undefined ? {} : { observed: input.observed }),
    ...(input.path === undefined ? {} : { path: input.path }),
    ...(input.counterexample === undefined ? {} : { counterexample: input.counterexample }),
    ...(input.seed === undefined ? {} : { seed: input.seed }),
    ...(input.exchange === undefined ? {} : { curl: curlOf(input.exchange) }),
  });
  const context: CheckContext = {
    transport,
    transports,
    target,
    profile: options.profile,
    runs: options.runs,
    seed: options.seed,
    timeoutMs: options.timeoutMs,
    ...push,
    pass: (requirement, message) => record(requirement, { verdict: 'PASS', check: check.id, ...tagged, message: message ?? 'as required' }),
    fail: (requirement, input) => record(requirement, finding('FAIL', input)),
    warn: (requirement, input) => record(requirement, finding('WARN', input)),
    skip: (requirement, reason, message) => record(requirement, { ...skipFinding(check.id, reason, message), ...tagged }),
    checkShape(requirement, def, value, where) {
      const verdict = checkValue(A2A_1_0, def, value, { flavour: 'exact' });
      if (verdict.ok) {
        record('WIRE-001', {
          verdict: 'PASS',
          check: check.id,
          ...tagged,
          message: `every ${def} this check received is valid A2A 1.0 ProtoJSON`,
        });
        return true;
      }
      for (const violation of verdict.violations.slice(0, 5)) {
        const input: FindingInput = {
          message: `${def} is not valid A2A 1.0 ProtoJSON`,
          expected: `a valid ${def}`,
          observed: `${violation.field || '(the value)'} ${violation.description}`,
          path: [where.path, violation.field].filter((part) => part !== undefined && part !== '').join('.'),
          ...(where.exchange ? { exchange: where.exchange } : {}),
        };
        record(requirement, finding('FAIL', input));
        if (requirement !== 'WIRE-001') record('WIRE-001', finding('FAIL', input));
      }
      return false;
    },
    expectError(requirement, exchange, name) {
      const { code, reason, category } = ERRORS[name];
      const sent = reasonOf(exchange.error);
      // The reason is judged when the agent sends an ErrorInfo (whether it must is JSONRPC-ENV-008),
      // and only for A2A's own errors: the spec names their reasons, not those of JSON-RPC's.
      const judged = category === 'a2a';
      if (exchange.error?.code === code && (!judged || sent === undefined || sent === reason)) {
        context.pass(requirement, `answered ${errorLabel(name)}`);
        return true;
      }
      context.fail(requirement, {
        message: `expected error ${errorLabel(name)}`,
        expected: judged
          ? `error ${errorLabel(name)}, with ErrorInfo reason ${reason} if it carries an ErrorInfo`
          : `error ${errorLabel(name)}`,
        observed: observedOf(exchange),
        exchange,
      });
      return false;
    },
    message(text, extra = {}): Message {
      return { messageId: `conform-${randomUUID()}`, role: 'ROLE_USER', parts: [{ text }], ...extra };
    },
  };
  return context;
}

/** The webhook receiver, started by the first check that asks for it: runs that test no push agent open no port. */
class LazyReceiver {
  private started: Promise<WebhookReceiver> | undefined;

  constructor(private readonly host: string) {}

  get(): Promise<WebhookReceiver> {
    this.started ??= startWebhookReceiver(this.host);
    return this.started;
  }

  async close(): Promise<void> {
    const started = this.started;
    this.started = undefined;
    if (started !== undefined) await (await started.catch(() => undefined))?.close();
  }
}

async function withTimeout<T>(work: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([
      work,
      new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`${what} did not finish within ${ms} ms`)), ms))),
    ]);
  } finally {
    clearTimeout(timer);
  }
}
