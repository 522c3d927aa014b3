import type { ErrorName } from '../../generated/a2a/1.0/errors.js';
import type { Capability } from '../../generated/a2a/1.0/methods.js';
import type { Message } from '../../generated/a2a/1.0/types.js';
import type { ProtocolVersion, RequirementId } from '../../generated/conformance/requirements.js';
import type { SkipReason } from '../../generated/conformance/types.js';
import type { A2ADefs } from '../../src/protocol/a2a-schema.js';
import type { Exchange } from './exchange.js';
import type { Ask, Profile } from './profiles.js';
import type { Target } from './target.js';
import type { Binding, RpcExchange, Transport } from './transport.js';
import type { WebhookReceiver } from './webhook-receiver.js';

/** What a check reports about one requirement, beyond the verdict. */
export interface FindingInput {
  readonly message: string;
  readonly expected?: string;
  readonly observed?: string;
  /** JSON path of the offending value. */
  readonly path?: string;
  /** The request that shows it; becomes the finding's curl command. */
  readonly exchange?: Pick<Exchange, 'request'>;
  readonly counterexample?: unknown;
  readonly seed?: number;
}

export interface CheckContext {
  /** The binding this run of the check is on. */
  readonly transport: Transport;
  /** Every binding of the run, in order (for the checks that compare them). */
  readonly transports: readonly Transport[];
  readonly target: Target;
  /** How the suite can ask the agent for a lifecycle (none on a black-box run): `directiveMessage` steers by it. */
  readonly profile: Profile;
  /** fast-check runs per property, and the seed of this run. */
  readonly runs: number;
  readonly seed: number;
  readonly timeoutMs: number;
  /** How long a push check waits for webhook deliveries to arrive (`--webhook-timeout`). */
  readonly webhookTimeoutMs: number;
  /** The suite's webhook receiver, started on first use (on `--webhook-host`) and closed after the run. */
  webhooks(): Promise<WebhookReceiver>;

  pass(requirement: RequirementId, message?: string): void;
  fail(requirement: RequirementId, finding: FindingInput): void;
  warn(requirement: RequirementId, finding: FindingInput): void;
  /** Nothing was judged: `reason` is the code tools read (spec/conformance/report.schema.json SkipReason), `message` says it in words. */
  skip(requirement: RequirementId, reason: SkipReason, message: string): void;

  /**
   * Validates a value the agent sent against an A2A 1.0 def (exact ProtoJSON). A violation is
   * a FAIL of `requirement` and of WIRE-001, with the JSON path; returns whether it was valid.
   */
  checkShape(
    requirement: RequirementId,
    def: keyof A2ADefs,
    value: unknown,
    where: { exchange?: Pick<Exchange, 'request'>; path?: string },
  ): boolean;
  /**
   * Records PASS when the call failed with the error `name`: its JSON-RPC code, and its ErrorInfo
   * reason when the answer carries an ErrorInfo (both from generated/a2a/1.0/errors.ts); FAIL
   * otherwise with what came back. Returns whether it matched.
   */
  expectError(requirement: RequirementId, exchange: RpcExchange, name: ErrorName): boolean;
  /** A user message with a fresh messageId. */
  message(text: string, extra?: Partial<Message>): Message;
}

/**
 * One check: it exercises the agent and records verdicts on the requirements it names.
 * Checks never throw for an agent's misbehaviour (that is a FAIL); a throw means the suite
 * broke and becomes ERROR.
 */
export interface Check {
  readonly id: string;
  readonly title: string;
  readonly requirements: readonly RequirementId[];
  /** Run only when the card declares this capability (the check may test its absence itself otherwise). */
  readonly capability?: Capability;
  /** What the check must be able to ask the agent for; a run whose profile cannot ask for all of it skips the check, saying what was missing. */
  readonly needs?: readonly Ask[];
  /** The bindings the check speaks (it builds their bodies itself); by default every one, each in turn. */
  readonly bindings?: readonly Binding[];
  /** It does not depend on the binding (the card, or a comparison of the bindings): run once, on the first transport. */
  readonly once?: boolean;
  /** The protocol version it tests, whose catalog its requirements are of: it runs on that version's transports only. Default 1.0. */
  readonly protocol?: ProtocolVersion;
  run(context: CheckContext): Promise<void>;
}
