import { ERRORS } from '../../../generated/a2a/1.0/errors.js';
import { MEDIA_TYPES } from '../../../generated/a2a/1.0/protocol.js';
import type { AgentInterface } from '../../../generated/a2a/1.0/types.js';
import { isRecord } from '../../../src/support/records.js';
import { errorLabel, isError, observedOf, reasonOf } from '../../core/answers.js';
import type { CheckContext } from '../../core/check.js';
import { VERSION_HEADER, type Exchange } from '../../core/exchange.js';
import { REST_ACCEPT } from '../../core/rest-transport.js';
import { fillRoute, routeOf } from '../../../src/protocol/rest-routes.js';

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
  const tenant = typeof entry.tenant === 'string' && entry.tenant !== '' ? entry.tenant : undefined;
  const version = majorMinor(entry.protocolVersion);
  const label = `supportedInterfaces[${index}] (${entry.protocolBinding} ${entry.url})`;
  if (entry.protocolBinding === 'JSONRPC') {
    const body = JSON.stringify({
      jsonrpc: '2.0',
      id: 'conform-interface-probe',
      method: 'GetTask',
      params: { id: taskId, ...(tenant ? { tenant } : {}) },
    });
    const exchange = await context.transport.raw(body, {
      url: entry.url,
      headers: { 'content-type': MEDIA_TYPES.json, accept: MEDIA_TYPES.json, [VERSION_HEADER]: version },
    });
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
  if (entry.protocolBinding === 'HTTP+JSON') {
    let url: string;
    try {
      const path = fillRoute(routeOf('GetTask', tenant !== undefined), { id: taskId, ...(tenant ? { tenant } : {}) }) ?? '';
      url = `${new URL(entry.url).href.replace(/\/+$/, '')}${path}`;
    } catch {
      return undefined;
    }
    const exchange = await context.transport.raw(undefined, {
      method: 'GET',
      url,
      headers: { accept: REST_ACCEPT, [VERSION_HEADER]: version },
    });
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
  return undefined;
}

/** Whether an answer to an HTTP+JSON route probe shows the route exists. */
export function looksLikeRestRoute(exchange: Exchange, kind: 'task' | 'card'): boolean {
  const json = exchange.json;
  if (kind === 'card') return exchange.status === 200 && isRecord(json) && Array.isArray(json['supportedInterfaces']);
  if (!isRecord(json)) return false;
  if (exchange.status === TASK_NOT_FOUND_ERROR.httpStatus) return reasonOf(json['error']) === TASK_NOT_FOUND_ERROR.reason;
  return exchange.status === 200 && typeof json['id'] === 'string' && isRecord(json['status']);
}
