import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { MethodTypes } from '../../generated/a2a/1.0/methods.js';
import { isTerminalState } from '../../generated/a2a/1.0/task-states.js';
import type { Message, Task } from '../../generated/a2a/1.0/types.js';
import { testDirectiveMetadata } from '../../generated/hub/test-directives.js';
import { call, expectRpcError, rpc, stream, userMessage } from '../helpers/a2a-client.js';
import { violationFields } from '../helpers/errors.js';
import { startTestHub, type TestHub } from '../helpers/hub.js';
import { REPO_ROOT } from '../helpers/paths.js';
import { artifactText, inputRequiredTask, sendTask } from '../helpers/tasks.js';
import { waitFor } from '../helpers/wait.js';

/**
 * SendMessage over real HTTP against the default echo agent: blocking and returnImmediately,
 * historyLength, messageId idempotency, continuation of interrupted tasks, routing errors,
 * contextId handling, skills, output modes, direct messages, failure outcomes, push config
 * refusal and non-text parts. Every response is checked by the strict client helpers.
 */

let hub: TestHub;

beforeAll(async () => {
  hub = await startTestHub();
});

afterAll(async () => {
  await hub?.dispose();
});

type SendParams = MethodTypes['SendMessage']['params'];

async function send(params: SendParams): Promise<MethodTypes['SendMessage']['result']> {
  return call(hub.endpoint, 'SendMessage', params);
}

async function getTask(id: string, historyLength?: number): Promise<Task> {
  return call(hub.endpoint, 'GetTask', { id, ...(historyLength === undefined ? {} : { historyLength }) });
}

function messageText(message: Message | undefined): string {
  return (message?.parts ?? []).map((part) => part.text ?? '').join('');
}

describe('SendMessage blocking behaviour', () => {
  it('blocks by default and returns the completed task with the echo artifact and the user message', async () => {
    const message = userMessage('hello');
    const task = await sendTask(hub.endpoint, { message });
    expect(task.status.state).toBe('TASK_STATE_COMPLETED');
    expect(task.id).not.toBe('');
    expect(task.contextId).toBeTruthy();
    expect(artifactText(task)).toBe('echo: hello');
    expect(task.artifacts).toHaveLength(1);
    expect(task.history).toBeDefined();
    const sent = task.history?.find((entry) => entry.messageId === message.messageId);
    expect(sent).toMatchObject({ role: 'ROLE_USER', parts: [{ text: 'hello' }], contextId: task.contextId, taskId: task.id });
  });

  it("answers the README's first curl with the echo in one text part", async () => {
    const readme = readFileSync(join(REPO_ROOT, 'README.md'), 'utf8');
    const body = /-d '(\{[^']*"method":"SendMessage"[^']*\})'/.exec(readme)?.[1];
    expect(body, 'the SendMessage curl of README.md').toBeDefined();
    const answer = await rpc(hub.endpoint, 'SendMessage', undefined, { rawBody: body });
    expect(answer.body.result?.task?.status.state).toBe('TASK_STATE_COMPLETED');
    expect(answer.body.result?.task?.artifacts).toEqual([
      { artifactId: expect.any(String) as string, name: 'echo', parts: [{ text: 'echo: hello' }] },
    ]);
  });

  it('streams the same echo in chunks, and keeps them as parts, when the caller streams', async () => {
    const streamed = await stream(hub.endpoint, 'SendStreamingMessage', { message: userMessage('hello') });
    const chunks = streamed.events.flatMap((event) => event.frame.artifactUpdate?.artifact.parts ?? []);
    expect(chunks.length).toBeGreaterThan(1);
    const taskId = streamed.events[0]?.frame.task?.id ?? '';
    expect((await getTask(taskId)).artifacts?.[0]?.parts).toEqual(chunks);
  });

  it('a slow task (::slow 3) returns only once COMPLETED', async () => {
    const task = await sendTask(hub.endpoint, {
      message: userMessage('hello\n::slow 3', { metadata: testDirectiveMetadata({ stepMs: 30 }) }),
    });
    expect(task.status.state).toBe('TASK_STATE_COMPLETED');
    expect(artifactText(task)).toBe('echo: hello');
  });

  it('returnImmediately: true returns at once in SUBMITTED or WORKING, and the task completes later', async () => {
    const started = Date.now();
    const task = await sendTask(hub.endpoint, {
      message: userMessage('hello\n::slow 5', { metadata: testDirectiveMetadata({ stepMs: 100 }) }),
      configuration: { returnImmediately: true },
    });
    expect(Date.now() - started).toBeLessThan(500);
    expect(['TASK_STATE_SUBMITTED', 'TASK_STATE_WORKING']).toContain(task.status.state);
    const settled = await waitFor(
      () => getTask(task.id),
      (current) => isTerminalState(current.status.state),
      `task ${task.id} to settle`,
    );
    expect(settled.status.state).toBe('TASK_STATE_COMPLETED');
    expect(artifactText(settled)).toBe('echo: hello');
  });

  it('returnImmediately: false blocks like the default', async () => {
    const task = await sendTask(hub.endpoint, {
      message: userMessage('hello\n::slow 2', { metadata: testDirectiveMetadata({ stepMs: 20 }) }),
      configuration: { returnImmediately: false },
    });
    expect(task.status.state).toBe('TASK_STATE_COMPLETED');
  });
});

