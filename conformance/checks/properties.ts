import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import { METHODS } from '../../generated/a2a/1.0/methods.js';
import { MEDIA_TYPES, PROTOCOL_VERSION } from '../../generated/a2a/1.0/protocol.js';
import type { AgentCard, Message, Part, SendMessageRequest } from '../../generated/a2a/1.0/types.js';
import { A2A_1_0 } from '../../src/protocol/a2a-schema.js';
import { oneofMembers, requiredNames, schemaAt, splitPointer, valueAt } from '../../src/protocol/json-schema.js';
import { mediaRangeCovers, mediaTypeOfPart } from '../../src/protocol/media-types.js';
import { routeOf } from '../../src/protocol/rest-routes.js';
import { checkValue } from '../../src/protocol/validation.js';
import { arbitraryFor } from '../arbitraries/from-schema.js';
import { mutatedArbitrary, type Mutated } from '../arbitraries/mutations.js';
import { brokenAnswer, errorLabel, isError, observedOf } from '../core/answers.js';
import type { Check, CheckContext } from '../core/check.js';
import { VERSION_HEADER } from '../core/exchange.js';
import type { RpcExchange, Transport } from '../core/transport.js';
import { cardModes } from './support/card.js';
import { checkAgainstAgent, PropertyViolation, shrinkBudgetMs, type PropertyRun } from './support/property-runs.js';

// ---------------------------------------------------------------------------------------------
// ROBUST-001: random valid messages

const EXTRA_MEDIA_TYPES = ['text/plain', 'application/json', 'text/csv', 'image/png', 'application/pdf', 'application/octet-stream'];
const EXTRA_OUTPUT_MODES = ['text/plain', 'application/json', 'image/png', 'text/*', '*/*'];

function without<T extends object>(value: T, keys: readonly string[]): T {
  const copy = { ...value } as Record<string, unknown>;
  for (const key of keys) delete copy[key];
  return copy as T;
}

/**
 * SendMessage params that make sense as a new message: schema-derived parts (every kind,
 * Unicode text, metadata), realistic media types, ROLE_USER, no taskId, contextId or
 * references to tasks, no push config, returnImmediately so that nothing waits on the work.
 * The messageId is replaced by a fresh one at send time, so that a shrink step is never
 * answered from an idempotency cache.
 */
function validSendMessageRequests(card: AgentCard): fc.Arbitrary<SendMessageRequest> {
  const document = A2A_1_0.document;
  const mediaTypes = [...new Set([...cardModes(card, 'input'), ...EXTRA_MEDIA_TYPES])].filter((mode) => !mode.includes('*'));
  const outputModes = [...new Set([...cardModes(card, 'output'), ...EXTRA_OUTPUT_MODES])];
  const part: fc.Arbitrary<Part> = fc
    .tuple(arbitraryFor(document, 'Part', { unicode: true }), fc.option(fc.constantFrom(...mediaTypes), { nil: undefined }))
    .map(([raw, mediaType]) => {
      const base = without(raw as Part, ['mediaType']);
      return mediaType === undefined ? base : { ...base, mediaType };
    });
  const message: fc.Arbitrary<Message> = fc
    .tuple(arbitraryFor(document, 'Message', { unicode: true }), fc.array(part, { minLength: 1, maxLength: 3 }))
    .map(([raw, parts]) => ({
      ...without(raw as Message, ['taskId', 'contextId', 'referenceTaskIds', 'extensions']),
      role: 'ROLE_USER' as const,
      parts,
    }));
  const configuration = fc
    .record(
      {
        acceptedOutputModes: fc.uniqueArray(fc.constantFrom(...outputModes), { minLength: 1, maxLength: 3 }),
        historyLength: fc.nat({ max: 10 }),
      },
      { requiredKeys: [] },
    )
    .map((value) => ({ ...value, returnImmediately: true }));
  return fc
    .record(
      { message, configuration, metadata: arbitraryFor(document, 'Struct') as fc.Arbitrary<Record<string, unknown>> },
      { requiredKeys: ['message', 'configuration'] },
    )
    .filter((request) => checkValue(A2A_1_0, 'SendMessageRequest', request, { flavour: 'exact' }).ok);
}

