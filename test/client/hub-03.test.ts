import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Message, StreamResponse } from '../../generated/a2a/1.0/types.js';
import { A2AClient, assembleArtifacts, textOf, type StreamEvent } from '../../src/client/a2a-client.js';
import type { A2AError } from '../../src/protocol/a2a-error.js';
import { startTestHub, type TestHub } from '../helpers/hub.js';
import { createWireLog, type WireExchange, type WireLog } from '../interop/wire-log.js';

/**
 * Our client speaking A2A 0.3 to the hub, which serves 0.3 beside 1.0 on both bindings:
 * `protocolVersion: '0.3'` makes it take the card's 0.3 interfaces, so both ends of a 0.3
 * exchange are ours and each call is checked twice (the hub's self-check, the client's 0.3 and
 * then 1.0 validation). One case table, one row per binding.
 */

interface BindingCase {
  readonly binding: 'JSONRPC' | 'HTTP+JSON';
  /** The interface URL the client must take, from the hub's. */
  readonly endpoint: (hub: TestHub) => string;
  /** What the request of a 0.3 call looks like on this binding. */
  readonly sent: (exchange: WireExchange | undefined) => string;
}

const CASES: readonly BindingCase[] = [
  {
    binding: 'JSONRPC',
    endpoint: (hub) => hub.endpoint,
    sent: (exchange) => `${exchange?.method} ${(JSON.parse(exchange?.requestBody ?? '{}') as { method?: string }).method}`,
  },
  {
    binding: 'HTTP+JSON',
    // The hub serves an instance's REST base at its endpoint path unless configured otherwise.
    endpoint: (hub) => hub.endpoint,
    sent: (exchange) => `${exchange?.method} ${new URL(exchange?.url ?? 'http://x/').pathname.replace(/^\/a2a\/default/, '')}`,
  },
];

let hub: TestHub;
beforeAll(async () => {
  hub = await startTestHub({ store: 'memory' });
});
afterAll(() => hub.dispose());

function userMessage(text: string, extra: Partial<Message> = {}): Message {
  return { messageId: randomUUID(), role: 'ROLE_USER', parts: [{ text }], ...extra };
}

