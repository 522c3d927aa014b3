import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Task } from '../../generated/a2a/1.0/types.js';
import { testDirectiveMetadata } from '../../generated/hub/test-directives.js';
import { call, expectRpcError, userMessage } from '../helpers/a2a-client.js';
import { badRequestOf } from '../helpers/errors.js';
import { startTestHub, type TestHub } from '../helpers/hub.js';
import { artifactText, inputRequiredTask, sendTask } from '../helpers/tasks.js';

/**
 * JSON-RPC params that use the proto field names (`context_id`, `history_length`, …), as
 * ProtoJSON parsers accept and seed 002 and the TCK send: over real HTTP against the echo
 * agent, each must have its effect, and two spellings of one field must agree.
 */

let hub: TestHub;

beforeAll(async () => {
  hub = await startTestHub();
});

afterAll(async () => {
  await hub?.dispose();
});

/** A user message whose members are spelt the proto way. */
function protoMessage(text: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  const { messageId, ...rest } = userMessage(text);
  return { message_id: messageId, ...rest, ...extra };
}

async function sendRaw(params: Record<string, unknown>): Promise<Task> {
  return sendTask(hub.endpoint, params as unknown as Parameters<typeof sendTask>[1]);
}

describe('proto field names in JSON-RPC params', () => {
  it('message.context_id continues the conversation', async () => {
    const first = await sendTask(hub.endpoint, { message: userMessage('hello') });
    const second = await sendRaw({ message: protoMessage('again', { context_id: first.contextId }) });
    expect(second.contextId).toBe(first.contextId);
    expect(second.id).not.toBe(first.id);
  });

  it('message.task_id continues an interrupted task', async () => {
    const interrupted = await inputRequiredTask(hub.endpoint);
    const resumed = await sendRaw({ message: protoMessage('more', { task_id: interrupted.id, context_id: interrupted.contextId }) });
    expect(resumed.id).toBe(interrupted.id);
    expect(resumed.status.state).toBe('TASK_STATE_COMPLETED');
  });

  it('configuration.return_immediately returns before the task is done', async () => {
    const task = await sendRaw({
      message: protoMessage('hello\n::slow 20', { metadata: testDirectiveMetadata({ stepMs: 100 }) }),
      configuration: { return_immediately: true },
    });
    expect(['TASK_STATE_SUBMITTED', 'TASK_STATE_WORKING']).toContain(task.status.state);
    await call(hub.endpoint, 'CancelTask', { id: task.id });
  });

  it('configuration.history_length and GetTask history_length trim the history', async () => {
    const first = await sendTask(hub.endpoint, { message: userMessage('hello\n::input-required') });
    const trimmed = await sendRaw({
      message: protoMessage('more', { task_id: first.id }),
      configuration: { history_length: 1 },
    });
    expect(trimmed.history).toHaveLength(1);
    const read = await call(hub.endpoint, 'GetTask', { id: first.id, history_length: 1 } as never);
    expect(read.history).toHaveLength(1);
    const full = await call(hub.endpoint, 'GetTask', { id: first.id });
    expect(full.history?.length).toBeGreaterThan(1);
  });

  it('ListTasks context_id, page_size and include_artifacts have their effect', async () => {
    const first = await sendTask(hub.endpoint, { message: userMessage('one') });
    await sendTask(hub.endpoint, { message: userMessage('two', { contextId: first.contextId }) });
    const page = await call(hub.endpoint, 'ListTasks', { context_id: first.contextId, page_size: 1, include_artifacts: true } as never);
    expect(page.totalSize).toBe(2);
    expect(page.pageSize).toBe(1);
    expect(page.tasks).toHaveLength(1);
    expect(page.tasks[0]?.contextId).toBe(first.contextId);
    expect(artifactText(page.tasks[0] as Task)).toMatch(/^echo: /);
  });

  it('accepts both spellings of one field when they agree', async () => {
    const first = await sendTask(hub.endpoint, { message: userMessage('hello') });
    const second = await sendRaw({ message: protoMessage('again', { context_id: first.contextId, contextId: first.contextId }) });
    expect(second.contextId).toBe(first.contextId);
  });

  it('rejects both spellings of one field with different values, naming the field', async () => {
    const error = await expectRpcError(
      hub.endpoint,
      'SendMessage',
      { message: protoMessage('hello', { context_id: 'ctx-a', contextId: 'ctx-b' }) },
      'InvalidParamsError',
    );
    expect(badRequestOf(error.data).fieldViolations.map((violation) => violation.field)).toEqual(['params.message.contextId']);
    expect(error.message).toContain('context_id');
  });

  it('rejects disagreeing spellings inside a list of messages, with the index in the field', async () => {
    const message = userMessage('hello', { parts: [{ text: 'a' }, { text: 'b', media_type: 'text/plain', mediaType: 'text/markdown' }] });
    const error = await expectRpcError(hub.endpoint, 'SendMessage', { message }, 'InvalidParamsError');
    expect(badRequestOf(error.data).fieldViolations.map((violation) => violation.field)).toEqual(['params.message.parts[1].mediaType']);
  });

  it('leaves the keys of metadata and of data parts as sent', async () => {
    const metadata = { context_id: 'not-a-context', nested_key: { task_id: 'x' } };
    const data = { task_id: 'y', page_size: 3 };
    const task = await sendRaw({ message: protoMessage('hello', { metadata, parts: [{ text: 'hello' }, { data }] }), metadata });
    expect(task.contextId).not.toBe('not-a-context');
    const read = await call(hub.endpoint, 'GetTask', { id: task.id });
    const sent = read.history?.find((entry) => entry.role === 'ROLE_USER');
    expect(sent?.metadata).toEqual(metadata);
    expect(sent?.parts[1]?.data).toEqual(data);
  });
});
