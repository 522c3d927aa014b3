import { ERROR_DOMAIN, ERRORS, type ErrorName } from '../../generated/a2a/1.0/errors.js';
import { METHODS } from '../../generated/a2a/1.0/methods.js';
import { MEDIA_TYPES, PROTOCOL_VERSION } from '../../generated/a2a/1.0/protocol.js';
import type { ErrorInfo } from '../../generated/a2a/1.0/types.js';
import type { RequirementId } from '../../generated/conformance/requirements.js';
import { errorCodeOf, errorLabel } from '../core/answers.js';
import type { Check, CheckContext } from '../core/check.js';
import { VERSION_HEADER, type Exchange } from '../core/exchange.js';
import type { RpcExchange } from '../core/transport.js';

const ERROR_INFO: ErrorInfo['@type'] = 'type.googleapis.com/google.rpc.ErrorInfo';
/** A2A 0.3 names of two methods (methods.json legacyName): a 1.0 endpoint does not know them. */
const LEGACY_NAMES = (['SendMessage', 'GetTask'] as const).flatMap((name) => METHODS[name].legacyName ?? []);

/** Every JSON-RPC answer: content type, envelope, id echo (JSONRPC-ENV-001, -002). */
function checkEnvelope(context: CheckContext, exchange: RpcExchange, sentId: string | number | null | undefined): void {
  const type = exchange.headers['content-type'] ?? '';
  if (/^application\/json\s*(;|$)/i.test(type)) context.pass('JSONRPC-ENV-001');
  else
    context.fail('JSONRPC-ENV-001', {
      message: 'a JSON-RPC response is not application/json',
      expected: 'Content-Type: application/json',
      observed: type || '(none)',
      exchange,
    });
  const body = exchange.json as Record<string, unknown> | undefined;
  const problems: string[] = [];
  if (body === undefined || typeof body !== 'object') problems.push('the body is not a JSON object');
  else {
    if (body['jsonrpc'] !== '2.0') problems.push(`jsonrpc is ${JSON.stringify(body['jsonrpc'])}`);
    if ('result' in body === 'error' in body) problems.push('it must carry exactly one of result and error');
    const error = body['error'] as Record<string, unknown> | undefined;
    if (
      error !== undefined &&
      (typeof error !== 'object' || error === null || !Number.isInteger(error['code']) || typeof error['message'] !== 'string')
    ) {
      problems.push('error must be an object with an integer code and a string message');
    }
    if (body['id'] !== sentId && !(sentId !== null && 'error' in body && body['id'] === null && isEnvelopeError(body))) {
      problems.push(`id is ${JSON.stringify(body['id'])}, the request's was ${JSON.stringify(sentId)}`);
    }
  }
  if (problems.length === 0) context.pass('JSONRPC-ENV-002');
  else
    context.fail('JSONRPC-ENV-002', {
      message: 'the response is not a proper JSON-RPC 2.0 response',
      expected: 'jsonrpc "2.0", the request id, exactly one of result/error',
      observed: problems.join('; '),
      exchange,
    });
}

/** An error about the envelope itself, whose id the server may not have been able to read. */
function isEnvelopeError(body: Record<string, unknown>): boolean {
  const code = (body['error'] as { code?: unknown } | undefined)?.code;
  return code === ERRORS.JSONParseError.code || code === ERRORS.InvalidRequestError.code;
}

/** Error objects: data is an array of @type objects with an A2A ErrorInfo (JSONRPC-ENV-007, -008). */
function checkErrorDetails(context: CheckContext, exchange: RpcExchange): void {
  const data = exchange.error?.data;
  if (data === undefined) {
    context.warn('JSONRPC-ENV-008', {
      message: 'an error carries no data array with an ErrorInfo',
      expected: `data: [{"@type": "${ERROR_INFO}", reason, domain: "${ERROR_DOMAIN}"}]`,
      observed: 'no data member',
      exchange,
    });
    return;
  }
  if (
    !Array.isArray(data) ||
    !data.every(
      (detail) => typeof detail === 'object' && detail !== null && typeof (detail as Record<string, unknown>)['@type'] === 'string',
    )
  ) {
    context.fail('JSONRPC-ENV-007', {
      message: 'error data is not an array of objects with @type',
      expected: 'data: [{"@type": …}, …]',
      observed: JSON.stringify(data).slice(0, 300),
      exchange,
    });
    return;
  }
  context.pass('JSONRPC-ENV-007');
  const info = (data as Record<string, unknown>[]).find((detail) => detail['@type'] === ERROR_INFO);
  if (info !== undefined && typeof info['reason'] === 'string' && typeof info['domain'] === 'string') context.pass('JSONRPC-ENV-008');
  else
    context.warn('JSONRPC-ENV-008', {
      message: 'no ErrorInfo with reason and domain in error data',
      expected: `an element with @type ${ERROR_INFO}, a reason and domain ${ERROR_DOMAIN}`,
      observed: JSON.stringify(data).slice(0, 300),
      exchange,
    });
}

