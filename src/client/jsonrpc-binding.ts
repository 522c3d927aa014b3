import { ERRORS, SPEC_ERROR_BY_CODE, type ErrorName } from '../../generated/a2a/1.0/errors.js';
import type { MethodName, MethodTypes } from '../../generated/a2a/1.0/methods.js';
import { MEDIA_TYPES } from '../../generated/a2a/1.0/protocol.js';
import type { FieldViolation } from '../../generated/a2a/1.0/types.js';
import { a2aError, type A2AError } from '../protocol/a2a-error.js';
import { errorInfoMetadata, registeredErrorOf } from '../protocol/error-info.js';
import { readJsonRpcAnswer } from '../protocol/jsonrpc.js';
import { describeError } from '../support/describe-error.js';
import { isRecord } from '../support/records.js';
import { validateResult } from './answer-validation.js';
import { backoff } from './backoff.js';
import type { BindingCallOptions, BindingStreamOptions, ClientBinding, StreamingMethod } from './binding.js';
import type { HttpTransport } from './http-transport.js';
import { DEFAULT_RETRIES, DEFAULT_RETRY_BASE_MS, DEFAULT_TIMEOUT_MS, requestHeaders, type RequestOptions } from './request-options.js';
import { isEventStream, readEventStream } from './sse-reader.js';
import type { StreamEvent } from './task-stream.js';
import { A2ATransportError, abortError } from './transport-error.js';
import { findUrlPolicyError } from './url-policy.js';

/** The JSON-RPC 2.0 binding (spec §9): every call a POST of one envelope to the card's endpoint. */
export class JsonRpcBinding implements ClientBinding {
  readonly endpoint: string;
  private readonly options: RequestOptions;
  private readonly transport: HttpTransport;
  private nextId = 1;

  constructor(endpoint: string, options: RequestOptions, transport: HttpTransport) {
    this.endpoint = endpoint;
    this.options = options;
    this.transport = transport;
  }

  async call<M extends MethodName>(
    method: M,
    params: MethodTypes[M]['params'],
    options: BindingCallOptions = {},
  ): Promise<MethodTypes[M]['result']> {
    const body = this.envelope(method, params);
    const timeout = AbortSignal.timeout(this.options.timeoutMs ?? DEFAULT_TIMEOUT_MS);
    const signal = options.signal === undefined ? timeout : AbortSignal.any([timeout, options.signal]);
    const { response, text } = await this.post(method, body, { accept: MEDIA_TYPES.json }, signal, true);
    const envelope = parseEnvelope(method, text ?? '', response.status);
    return validateResult(method, envelope.result);
  }

  async *stream<M extends StreamingMethod>(
    method: M,
    params: MethodTypes[M]['params'],
    options: BindingStreamOptions = {},
  ): AsyncGenerator<StreamEvent, void, undefined> {
    const body = this.envelope(method, params);
    const headers = {
      accept: MEDIA_TYPES.eventStream,
      ...(options.lastEventId === undefined ? {} : { 'last-event-id': options.lastEventId }),
    };
    const controller = new AbortController();
    const onAbort = (): void => controller.abort(options.signal?.reason);
    if (options.signal?.aborted) controller.abort(options.signal.reason);
    options.signal?.addEventListener('abort', onAbort, { once: true });
    // Only the wait for the response headers is bounded: a stream may rightly stay quiet for long.
    const timer = setTimeout(
      () => controller.abort(new DOMException('the agent did not answer in time', 'TimeoutError')),
      this.options.timeoutMs ?? DEFAULT_TIMEOUT_MS,
    );
    try {
      const { response, text } = await this.post(method, body, headers, controller.signal, false);
      clearTimeout(timer);
      if (text !== undefined || !isEventStream(response)) {
        const envelope = parseEnvelope(method, text ?? (await response.text()), response.status);
        // A JSON answer to a streaming method carries at most one frame.
        yield { frame: validateResult<StreamingMethod>(method, envelope.result) };
        return;
      }
      for await (const message of readEventStream(method, response, controller.signal)) {
        const frame = validateResult<StreamingMethod>(method, parseEnvelope(method, message.data, response.status).result);
        yield message.id === undefined ? { frame } : { id: message.id, frame };
      }
    } finally {
      clearTimeout(timer);
      options.signal?.removeEventListener('abort', onAbort);
      controller.abort();
    }
  }

  private envelope(method: MethodName, params: unknown): string {
    return JSON.stringify({ jsonrpc: '2.0', id: this.nextId++, method, params });
  }

