import { HEADERS as HEADERS_03, MEDIA_TYPES } from '../../../generated/a2a/0.3/protocol.js';
import { isRecord } from '../../../src/support/records.js';
import { observedOf } from '../../core/answers.js';
import type { Check, CheckContext } from '../../core/check.js';
import type { Exchange } from '../../core/exchange.js';
import { call03, expectError03, isError03, label03, message03, shape03, stream03, streamRefusal03, unknownTaskId03 } from './support.js';

/*
 * The JSON-RPC envelope of 0.3, and what the card's capability flags gate: each flag that is off
 * must refuse its methods with the 0.3 error for it rather than half serve them.
 */

/** A raw POST of `body` to the 0.3 endpoint. */
function post(context: CheckContext, body: string): Promise<Exchange> {
  return context.transport.raw(body, { headers: { 'content-type': MEDIA_TYPES.json, accept: MEDIA_TYPES.json } });
}

/** The error object of a JSON-RPC answer, when it has one. */
function errorOf(exchange: Exchange): { code?: unknown; message?: unknown } | undefined {
  const json = exchange.json;
  return isRecord(json) && isRecord(json['error']) ? json['error'] : undefined;
}

/** V03-RPC-002 and V03-RPC-007 on one answer: the envelope members, and the error object's types. */
function judgeEnvelope(context: CheckContext, exchange: Exchange, id: unknown, what: string): void {
  const json = exchange.json;
  const problems: string[] = [];
  if (!isRecord(json)) problems.push('the body is not a JSON object');
  else {
    if (json['jsonrpc'] !== '2.0') problems.push(`jsonrpc is ${JSON.stringify(json['jsonrpc'])}`);
    if (json['id'] !== id) problems.push(`id is ${JSON.stringify(json['id'])}, not ${JSON.stringify(id)}`);
    if ('result' in json === 'error' in json) problems.push('it has both result and error, or neither');
  }
  if (problems.length === 0) context.pass('V03-RPC-002', `${what}: jsonrpc, id and one of result and error`);
  else context.fail('V03-RPC-002', { message: `${what}: ${problems.join('; ')}`, observed: observedOf(exchange), exchange });
  const error = errorOf(exchange);
  if (error === undefined) return;
  if (Number.isInteger(error.code) && typeof error.message === 'string')
    context.pass('V03-RPC-007', `${what}: an integer code and a string message`);
  else
    context.fail('V03-RPC-007', {
      message: `${what}: the error object has no integer code or no string message`,
      observed: JSON.stringify(error).slice(0, 300),
      exchange,
    });
}

