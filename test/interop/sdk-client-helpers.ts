import { Role, TaskState, type Message, type Part, type SendMessageRequest, type StreamResponse, type Task } from '@a2a-js/sdk';
import type { Client } from '@a2a-js/sdk/client';
import { TaskNotFoundError } from '@a2a-js/sdk/errors';
import { expect } from 'vitest';
import { isTerminalState } from '../../generated/a2a/1.0/task-states.js';
import type { TaskState as WireTaskState } from '../../generated/a2a/1.0/types.js';

/**
 * What the interop tests of the @a2a-js/sdk client share, whichever transport it is told to use:
 * requests in the SDK's ts-proto shapes, and checks of what it parsed from the hub's answers.
 */

/** A user message as the SDK's types want it (ts-proto shapes: every field present). */
export function userMessage(text: string, extra: Partial<Message> = {}): Message {
  return {
    messageId: crypto.randomUUID(),
    contextId: '',
    taskId: '',
    role: Role.ROLE_USER,
    parts: [textPart(text)],
    metadata: undefined,
    extensions: [],
    referenceTaskIds: [],
    ...extra,
  };
}

export function textPart(text: string): Part {
  return { content: { $case: 'text', value: text }, metadata: undefined, filename: '', mediaType: '' };
}

export function sendRequest(
  text: string,
  configuration: Partial<NonNullable<SendMessageRequest['configuration']>> = {},
): SendMessageRequest {
  return {
    tenant: '',
    message: userMessage(text),
    configuration: { acceptedOutputModes: [], taskPushNotificationConfig: undefined, returnImmediately: false, ...configuration },
    metadata: undefined,
  };
}

/** A request that continues `task` (its taskId and contextId) with `text`. */
export function continueRequest(task: Pick<Task, 'id' | 'contextId'>, text: string): SendMessageRequest {
  return { ...sendRequest(''), message: userMessage(text, { taskId: task.id, contextId: task.contextId }) };
}

export function isMessage(result: Message | Task): result is Message {
  return 'messageId' in result;
}

export function asTask(result: Message | Task): Task {
  if (isMessage(result)) throw new Error(`expected a Task, the SDK returned a Message: ${JSON.stringify(result)}`);
  return result;
}

export function textOf(parts: readonly Part[]): string {
  return parts.map((part) => (part.content?.$case === 'text' ? part.content.value : '')).join('');
}

export function stateName(state: TaskState | undefined): string {
  return state === undefined ? 'undefined' : (TaskState[state] ?? String(state));
}

export async function collect(stream: AsyncGenerator<StreamResponse, void, undefined>): Promise<StreamResponse[]> {
  const events: StreamResponse[] = [];
  for await (const event of stream) events.push(event);
  return events;
}

/** Event kinds in order, e.g. ['task', 'statusUpdate:TASK_STATE_WORKING', 'artifactUpdate', …]. */
export function describeEvents(events: readonly StreamResponse[]): string[] {
  return events.map((event) => {
    const payload = event.payload;
    if (payload?.$case === 'statusUpdate') return `statusUpdate:${stateName(payload.value.status?.state)}`;
    if (payload?.$case === 'task') return `task:${stateName(payload.value.status?.state)}`;
    return payload?.$case ?? 'empty';
  });
}

/**
 * Checks a task-lifecycle stream: task first, same task throughout, artifacts assemble, ends on
 * `finalState`, and a terminal state is followed by the final Task, as the SDK parsed it.
 */