/** Whether the request names a media type the card does not list, so ContentTypeNotSupportedError is a fair answer. */
function excludedByCard(request: SendMessageRequest, card: AgentCard): boolean {
  const inputs = cardModes(card, 'input');
  const outputs = cardModes(card, 'output');
  const partExcluded = request.message.parts.some((part) => !inputs.some((mode) => mediaRangeCovers(mode, mediaTypeOfPart(part))));
  const accepted = request.configuration?.acceptedOutputModes ?? [];
  const outputExcluded =
    accepted.length > 0 &&
    !accepted.some((mode) => outputs.some((output) => mediaRangeCovers(mode, output) || mediaRangeCovers(output, mode)));
  return partExcluded || outputExcluded;
}

async function sendValidMessages(context: CheckContext): Promise<void> {
  const card = context.target.card;
  let refusedForContentType = 0;
  const outcome = await checkAgainstAgent(context, validSendMessageRequests(card), async (request) => {
    const sent: SendMessageRequest = { ...request, message: { ...request.message, messageId: `conform-${randomUUID()}` } };
    const exchange = await context.transport.call('SendMessage', sent);
    if (brokenAnswer(exchange))
      return new PropertyViolation('a valid SendMessage got no proper answer', observedOf(exchange), exchange, { sent });
    if (exchange.error !== undefined) {
      if (isError(exchange, 'ContentTypeNotSupportedError') && excludedByCard(sent, card)) {
        refusedForContentType += 1;
        return undefined;
      }
      return new PropertyViolation('a valid SendMessage was refused', observedOf(exchange), exchange, { sent });
    }
    const verdict = checkValue(A2A_1_0, 'SendMessageResponse', exchange.result, { flavour: 'exact' });
    if (verdict.ok) return undefined;
    const first = verdict.violations[0];
    return new PropertyViolation(
      'the answer to a valid SendMessage is not a valid SendMessageResponse',
      `${first?.field || 'result'} ${first?.description ?? 'is invalid'}`,
      exchange,
      { sent },
    );
  });
  if (outcome.failure === undefined) {
    const note =
      refusedForContentType > 0
        ? `; ${refusedForContentType} refused with ${errorLabel('ContentTypeNotSupportedError')} for media types the card does not list`
        : '';
    context.pass('ROBUST-001', `${outcome.runs} random valid messages were answered with a valid SendMessageResponse${note}`);
    return;
  }
  const { violation, path, shrinks } = outcome.failure;
  context.fail('ROBUST-001', {
    message: `${violation.message} (shrunk ${shrinks} times)`,
    expected: `a result that is a valid SendMessageResponse (a Task or a Message), or ${errorLabel('ContentTypeNotSupportedError')} for a media type the card does not list`,
    observed: violation.observed,
    exchange: violation.exchange,
    counterexample: { method: 'SendMessage', params: violation.details.sent ?? outcome.failure.value, fastCheckPath: path },
    seed: context.seed,
  });
  const result = (violation.exchange as RpcExchange | undefined)?.result;
  if (result !== undefined)
    context.checkShape('ROBUST-001', 'SendMessageResponse', result, { exchange: violation.exchange, path: 'result' });
}

// ---------------------------------------------------------------------------------------------
// ROBUST-002, ROBUST-003: one mutation inside params

/** The methods whose params are mutated, with their params def (methods.json paramsType). */
const MUTATED_METHODS = (['SendMessage', 'GetTask', 'ListTasks', 'CancelTask'] as const).map(
  (method) => [method, METHODS[method].paramsType] as const,
);

/** Mutated params (input is tolerant, so no unknown members), never the no-op "nothing to mutate". */
function mutatedParams(def: string, keep: (mutated: Mutated) => boolean = () => true): fc.Arbitrary<Mutated> {
  return mutatedArbitrary(A2A_1_0.document, def, { unknownMembers: false }).filter(
    (mutated): mutated is Mutated => mutated !== undefined && keep(mutated),
  );
}

/**
 * The mutated methods a binding can carry as the schema sees them. HTTP+JSON sends path fields
 * and query parameters as text, where a wrong-typed scalar reads as a valid one (an id 5 is the
 * id "5") and a dropped path field leaves no route: there only the routes with a body are
 * mutated, never in a path field. The REST checks send wrong-typed query values themselves.
 */
