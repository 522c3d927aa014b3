import type { MethodName as Method03 } from '../../../generated/a2a/0.3/methods.js';
import { MEDIA_TYPES } from '../../../generated/a2a/0.3/protocol.js';
import { ERRORS } from '../../../generated/a2a/1.0/errors.js';
import { urlBelow } from '../../../src/protocol/rest-url.js';
import { errorObject03 } from '../../../src/protocol/v03/errors.js';
import { observedOf } from '../../core/answers.js';
import type { Check, CheckContext } from '../../core/check.js';
import type { Exchange } from '../../core/exchange.js';
import { call03, label03, stream03, unknownTaskId03 } from './support.js';

/*
 * 0.3's HTTP+JSON routes themselves: each method that names a task answers on its route below
 * /v1 (an A2A error for a task that cannot exist shows the route is there; a bare 404 or 405
 * does not), a path outside the routes is 404, and refusals carry the 0.3 error object.
 */

/** The calls that reach every route but message:send and message:stream (the send and stream checks use those). */
function routeProbes(taskId: string): readonly (readonly [Method03, unknown])[] {
  const configId = `conform-${unknownTaskId03()}`;
  return [
    ['tasks/get', { id: taskId }],
    ['tasks/cancel', { id: taskId }],
    ['tasks/pushNotificationConfig/set', { taskId, pushNotificationConfig: { id: configId, url: 'https://push.example.invalid/a2a' } }],
    ['tasks/pushNotificationConfig/get', { id: taskId, pushNotificationConfigId: configId }],
    ['tasks/pushNotificationConfig/list', { id: taskId }],
    ['tasks/pushNotificationConfig/delete', { id: taskId, pushNotificationConfigId: configId }],
    ['agent/getAuthenticatedExtendedCard', {}],
  ];
}

/** A route is served when it answered a result, or a refusal an A2A client can read (a 0.3 error object). */
function served(exchange: Exchange): boolean {
  if (exchange.status >= 200 && exchange.status < 300) return true;
  return exchange.status >= 400 && errorObject03(exchange.json) !== undefined;
}

/** V03-REST-002 on one refusal: a 4xx or 5xx with the 0.3 error object. */
function judgeRefusal(context: CheckContext, exchange: Exchange, what: string): void {
  if (exchange.status < 400) return;
  const error = errorObject03(exchange.json);
  if (error !== undefined && Number.isInteger(error.code)) {
    context.pass('V03-REST-002', `${what}: HTTP ${exchange.status} with code ${error.code}`);
    return;
  }
  context.warn('V03-REST-002', {
    message: `${what}: the refusal has no 0.3 error object`,
    expected: 'a JSON body {code, message[, data]} with an integer code',
    observed: observedOf(exchange),
    exchange,
  });
}

export const rest03Checks: readonly Check[] = [
  {
    id: 'v03-rest',
    title: "0.3's HTTP+JSON routes below /v1: each answers with its verb, other paths are 404, refusals carry the 0.3 error",
    protocol: '0.3',
    bindings: ['HTTP+JSON'],
    requirements: ['V03-REST-001', 'V03-REST-002'],
    async run(context) {
      const missing: string[] = [];
      for (const [method, params] of routeProbes(unknownTaskId03())) {
        const exchange = await call03(context, method, params);
        judgeRefusal(context, exchange, method);
        if (served(exchange)) continue;
        missing.push(method);
        context.fail('V03-REST-001', {
          message: `${exchange.request.method} ${new URL(exchange.request.url).pathname} (${method}) is not served`,
          expected: `the route answers (a 0.3 error such as ${label03('TaskNotFoundError')} for an unknown task is fine), not a bare 404 or 405`,
          observed: observedOf(exchange),
          exchange,
        });
      }
      if (context.target.card.capabilities?.streaming === true) {
        const resubscribed = await stream03(
          context,
          'tasks/resubscribe',
          { id: unknownTaskId03() },
          { timeoutMs: Math.min(context.timeoutMs, 3000) },
        );
        // A stream, or a refusal the client can read, shows the route is there.
        if (resubscribed.ending === 'not-a-stream') judgeRefusal(context, resubscribed, 'tasks/resubscribe');
        if (resubscribed.ending === 'not-a-stream' && !served(resubscribed)) {
          missing.push('tasks/resubscribe');
          context.fail('V03-REST-001', {
            message: `${resubscribed.request.method} ${new URL(resubscribed.request.url).pathname} (tasks/resubscribe) is not served`,
            observed: observedOf(resubscribed),
            exchange: resubscribed,
          });
        }
      }
      if (missing.length === 0) context.pass('V03-REST-001', 'every route that names a task answers with its verb');

      const unknown = await context.transport.raw(undefined, {
        method: 'GET',
        url: urlBelow(context.transport.endpoint, '/v1/conform-no-such-route'),
        headers: { accept: MEDIA_TYPES.json },
      });
      if (unknown.status === ERRORS.NotFoundError.httpStatus) context.pass('V03-REST-001', 'a path outside the routes gets 404');
      else
        context.fail('V03-REST-001', {
          message: 'a path outside the routes was not answered 404',
          expected: `HTTP ${ERRORS.NotFoundError.httpStatus}`,
          observed: observedOf(unknown),
          exchange: unknown,
        });
    },
  },
];