describe.each(CASES)('A2AClient in A2A 0.3 against the hub over $binding', (row) => {
  let client: A2AClient;
  let wire: WireLog;
  beforeAll(async () => {
    wire = createWireLog();
    client = await A2AClient.connect(hub.url, { fetch: wire.fetch, binding: row.binding, protocolVersion: '0.3' });
  });

  it("takes the card's 0.3 interface of the binding", () => {
    expect(client.protocolVersion).toBe('0.3');
    expect(client.protocolBinding).toBe(row.binding);
    expect(client.endpoint).toBe(row.endpoint(hub));
  });

  it('sends, streams and reads back tasks in 0.3, the caller seeing 1.0', async () => {
    wire.clear();
    const { task } = await client.sendMessage({ message: userMessage('hello from 0.3') });
    expect(task?.status.state).toBe('TASK_STATE_COMPLETED');
    expect(textOf(task?.artifacts?.[0])).toBe('echo: hello from 0.3');
    expect(row.sent(wire.exchanges[0])).toMatch(/^POST (message\/send|\/v1\/message:send)$/);

    const frames: StreamResponse[] = [];
    for await (const frame of client.sendStreamingMessage({ message: userMessage('streamed in 0.3') })) frames.push(frame);
    expect(frames[0]?.task).toBeDefined();
    expect(textOf(assembleArtifacts(frames)[0])).toBe('echo: streamed in 0.3');
    const last = frames.at(-1);
    expect(last?.statusUpdate?.status.state ?? last?.task?.status.state).toBe('TASK_STATE_COMPLETED');

    wire.clear();
    const got = await client.getTask({ id: task?.id ?? '', historyLength: 1 });
    expect(got).toMatchObject({ id: task?.id, contextId: task?.contextId, status: { state: 'TASK_STATE_COMPLETED' } });
    expect(got.history?.length).toBe(1);
    expect(row.sent(wire.exchanges[0])).toMatch(new RegExp(`^(POST tasks/get|GET /v1/tasks/${task?.id})$`));
    expect(wire.exchanges[0]?.url).toMatch(row.binding === 'HTTP+JSON' ? /\?historyLength=1$/ : /default$/);
  });

  it('resubscribes to a running task until COMPLETED and cancels another', async () => {
    const running = await client.sendMessage({ message: userMessage('::slow 3'), configuration: { returnImmediately: true } });
    const events: StreamEvent[] = [];
    for await (const event of client.subscribeToTask({ id: running.task?.id ?? '' })) events.push(event);
    const last = events.at(-1)?.frame;
    expect(last?.statusUpdate?.status.state ?? last?.task?.status.state).toBe('TASK_STATE_COMPLETED');

    const slow = await client.sendMessage({ message: userMessage('::slow 50'), configuration: { returnImmediately: true } });
    wire.clear();
    const canceled = await client.cancelTask({ id: slow.task?.id ?? '' });
    expect(canceled.status.state).toBe('TASK_STATE_CANCELED');
    expect(row.sent(wire.exchanges[0])).toMatch(new RegExp(`^POST (tasks/cancel|/v1/tasks/${slow.task?.id}:cancel)$`));
    const again = await client.cancelTask({ id: slow.task?.id ?? '' }).catch((error: unknown) => error);
    expect((again as A2AError).name).toBe('TaskNotCancelableError');
  });

  it('continues an input-required task with a follow-up on its taskId', async () => {
    const { task } = await client.sendMessage({ message: userMessage('::input-required') });
    expect(task?.status.state).toBe('TASK_STATE_INPUT_REQUIRED');
    const followUp = await client.sendMessage({ message: userMessage('here', { taskId: task?.id, contextId: task?.contextId }) });
    expect(followUp.task).toMatchObject({ id: task?.id, status: { state: 'TASK_STATE_COMPLETED' } });
  });

  it('sets, gets, lists and deletes a push config, the secret redacted on every read', async () => {
    const { task } = await client.sendMessage({ message: userMessage('::slow 50'), configuration: { returnImmediately: true } });
    const taskId = task?.id ?? '';
    const hook = { taskId, id: 'hook-03', url: 'https://hooks.example.test/a2a', token: 'hook-token' };
    wire.clear();
    const { config } = await client.createPushConfig(hook);
    expect(config).toMatchObject({ taskId, id: 'hook-03', url: hook.url });
    expect(row.sent(wire.exchanges[0])).toMatch(
      new RegExp(`^POST (tasks/pushNotificationConfig/set|/v1/tasks/${taskId}/pushNotificationConfigs)$`),
    );
    expect(config).not.toHaveProperty('token');
    const got = await client.getPushConfig({ taskId, id: 'hook-03' });
    expect(got).toMatchObject({ taskId, id: 'hook-03', url: hook.url });
    expect(got).not.toHaveProperty('token');
    expect(wire.exchanges.map((exchange) => exchange.responseBody).join('\n')).not.toContain('hook-token');
    expect(((await client.listPushConfigs({ taskId })).configs ?? []).map((entry) => entry.id)).toEqual(['hook-03']);
    await client.deletePushConfig({ taskId, id: 'hook-03' });
    expect((await client.listPushConfigs({ taskId })).configs).toEqual([]);
    await client.cancelTask({ id: taskId });
  });

  it("maps the hub's 0.3 errors to 1.0 errors, keeping their field violations", async () => {
    const missing = await client.getTask({ id: 'no-such-task' }).catch((error: unknown) => error);
    expect((missing as A2AError).name).toBe('TaskNotFoundError');
    const unknownConfig = await client.getPushConfig({ taskId: 'no-such-task', id: 'nope' }).catch((error: unknown) => error);
    expect((unknownConfig as A2AError).name).toBe('TaskNotFoundError');
    wire.clear();
    const listed = await client.listTasks({}).catch((error: unknown) => error);
    expect((listed as A2AError).name).toBe('UnsupportedOperationError');
    expect(wire.exchanges).toHaveLength(0);
  });
});

describe('choosing the protocol version', () => {
  it('prefers 1.x on a dual-stack card, and protocolVersion: "1.0" refuses a 0.3-only choice', async () => {
    const plain = await A2AClient.connect(hub.url, { binding: 'HTTP+JSON' });
    expect(plain.protocolVersion).toBe('1.0');
    const current = await A2AClient.connect(hub.url, { protocolVersion: '1.0' });
    expect(current.protocolVersion).toBe('1.0');
  });
});
