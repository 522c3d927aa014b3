import { MEDIA_TYPES } from '../../../generated/a2a/0.3/protocol.js';
import type * as V03 from '../../../generated/a2a/0.3/types.js';
import { isRecord } from '../../../src/support/records.js';
import { observedOf } from '../../core/answers.js';
import type { Check } from '../../core/check.js';
import { call03, message03, shape03, stream03, streamEvents03, taskOf, unknownTaskId03 } from './support.js';

/*
 * message/stream in 0.3: SSE, one frame per event (a JSON-RPC response, or over HTTP+JSON a
 * StreamResponse of the 0.3 proto), each a 0.3 stream event,
 * the one status-update with final true last, and the assembled artifacts what tasks/get shows.
 * tasks/pushNotificationConfig/* round-trip a config.
 */

type StreamResult = V03.SendStreamingMessageResult;

/** The text of an artifact's parts, chunks joined as their append flags say. */
function assembled(events: readonly StreamResult[]): Map<string, string> {
  const artifacts = new Map<string, string>();
  for (const event of events) {
    if (event.kind !== 'artifact-update') continue;
    const text = event.artifact.parts.map((part) => (part.kind === 'text' ? part.text : '')).join('');
    const before = event.append === true ? (artifacts.get(event.artifact.artifactId) ?? '') : '';
    artifacts.set(event.artifact.artifactId, before + text);
  }
  return artifacts;
}

