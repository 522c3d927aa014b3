import { ERRORS } from '../../../generated/a2a/1.0/errors.js';
import type { AgentInterface } from '../../../generated/a2a/1.0/types.js';
import { isRecord } from '../../../src/support/records.js';
import { errorLabel, isError, observedOf, reasonOf } from '../../core/answers.js';
import type { CheckContext } from '../../core/check.js';
import type { Exchange } from '../../core/exchange.js';
import { REST_ACCEPT } from '../../core/rest-transport.js';
import { interfaceProbe } from '../../../src/protocol/interface-probe.js';

/*
 * Probing each interface a card declares in its own binding and version (CARD-005, DATA-001):
 * GetTask for an unknown id, whose answer shows the interface exists and speaks its binding.
 */

/** What an unknown task id must be answered with, on every binding. */
const TASK_NOT_FOUND_ERROR = ERRORS.TaskNotFoundError;
export { REST_ACCEPT };

export interface InterfaceProbe {
  readonly label: string;
  readonly exchange: Exchange;
  /** Answered as the binding and version require. */
  readonly ok: boolean;
  readonly expected: string;
  /** The error type, for comparison across bindings: an ErrorInfo reason or a description. */
  readonly errorType: string;
}

export function majorMinor(version: string): string {
  return version.split('.').slice(0, 2).join('.');
}

/** GetTask for an unknown id, sent to one declared interface in its own binding; undefined for bindings or versions the suite does not speak. */
export async function probeInterface(
  context: CheckContext,
  entry: AgentInterface,
  index: number,
  taskId: string,
): Promise<InterfaceProbe | undefined> {
  if (typeof entry.url !== 'string' || typeof entry.protocolVersion !== 'string' || !/^1\.\d+/.test(entry.protocolVersion))
    return undefined;
  // A route cannot be put below a URL that does not parse: the card checks report that URL.
  if (entry.protocolBinding === 'HTTP+JSON' && !URL.canParse(entry.url)) return undefined;
  const label = `supportedInterfaces[${index}] (${entry.protocolBinding} ${entry.url})`;
  const probe = interfaceProbe(entry, taskId, { version: majorMinor(entry.protocolVersion), rpcId: 'conform-interface-probe' });
  if (probe === undefined) return undefined;
  const exchange = await context.transport.raw(probe.body, { method: probe.method, url: probe.url, headers: { ...probe.headers } });
  if (entry.protocolBinding === 'JSONRPC') {
    const found = isError(exchange, 'TaskNotFoundError');
    const json = exchange.json;
    const errorType = found ? TASK_NOT_FOUND_ERROR.reason : observedOf(exchange);
    return {
      label,
      exchange,
      ok: found && isRecord(json) && json['jsonrpc'] === '2.0',
      expected: `a JSON-RPC 2.0 error ${errorLabel('TaskNotFoundError')}`,
      errorType,
    };
  }
  const error = isRecord(exchange.json) ? exchange.json['error'] : undefined;
  const reason = reasonOf(error);
  const { httpStatus, grpcStatus } = TASK_NOT_FOUND_ERROR;
  const ok =
    exchange.status === httpStatus &&
    isRecord(error) &&
    error['code'] === httpStatus &&
    error['status'] === grpcStatus &&
    (reason === undefined || reason === TASK_NOT_FOUND_ERROR.reason);
  return {
    label,
    exchange,
    ok,
    expected: `HTTP ${httpStatus} with a google.rpc.Status body {"error":{"code":${httpStatus},"status":"${grpcStatus}",…}} (reason ${TASK_NOT_FOUND_ERROR.reason})`,
    errorType: ok ? TASK_NOT_FOUND_ERROR.reason : observedOf(exchange),
  };
}

/** Whether an answer to an HTTP+JSON route probe shows the route exists. */
export function looksLikeRestRoute(exchange: Exchange, kind: 'task' | 'card'): boolean {
  const json = exchange.json;
  if (kind === 'card') return exchange.status === 200 && isRecord(json) && Array.isArray(json['supportedInterfaces']);
  if (!isRecord(json)) return false;
  if (exchange.status === TASK_NOT_FOUND_ERROR.httpStatus) return reasonOf(json['error']) === TASK_NOT_FOUND_ERROR.reason;
  return exchange.status === 200 && typeof json['id'] === 'string' && isRecord(json['status']);
}
