import { ERRORS, type ErrorName } from '../../generated/a2a/1.0/errors.js';
import { isRecord } from '../../src/support/records.js';
import type { Exchange } from './exchange.js';
import type { RpcExchange, StreamExchange } from './transport.js';

/*
 * Reading what an agent answered: the error it sent, by name from the generated registry
 * (generated/a2a/1.0/errors.ts), and the answer in one line for a finding. The runner's
 * context.expectError uses these too.
 */

/** An exchange that may carry a JSON-RPC error and result already picked out (RpcExchange), or only its parsed body. */
type Answer = Exchange & { readonly error?: unknown; readonly result?: unknown; readonly unreadable?: string };

/** `<code> (InvalidParamsError)`, the code read from the registry: how titles, messages and expectations name an error. */
export function errorLabel(name: ErrorName): string {
  return `${ERRORS[name].code} (${name})`;
}

/** The ErrorInfo reason in an error object: JSON-RPC `error.data`, or an HTTP+JSON google.rpc.Status `error.details`. */
export function reasonOf(error: unknown): string | undefined {
  if (!isRecord(error)) return undefined;
  const list: unknown = Array.isArray(error['data']) ? error['data'] : Array.isArray(error['details']) ? error['details'] : [];
  const info = (list as unknown[]).find((detail) => isRecord(detail) && typeof detail['reason'] === 'string');
  return isRecord(info) ? (info['reason'] as string) : undefined;
}

/** The registered error whose ErrorInfo reason `reason` is. */
export function errorByReason(reason: string | undefined): ErrorName | undefined {
  if (reason === undefined) return undefined;
  return (Object.keys(ERRORS) as ErrorName[]).find((name) => ERRORS[name].reason === reason);
}

/**
 * An HTTP+JSON google.rpc.Status read as the JSON-RPC error it stands for: the code of the
 * registered error its ErrorInfo reason names, `data` its details. Without a known reason the
 * HTTP code stays, which no JSON-RPC code equals, so no check mistakes it for a registered error.
 */
export function rpcErrorOfStatus(status: unknown): { code: number; message: string; data?: unknown } {
  const record = isRecord(status) ? status : {};
  const name = errorByReason(reasonOf(record));
  const code = name === undefined ? (typeof record['code'] === 'number' ? record['code'] : 0) : ERRORS[name].code;
  const message = typeof record['message'] === 'string' ? record['message'] : '';
  return { code, message, ...(record['details'] === undefined ? {} : { data: record['details'] }) };
}

/** The error object of an answer: the one already picked out, else the `error` member of the JSON body. */
function errorOf(exchange: Answer): Record<string, unknown> | undefined {
  if (exchange.error !== undefined) return isRecord(exchange.error) ? exchange.error : undefined;
  const json = exchange.json;
  return isRecord(json) && isRecord(json['error']) ? json['error'] : undefined;
}

/** The error code the agent sent, when it answered with an error. */
export function errorCodeOf(exchange: Answer): number | undefined {
  const code = errorOf(exchange)?.['code'];
  return typeof code === 'number' ? code : undefined;
}

/** Whether the answer is the error `name` (by its JSON-RPC code). */
export function isError(exchange: Answer, name: ErrorName): boolean {
  return errorCodeOf(exchange) === ERRORS[name].code;
}

/** What came back, in one line, for a finding's `observed`. */
export function observedOf(exchange: Answer): string {
  if (exchange.status === 0) return `no response (${exchange.transportError ?? 'connection failed'})`;
  const error = errorOf(exchange);
  if (error !== undefined) {
    const reason = reasonOf(error);
    const message = typeof error['message'] === 'string' ? error['message'] : JSON.stringify(error['message'] ?? '');
    return short(`HTTP ${exchange.status}, error ${JSON.stringify(error['code'])}${reason ? ` (${reason})` : ''}: ${message}`, 400);
  }
  const json = exchange.json;
  if (exchange.unreadable !== undefined)
    return `HTTP ${exchange.status}, a body that is no ${exchange.unreadable}: ${short(exchange.bodyText)}`;
  if ('result' in exchange) return `HTTP ${exchange.status}, result ${short(exchange.result)}`;
  if (isRecord(json) && 'result' in json) return `HTTP ${exchange.status}, result ${short(json['result'])}`;
  return `HTTP ${exchange.status}: ${short(exchange.bodyText) || '(empty body)'}`;
}

/** A stream call answered with a plain JSON body, read like a call (an HTTP+JSON Status read as the error it names). */
export function rpcOf(exchange: StreamExchange, id?: RpcExchange['id']): RpcExchange {
  const json = exchange.json;
  const sent = isRecord(json) && isRecord(json['error']) ? json['error'] : undefined;
  // A google.rpc.Status names its gRPC status; a JSON-RPC error object has no such member.
  const status = sent !== undefined && typeof sent['status'] === 'string' ? sent : undefined;
  const error = status !== undefined ? rpcErrorOfStatus(status) : (sent as RpcExchange['error'] | undefined);
  return {
    ...exchange,
    id,
    ...(error === undefined ? {} : { error }),
    ...(status === undefined ? {} : { restError: status }),
    ...(isRecord(json) && 'result' in json ? { result: json['result'] } : {}),
  };
}

/** A 5xx, no answer, a timeout or a dropped connection: what ROBUST-003 forbids. */
export function brokenAnswer(exchange: Exchange): boolean {
  return exchange.status === 0 || exchange.status >= 500;
}

/** A value in one line for a finding: strings as they are, anything else as JSON, cut at `max` characters with an ellipsis. */
export function short(value: unknown, max = 300): string {
  const text = typeof value === 'string' ? value : (JSON.stringify(value) ?? String(value));
  return text.length > max ? `${text.slice(0, max)}…` : text;
}

/** The A2A errors (category a2a) whose HTTP status is 404: the answer an agent owes a request for what it does not have. */
const NOT_FOUND_ANSWERS = (Object.keys(ERRORS) as ErrorName[]).filter(
  (name) => ERRORS[name].category !== 'hub' && ERRORS[name].httpStatus === 404,
);

/**
 * Whether an HTTP answer refuses the request rather than answering it: a 401 or 403, or a 404
 * that is not one of the A2A errors a request for a missing task or method is owed (its JSON
 * body naming TaskNotFoundError or MethodNotFoundError by ErrorInfo reason on HTTP+JSON, or by
 * code on JSON-RPC and 0.3's HTTP+JSON). The runner warns when most requests are refused: a
 * suite probing unknown tasks must not take the agent's correct answers for a wrong URL.
 */
export function refused(status: number, body: unknown): boolean {
  if (status === 401 || status === 403) return true;
  if (status !== 404) return false;
  const error = isRecord(body) ? (isRecord(body['error']) ? body['error'] : body) : undefined;
  if (error === undefined) return true;
  const named = errorByReason(reasonOf(error));
  const code = error['code'];
  return !NOT_FOUND_ANSWERS.some((name) => name === named || (named === undefined && code === ERRORS[name].code));
}