export const streaming03Checks: readonly Check[] = [
  {
    id: 'v03-stream',
    title: 'message/stream: SSE of JSON-RPC responses, valid 0.3 events, the final status-update last',
    protocol: '0.3',
    capability: 'streaming',
    requirements: ['V03-SSE-001', 'V03-SSE-002', 'V03-SSE-003', 'V03-SSE-004', 'V03-SSE-005'],
    async run(context) {
      const id = `conform-v03-stream-${Date.now()}`;
      const exchange = await stream03(
        context,
        'message/stream',
        { message: message03(context, 'conformance: stream in 0.3', { outcome: 'completed', chunks: 2 }) },
        { id },
      );
      const type = exchange.headers['content-type'] ?? '';
      if (exchange.status === 200 && type.startsWith(MEDIA_TYPES.eventStream)) context.pass('V03-SSE-001', `HTTP 200, ${type}`);
      else {
        context.fail('V03-SSE-001', {
          message: 'message/stream did not answer an SSE stream',
          expected: `HTTP 200, ${MEDIA_TYPES.eventStream}`,
          observed: observedOf(exchange),
          exchange,
        });
        return;
      }
      const results: StreamResult[] = [];
      for (const [index, event] of streamEvents03(context, exchange, id).entries()) {
        if (!event.ok) {
          context.fail('V03-SSE-002', {
            message: `event ${index} ${event.problem}`,
            observed: exchange.events[index]?.data.slice(0, 300),
            exchange,
          });
          continue;
        }
        if (shape03(context, 'V03-SSE-002', 'SendStreamingMessageResult', event.result, { exchange, what: `event ${index}'s result` }))
          results.push(event.result as StreamResult);
      }
      if (results.length === exchange.events.length && results.length > 0)
        context.pass('V03-SSE-002', `${results.length} valid 0.3 events`);
      if (results[0]?.kind === 'message') {
        for (const requirement of ['V03-SSE-003', 'V03-SSE-004', 'V03-SSE-005'] as const)
          context.skip(requirement, 'not-observable', 'the agent answered the stream with a Message, not a task');
        return;
      }
      const finals = results.flatMap((event, index) => (event.kind === 'status-update' && event.final ? [index] : []));
      const last = results.at(-1);
      if (finals.length === 1 && finals[0] === results.length - 1 && exchange.ending === 'closed')
        context.pass('V03-SSE-003', `the last of ${results.length} events is the one status-update with final true, and the stream closed`);
      else
        context.fail('V03-SSE-003', {
          message:
            finals.length === 0
              ? 'no status-update said final true'
              : finals.length > 1
                ? `${finals.length} status-updates said final true`
                : last?.kind !== 'status-update' || !last.final
                  ? `events followed the final status-update (the last is a ${last?.kind ?? 'nothing'})`
                  : `the stream did not close after the final event (${exchange.ending})`,
          expected: 'exactly one status-update with final true, the last event, then the end of the stream',
          observed: results
            .map((event) =>
              event.kind === 'status-update' ? `status-update ${event.status.state}${event.final ? ' final' : ''}` : event.kind,
            )
            .join(', '),
          exchange,
        });
      const first = results[0];
      const taskId =
        first?.kind === 'task' ? first.id : first?.kind === 'status-update' || first?.kind === 'artifact-update' ? first.taskId : undefined;
      const contextId = first?.contextId;
      const strays = results.filter(
        (event) =>
          event.kind !== 'message' && ((event.kind === 'task' ? event.id : event.taskId) !== taskId || event.contextId !== contextId),
      );
      if (taskId !== undefined && strays.length === 0)
        context.pass('V03-SSE-004', 'every event names the task and context the stream started with');
      else
        context.fail('V03-SSE-004', {
          message: `${strays.length} event(s) name another task or context`,
          observed: JSON.stringify(strays[0]).slice(0, 300),
          exchange,
        });

      const streamed = assembled(results);
      if (taskId === undefined || streamed.size === 0) {
        context.skip('V03-SSE-005', 'not-observable', 'the stream carried no artifact chunks');
        return;
      }
      const stored = taskOf(await call03(context, 'tasks/get', { id: taskId }));
      const storedText = new Map(
        (stored?.artifacts ?? []).map((artifact) => [
          artifact.artifactId,
          artifact.parts.map((part) => (part.kind === 'text' ? part.text : '')).join(''),
        ]),
      );
      const differing = [...streamed].filter(([artifactId, text]) => storedText.get(artifactId) !== text);
      if (differing.length === 0) context.pass('V03-SSE-005', `${streamed.size} artifact(s) assemble to what tasks/get shows`);
      else
        context.fail('V03-SSE-005', {
          message: 'the streamed chunks do not assemble to the artifacts tasks/get answers',
          expected: JSON.stringify(Object.fromEntries(storedText)).slice(0, 200),
          observed: JSON.stringify(Object.fromEntries(streamed)).slice(0, 200),
          exchange,
        });
    },
  },
  {
    id: 'v03-push',
    title: 'tasks/pushNotificationConfig/set, get, list and delete round-trip a config',
    protocol: '0.3',
    capability: 'pushNotifications',
    requirements: ['V03-PUSH-001'],
    async run(context) {
      const sent = await call03(context, 'message/send', {
        message: message03(context, 'conformance: a task to watch', { outcome: 'input-required' }),
      });
      const task = taskOf(sent);
      if (task === undefined) {
        context.skip('V03-PUSH-001', 'precondition-not-met', `no task to watch (${observedOf(sent)})`);
        return;
      }
      // A host that never resolves (.invalid), so nothing is delivered anywhere.
      const config = { id: `conform-${unknownTaskId03()}`, url: 'https://push.example.invalid/a2a', token: 'conform-token' };
      const set = await call03(context, 'tasks/pushNotificationConfig/set', { taskId: task.id, pushNotificationConfig: config });
      if (
        set.error !== undefined ||
        !shape03(context, 'V03-PUSH-001', 'TaskPushNotificationConfig', set.result, { exchange: set, what: 'the set result' })
      ) {
        if (set.error !== undefined)
          context.fail('V03-PUSH-001', { message: 'tasks/pushNotificationConfig/set failed', observed: observedOf(set), exchange: set });
        return;
      }
      const problems: string[] = [];
      const get = await call03(context, 'tasks/pushNotificationConfig/get', { id: task.id, pushNotificationConfigId: config.id });
      const got = isRecord(get.result) && isRecord(get.result['pushNotificationConfig']) ? get.result['pushNotificationConfig'] : undefined;
      if (got?.['url'] !== config.url) problems.push(`get answered ${observedOf(get)}`);
      const list = await call03(context, 'tasks/pushNotificationConfig/list', { id: task.id });
      const listed = Array.isArray(list.result) ? (list.result as unknown[]) : [];
      if (
        !listed.some(
          (entry) => isRecord(entry) && isRecord(entry['pushNotificationConfig']) && entry['pushNotificationConfig']['id'] === config.id,
        )
      )
        problems.push(`list did not have it: ${observedOf(list)}`);
      const deleted = await call03(context, 'tasks/pushNotificationConfig/delete', { id: task.id, pushNotificationConfigId: config.id });
      if (deleted.error !== undefined || deleted.result !== null) problems.push(`delete answered ${observedOf(deleted)}`);
      const after = await call03(context, 'tasks/pushNotificationConfig/list', { id: task.id });
      const remaining = Array.isArray(after.result) ? (after.result as unknown[]) : [];
      if (
        remaining.some(
          (entry) => isRecord(entry) && isRecord(entry['pushNotificationConfig']) && entry['pushNotificationConfig']['id'] === config.id,
        )
      )
        problems.push('list still had it after delete');
      if (problems.length === 0) context.pass('V03-PUSH-001', 'set, get, list and delete agree');
      else context.fail('V03-PUSH-001', { message: problems.join('; '), exchange: set });
      await call03(context, 'tasks/cancel', { id: task.id });
    },
  },
];