describe('SendMessage answer', () => {
  // The blocking answer is built from what the runtime stored, not read back: it must be
  // exactly what the store holds, for every outcome, chunking, metadata and history view.
  const cases: { name: string; text: string; metadata?: Record<string, unknown>; chunks?: number; historyLength?: number }[] = [
    {
      name: 'completed, 5 chunks, request metadata',
      text: 'five chunks please',
      chunks: 5,
      metadata: { origin: 'test', nested: { n: 1 } },
    },
    { name: 'completed, 1 chunk, historyLength 1', text: 'one', chunks: 1, historyLength: 1 },
    { name: 'failed with a status message', text: '::fail' },
    { name: 'rejected', text: '::reject' },
    { name: 'input-required', text: '::input-required' },
    { name: 'unknown skill', text: 'hello', metadata: { skill: 'no-such-skill' } },
    { name: 'historyLength 0', text: 'none', historyLength: 0 },
  ];
  for (const { name, text, metadata, chunks, historyLength } of cases) {
    it(`equals the task GetTask reads back: ${name}`, async () => {
      const message = userMessage(text, chunks === undefined ? {} : { metadata: testDirectiveMetadata({ chunks }) });
      const answer = await sendTask(hub.endpoint, {
        message,
        ...(metadata === undefined ? {} : { metadata }),
        ...(historyLength === undefined ? {} : { configuration: { historyLength } }),
      });
      const stored = await call(hub.endpoint, 'GetTask', { id: answer.id, ...(historyLength === undefined ? {} : { historyLength }) });
      expect(answer).toStrictEqual(stored);
      if (chunks !== undefined) expect(answer.artifacts?.[0]?.parts.map((part) => part.text).join('')).toBe(`echo: ${text}`);
    });
  }
});

describe('SendMessage historyLength', () => {
  it('unset returns the whole history, 0 omits the member, 1 returns only the most recent message', async () => {
    const first = await inputRequiredTask(hub.endpoint);
    const second = userMessage('more', { taskId: first.id });
    const resumed = await sendTask(hub.endpoint, { message: second, configuration: { historyLength: 1 } });
    expect(resumed.id).toBe(first.id);
    expect(resumed.status.state).toBe('TASK_STATE_COMPLETED');
    expect(resumed.history).toHaveLength(1);
    expect(resumed.history?.[0]?.messageId).toBe(second.messageId);

    // The full history: user, agent (the input request), user.
    const full = await getTask(first.id);
    expect(full.history?.map((entry) => entry.role)).toEqual(['ROLE_USER', 'ROLE_AGENT', 'ROLE_USER']);
    expect(full.history?.at(-1)?.messageId).toBe(second.messageId);

    const unset = await sendTask(hub.endpoint, { message: userMessage('hello') });
    expect(unset.history).toHaveLength(1);

    const none = await sendTask(hub.endpoint, { message: userMessage('hello'), configuration: { historyLength: 0 } });
    expect(none.status.state).toBe('TASK_STATE_COMPLETED');
    expect(none).not.toHaveProperty('history');

    const one = await sendTask(hub.endpoint, { message: userMessage('hello\n::input-required'), configuration: { historyLength: 1 } });
    expect(one.status.state).toBe('TASK_STATE_INPUT_REQUIRED');
    expect(one.history).toHaveLength(1);
    expect(one.history?.[0]?.role).toBe('ROLE_AGENT');
  });

  it('a negative historyLength is invalid params', async () => {
    const error = await expectRpcError(
      hub.endpoint,
      'SendMessage',
      { message: userMessage('hello'), configuration: { historyLength: -1 } },
      'InvalidParamsError',
    );
    expect(violationFields(error)).toEqual(['params.configuration.historyLength']);
  });
});

