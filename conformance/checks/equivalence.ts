import { ERRORS, type ErrorName } from '../../generated/a2a/1.0/errors.js';
import { isTerminalState } from '../../generated/a2a/1.0/task-states.js';
import type { MethodName } from '../../generated/a2a/1.0/methods.js';
import { isRecord } from '../../src/support/records.js';
import { errorByReason, observedOf, reasonOf } from '../core/answers.js';
import type { RequirementId } from '../../generated/conformance/requirements.js';
import type { Check, CheckContext } from '../core/check.js';
import type { RpcExchange, Transport } from '../core/transport.js';
import { taskRefOf, unknownTaskId, type TaskRef } from './support/tasks.js';

/*
 * REST-ENV-008: a card that declares JSON-RPC and HTTP+JSON offers one agent over two bindings.
 * The same requests over each must give the same outcome: a task made over one is found over
 * the other with the same id, context and state, and a refused request is the same registered
 * error, rendered as errors.json says for each binding (JSON-RPC code; HTTP status, gRPC status
 * name and ErrorInfo reason).
 */

const REQUIREMENT: RequirementId = 'REST-ENV-008';

/** What one binding answered, reduced to what must agree: a result kind, or the registered error by name. */
type Outcome = { readonly kind: 'result' } | { readonly kind: 'error'; readonly name: ErrorName | undefined; readonly problem?: string };

function outcomeOf(transport: Transport, exchange: RpcExchange): Outcome {
  if (exchange.error === undefined) return { kind: 'result' };
  if (transport.binding === 'JSONRPC') {
    const byReason = errorByReason(reasonOf(exchange.error));
    const name = byReason ?? (Object.keys(ERRORS) as ErrorName[]).find((candidate) => ERRORS[candidate].code === exchange.error?.code);
    return { kind: 'error', name };
  }
  const name = errorByReason(reasonOf(exchange.restError));
  if (name === undefined) return { kind: 'error', name };
  const status = isRecord(exchange.restError) ? exchange.restError['status'] : undefined;
  const { httpStatus, grpcStatus } = ERRORS[name];
  const problem =
    exchange.status !== httpStatus || status !== grpcStatus
      ? `${name} came as HTTP ${exchange.status} ${String(status)}, errors.json says ${httpStatus} ${grpcStatus}`
      : undefined;
  return { kind: 'error', name, ...(problem === undefined ? {} : { problem }) };
}

function describe(outcome: Outcome): string {
  return outcome.kind === 'result' ? 'a result' : `error ${outcome.name ?? '(not a registered error)'}`;
}

async function compareCall(
  context: CheckContext,
  pair: readonly [Transport, Transport],
  what: string,
  method: MethodName,
  params: Record<string, unknown>,
): Promise<void> {
  const exchanges = await Promise.all(pair.map((transport) => transport.callRaw(method, params)));
  const outcomes = pair.map((transport, index) => outcomeOf(transport, exchanges[index] as RpcExchange));
  const [first, second] = outcomes as [Outcome, Outcome];
  const problem = outcomes.flatMap((outcome) => (outcome.kind === 'error' && outcome.problem ? [outcome.problem] : []))[0];
  const same =
    first.kind === second.kind && (first.kind === 'result' || (first.name !== undefined && first.name === (second as typeof first).name));
  if (same && problem === undefined) {
    context.pass(REQUIREMENT, `${what}: ${describe(first)} over both bindings`);
    return;
  }
  context.fail(REQUIREMENT, {
    message: `${what}: ${problem ?? 'the bindings disagree'}`,
    expected: 'the same outcome over both bindings, each error rendered as errors.json says',
    observed: pair.map((transport, index) => `${transport.binding}: ${observedOf(exchanges[index] as RpcExchange)}`).join(' · '),
    exchange: exchanges[1],
  });
}

/** A task made over `maker` and read back over `reader`: same id, context and (once terminal) state. */
async function compareTask(context: CheckContext, maker: Transport, reader: Transport): Promise<TaskRef | undefined> {
  const sent = await maker.call('SendMessage', {
    message: context.message(`conformance: made over ${maker.binding}, read over ${reader.binding}`),
  });
  const result = isRecord(sent.result) ? sent.result['task'] : undefined;
  const made = taskRefOf(result);
  if (made === undefined || !isRecord(result)) {
    context.skip(REQUIREMENT, 'precondition-not-met', `SendMessage over ${maker.binding} returned no task (${observedOf(sent)})`);
    return undefined;
  }
  const read = await reader.call('GetTask', { id: made.id });
  const found = isRecord(read.result) ? read.result : undefined;
  const reread = taskRefOf(found);
  const mismatches: string[] = [];
  if (reread === undefined) mismatches.push('GetTask found no task');
  else {
    if (found?.['contextId'] !== result['contextId'])
      mismatches.push(`contextId ${JSON.stringify(found?.['contextId'])}, made with ${JSON.stringify(result['contextId'])}`);
    if (isTerminalState(made.state) && reread.state !== made.state) mismatches.push(`state ${reread.state}, made ${made.state}`);
  }
  if (mismatches.length === 0) context.pass(REQUIREMENT, `a task made over ${maker.binding} is the same task over ${reader.binding}`);
  else
    context.fail(REQUIREMENT, {
      message: `the task ${made.id} made over ${maker.binding} is not the same over ${reader.binding}`,
      expected: 'the same id, contextId and state',
      observed: `${mismatches.join('; ')} (${observedOf(read)})`,
      exchange: read,
    });
  return made;
}

async function compareBindings(context: CheckContext): Promise<void> {
  const jsonrpc = context.transports.find((transport) => transport.binding === 'JSONRPC');
  const rest = context.transports.find((transport) => transport.binding === 'HTTP+JSON');
  if (jsonrpc === undefined || rest === undefined) {
    context.skip(REQUIREMENT, 'other-binding', 'needs both a JSONRPC and an HTTP+JSON interface in the run');
    return;
  }
  const pair = [jsonrpc, rest] as const;
  const made = await compareTask(context, jsonrpc, rest);
  await compareTask(context, rest, jsonrpc);
  await compareCall(context, pair, 'GetTask for an unknown id', 'GetTask', { id: unknownTaskId() });
  await compareCall(context, pair, 'CancelTask for an unknown id', 'CancelTask', { id: unknownTaskId() });
  await compareCall(context, pair, 'SendMessage without parts', 'SendMessage', {
    message: { messageId: unknownTaskId(), role: 'ROLE_USER', parts: [] },
  });
  await compareCall(context, pair, 'ListTasks with a wrong-typed pageSize', 'ListTasks', { pageSize: 'many' });
  await compareCall(context, pair, 'ListTasks with one per page', 'ListTasks', { pageSize: 1 });
  if (made !== undefined && isTerminalState(made.state))
    await compareCall(context, pair, `CancelTask for the finished task ${made.id}`, 'CancelTask', { id: made.id });
}

export const equivalenceChecks: readonly Check[] = [
  {
    id: 'bindings-same-outcome',
    once: true,
    title: 'The same requests over JSON-RPC and HTTP+JSON give the same tasks and the same errors',
    requirements: [REQUIREMENT],
    run: compareBindings,
  },
];