/** A raw body the endpoint must refuse with the JSON-RPC error `name` (and id null, for a body whose id cannot be read). */
async function expectRawError(
  context: CheckContext,
  requirement: RequirementId,
  body: string | undefined,
  name: ErrorName,
  options: { idNull?: boolean } = {},
): Promise<Exchange> {
  const exchange = await context.transport.raw(body, { headers: { 'content-type': MEDIA_TYPES.json, [VERSION_HEADER]: PROTOCOL_VERSION } });
  const json = exchange.json as { id?: unknown } | undefined;
  const ok =
    exchange.status >= 200 &&
    exchange.status < 500 &&
    errorCodeOf(exchange) === ERRORS[name].code &&
    (!options.idNull || json?.id === null);
  if (ok) context.pass(requirement, `answered ${errorLabel(name)}`);
  else {
    context.fail(requirement, {
      message: `expected a JSON-RPC error ${errorLabel(name)}${options.idNull ? ' with id null' : ''}`,
      expected: `HTTP 200 (or another non-5xx) with error.code ${ERRORS[name].code}`,
      observed:
        exchange.status === 0
          ? `no response: ${exchange.transportError ?? ''}`
          : `HTTP ${exchange.status}: ${exchange.bodyText.slice(0, 300)}`,
      exchange,
    });
  }
  return exchange;
}

export const envelopeChecks: readonly Check[] = [
  {
    id: 'jsonrpc-envelope-basics',
    bindings: ['JSONRPC'],
    title: 'JSON-RPC responses: content type, id echo, one of result/error',
    requirements: ['JSONRPC-ENV-001', 'JSONRPC-ENV-002', 'JSONRPC-ENV-007', 'JSONRPC-ENV-008'],
    async run(context) {
      for (const id of ['conform-string-id', 42, 0]) {
        const exchange = await context.transport.call('GetTask', { id: `conform-missing-${String(id)}` }, { id });
        checkEnvelope(context, exchange, id);
        if (exchange.error) checkErrorDetails(context, exchange);
      }
      const listed = await context.transport.call('ListTasks', {});
      checkEnvelope(context, listed, listed.id);
    },
  },
  {
    id: 'jsonrpc-parse-error',
    bindings: ['JSONRPC'],
    title: `Malformed JSON is ${errorLabel('JSONParseError')} with id null`,
    requirements: ['JSONRPC-ENV-003'],
    async run(context) {
      await expectRawError(context, 'JSONRPC-ENV-003', '{"jsonrpc": "2.0", "id": 1, "method": "GetTask", ', 'JSONParseError', {
        idNull: true,
      });
      await expectRawError(context, 'JSONRPC-ENV-003', 'not json at all', 'JSONParseError', { idNull: true });
    },
  },
  {
    id: 'jsonrpc-invalid-request',
    bindings: ['JSONRPC'],
    title: `Each kind of invalid envelope is ${errorLabel('InvalidRequestError')}`,
    requirements: ['JSONRPC-ENV-004'],
    async run(context) {
      const variants: Record<string, unknown> = {
        'wrong jsonrpc version': { jsonrpc: '1.0', id: 1, method: 'GetTask', params: { id: 'x' } },
        'missing jsonrpc': { id: 1, method: 'GetTask', params: { id: 'x' } },
        'missing method': { jsonrpc: '2.0', id: 1, params: { id: 'x' } },
        'method not a string': { jsonrpc: '2.0', id: 1, method: 42, params: { id: 'x' } },
        'id of a forbidden type': { jsonrpc: '2.0', id: { nested: true }, method: 'GetTask', params: { id: 'x' } },
        'a JSON scalar': 42,
      };
      for (const [, body] of Object.entries(variants))
        await expectRawError(context, 'JSONRPC-ENV-004', JSON.stringify(body), 'InvalidRequestError');
    },
  },
  {
    id: 'jsonrpc-method-not-found',
    bindings: ['JSONRPC'],
    title: `Unknown methods, including A2A 0.3 names, are ${errorLabel('MethodNotFoundError')}`,
    requirements: ['JSONRPC-ENV-005'],
    async run(context) {
      for (const method of ['NoSuchMethod', ...LEGACY_NAMES, 'sendMessage']) {
        const exchange = await context.transport.callRaw(method, { id: 'x' });
        context.expectError('JSONRPC-ENV-005', exchange, 'MethodNotFoundError');
      }
    },
  },
  {
    id: 'jsonrpc-invalid-params',
    bindings: ['JSONRPC'],
    title: `Params that do not form the request message are ${errorLabel('InvalidParamsError')}`,
    requirements: ['JSONRPC-ENV-006'],
    async run(context) {
      const cases: [string, unknown][] = [
        ['GetTask', {}],
        ['GetTask', { id: 42 }],
        ['SendMessage', { message: { role: 'ROLE_USER', parts: [{ text: 'no messageId' }] } }],
        ['SendMessage', { message: { messageId: 'conform-x', role: 'user', parts: [{ text: 'x' }] } }],
        ['SendMessage', { message: { messageId: 'conform-x', role: 'ROLE_USER', parts: [] } }],
        ['ListTasks', { status: 'completed' }],
      ];
      for (const [method, params] of cases)
        context.expectError('JSONRPC-ENV-006', await context.transport.callRaw(method, params), 'InvalidParamsError');
    },
  },
];