function mutatedMethodsFor(
  transport: Transport,
): { method: (typeof MUTATED_METHODS)[number][0]; def: string; keep: (mutated: Mutated) => boolean }[] {
  return MUTATED_METHODS.flatMap(([method, def]) => {
    // A value the binding cannot carry (an id `.` in a URL path) is never drawn: sent, it would reach another route.
    const sendable = (mutated: Mutated): boolean => transport.unsendable(method, mutated.value) === undefined;
    if (transport.binding !== 'HTTP+JSON') return [{ method, def, keep: sendable }];
    const route = routeOf(method, false);
    if (!route.body) return [];
    const keep = (mutated: Mutated): boolean => {
      const top = splitPointer(mutated.mutation.pointer)[0];
      return top !== undefined && !route.pathFields.includes(top) && top !== 'tenant' && sendable(mutated);
    };
    return [{ method, def, keep }];
  });
}

/**
 * A number given as a decimal string: ProtoJSON parsers accept it for int32 and double
 * members; a2a-hub refuses it (spec policy 2.4), so a peer accepting it is only a warning.
 */
function protoJsonLeniency(mutated: Mutated): boolean {
  const value = valueAt(mutated.value, mutated.mutation.pointer);
  return mutated.mutation.kind === 'wrong-type' && typeof value === 'string' && /^-?\d+(\.\d+)?$/.test(value);
}

/** Members of objects inside `value`, parents before children, as [parent pointer, member name]. */
function memberPointers(value: unknown, pointer = ''): [string, string][] {
  if (typeof value !== 'object' || value === null) return [];
  const entries: [string, unknown][] = Array.isArray(value) ? value.map((item, index) => [String(index), item]) : Object.entries(value);
  const own: [string, string][] = Array.isArray(value) ? [] : entries.map(([name]) => [pointer, name]);
  return [
    ...own,
    ...entries.flatMap(([name, item]) => memberPointers(item, `${pointer}/${name.replaceAll('~', '~0').replaceAll('/', '~1')}`)),
  ];
}

function withoutMember(value: unknown, parent: string, name: string): unknown {
  const copy = structuredClone(value);
  const holder = splitPointer(parent).reduce<unknown>((node, segment) => (node as Record<string, unknown>)[segment], copy);
  delete (holder as Record<string, unknown>)[name];
  return copy;
}

/**
 * Shrinks a mutated request further than fast-check can: its chained arbitrary cannot drop a
 * member without the mutation moving elsewhere. Tries to delete each optional member that is
 * not on the way to the mutation (nor a oneof member, which would be another mutation),
 * keeping each deletion after which the request still fails. Bounded in attempts and time.
 */
async function minimiseMutation(
  def: string,
  found: { value: Mutated; violation: PropertyViolation },
  stillFails: (mutated: Mutated) => Promise<PropertyViolation | undefined>,
  deadline: number,
): Promise<{ value: Mutated; violation: PropertyViolation; removed: number }> {
  let current = found;
  let removed = 0;
  let attempts = 0;
  const pointer = current.value.mutation.pointer;
  for (const [parent, name] of memberPointers(found.value.value)) {
    if (attempts >= 60 || Date.now() > deadline) break;
    const full = `${parent}/${name.replaceAll('~', '~0').replaceAll('/', '~1')}`;
    if (pointer === full || pointer.startsWith(`${full}/`)) continue;
    const holder = valueAt(current.value.value, parent);
    if (typeof holder !== 'object' || holder === null || !Object.hasOwn(holder, name)) continue;
    const schema = schemaAt(A2A_1_0.document, def, parent, current.value.value);
    if (schema === undefined || requiredNames(schema).includes(name) || oneofMembers(schema).includes(name)) continue;
    attempts += 1;
    const candidate: Mutated = { value: withoutMember(current.value.value, parent, name), mutation: current.value.mutation };
    const violation = await stillFails(candidate);
    if (violation === undefined) continue;
    current = { value: candidate, violation };
    removed += 1;
  }
  return { ...current, removed };
}

const NO_ANSWER = 'no proper answer to a mutated request';

interface Mismatch {
  readonly run: number;
  readonly value: Mutated;
  readonly exchange: RpcExchange;
}