describe('SendMessage messageId idempotency', () => {
  it('resending the same message returns the same task without running it again', async () => {
    const message = userMessage('hello');
    const first = await sendTask(hub.endpoint, { message });
    const again = await sendTask(hub.endpoint, { message });
    expect(again.id).toBe(first.id);
    expect(again.contextId).toBe(first.contextId);
    expect(again.status.state).toBe('TASK_STATE_COMPLETED');
    const stored = await getTask(first.id);
    expect(stored.history?.filter((entry) => entry.messageId === message.messageId)).toHaveLength(1);
    expect(stored.history).toHaveLength(1);
    expect(stored.artifacts).toHaveLength(1);
    expect(artifactText(stored)).toBe('echo: hello');
  });

  it('20 identical concurrent requests make one task', async () => {
    const contextId = `ctx-concurrent-${randomUUID()}`;
    const message = userMessage('hello\n::slow 2', { contextId, metadata: testDirectiveMetadata({ stepMs: 20 }) });
    const results = await Promise.all(Array.from({ length: 20 }, () => sendTask(hub.endpoint, { message })));
    const ids = new Set(results.map((task) => task.id));
    expect(ids.size).toBe(1);
    for (const task of results) expect(task.status.state).toBe('TASK_STATE_COMPLETED');
    const list = await call(hub.endpoint, 'ListTasks', { contextId });
    expect(list.totalSize).toBe(1);
    expect(list.tasks.map((task) => task.id)).toEqual([...ids]);
    const stored = await getTask([...ids][0] as string);
    expect(stored.history?.filter((entry) => entry.messageId === message.messageId)).toHaveLength(1);
    expect(stored.artifacts).toHaveLength(1);
  });

  it('20 identical concurrent follow-ups to an interrupted task resume it once', async () => {
    const asked = await inputRequiredTask(hub.endpoint);
    const followUp = userMessage('more', { taskId: asked.id });
    const results = await Promise.all(Array.from({ length: 20 }, () => sendTask(hub.endpoint, { message: followUp })));
    for (const task of results) {
      expect(task.id).toBe(asked.id);
      expect(task.status.state).toBe('TASK_STATE_COMPLETED');
    }
    const stored = await getTask(asked.id);
    expect(stored.history?.filter((entry) => entry.messageId === followUp.messageId)).toHaveLength(1);
    expect(stored.artifacts).toHaveLength(1);
    expect(artifactText(stored)).toBe('echo: more');
  });

  it('a messageId reused with another taskId is a new message: the named task moves on with it', async () => {
    const earlier = await sendTask(hub.endpoint, { message: userMessage('hello') });
    const asked = await inputRequiredTask(hub.endpoint);
    const reused = userMessage('more', { messageId: earlier.history?.[0]?.messageId, taskId: asked.id });
    const resumed = await sendTask(hub.endpoint, { message: reused });
    expect(resumed.id).toBe(asked.id);
    expect(resumed.status.state).toBe('TASK_STATE_COMPLETED');
    expect(artifactText(resumed)).toBe('echo: more');
    expect(resumed.history?.at(-1)).toMatchObject({ messageId: reused.messageId, parts: [{ text: 'more' }] });
    // Resent as it was, the follow-up is a duplicate of itself, not of the earlier task.
    expect((await sendTask(hub.endpoint, { message: reused })).id).toBe(asked.id);
    expect((await getTask(earlier.id)).history).toHaveLength(1);
  });

  it('a messageId reused with another contextId, or with none, is a new message: it makes a new task', async () => {
    const contextId = `ctx-reused-${randomUUID()}`;
    const first = await sendTask(hub.endpoint, { message: userMessage('hello', { contextId }) });
    const messageId = first.history?.[0]?.messageId;
    const otherContext = `ctx-other-${randomUUID()}`;
    const elsewhere = await sendTask(hub.endpoint, { message: userMessage('there', { messageId, contextId: otherContext }) });
    expect(elsewhere.id).not.toBe(first.id);
    expect(elsewhere.contextId).toBe(otherContext);
    expect(artifactText(elsewhere)).toBe('echo: there');
    const contextless = await sendTask(hub.endpoint, { message: userMessage('anywhere', { messageId }) });
    expect([first.id, elsewhere.id]).not.toContain(contextless.id);
    expect([contextId, otherContext]).not.toContain(contextless.contextId);
    // Each is its own message: resent unchanged, each gets its own task back.
    expect((await sendTask(hub.endpoint, { message: userMessage('there', { messageId, contextId: otherContext }) })).id).toBe(elsewhere.id);
    expect((await sendTask(hub.endpoint, { message: userMessage('hello', { messageId, contextId }) })).id).toBe(first.id);
  });
});