export const protocolRules03Checks: readonly Check[] = [
  {
    id: 'v03-envelope',
    title: 'The 0.3 JSON-RPC envelope: content type, id echo, and the five JSON-RPC errors',
    protocol: '0.3',
    bindings: ['JSONRPC'],
    requirements: ['V03-RPC-001', 'V03-RPC-002', 'V03-RPC-003', 'V03-RPC-004', 'V03-RPC-005', 'V03-RPC-006', 'V03-RPC-007'],
    async run(context) {
      for (const id of ['conform-string-id', 7]) {
        const body = JSON.stringify({ jsonrpc: '2.0', id, method: 'tasks/get', params: { id: unknownTaskId03() } });
        const exchange = await post(context, body);
        judgeEnvelope(context, exchange, id, `tasks/get with id ${JSON.stringify(id)}`);
        const type = exchange.headers['content-type'] ?? '';
        if (type.startsWith(MEDIA_TYPES.json)) context.pass('V03-RPC-001', `Content-Type ${type}`);
        else
          context.fail('V03-RPC-001', {
            message: 'the answer is not labelled application/json',
            expected: MEDIA_TYPES.json,
            observed: type || 'no Content-Type',
            exchange,
          });
      }
      const broken = await post(context, '{"jsonrpc":"2.0","id":1,"method":');
      const parseError = errorOf(broken);
      const parse = label03('JSONParseError');
      if (isError03(parseError, 'JSONParseError') && isRecord(broken.json) && broken.json['id'] === null)
        context.pass('V03-RPC-003', `broken JSON: ${parse} with id null`);
      else
        context.fail('V03-RPC-003', {
          message: `broken JSON did not get ${parse} with id null`,
          expected: `error ${parse}, id null`,
          observed: observedOf(broken),
          exchange: broken,
        });
      judgeEnvelope(context, broken, null, 'broken JSON');

      for (const [what, body] of [
        ['jsonrpc "1.0"', { jsonrpc: '1.0', id: 2, method: 'tasks/get', params: { id: 'x' } }],
        ['no method', { jsonrpc: '2.0', id: 3, params: {} }],
        ['a method that is not a string', { jsonrpc: '2.0', id: 4, method: 42 }],
      ] as const) {
        const exchange = await post(context, JSON.stringify(body));
        const invalid = label03('InvalidRequestError');
        if (isError03(errorOf(exchange), 'InvalidRequestError')) context.pass('V03-RPC-004', `${what}: ${invalid}`);
        else
          context.fail('V03-RPC-004', {
            message: `${what} did not get ${invalid}`,
            expected: `error ${invalid}`,
            observed: observedOf(exchange),
            exchange,
          });
      }
      expectError03(
        context,
        'V03-RPC-005',
        await call03(context, 'tasks/frobnicate' as never, {}),
        'MethodNotFoundError',
        'tasks/frobnicate',
      );
      expectError03(
        context,
        'V03-RPC-006',
        await call03(context, 'message/send', {}),
        'InvalidParamsError',
        'message/send without message',
      );
      expectError03(context, 'V03-RPC-006', await call03(context, 'tasks/get', {}), 'InvalidParamsError', 'tasks/get without id');
    },
  },
  {
    id: 'v03-capabilities',
    title: 'What the 0.3 card declares is served, and what it does not is refused with its 0.3 error',
    protocol: '0.3',
    requirements: ['V03-CAP-001', 'V03-CAP-002', 'V03-CAP-003', 'V03-CAP-004'],
    async run(context) {
      const capabilities = context.target.card.capabilities ?? {};
      const streamed = await stream03(context, 'message/stream', { message: message03(context, 'conformance: capability probe') });
      if (capabilities.streaming === true) {
        context.skip('V03-CAP-002', 'capability-declared', 'the card declares streaming');
        if (streamed.ending !== 'not-a-stream' && streamed.events.length > 0)
          context.pass('V03-CAP-001', 'message/stream answered an SSE stream');
        else
          context.fail('V03-CAP-001', {
            message: 'the card declares streaming, but message/stream answered no stream',
            observed: observedOf(streamed),
            exchange: streamed,
          });
      } else {
        const unsupported = label03('UnsupportedOperationError');
        if (streamed.ending === 'not-a-stream' && isError03(streamRefusal03(streamed), 'UnsupportedOperationError'))
          context.pass('V03-CAP-002', `message/stream refused with ${unsupported}`);
        else
          context.fail('V03-CAP-002', {
            message: `the card does not declare streaming, but message/stream was not refused with ${unsupported}`,
            expected: `error ${unsupported}`,
            observed: observedOf(streamed),
            exchange: streamed,
          });
      }

      if (capabilities.pushNotifications === true)
        context.skip('V03-CAP-003', 'capability-declared', 'the card declares pushNotifications');
      else {
        const config = { taskId: unknownTaskId03(), pushNotificationConfig: { url: 'https://push.example.invalid/a2a' } };
        expectError03(
          context,
          'V03-CAP-003',
          await call03(context, 'tasks/pushNotificationConfig/set', config),
          'PushNotificationNotSupportedError',
          'tasks/pushNotificationConfig/set',
        );
      }

      const extended = await call03(context, 'agent/getAuthenticatedExtendedCard', {});
      if (capabilities.extendedAgentCard === true) {
        if (
          extended.error === undefined &&
          shape03(context, 'V03-CAP-004', 'AgentCard', extended.result, { exchange: extended, what: 'the extended card' })
        )
          context.pass('V03-CAP-004', 'the extended card is a valid 0.3 AgentCard');
        else if (extended.error !== undefined)
          context.fail('V03-CAP-004', {
            message: 'the card declares supportsAuthenticatedExtendedCard, but the method failed',
            observed: observedOf(extended),
            exchange: extended,
          });
      } else
        expectError03(
          context,
          'V03-CAP-004',
          extended,
          'AuthenticatedExtendedCardNotConfiguredError',
          'agent/getAuthenticatedExtendedCard',
        );
    },
  },
  {
    id: 'v03-extensions',
    title: 'An X-A2A-Extensions header naming an unknown extension is ignored',
    protocol: '0.3',
    requirements: ['V03-EXT-001'],
    async run(context) {
      const plain = await call03(context, 'tasks/get', { id: unknownTaskId03() });
      const named = await call03(
        context,
        'tasks/get',
        { id: unknownTaskId03() },
        { headers: { [HEADERS_03.extensions]: 'https://example.invalid/ext/v1' } },
      );
      if (named.error?.code === plain.error?.code && (named.error === undefined) === (plain.error === undefined))
        context.pass(
          'V03-EXT-001',
          `served as without the header (${named.error === undefined ? 'a result' : `error ${named.error.code}`})`,
        );
      else
        context.fail('V03-EXT-001', {
          message: 'naming an unknown extension changed the answer',
          expected: `the answer without the header: ${observedOf(plain)}`,
          observed: observedOf(named),
          exchange: named,
        });
    },
  },
];