async function sendMutatedParams(context: CheckContext): Promise<void> {
  let requests = 0;
  let robust002Failed = false;
  let robust003Failed = false;
  let lenientWarned = false;
  // Against an agent that hangs every failure costs a timeout: bound the whole check well inside the runner's limit.
  const started = Date.now();
  const budgetMs = (): number => Math.min(shrinkBudgetMs(context), Math.max(0, 40_000 - (Date.now() - started)));
  for (const { method, def, keep } of mutatedMethodsFor(context.transport)) {
    if (Date.now() - started > 40_000) {
      context.skip(
        'ROBUST-003',
        'suite-limitation',
        `${method} and the methods after it were not tried: the earlier ones took all the time`,
      );
      break;
    }
    const report = (
      requirement: 'ROBUST-002' | 'ROBUST-003',
      found: { value: Mutated; violation: PropertyViolation },
      path: string | undefined,
      shrinks: number | undefined,
    ): void => {
      const { value, violation } = found;
      context.fail(requirement, {
        message: `${method} with ${value.mutation.detail} at ${value.mutation.pointer || '(params)'}: ${violation.message}${shrinks === undefined ? '' : ` (shrunk ${shrinks} times)`}`,
        expected:
          requirement === 'ROBUST-003' ? 'an answer (no 5xx, timeout or dropped connection)' : `error ${errorLabel('InvalidParamsError')}`,
        observed: violation.observed,
        exchange: violation.exchange,
        counterexample: { method, params: value.value, mutation: value.mutation, ...(path === undefined ? {} : { fastCheckPath: path }) },
        seed: context.seed,
      });
    };
    const broken = async (mutated: Mutated): Promise<PropertyViolation | undefined> => {
      requests += 1;
      const exchange = await context.transport.callRaw(method, mutated.value);
      return brokenAnswer(exchange) ? new PropertyViolation(NO_ANSWER, observedOf(exchange), exchange) : undefined;
    };
    const refusedOtherwise = async (mutated: Mutated): Promise<PropertyViolation | undefined> => {
      requests += 1;
      const exchange = await context.transport.callRaw(method, mutated.value);
      if (brokenAnswer(exchange) || isError(exchange, 'InvalidParamsError') || protoJsonLeniency(mutated)) return undefined;
      return new PropertyViolation(`answered other than ${errorLabel('InvalidParamsError')}`, observedOf(exchange), exchange);
    };
    // Pass 1 covers every run for ROBUST-003 and notes the first wrong (but proper) answer.
    let mismatch: Mismatch | undefined;
    const firstPass = async (mutated: Mutated, run: PropertyRun): Promise<PropertyViolation | undefined> => {
      requests += 1;
      const exchange = await context.transport.callRaw(method, mutated.value);
      if (brokenAnswer(exchange)) return new PropertyViolation(NO_ANSWER, observedOf(exchange), exchange);
      if (!run.shrinking && !isError(exchange, 'InvalidParamsError')) {
        if (protoJsonLeniency(mutated)) {
          if (!lenientWarned) {
            lenientWarned = true;
            context.warn('ROBUST-002', {
              message: `${method} accepted ${mutated.mutation.detail} at ${mutated.mutation.pointer}: ProtoJSON parsers read a decimal string as a number, a2a-hub refuses it (spec policy 2.4)`,
              expected: `error ${errorLabel('InvalidParamsError')}`,
              observed: observedOf(exchange),
              exchange,
              counterexample: { method, params: mutated.value, mutation: mutated.mutation },
              seed: context.seed,
            });
          }
        } else {
          mismatch ??= { run: run.run, value: mutated, exchange };
        }
      }
      return undefined;
    };
    const first = await checkAgainstAgent(context, mutatedParams(def, keep), firstPass, { budgetMs: budgetMs() });
    if (first.failure !== undefined) {
      robust003Failed = true;
      robust002Failed = true;
      const small = await minimiseMutation(def, first.failure, broken, Date.now() + budgetMs());
      report('ROBUST-003', small, first.failure.path, first.failure.shrinks + small.removed);
      report('ROBUST-002', small, first.failure.path, first.failure.shrinks + small.removed);
    }
    if (mismatch === undefined) continue;
    // Pass 2 replays from the first wrong answer and shrinks it.
    robust002Failed = true;
    const found = mismatch;
    const second = await checkAgainstAgent(context, mutatedParams(def, keep), refusedOtherwise, {
      path: String(found.run),
      budgetMs: budgetMs(),
    });
    if (second.failure !== undefined) {
      const small = await minimiseMutation(def, second.failure, refusedOtherwise, Date.now() + budgetMs());
      report('ROBUST-002', small, second.failure.path, second.failure.shrinks + small.removed);
    } else {
      const violation = new PropertyViolation(
        `answered other than ${errorLabel('InvalidParamsError')} (not reproduced when replayed)`,
        observedOf(found.exchange),
        found.exchange,
      );
      report('ROBUST-002', { value: found.value, violation }, undefined, undefined);
    }
  }
  if (!robust002Failed)
    context.pass('ROBUST-002', `${requests} requests with one mutation in params were refused with ${errorLabel('InvalidParamsError')}`);
  if (!robust003Failed) context.pass('ROBUST-003', `${requests} requests with one mutation in params were all answered`);
}