describe('SendMessage continuation of interrupted tasks', () => {
  it('::input-required, then a message with only the taskId continues the task', async () => {
    const first = await inputRequiredTask(hub.endpoint);
    expect(first.status.message).toMatchObject({ role: 'ROLE_AGENT', contextId: first.contextId, taskId: first.id });
    expect(messageText(first.status.message)).not.toBe('');

    const resumed = await sendTask(hub.endpoint, { message: userMessage('more', { taskId: first.id }) });
    expect(resumed.id).toBe(first.id);
    expect(resumed.contextId).toBe(first.contextId);
    expect(resumed.status.state).toBe('TASK_STATE_COMPLETED');
    expect(artifactText(resumed)).toBe('echo: more');
    const last = resumed.history?.at(-1);
    expect(last).toMatchObject({ role: 'ROLE_USER', taskId: first.id, contextId: first.contextId });
  });

  it('continues with the matching contextId too', async () => {
    const first = await inputRequiredTask(hub.endpoint);
    const resumed = await sendTask(hub.endpoint, { message: userMessage('more', { taskId: first.id, contextId: first.contextId }) });
    expect(resumed.id).toBe(first.id);
    expect(resumed.contextId).toBe(first.contextId);
    expect(resumed.status.state).toBe('TASK_STATE_COMPLETED');
  });

  it('::auth-required, then a message with the taskId continues the task', async () => {
    const first = await sendTask(hub.endpoint, { message: userMessage('hello\n::auth-required') });
    expect(first.status.state).toBe('TASK_STATE_AUTH_REQUIRED');
    expect(first.status.message).toMatchObject({ role: 'ROLE_AGENT', contextId: first.contextId, taskId: first.id });
    const resumed = await sendTask(hub.endpoint, { message: userMessage('authorised', { taskId: first.id }) });
    expect(resumed.id).toBe(first.id);
    expect(resumed.contextId).toBe(first.contextId);
    expect(resumed.status.state).toBe('TASK_STATE_COMPLETED');
    expect(artifactText(resumed)).toBe('echo: authorised');
  });
});