  /**
   * POSTs with retries on transport errors and HTTP 5xx without a JSON-RPC body. `readBody`
   * false leaves a successful event-stream body unread (`text` undefined). URL policy
   * refusals and redirects are final: a JSON-RPC endpoint is the URL in the card.
   */
  private async post(
    method: string,
    body: string,
    headers: Record<string, string>,
    signal: AbortSignal,
    readBody: boolean,
  ): Promise<{ response: Response; text: string | undefined }> {
    const retries = Math.max(0, this.options.retries ?? DEFAULT_RETRIES);
    const base = this.options.retryBaseMs ?? DEFAULT_RETRY_BASE_MS;
    for (let attempt = 0; ; attempt++) {
      let response: Response;
      try {
        response = await this.transport.send(this.endpoint, {
          method: 'POST',
          headers: { 'content-type': MEDIA_TYPES.json, ...requestHeaders(this.options), ...headers },
          body,
          signal,
        });
      } catch (error) {
        if (signal.aborted) throw abortError(method, signal, error);
        const refused = findUrlPolicyError(error);
        if (refused !== undefined) throw refused;
        if (attempt < retries) {
          await backoff(base, attempt, signal);
          continue;
        }
        throw new A2ATransportError(`${method}: ${this.endpoint} is not reachable: ${describeError(error)}`, { cause: error });
      }
      if (response.status >= 300 && response.status < 400) {
        await response.body?.cancel().catch(() => undefined);
        const location = response.headers.get('location') ?? '(no location)';
        throw new A2ATransportError(
          `${method}: ${this.endpoint} answered HTTP ${response.status} to ${location}; JSON-RPC calls do not follow redirects`,
          {
            status: response.status,
          },
        );
      }
      if (!readBody && response.ok && isEventStream(response)) return { response, text: undefined };
      let text: string;
      try {
        text = await response.text();
      } catch (error) {
        if (signal.aborted) throw abortError(method, signal, error);
        if (attempt < retries) {
          await backoff(base, attempt, signal);
          continue;
        }
        throw new A2ATransportError(`${method}: reading the answer failed: ${describeError(error)}`, { cause: error });
      }
      if (response.status >= 500 && !isJsonRpcError(text) && attempt < retries) {
        await backoff(base, attempt, signal);
        continue;
      }
      return { response, text };
    }
  }
}

/** The HTTP status of a request without (valid) credentials; the hub's own JSON-RPC code for it is no spec code. */
const UNAUTHENTICATED_STATUS = ERRORS.UnauthenticatedError.httpStatus;

/** Parses a JSON-RPC response; throws the matching A2AError for an error answer. */
function parseEnvelope(method: string, text: string, status: number): { readonly result: unknown } {
  if (status === UNAUTHENTICATED_STATUS) throw unauthenticated(method, text);
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    if (status < 200 || status >= 300) throw new A2ATransportError(`${method}: HTTP ${status} without a JSON-RPC answer`, { status });
    throw a2aError('InvalidAgentResponseError', `${method}: the answer is not JSON`);
  }
  if (!isRecord(json) || json['jsonrpc'] !== '2.0') {
    if (status < 200 || status >= 300) throw new A2ATransportError(`${method}: HTTP ${status} without a JSON-RPC answer`, { status });
    throw a2aError('InvalidAgentResponseError', `${method}: the answer is not a JSON-RPC 2.0 response`);
  }
  const error = json['error'];
  if (error !== undefined) throw remoteError(method, error);
  if (!('result' in json)) throw a2aError('InvalidAgentResponseError', `${method}: the JSON-RPC response has neither result nor error`);
  return { result: json['result'] };
}

/** HTTP 401 is UnauthenticatedError whatever the body, keeping the agent's message and details when it sent a JSON-RPC error. */
function unauthenticated(method: string, text: string): A2AError {
  const error = readJsonRpcAnswer(text)?.['error'];
  if (isRecord(error) && typeof error['code'] === 'number' && typeof error['message'] === 'string') {
    return remoteError(method, error, 'UnauthenticatedError');
  }
  return a2aError(
    'UnauthenticatedError',
    `${method}: the agent answered HTTP ${UNAUTHENTICATED_STATUS}: credentials are missing or were refused`,
  );
}

/**
 * The A2AError for a JSON-RPC error object, with its ErrorInfo metadata and BadRequest field
 * violations, named by its ErrorInfo when that names a registered error of the same code, else by the code.
 */
function remoteError(method: string, error: unknown, known?: ErrorName): A2AError {
  if (!isRecord(error) || typeof error['code'] !== 'number' || typeof error['message'] !== 'string') {
    return a2aError('InvalidAgentResponseError', `${method}: malformed JSON-RPC error object`);
  }
  const code = error['code'];
  const message = error['message'];
  const data = error['data'];
  const violations: FieldViolation[] = [];
  if (Array.isArray(data)) {
    for (const detail of data as unknown[]) {
      const fieldViolations = isRecord(detail) ? detail['fieldViolations'] : undefined;
      if (!Array.isArray(fieldViolations)) continue;
      for (const entry of fieldViolations as unknown[]) {
        if (isRecord(entry) && typeof entry['field'] === 'string' && typeof entry['description'] === 'string') {
          violations.push({ field: entry['field'], description: entry['description'] });
        }
      }
    }
  }
  const name = known ?? registeredErrorOf(data, (definition) => definition.code === code) ?? SPEC_ERROR_BY_CODE.get(code);
  const options = { metadata: errorInfoMetadata(data), violations };
  if (name === undefined) return a2aError('InternalError', `${message} (remote code ${code})`, options);
  return a2aError(name, message, options);
}

function isJsonRpcError(text: string): boolean {
  return readJsonRpcAnswer(text)?.['error'] !== undefined;
}
