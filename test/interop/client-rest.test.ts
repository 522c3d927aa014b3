import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Message, StreamResponse } from '../../generated/a2a/1.0/types.js';
import { A2AClient, assembleArtifacts, textOf, type StreamEvent } from '../../src/client/a2a-client.js';
import { A2AError } from '../../src/protocol/a2a-error.js';
import { startSdkAgent, type SdkAgent } from './sdk-agent.js';

/**
 * Our client against a third-party agent that serves only HTTP+JSON: the official
 * @a2a-js/sdk 1.3.0 REST middleware, its card listing that one interface. Every answer passes
 * the client's validation, so each call also proves the SDK's REST answers conform.
 */

let sdk: SdkAgent;
let client: A2AClient;
beforeAll(async () => {
  sdk = await startSdkAgent({ bindings: ['HTTP+JSON'] });
  client = await A2AClient.connect(sdk.url);
});
afterAll(() => sdk.close());

function userMessage(text: string, extra: Partial<Message> = {}): Message {
  return { messageId: randomUUID(), role: 'ROLE_USER', parts: [{ text }], ...extra };
}

describe('A2AClient against a REST-only @a2a-js/sdk agent', () => {
  it('resolves the card and takes its one HTTP+JSON interface', () => {
    expect(sdk.card.supportedInterfaces.map((entry) => entry.protocolBinding)).toEqual(['HTTP+JSON']);
    expect(client.protocolBinding).toBe('HTTP+JSON');
    expect(client.endpoint).toBe(sdk.endpoint);
  });

  it('sends a message and gets the completed echo task', async () => {
    const { task } = await client.sendMessage({ message: userMessage('hello rest') });
    expect(task?.status.state).toBe('TASK_STATE_COMPLETED');
    expect(task?.artifacts?.flatMap((artifact) => artifact.parts.map((part) => part.text)).join('')).toBe('echo: hello rest');
  });

  it('streams the task, its status and artifact chunks, ending COMPLETED', async () => {
    const frames: StreamResponse[] = [];
    for await (const frame of client.sendStreamingMessage({ message: userMessage('streamed over rest') })) frames.push(frame);
    expect(frames[0]?.task).toBeDefined();
    expect(textOf(assembleArtifacts(frames)[0])).toBe('echo: streamed over rest');
    expect(frames.at(-1)?.statusUpdate?.status.state ?? frames.at(-1)?.task?.status.state).toBe('TASK_STATE_COMPLETED');
  });

  it('gets a task with historyLength and lists it by context', async () => {
    const { task } = await client.sendMessage({ message: userMessage('keep me') });
    const got = await client.getTask({ id: task?.id ?? '', historyLength: 1 });
    expect(got.id).toBe(task?.id);
    expect(got.history?.length).toBeLessThanOrEqual(1);
    const listed = await client.listTasks({ contextId: task?.contextId ?? '', pageSize: 10 });
    expect(listed.tasks.map((entry) => entry.id)).toEqual([task?.id]);
  });

  it('subscribes to a running task until COMPLETED, then cancels another one', async () => {
    const running = await client.sendMessage({ message: userMessage('::slow 3'), configuration: { returnImmediately: true } });
    const events: StreamEvent[] = [];
    for await (const event of client.subscribeToTask({ id: running.task?.id ?? '' })) events.push(event);
    expect(events.some((event) => event.frame.statusUpdate?.status.state === 'TASK_STATE_WORKING')).toBe(true);
    expect(events.at(-1)?.frame.statusUpdate?.status.state ?? events.at(-1)?.frame.task?.status.state).toBe('TASK_STATE_COMPLETED');
    const slow = await client.sendMessage({ message: userMessage('::slow 50'), configuration: { returnImmediately: true } });
    const canceled = await client.cancelTask({ id: slow.task?.id ?? '' });
    expect(canceled.status.state).toBe('TASK_STATE_CANCELED');
  });

  it('maps its Status error bodies to the same typed errors as JSON-RPC ones', async () => {
    const missing = await client.getTask({ id: 'no-such-task' }).catch((caught: unknown) => caught);
    expect(missing).toBeInstanceOf(A2AError);
    expect((missing as A2AError).name).toBe('TaskNotFoundError');
    const { task } = await client.sendMessage({ message: userMessage('done already') });
    const notCancelable = await client.cancelTask({ id: task?.id ?? '' }).catch((caught: unknown) => caught);
    expect((notCancelable as A2AError).name).toBe('TaskNotCancelableError');
    const tooBig = await client.listTasks({ pageSize: 1000 }).catch((caught: unknown) => caught);
    expect((tooBig as A2AError).name).toBe('InvalidParamsError');
    expect(sdk.sdkLog()).toEqual([]);
  });

  it('continues a task waiting for input on the same taskId', async () => {
    const first = await client.sendMessage({ message: userMessage('::input-required') });
    expect(first.task?.status.state).toBe('TASK_STATE_INPUT_REQUIRED');
    const second = await client.sendMessage({
      message: userMessage('the answer', { taskId: first.task?.id, contextId: first.task?.contextId }),
    });
    expect(second.task?.id).toBe(first.task?.id);
    expect(second.task?.status.state).toBe('TASK_STATE_COMPLETED');
  });
});