describe('SendMessage routing errors', () => {
  it('a message to a terminal task is UNSUPPORTED_OPERATION', async () => {
    const done = await sendTask(hub.endpoint, { message: userMessage('hello') });
    expect(done.status.state).toBe('TASK_STATE_COMPLETED');
    await expectRpcError(hub.endpoint, 'SendMessage', { message: userMessage('again', { taskId: done.id }) }, 'UnsupportedOperationError');
    const after = await getTask(done.id);
    expect(after.history).toHaveLength(1);
  });

  it('a message to a task that is still running is UNSUPPORTED_OPERATION', async () => {
    const running = await sendTask(hub.endpoint, {
      message: userMessage('hello\n::slow 20', { metadata: testDirectiveMetadata({ stepMs: 100 }) }),
      configuration: { returnImmediately: true },
    });
    expect(['TASK_STATE_SUBMITTED', 'TASK_STATE_WORKING']).toContain(running.status.state);
    await expectRpcError(
      hub.endpoint,
      'SendMessage',
      { message: userMessage('interrupting', { taskId: running.id }) },
      'UnsupportedOperationError',
    );
    const canceled = await call(hub.endpoint, 'CancelTask', { id: running.id });
    expect(canceled.status.state).toBe('TASK_STATE_CANCELED');
  });

  it('an unknown taskId is TASK_NOT_FOUND', async () => {
    await expectRpcError(
      hub.endpoint,
      'SendMessage',
      { message: userMessage('hello', { taskId: `no-such-task-${randomUUID()}` }) },
      'TaskNotFoundError',
    );
  });

  it('a contextId that contradicts the task is INVALID_PARAMS on params.message.contextId', async () => {
    const first = await inputRequiredTask(hub.endpoint);
    const error = await expectRpcError(
      hub.endpoint,
      'SendMessage',
      { message: userMessage('more', { taskId: first.id, contextId: `other-${randomUUID()}` }) },
      'InvalidParamsError',
    );
    expect(violationFields(error)).toContain('params.message.contextId');
    // The task was not touched and can still be continued.
    const still = await getTask(first.id);
    expect(still.status.state).toBe('TASK_STATE_INPUT_REQUIRED');
    expect(still.history).toHaveLength(2);
  });
});

describe('SendMessage contextId', () => {
  it('is generated when absent, and set on the task and on every history message', async () => {
    const message = userMessage('hello');
    expect(message.contextId).toBeUndefined();
    const task = await sendTask(hub.endpoint, { message });
    expect(typeof task.contextId).toBe('string');
    expect(task.contextId).not.toBe('');
    expect(task.history?.length).toBeGreaterThan(0);
    for (const entry of task.history ?? []) expect(entry.contextId).toBe(task.contextId);
  });

  it('is reused when given', async () => {
    const contextId = `ctx-given-${randomUUID()}`;
    const task = await sendTask(hub.endpoint, { message: userMessage('hello', { contextId }) });
    expect(task.contextId).toBe(contextId);
    expect(task.history?.[0]?.contextId).toBe(contextId);
  });

  it('two messages with the same contextId land in the same context', async () => {
    const contextId = `ctx-shared-${randomUUID()}`;
    const a = await sendTask(hub.endpoint, { message: userMessage('one', { contextId }) });
    const b = await sendTask(hub.endpoint, { message: userMessage('two', { contextId }) });
    expect(a.id).not.toBe(b.id);
    expect(a.contextId).toBe(contextId);
    expect(b.contextId).toBe(contextId);
    const list = await call(hub.endpoint, 'ListTasks', { contextId });
    expect(list.totalSize).toBe(2);
    expect(new Set(list.tasks.map((task) => task.id))).toEqual(new Set([a.id, b.id]));
  });
});

describe('SendMessage skills', () => {
  it('metadata.skill chat runs the chat skill', async () => {
    const task = await sendTask(hub.endpoint, { message: userMessage('hello', { metadata: { skill: 'chat' } }) });
    expect(task.status.state).toBe('TASK_STATE_COMPLETED');
    expect(artifactText(task)).toBe('echo: hello');
  });

  it('an unknown skill gives a REJECTED task whose status message names the advertised skill', async () => {
    const task = await sendTask(hub.endpoint, { message: userMessage('hello', { metadata: { skill: 'no-such-skill' } }) });
    expect(task.status.state).toBe('TASK_STATE_REJECTED');
    expect(task.status.message).toMatchObject({ role: 'ROLE_AGENT', taskId: task.id, contextId: task.contextId });
    expect(messageText(task.status.message)).toContain('chat');
    expect(task).not.toHaveProperty('artifacts');
  });
});

describe('SendMessage acceptedOutputModes', () => {
  it('only image/png is CONTENT_TYPE_NOT_SUPPORTED', async () => {
    await expectRpcError(
      hub.endpoint,
      'SendMessage',
      { message: userMessage('hello'), configuration: { acceptedOutputModes: ['image/png'] } },
      'ContentTypeNotSupportedError',
    );
  });

  it.each([[['text/plain']], [['text/*']], [['*/*']]])('%j is accepted', async (modes: string[]) => {
    const task = await sendTask(hub.endpoint, { message: userMessage('hello'), configuration: { acceptedOutputModes: modes } });
    expect(task.status.state).toBe('TASK_STATE_COMPLETED');
    expect(artifactText(task)).toBe('echo: hello');
  });
});

