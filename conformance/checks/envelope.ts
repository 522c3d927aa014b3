import type { Check, CheckContext } from '../core/check.js';
import type { Exchange } from '../core/exchange.js';
import type { RpcExchange } from '../core/transport.js';

const ERROR_INFO = 'type.googleapis.com/google.rpc.ErrorInfo';

/** Every JSON-RPC answer: content type, envelope, id echo (JSONRPC-ENV-001, -002). */
function checkEnvelope(context: CheckContext, exchange: RpcExchange, sentId: string | number | null | undefined): void {
  const type = exchange.headers['content-type'] ?? '';
  if (/^application\/json\s*(;|$)/i.test(type)) context.pass('JSONRPC-ENV-001');
  else context.fail('JSONRPC-ENV-001', { message: 'a JSON-RPC response is not application/json', expected: 'Content-Type: application/json', observed: type || '(none)', exchange });
  const body = exchange.json as Record<string, unknown> | undefined;
  const problems: string[] = [];
  if (body === undefined || typeof body !== 'object') problems.push('the body is not a JSON object');
  else {
    if (body['jsonrpc'] !== '2.0') problems.push(`jsonrpc is ${JSON.stringify(body['jsonrpc'])}`);
    if (('result' in body) === ('error' in body)) problems.push('it must carry exactly one of result and error');
    const error = body['error'] as Record<string, unknown> | undefined;
    if (error !== undefined && (typeof error !== 'object' || error === null || !Number.isInteger(error['code']) || typeof error['message'] !== 'string')) {
      problems.push('error must be an object with an integer code and a string message');
    }
    if (body['id'] !== sentId && !(sentId !== null && 'error' in body && body['id'] === null && isEnvelopeError(body))) {
      problems.push(`id is ${JSON.stringify(body['id'])}, the request's was ${JSON.stringify(sentId)}`);
    }
  }
  if (problems.length === 0) context.pass('JSONRPC-ENV-002');
  else context.fail('JSONRPC-ENV-002', { message: 'the response is not a proper JSON-RPC 2.0 response', expected: 'jsonrpc "2.0", the request id, exactly one of result/error', observed: problems.join('; '), exchange });
}

function isEnvelopeError(body: Record<string, unknown>): boolean {
  const code = (body['error'] as { code?: unknown } | undefined)?.code;
  return code === -32700 || code === -32600;
}

/** Error objects: data is an array of @type objects with an A2A ErrorInfo (JSONRPC-ENV-007, -008). */
function checkErrorDetails(context: CheckContext, exchange: RpcExchange): void {
  const data = exchange.error?.data;
  if (data === undefined) {
    context.warn('JSONRPC-ENV-008', { message: 'an error carries no data array with an ErrorInfo', expected: `data: [{"@type": "${ERROR_INFO}", reason, domain: "a2a-protocol.org"}]`, observed: 'no data member', exchange });
    return;
  }
  if (!Array.isArray(data) || !data.every((detail) => typeof detail === 'object' && detail !== null && typeof (detail as Record<string, unknown>)['@type'] === 'string')) {
    context.fail('JSONRPC-ENV-007', { message: 'error data is not an array of objects with @type', expected: 'data: [{"@type": …}, …]', observed: JSON.stringify(data).slice(0, 300), exchange });
    return;
  }
  context.pass('JSONRPC-ENV-007');
  const info = (data as Record<string, unknown>[]).find((detail) => detail['@type'] === ERROR_INFO);
  if (info !== undefined && typeof info['reason'] === 'string' && typeof info['domain'] === 'string') context.pass('JSONRPC-ENV-008');
  else context.warn('JSONRPC-ENV-008', { message: 'no ErrorInfo with reason and domain in error data', expected: `an element with @type ${ERROR_INFO}, a reason and domain a2a-protocol.org`, observed: JSON.stringify(data).slice(0, 300), exchange });
}

async function expectRawError(context: CheckContext, requirement: string, body: string | undefined, expected: { code: number; idNull?: boolean }, headers?: Record<string, string>): Promise<Exchange> {
  const exchange = await context.transport.raw(body, { headers: { 'content-type': 'application/json', 'a2a-version': '1.0', ...headers } });
  const json = exchange.json as { error?: { code?: unknown }; id?: unknown } | undefined;
  const ok = exchange.status >= 200 && exchange.status < 500 && json?.error?.code === expected.code && (!expected.idNull || json.id === null);
  if (ok) context.pass(requirement, `answered ${expected.code}`);
  else {
    context.fail(requirement, {
      message: `expected a JSON-RPC error ${expected.code}${expected.idNull ? ' with id null' : ''}`,
      expected: `HTTP 200 (or another non-5xx) with error.code ${expected.code}`,
      observed: exchange.status === 0 ? `no response: ${exchange.transportError ?? ''}` : `HTTP ${exchange.status}: ${exchange.bodyText.slice(0, 300)}`,
      exchange,
    });
  }
  return exchange;
}

export const envelopeChecks: readonly Check[] = [
  {
    id: 'jsonrpc-envelope-basics',
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
    title: 'Malformed JSON is -32700 with id null',
    requirements: ['JSONRPC-ENV-003'],
    async run(context) {
      await expectRawError(context, 'JSONRPC-ENV-003', '{"jsonrpc": "2.0", "id": 1, "method": "GetTask", ', { code: -32700, idNull: true });
      await expectRawError(context, 'JSONRPC-ENV-003', 'not json at all', { code: -32700, idNull: true });
    },
  },
  {
    id: 'jsonrpc-invalid-request',
    title: 'Each kind of invalid envelope is -32600',
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
      for (const [, body] of Object.entries(variants)) await expectRawError(context, 'JSONRPC-ENV-004', JSON.stringify(body), { code: -32600 });
    },
  },
  {
    id: 'jsonrpc-method-not-found',
    title: 'Unknown methods, including A2A 0.3 names, are -32601',
    requirements: ['JSONRPC-ENV-005'],
    async run(context) {
      for (const method of ['NoSuchMethod', 'message/send', 'tasks/get', 'sendMessage']) {
        const exchange = await context.transport.call(method, { id: 'x' });
        context.expectError('JSONRPC-ENV-005', exchange, { code: -32601 });
      }
    },
  },
  {
    id: 'jsonrpc-invalid-params',
    title: 'Params that do not form the request message are -32602',
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
      for (const [method, params] of cases) context.expectError('JSONRPC-ENV-006', await context.transport.call(method, params), { code: -32602 });
    },
  },
];