// ---------------------------------------------------------------------------------------------
// ROBUST-004 (and ROBUST-003): malformed bodies

const JSON_TYPE = /^application\/([\w.+-]+\+)?json\b/i;

async function sendMalformedBodies(context: CheckContext): Promise<void> {
  const valid = JSON.stringify({
    jsonrpc: '2.0',
    id: 'conform-malformed',
    method: 'SendMessage',
    params: { message: context.message('conformance malformed-body check') },
  });
  const json = { 'content-type': MEDIA_TYPES.json };
  const cases: { name: string; body: string; headers: Record<string, string> }[] = [
    { name: 'invalid JSON', body: '{"jsonrpc": "2.0", "id": 1, "method": "GetTask", "params": {"id": }', headers: json },
    { name: 'a truncated body', body: valid.slice(0, Math.floor(valid.length / 2)), headers: json },
    { name: 'an empty body', body: '', headers: json },
    { name: 'a text/plain content type', body: valid, headers: { 'content-type': 'text/plain' } },
    {
      name: 'a form-encoded body',
      body: 'jsonrpc=2.0&method=GetTask&id=1',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    },
  ];
  let broken = false;
  let notJson = false;
  for (const { name, body, headers } of cases) {
    const exchange = await context.transport.raw(body, {
      headers: { ...headers, accept: MEDIA_TYPES.json, [VERSION_HEADER]: PROTOCOL_VERSION },
    });
    if (brokenAnswer(exchange)) {
      broken = true;
      context.fail('ROBUST-003', {
        message: `a request with ${name} got no proper answer`,
        expected: 'an error answer (no 5xx, timeout or dropped connection)',
        observed:
          exchange.status === 0
            ? `no response (${exchange.transportError ?? 'connection failed'})`
            : `HTTP ${exchange.status}: ${exchange.bodyText.slice(0, 200)}`,
        exchange,
      });
    }
    if (exchange.status === 0) continue;
    const type = exchange.headers['content-type'] ?? '';
    const error = (exchange.json as { error?: unknown } | undefined)?.error;
    if (JSON_TYPE.test(type) && typeof error === 'object' && error !== null) continue;
    notJson = true;
    context.warn('ROBUST-004', {
      message: `a request with ${name} was not answered with a JSON error body`,
      expected: 'Content-Type application/json and a JSON-RPC error (or a google.rpc.Status)',
      observed: `HTTP ${exchange.status}, Content-Type ${type || '(none)'}: ${exchange.bodyText.slice(0, 200) || '(empty body)'}`,
      exchange,
    });
  }
  if (!notJson) context.pass('ROBUST-004', `${cases.length} malformed requests were answered with JSON errors`);
  if (!broken) context.pass('ROBUST-003', `${cases.length} malformed requests were all answered`);
}

export const propertyChecks: readonly Check[] = [
  {
    id: 'robust-valid-messages',
    title: 'Random valid messages are accepted and answered with a valid result',
    requirements: ['ROBUST-001'],
    run: sendValidMessages,
  },
  {
    id: 'robust-mutated-params',
    title: `Params with one mutation are refused with ${errorLabel('InvalidParamsError')}, never with a 5xx`,
    requirements: ['ROBUST-002', 'ROBUST-003'],
    run: sendMutatedParams,
  },
  {
    id: 'robust-malformed-bodies',
    title: 'Malformed bodies get a JSON error, never HTML, a 5xx or silence',
    requirements: ['ROBUST-003', 'ROBUST-004'],
    run: sendMalformedBodies,
  },
];