describe('SendMessage direct messages and failure outcomes', () => {
  it('::message answers with a Message, and resending returns the same Message', async () => {
    const message = userMessage('hi\n::message');
    const result = await send({ message });
    expect(result.task).toBeUndefined();
    expect(result.message).toBeDefined();
    const reply = result.message as Message;
    expect(reply.role).toBe('ROLE_AGENT');
    expect(typeof reply.contextId).toBe('string');
    expect(reply.contextId).not.toBe('');
    expect(reply.taskId).toBeUndefined();
    expect(messageText(reply)).toBe('echo: hi');

    const again = await send({ message });
    expect(again.task).toBeUndefined();
    expect(again.message).toEqual(reply);
  });

  it('::fail gives FAILED with a status message', async () => {
    const task = await sendTask(hub.endpoint, { message: userMessage('hello\n::fail') });
    expect(task.status.state).toBe('TASK_STATE_FAILED');
    expect(task.status.message).toMatchObject({ role: 'ROLE_AGENT', taskId: task.id, contextId: task.contextId });
    expect(messageText(task.status.message)).not.toBe('');
  });

  it('::reject gives REJECTED', async () => {
    const task = await sendTask(hub.endpoint, { message: userMessage('hello\n::reject') });
    expect(task.status.state).toBe('TASK_STATE_REJECTED');
  });
});

describe('SendMessage push notification config', () => {
  it('configuration.taskPushNotificationConfig is PUSH_NOTIFICATION_NOT_SUPPORTED on an instance without push', async () => {
    const contextId = `ctx-push-${randomUUID()}`;
    const quiet = await hub.inbounds.create({
      name: 'no push',
      description: 'push off',
      version: '1.0.0',
      preset: 'echo',
      pushNotifications: false,
    });
    const endpoint = `${hub.url}${quiet.endpointPath}`;
    await expectRpcError(
      endpoint,
      'SendMessage',
      {
        message: userMessage('hello', { contextId }),
        configuration: { taskPushNotificationConfig: { url: 'https://example.com/webhook' } },
      },
      'PushNotificationNotSupportedError',
    );
    // Refused before any task was created.
    const list = await call(endpoint, 'ListTasks', { contextId });
    expect(list.totalSize).toBe(0);
  });
});

describe('SendMessage unknown members', () => {
  it('ignores unknown members of the request and never echoes them (docs/spec-policy.md 2.1, 2.14)', async () => {
    // A 0.3-style text part (`kind`) and a stray member on the message pass the input
    // validators; the stored and returned message must hold the known members only, or the
    // strict client's exact validation of the response fails.
    const message = { ...userMessage('hello'), extra: 1, parts: [{ kind: 'text', text: 'hello' }] };
    const task = await sendTask(hub.endpoint, { message });
    expect(task.status.state).toBe('TASK_STATE_COMPLETED');
    const sent = task.history?.find((entry) => entry.messageId === message.messageId);
    expect(sent).toEqual({
      messageId: message.messageId,
      role: 'ROLE_USER',
      parts: [{ text: 'hello' }],
      contextId: task.contextId,
      taskId: task.id,
    });
  });
});

describe('SendMessage non-text parts', () => {
  it('accepts a raw part and a data part, and the reply names them', async () => {
    const message = userMessage('look', {
      parts: [
        { text: 'look' },
        { raw: 'aGVsbG8gd29ybGQ=', filename: 'hello.txt', mediaType: 'text/plain' },
        { data: { answer: 42, list: [1, 'two'] } },
      ],
    });
    const task = await sendTask(hub.endpoint, { message });
    expect(task.status.state).toBe('TASK_STATE_COMPLETED');
    expect(artifactText(task)).toBe('echo: look\n[file hello.txt text/plain]\n[data]');
    const sent = task.history?.find((entry) => entry.messageId === message.messageId);
    expect(sent?.parts).toEqual([
      { text: 'look' },
      { raw: 'aGVsbG8gd29ybGQ=', filename: 'hello.txt', mediaType: 'text/plain' },
      { data: { answer: 42, list: [1, 'two'] } },
    ]);
  });
});