export function expectLifecycle(stream: readonly StreamResponse[], finalState: TaskState): { task: Task; text: string } {
  const closing = stream.at(-1)?.payload;
  const finalTask = closing?.$case === 'task' ? closing.value : undefined;
  const events = finalTask === undefined ? stream : stream.slice(0, -1);
  const kinds = describeEvents(events);
  expect(events.length, kinds.join(', ')).toBeGreaterThan(1);
  const first = events[0]?.payload;
  if (first?.$case !== 'task') throw new Error(`the first stream event must be a Task; got ${kinds.join(', ')}`);
  const task = first.value;
  expect(task.id).not.toBe('');
  expect(task.contextId).not.toBe('');

  let text = '';
  let artifactId: string | undefined;
  let lastStatus: TaskState | undefined;
  for (const event of events.slice(1)) {
    const payload = event.payload;
    if (payload === undefined) throw new Error(`an event the SDK could not parse into a StreamResponse: ${kinds.join(', ')}`);
    if (payload.$case === 'task' || payload.$case === 'message')
      throw new Error(`unexpected ${payload.$case} after the first event: ${kinds.join(', ')}`);
    expect(payload.value.taskId).toBe(task.id);
    expect(payload.value.contextId).toBe(task.contextId);
    if (payload.$case === 'statusUpdate') {
      lastStatus = payload.value.status?.state;
      continue;
    }
    const { artifact, append } = payload.value;
    if (artifact === undefined) throw new Error('an artifactUpdate without an artifact');
    if (artifactId === undefined) {
      expect(append, 'the first chunk of an artifact does not append').toBe(false);
      artifactId = artifact.artifactId;
    } else {
      expect(artifact.artifactId).toBe(artifactId);
      expect(append, 'later chunks append to the same artifact').toBe(true);
    }
    text += textOf(artifact.parts);
  }
  expect(stateName(lastStatus), `last status in ${kinds.join(', ')}`).toBe(stateName(finalState));
  const last = events.at(-1)?.payload;
  expect(
    last?.$case === 'statusUpdate' ? last.value.status?.state : undefined,
    `the stream ends on the final status: ${kinds.join(', ')}`,
  ).toBe(finalState);
  const artifactEvents = events.filter((event) => event.payload?.$case === 'artifactUpdate');
  const lastChunk = artifactEvents.at(-1)?.payload;
  if (artifactEvents.length > 0) expect(lastChunk?.$case === 'artifactUpdate' && lastChunk.value.lastChunk).toBe(true);
  if (isTerminalState(stateName(finalState) as WireTaskState)) {
    expect(finalTask?.id, `a final Task after the terminal status: ${describeEvents(stream).join(', ')}`).toBe(task.id);
    expect(stateName(finalTask?.status?.state)).toBe(stateName(finalState));
    expect((finalTask?.artifacts ?? []).map((artifact) => textOf(artifact.parts)).join('')).toBe(text);
  } else expect(finalTask, 'no final Task after an interrupted state').toBeUndefined();
  return { task, text };
}

/**
 * The four push-config calls of the SDK's client on one task of the hub, whichever transport
 * it uses: create (server-assigned id, secrets not echoed), get, list, delete, and a Get after
 * the delete failing with the SDK's TaskNotFoundError.
 */
export async function pushConfigRoundTrip(client: Client, taskId: string): Promise<void> {
  const created = await client.createTaskPushNotificationConfig({
    tenant: '',
    id: '',
    taskId,
    url: 'https://push.example.test/sdk-hook',
    token: 'sdk-token',
    authentication: { scheme: 'Bearer', credentials: 'sdk-credentials' },
  });
  expect(created.id).not.toBe('');
  expect(created).toMatchObject({
    taskId,
    url: 'https://push.example.test/sdk-hook',
    token: '',
    authentication: { scheme: 'Bearer', credentials: '' },
  });
  const got = await client.getTaskPushNotificationConfig({ tenant: '', taskId, id: created.id });
  expect(got).toEqual(created);
  const listed = await client.listTaskPushNotificationConfig({ tenant: '', taskId, pageSize: 0, pageToken: '' });
  expect(listed.configs).toEqual([created]);
  expect(listed.nextPageToken).toBe('');
  await client.deleteTaskPushNotificationConfig({ tenant: '', taskId, id: created.id });
  await expect(client.getTaskPushNotificationConfig({ tenant: '', taskId, id: created.id })).rejects.toBeInstanceOf(TaskNotFoundError);
  // Permanent and idempotent: deleting again succeeds.
  await client.deleteTaskPushNotificationConfig({ tenant: '', taskId, id: created.id });
}
