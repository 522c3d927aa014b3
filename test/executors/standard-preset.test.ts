import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { pino } from 'pino';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { Artifact, StreamResponse, Task } from '../../generated/a2a/1.0/types.js';
import { call, stream, userMessage } from '../helpers/a2a-client.js';
import { controlAction } from '../helpers/control.js';
import { startTestHub, type TestHub } from '../helpers/hub.js';
import { startScriptedModel, type ScriptedModel } from '../helpers/scripted-model.js';
import { startSdkAgent, type SdkAgent } from '../interop/sdk-agent.js';
import { cardUrl, closedPort, createOutbound, fails, until } from '../outbound/helpers.js';

/**
 * The `standard` preset against a scripted OpenAI-compatible server (real HTTP and SSE): what the
 * model is sent, what the stream and the stored task show, tools on both bindings, ask_user,
 * sessions across a restart, and each way a model call can fail.
 */

const BIN = fileURLToPath(new URL('../../src/cli/bin.js', import.meta.url));
const KEY = 'sk-test-0123456789abcdef';
const env = { TEST_MODEL_KEY: KEY };

let model: ScriptedModel;
let remote: TestHub;
let sdkRest: SdkAgent;
let hub: TestHub;
let dataDir: string;

async function createStandard(name: string, extra: Record<string, unknown> = {}): Promise<string> {
  const { model: modelExtra, ...rest } = extra as { model?: Record<string, unknown> };
  const created = await controlAction(hub.url, {
    action: 'inbound.create',
    name,
    description: `${name} agent`,
    version: '1.0.0',
    preset: 'standard',
    model: { baseURL: model.baseURL, model: 'test-model', apiKeyEnv: 'TEST_MODEL_KEY', maxRetries: 0, timeoutMs: 5000, ...modelExtra },
    instructions: 'You are terse.',
    ...rest,
  });
  return endpointOf(created.id ?? '');
}

/** An instance's endpoint on the hub as it runs now (a restart moves it to another port). */
function endpointOf(id: string): string {
  return `${hub.url}/a2a/${id}`;
}

function answerOf(task: Task | undefined): Artifact | undefined {
  return task?.artifacts?.findLast((artifact) => artifact.name === 'answer');
}

function artifactFrames(events: readonly { frame: StreamResponse }[]) {
  return events.flatMap(({ frame }) => (frame.artifactUpdate === undefined ? [] : [frame.artifactUpdate]));
}

let chatId: string;
const chat = (): string => endpointOf(chatId);

beforeAll(async () => {
  [model, remote, sdkRest] = await Promise.all([startScriptedModel(), startTestHub(), startSdkAgent({ bindings: ['HTTP+JSON'] })]);
  hub = await startTestHub({ env });
  dataDir = hub.dataDir;
  await createOutbound(hub.url, 'remote', cardUrl(remote));
  const restId = await createOutbound(hub.url, 'remoterest', cardUrl(remote), { binding: 'HTTP+JSON' });
  await createOutbound(hub.url, 'rest', sdkRest.url);
  await until(() => hub.tools.list().length === 3, 'the outbound connections to offer their tools');
  expect(hub.outbounds.client(restId)?.client.protocolBinding).toBe('HTTP+JSON');
  chatId = (await createStandard('chat')).split('/').at(-1) ?? '';
});
afterAll(async () => {
  await hub.close();
  await Promise.all([model.close(), remote.dispose(), sdkRest.close()]);
});
beforeEach(() => {
  model.respondWith(undefined);
});

describe('the standard preset: one turn', () => {
  it('answers a blocking send with the whole answer in one part, and sends the model the instructions, the message and the key', async () => {
    model.push({ text: ['Hel', 'lo'], reasoning: ['thinking hard'] });
    const before = model.requests.length;
    const { task } = await call(chat(), 'SendMessage', { message: userMessage('hi there') });
    expect(task?.status.state).toBe('TASK_STATE_COMPLETED');
    expect(answerOf(task)?.parts).toEqual([{ text: 'Hello' }]);
    expect(JSON.stringify(task)).not.toContain('thinking hard');
    const sent = model.requests[before];
    expect(sent?.headers.authorization).toBe(`Bearer ${KEY}`);
    expect(sent?.body).toMatchObject({ model: 'test-model', stream: true });
    expect(sent?.body.messages).toEqual([
      { role: 'system', content: 'You are terse.' },
      { role: 'user', content: 'hi there' },
    ]);
    expect(sent?.body.tools?.map((tool) => tool.function.name)).toEqual([
      'a2a__remote__chat',
      'a2a__remoterest__chat',
      'a2a__rest__chat',
      'ask_user',
    ]);
  });

  it('streams the text deltas as chunks and closes the answer with the whole text (seed 001 §2.4.1)', async () => {
    model.push({ text: ['one ', 'two ', 'three'], reasoning: ['hidden'], delayMs: 5 });
    const { events } = await stream(chat(), 'SendStreamingMessage', { message: userMessage('count') });
    const chunks = artifactFrames(events).filter((update) => update.artifact.name === 'answer');
    expect(chunks.map((update) => [update.artifact.parts[0]?.text, update.append ?? false, update.lastChunk ?? false])).toEqual([
      ['one ', false, false],
      ['two ', true, false],
      ['three', true, false],
      ['one two three', false, true],
    ]);
    expect(new Set(chunks.map((update) => update.artifact.artifactId)).size).toBe(1);
    expect(JSON.stringify(events)).not.toContain('hidden');
    const last = events.at(-1)?.frame;
    expect(last?.statusUpdate?.status.state ?? last?.task?.status.state).toBe('TASK_STATE_COMPLETED');
    const stored = await call(chat(), 'GetTask', { id: chunks[0]?.taskId ?? '' });
    expect(answerOf(stored)?.parts).toEqual([{ text: 'one two three' }]);
  });
});

describe('the standard preset: conversations', () => {
  it('keeps the conversation per contextId, and rebuilds it from the stored tasks after a restart', async () => {
    model.push({ text: ['Nice to meet you, Ada.'] }, { text: ['You are Ada.'] });
    const first = await call(chat(), 'SendMessage', { message: userMessage('My name is Ada.') });
    const contextId = first.task?.contextId ?? '';
    const start = model.requests.length;
    await call(chat(), 'SendMessage', { message: userMessage('Who am I?', { contextId }) });
    const remembered = [
      { role: 'user', content: 'My name is Ada.' },
      { role: 'assistant', content: 'Nice to meet you, Ada.' },
      { role: 'user', content: 'Who am I?' },
    ];
    expect(model.requests[start]?.body.messages.slice(1)).toEqual(remembered);

    // Another context is another conversation.
    model.push({ text: ['No idea.'] });
    await call(chat(), 'SendMessage', { message: userMessage('Who am I?') });
    expect(model.requests.at(-1)?.body.messages.slice(1)).toEqual([{ role: 'user', content: 'Who am I?' }]);

    await hub.close();
    hub = await startTestHub({ env, dataDir });
    model.push({ text: ['Still Ada.'] });
    await call(chat(), 'SendMessage', { message: userMessage('And now?', { contextId }) });
    expect(model.requests.at(-1)?.body.messages.slice(1)).toEqual([
      ...remembered,
      { role: 'assistant', content: 'You are Ada.' },
      { role: 'user', content: 'And now?' },
    ]);
  });
});

describe('the standard preset: tools', () => {
  it.each([
    { binding: 'JSON-RPC (another a2a-hub)', tool: 'a2a__remote__chat' },
    { binding: 'HTTP+JSON (another a2a-hub)', tool: 'a2a__remoterest__chat' },
    { binding: 'HTTP+JSON (an @a2a-js/sdk agent)', tool: 'a2a__rest__chat' },
  ])('answers by calling a remote agent over $binding, streaming the tool call and its result', async ({ tool }) => {
    model.push(
      { toolCalls: [{ id: 'call_7', name: tool, arguments: '{"prompt":"ping"}' }] },
      { text: ['The remote said ', 'echo: ping.'] },
    );
    const start = model.requests.length;
    const { events } = await stream(chat(), 'SendStreamingMessage', { message: userMessage('ask the remote') });
    const updates = artifactFrames(events);
    const toolCall = updates.filter((update) => update.artifact.artifactId === 'tool-call-call_7');
    expect(toolCall.map((update) => update.artifact.parts[0]?.data)).toEqual([
      { type: 'tool_call', id: 'call_7', name: tool, arguments: { prompt: 'ping' } },
      {
        type: 'tool_result',
        id: 'call_7',
        name: tool,
        state: 'TASK_STATE_COMPLETED',
        taskId: expect.any(String) as unknown,
        text: 'echo: ping',
      },
    ]);
    expect(toolCall.map((update) => [update.append ?? false, update.lastChunk ?? false])).toEqual([
      [false, false],
      [true, true],
    ]);
    const answer = updates.filter((update) => update.artifact.name === 'answer').at(-1);
    expect(answer?.artifact.parts[0]?.text).toBe('The remote said echo: ping.');
    const followUp = model.requests[start + 1]?.body.messages ?? [];
    expect(followUp.at(-2)).toMatchObject({ role: 'assistant', tool_calls: [{ id: 'call_7', function: { name: tool } }] });
    expect(followUp.at(-1)).toEqual({ role: 'tool', tool_call_id: 'call_7', content: 'echo: ping' });
  });

  it('returns a remote INPUT_REQUIRED to the model as text with the remote taskId, and a failure as an error it can read', async () => {
    model.push(
      { toolCalls: [{ id: 'call_a', name: 'a2a__remote__chat', arguments: '{"prompt":"::input-required"}' }] },
      { toolCalls: [{ id: 'call_b', name: 'a2a__remote__chat', arguments: '{"prompt":"::fail"}' }] },
      { text: ['done'] },
    );
    const start = model.requests.length;
    const { task } = await call(chat(), 'SendMessage', { message: userMessage('try things') });
    expect(task?.status.state).toBe('TASK_STATE_COMPLETED');
    const second = model.requests[start + 1]?.body.messages.at(-1);
    expect(second).toMatchObject({ role: 'tool', tool_call_id: 'call_a' });
    const remoteTaskId = (
      task?.artifacts?.find((artifact) => artifact.artifactId === 'tool-call-call_a')?.parts[1]?.data as { taskId?: string }
    )?.taskId;
    expect(remoteTaskId).toMatch(/.+/);
    expect(String(second?.content)).toContain(remoteTaskId);
    const third = model.requests[start + 2]?.body.messages.at(-1);
    expect(third).toMatchObject({ role: 'tool', tool_call_id: 'call_b' });
    expect(String(third?.content)).toMatch(/^error: .*fail/i);
  });

  it('a cancel of the local task cancels the remote task of the tool call in flight', async () => {
    model.push({ toolCalls: [{ id: 'call_slow', name: 'a2a__remote__chat', arguments: '{"prompt":"::slow 200"}' }] });
    const { task } = await call(chat(), 'SendMessage', { message: userMessage('be slow'), configuration: { returnImmediately: true } });
    let remoteId: string | undefined;
    await until(async () => {
      remoteId = (await remote.store.browseTasks({ instanceId: 'default', state: 'TASK_STATE_WORKING', limit: 10, offset: 0 })).rows[0]?.id;
      return remoteId !== undefined;
    }, 'the remote task to start');
    const canceled = await call(chat(), 'CancelTask', { id: task?.id ?? '' });
    expect(canceled.status.state).toBe('TASK_STATE_CANCELED');
    await until(
      async () => (await call(`${remote.url}/a2a/default`, 'GetTask', { id: remoteId ?? '' })).status.state === 'TASK_STATE_CANCELED',
      'the remote task to be canceled',
    );
    // The stopped turn left no tool call without its result: the next turn's conversation is valid.
    model.push({ text: ['fine'] });
    const next = await call(chat(), 'SendMessage', { message: userMessage('next', { contextId: task?.contextId }) });
    expect(next.task?.status.state).toBe('TASK_STATE_COMPLETED');
    expect(model.requests.at(-1)?.body.messages.slice(1)).toEqual([
      { role: 'user', content: 'be slow' },
      { role: 'user', content: 'next' },
    ]);
  });

  it('offers only the tools the allowlist names, and refuses a call to another', async () => {
    const limited = await createStandard('limited', { tools: ['a2a__rest__*'] });
    model.push({ toolCalls: [{ id: 'call_x', name: 'a2a__remote__chat', arguments: '{"prompt":"sneak"}' }] }, { text: ['ok'] });
    const start = model.requests.length;
    const { task } = await call(limited, 'SendMessage', { message: userMessage('go') });
    expect(model.requests[start]?.body.tools?.map((tool) => tool.function.name)).toEqual(['a2a__rest__chat', 'ask_user']);
    expect(model.requests[start + 1]?.body.messages.at(-1)).toEqual({
      role: 'tool',
      tool_call_id: 'call_x',
      content: 'error: tool a2a__remote__chat is not available to this agent',
    });
    expect(task?.status.state).toBe('TASK_STATE_COMPLETED');
    const remoteTasks = await call(`${remote.url}/a2a/default`, 'ListTasks', { pageSize: 100, historyLength: 1 });
    expect(remoteTasks.tasks.some((remoteTask) => remoteTask.history?.[0]?.parts[0]?.text === 'sneak')).toBe(false);
  });

  it('after maxToolRounds rounds, asks the model once more without tools', async () => {
    const bounded = await createStandard('bounded', { maxToolRounds: 1 });
    model.push({ toolCalls: [{ id: 'r1', name: 'a2a__remote__chat', arguments: '{"prompt":"one"}' }] }, { text: ['enough'] });
    const start = model.requests.length;
    const { task } = await call(bounded, 'SendMessage', { message: userMessage('loop') });
    expect(task?.status.state).toBe('TASK_STATE_COMPLETED');
    const last = model.requests[start + 1]?.body;
    expect(last?.tools).toBeUndefined();
    expect(last?.messages.at(-1)).toMatchObject({
      role: 'system',
      content: expect.stringMatching(/all 1 rounds of tool calls/) as unknown,
    });
    // The note was for that call only.
    model.push({ text: ['next'] });
    await call(bounded, 'SendMessage', { message: userMessage('again', { contextId: task?.contextId }) });
    expect(model.requests.at(-1)?.body.messages.filter((message) => message.role === 'system')).toEqual([
      { role: 'system', content: 'You are terse.' },
    ]);
  });

  it('a model that still calls tools after the last round, saying nothing, fails the task with a reason', async () => {
    const bounded = await createStandard('stubborn', { maxToolRounds: 1 });
    const again = { toolCalls: [{ id: 'again', name: 'a2a__remote__chat', arguments: '{"prompt":"more"}' }] };
    model.push(again, again);
    const { task } = await call(bounded, 'SendMessage', { message: userMessage('loop') });
    expect(task?.status.state).toBe('TASK_STATE_FAILED');
    expect(task?.status.message?.parts[0]?.text).toMatch(/kept calling tools after the last of its 1 rounds/);
  });
});

describe('the standard preset: ask_user', () => {
  it('ends the turn INPUT_REQUIRED with the question, and gives the model the answer as the tool result', async () => {
    model.push({ text: ['Let me check. '], toolCalls: [{ id: 'ask_1', name: 'ask_user', arguments: '{"question":"Which city?"}' }] });
    const first = await call(chat(), 'SendMessage', { message: userMessage('weather please') });
    expect(first.task?.status.state).toBe('TASK_STATE_INPUT_REQUIRED');
    expect(first.task?.status.message?.parts).toEqual([{ text: 'Which city?' }]);
    model.push({ text: ['Sunny in Paris.'] });
    const second = await call(chat(), 'SendMessage', { message: userMessage('Paris', { taskId: first.task?.id }) });
    expect(second.task?.status.state).toBe('TASK_STATE_COMPLETED');
    expect(model.requests.at(-1)?.body.messages.slice(-3)).toEqual([
      { role: 'user', content: 'weather please' },
      {
        role: 'assistant',
        content: 'Let me check. ',
        tool_calls: [{ id: 'ask_1', type: 'function', function: { name: 'ask_user', arguments: '{"question":"Which city?"}' } }],
      },
      { role: 'tool', tool_call_id: 'ask_1', content: 'Paris' },
    ]);
    expect(answerOf(second.task)?.parts).toEqual([{ text: 'Sunny in Paris.' }]);
  });
});

describe('the standard preset: tool arguments are checked against the schema of the tool', () => {
  it('offers the outbound tools of the instance first and ask_user last', async () => {
    const limited = await createStandard('ordered', { tools: ['a2a__remote__chat', 'a2a__rest__chat'] });
    model.push({ text: ['ok'] });
    const start = model.requests.length;
    await call(limited, 'SendMessage', { message: userMessage('hi') });
    expect(model.requests[start]?.body.tools?.map((tool) => tool.function.name)).toEqual([
      'a2a__remote__chat',
      'a2a__rest__chat',
      'ask_user',
    ]);
  });

  it('an ask_user without a question is not shown: the model is told what is missing, and the user sees only the proper question', async () => {
    model.push(
      { toolCalls: [{ id: 'bad_1', name: 'ask_user', arguments: '{}' }] },
      { toolCalls: [{ id: 'bad_2', name: 'ask_user', arguments: '{"q":"x"}' }] },
      { text: ['One thing first. '], toolCalls: [{ id: 'good', name: 'ask_user', arguments: '{"question":"Which city?"}' }] },
    );
    const start = model.requests.length;
    const { task } = await call(chat(), 'SendMessage', { message: userMessage('weather please') });
    expect(task?.status.state).toBe('TASK_STATE_INPUT_REQUIRED');
    expect(task?.status.message?.parts).toEqual([{ text: 'Which city?' }]);
    expect(model.requests.length).toBe(start + 3);
    expect(model.requests[start + 1]?.body.messages.at(-1)).toEqual({
      role: 'tool',
      tool_call_id: 'bad_1',
      content: 'error: invalid arguments for ask_user: question is required. Call ask_user again with arguments that match its parameters.',
    });
    const second = String(model.requests[start + 2]?.body.messages.at(-1)?.content);
    expect(second).toMatch(/^error: invalid arguments for ask_user: .*question is required/);
    expect(second).toMatch(/q is not a member of this object; known members: question/);
    // Nothing of the invalid calls reaches the user: no artifact, no message.
    expect(task?.artifacts?.some((artifact) => artifact.name === 'tool call ask_user') ?? false).toBe(false);
    expect(JSON.stringify(task)).not.toContain('"q"');
    // The answer goes on from a valid conversation: every call has its result.
    model.push({ text: ['Sunny in Paris.'] });
    const answered = await call(chat(), 'SendMessage', { message: userMessage('Paris', { taskId: task?.id }) });
    expect(answered.task?.status.state).toBe('TASK_STATE_COMPLETED');
    const toolResults = model.requests.at(-1)?.body.messages.filter((message) => message.role === 'tool');
    expect(toolResults?.map((message) => message.tool_call_id)).toEqual(['bad_1', 'bad_2', 'good']);
    expect(toolResults?.at(-1)?.content).toBe('Paris');
  });

  it('an outbound tool call with invalid arguments is not run; the model is told, and the artifact shows the error', async () => {
    model.push({ toolCalls: [{ id: 'typo', name: 'a2a__remote__chat', arguments: '{"promt":"typo-marker"}' }] }, { text: ['sorry'] });
    const start = model.requests.length;
    const { task } = await call(chat(), 'SendMessage', { message: userMessage('ask the remote') });
    expect(task?.status.state).toBe('TASK_STATE_COMPLETED');
    expect(String(model.requests[start + 1]?.body.messages.at(-1)?.content)).toMatch(
      /^error: invalid arguments for a2a__remote__chat: prompt is required; promt is not a member of this object/,
    );
    const artifact = task?.artifacts?.find((candidate) => candidate.artifactId === 'tool-call-typo');
    expect(artifact?.parts[1]?.data).toMatchObject({ type: 'tool_result', state: 'error', kind: 'bad-arguments' });
    const remoteTasks = await call(`${remote.url}/a2a/default`, 'ListTasks', { pageSize: 100, historyLength: 1 });
    expect(JSON.stringify(remoteTasks)).not.toContain('typo-marker');
  });

  it('two questions in one round: the first is asked, the second is told to wait, and the conversation stays valid', async () => {
    model.push({
      toolCalls: [
        { id: 'q_one', name: 'ask_user', arguments: '{"question":"Which city?"}' },
        { id: 'q_two', name: 'ask_user', arguments: '{"question":"Which day?"}' },
      ],
    });
    const { task } = await call(chat(), 'SendMessage', { message: userMessage('plan a trip') });
    expect(task?.status.message?.parts).toEqual([{ text: 'Which city?' }]);
    model.push({ text: ['Rome it is.'] });
    await call(chat(), 'SendMessage', { message: userMessage('Rome', { taskId: task?.id }) });
    expect(model.requests.at(-1)?.body.messages.slice(-2)).toEqual([
      { role: 'tool', tool_call_id: 'q_two', content: expect.stringMatching(/^error: only one question is asked at a time/) as unknown },
      { role: 'tool', tool_call_id: 'q_one', content: 'Rome' },
    ]);
  });

  it('a model that keeps writing invalid arguments fails the task after 3 in a row, not a loop', async () => {
    model.push(
      { toolCalls: [{ id: 'i1', name: 'a2a__remote__chat', arguments: '{"prompt":""}' }] },
      { toolCalls: [{ id: 'i2', name: 'ask_user', arguments: '{"question":"   "}' }] },
      { toolCalls: [{ id: 'i3', name: 'ask_user', arguments: 'Which city?' }] },
    );
    const start = model.requests.length;
    const { task } = await call(chat(), 'SendMessage', { message: userMessage('go') });
    expect(task?.status.state).toBe('TASK_STATE_FAILED');
    expect(task?.status.message?.parts[0]?.text).toBe(
      'the agent failed: the model made 3 tool calls in a row with invalid arguments and was stopped; the last: invalid arguments for ask_user: the arguments are not JSON',
    );
    expect(model.requests.length).toBe(start + 3);
    expect(String(model.requests[start + 1]?.body.messages.at(-1)?.content)).toMatch(/prompt must not be empty/);
    expect(String(model.requests[start + 2]?.body.messages.at(-1)?.content)).toMatch(/question must not be blank/);
    // The failed turn left nothing half-made: the next turn's conversation holds no call without its result.
    model.push({ text: ['fine'] });
    const next = await call(chat(), 'SendMessage', { message: userMessage('next', { contextId: task?.contextId }) });
    expect(next.task?.status.state).toBe('TASK_STATE_COMPLETED');
    expect(model.requests.at(-1)?.body.messages.slice(1)).toEqual([
      { role: 'user', content: 'go' },
      { role: 'user', content: 'next' },
    ]);
  });
});

/** A 1×1 PNG. */
const PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==';
const base64 = (text: string): string => Buffer.from(text).toString('base64');

describe('the standard preset: file parts', () => {
  it('gives the model images (raw bytes and a URL) as image parts of the user message, and a text file as text', async () => {
    model.push({ text: ['A dot, a cat and a note.'] });
    const start = model.requests.length;
    const parts = [
      { text: 'what are these?' },
      { raw: PNG, mediaType: 'image/png', filename: 'dot.png' },
      { url: 'https://images.example/cat.jpg', mediaType: 'image/jpeg', filename: 'cat.jpg' },
      { raw: base64('remember the milk'), mediaType: 'text/plain', filename: 'notes.txt' },
    ];
    const { task } = await call(chat(), 'SendMessage', { message: userMessage('', { parts }) });
    expect(task?.status.state).toBe('TASK_STATE_COMPLETED');
    const given = [
      { type: 'text', text: 'what are these?' },
      { type: 'image_url', image_url: { url: `data:image/png;base64,${PNG}` } },
      { type: 'image_url', image_url: { url: 'https://images.example/cat.jpg' } },
      { type: 'text', text: '[file notes.txt (text/plain)]\nremember the milk\n[end of file notes.txt]' },
    ];
    expect(model.requests[start]?.body.messages.at(-1)).toEqual({ role: 'user', content: given });
    expect(task?.artifacts?.some((artifact) => artifact.name === 'not given to the model') ?? false).toBe(false);

    // A conversation rebuilt from the stored tasks gives the model the images again.
    const contextId = task?.contextId ?? '';
    await controlAction(hub.url, { action: 'session.close', id: contextId });
    model.push({ text: ['Still a dot.'] });
    await call(chat(), 'SendMessage', { message: userMessage('and now?', { contextId }) });
    expect(model.requests.at(-1)?.body.messages.slice(1)).toEqual([
      { role: 'user', content: given },
      { role: 'assistant', content: 'A dot, a cat and a note.' },
      { role: 'user', content: 'and now?' },
    ]);
  });

  it('an oversized image, an unsupported binary and a URL of a non-image are not given; the model and the task say which and why', async () => {
    // As a data: URL: a raw part this large fails the hub's request validation today (its base64 pattern overflows the regex stack past ~3 MiB).
    const big = Buffer.alloc(5 * 1024 * 1024 + 1);
    Buffer.from(PNG, 'base64').copy(big);
    model.push({ text: ['I read only your text.'] });
    const start = model.requests.length;
    const parts = [
      { text: 'look' },
      { url: `data:image/png;base64,${big.toString('base64')}`, mediaType: 'image/png', filename: 'big.png' },
      { raw: base64('%PDF-1.7 binary'), mediaType: 'application/pdf', filename: 'doc.pdf' },
      { url: 'https://files.example/report.pdf', mediaType: 'application/pdf', filename: 'report.pdf' },
    ];
    const { task } = await call(chat(), 'SendMessage', { message: userMessage('', { parts }) });
    expect(task?.status.state).toBe('TASK_STATE_COMPLETED');
    const sent = model.requests[start]?.body.messages.at(-1);
    expect(sent?.role).toBe('user');
    // No image part: the content is text, with a note in the place of each part.
    expect(sent?.content).toBe(
      [
        'look',
        '[file big.png (image/png): not given to you: 5.1 MiB is over the 5 MiB limit for images]',
        '[file doc.pdf (application/pdf): not given to you: application/pdf files are not given to the model; only images (PNG, JPEG, GIF, WebP) and text files are]',
        '[file report.pdf (application/pdf): not given to you: the hub does not fetch files from URLs; only images are given to the model by URL]',
      ].join('\n'),
    );
    const notice = task?.artifacts?.find((artifact) => artifact.name === 'not given to the model');
    expect(notice?.parts[0]?.text).toBe(
      [
        'Parts of your message the model was not given in full:',
        '- big.png (parts[1]), image/png: 5.1 MiB is over the 5 MiB limit for images',
        '- doc.pdf (parts[2]), application/pdf: application/pdf files are not given to the model; only images (PNG, JPEG, GIF, WebP) and text files are',
        '- report.pdf (parts[3]), application/pdf: the hub does not fetch files from URLs; only images are given to the model by URL',
      ].join('\n'),
    );
    expect(notice?.parts[1]?.data).toMatchObject({
      type: 'parts_not_given',
      parts: [
        { index: 1, filename: 'big.png', mediaType: 'image/png' },
        { index: 2, filename: 'doc.pdf', mediaType: 'application/pdf' },
        { index: 3, filename: 'report.pdf', mediaType: 'application/pdf' },
      ],
    });
    // The answer is still the model's own artifact.
    expect(answerOf(task)?.parts).toEqual([{ text: 'I read only your text.' }]);
  });

  it('an image in the answer to an ask_user question follows the tool result in a user message (only user content carries images)', async () => {
    model.push({ toolCalls: [{ id: 'ask_img', name: 'ask_user', arguments: '{"question":"Which picture?"}' }] });
    const first = await call(chat(), 'SendMessage', { message: userMessage('describe my picture') });
    expect(first.task?.status.state).toBe('TASK_STATE_INPUT_REQUIRED');
    model.push({ text: ['A dot.'] });
    const parts = [{ text: 'this one' }, { raw: PNG, mediaType: 'image/png', filename: 'dot.png' }];
    await call(chat(), 'SendMessage', { message: userMessage('', { parts, taskId: first.task?.id }) });
    expect(model.requests.at(-1)?.body.messages.slice(-2)).toEqual([
      { role: 'tool', tool_call_id: 'ask_img', content: 'this one\n[image dot.png: in the next message]' },
      {
        role: 'user',
        content: [
          { type: 'text', text: '(the images of my answer)' },
          { type: 'image_url', image_url: { url: `data:image/png;base64,${PNG}` } },
        ],
      },
    ]);
  });
});

describe('the standard preset: two questions in one context', () => {
  it('gives each task waiting for input its own answer, whichever is answered first', async () => {
    model.push({ toolCalls: [{ id: 'qA', name: 'ask_user', arguments: '{"question":"Which city?"}' }] });
    const a = await call(chat(), 'SendMessage', { message: userMessage('weather') });
    const contextId = a.task?.contextId;
    model.push({ toolCalls: [{ id: 'qB', name: 'ask_user', arguments: '{"question":"Which date?"}' }] });
    const b = await call(chat(), 'SendMessage', { message: userMessage('calendar', { contextId }) });
    expect([a.task?.status.state, b.task?.status.state]).toEqual(['TASK_STATE_INPUT_REQUIRED', 'TASK_STATE_INPUT_REQUIRED']);
    // B's question is still open when A is answered: it is closed, and A's answer names A's question.
    model.push({ text: ['Sunny in Paris.'] });
    await call(chat(), 'SendMessage', { message: userMessage('Paris', { taskId: a.task?.id }) });
    expect(model.requests.at(-1)?.body.messages.slice(-4)).toEqual([
      { role: 'user', content: 'calendar' },
      {
        role: 'assistant',
        content: null,
        tool_calls: [{ id: 'qB', type: 'function', function: { name: 'ask_user', arguments: '{"question":"Which date?"}' } }],
      },
      { role: 'tool', tool_call_id: 'qB', content: expect.stringMatching(/^\(no answer yet/) as unknown },
      { role: 'user', content: '(answering your question "Which city?") Paris' },
    ]);
    model.push({ text: ['Booked.'] });
    const answered = await call(chat(), 'SendMessage', { message: userMessage('Monday', { taskId: b.task?.id }) });
    expect(answered.task?.status.state).toBe('TASK_STATE_COMPLETED');
    expect(model.requests.at(-1)?.body.messages.at(-1)).toEqual({
      role: 'user',
      content: '(answering your question "Which date?") Monday',
    });
  });
});

describe('the standard preset: options, sessions and where the key never goes', () => {
  it('sends temperature and maxTokens as configured, and leaves them out when they are not', async () => {
    const tuned = await createStandard('tuned', { model: { temperature: 0.2, maxTokens: 64 } });
    model.push({ text: ['ok'] }, { text: ['ok'] });
    await call(tuned, 'SendMessage', { message: userMessage('hi') });
    expect(model.requests.at(-1)?.body).toMatchObject({ temperature: 0.2, max_tokens: 64 });
    await call(chat(), 'SendMessage', { message: userMessage('hi') });
    expect(model.requests.at(-1)?.body.temperature).toBeUndefined();
    expect(model.requests.at(-1)?.body.max_tokens).toBeUndefined();
  });

  it('session.close releases the live session; the next message rebuilds the conversation from the stored tasks', async () => {
    model.push({ text: ['Noted: blue.'] });
    const first = await call(chat(), 'SendMessage', { message: userMessage('My colour is blue.') });
    const contextId = first.task?.contextId ?? '';
    expect(hub.sessions.list().some((session) => session.contextId === contextId)).toBe(true);
    await controlAction(hub.url, { action: 'session.close', id: contextId });
    expect(hub.sessions.list().some((session) => session.contextId === contextId)).toBe(false);
    model.push({ text: ['Blue.'] });
    await call(chat(), 'SendMessage', { message: userMessage('My colour?', { contextId }) });
    expect(model.requests.at(-1)?.body.messages.slice(1)).toEqual([
      { role: 'user', content: 'My colour is blue.' },
      { role: 'assistant', content: 'Noted: blue.' },
      { role: 'user', content: 'My colour?' },
    ]);
  });

  it('the key is in no log line, stored configuration, snapshot or task, even when the endpoint quotes it back', async () => {
    const lines: string[] = [];
    const logged = await startTestHub({ env, logger: pino({ level: 'debug' }, { write: (line: string) => void lines.push(line) }) });
    try {
      const created = await controlAction(logged.url, {
        action: 'inbound.create',
        name: 'keyed',
        description: 'd',
        version: '1',
        preset: 'standard',
        model: { baseURL: model.baseURL, model: 'test-model', apiKeyEnv: 'TEST_MODEL_KEY', maxRetries: 0 },
      });
      model.push({ error: { status: 401, message: `Incorrect API key provided: ${KEY}` } }, { text: ['fine'] });
      const failed = await call(`${logged.url}/a2a/${created.id ?? ''}`, 'SendMessage', { message: userMessage('hi') });
      expect(failed.task?.status.state).toBe('TASK_STATE_FAILED');
      const ok = await call(`${logged.url}/a2a/${created.id ?? ''}`, 'SendMessage', { message: userMessage('again') });
      expect(model.requests.at(-1)?.headers.authorization).toBe(`Bearer ${KEY}`);
      const snapshot = await (await fetch(`${logged.url}/a2a/api`)).text();
      const stored = JSON.stringify(logged.store.loadInstances());
      const tasks = JSON.stringify([failed, ok]);
      // The failure is logged, with the endpoint's words: the line a leaking key would be in.
      expect(lines.join('\n')).toMatch(/answered HTTP 401: Incorrect API key provided: \[redacted\]/);
      for (const text of [lines.join('\n'), snapshot, stored, tasks]) expect(text).not.toContain(KEY);
      expect(stored).toContain('TEST_MODEL_KEY');
    } finally {
      await logged.dispose();
    }
  });
});

describe('the standard preset: the a2a-hub command', () => {
  it('send --stream prints the streamed answer once, not again when the closing chunk replaces it', async () => {
    model.push({ text: ['one ', 'two ', 'three'] });
    const run = await new Promise<{ code: number | null; stdout: string }>((resolve, reject) => {
      const child = spawn(process.execPath, [BIN, 'send', chat(), 'count', '--stream'], { stdio: ['ignore', 'pipe', 'pipe'] });
      let stdout = '';
      child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
      child.on('error', reject);
      child.on('close', (code) => resolve({ code, stdout }));
    });
    expect(run.code).toBe(0);
    expect(run.stdout.split('one two three')).toHaveLength(2);
  });
});

describe('the standard preset: failures say what happened, never the key', () => {
  it('an endpoint that refuses the key: FAILED with the status, the hint and no key material', async () => {
    model.push({ error: { status: 401, message: `Incorrect API key provided: ${KEY}. Also sk-abc***xyz.` } });
    const { task } = await call(chat(), 'SendMessage', { message: userMessage('hi') });
    expect(task?.status.state).toBe('TASK_STATE_FAILED');
    const text = task?.status.message?.parts[0]?.text ?? '';
    expect(text).toMatch(/model endpoint .* answered HTTP 401/);
    expect(text).toContain('TEST_MODEL_KEY');
    expect(text).not.toContain(KEY);
    expect(text).not.toContain('sk-abc');
  });

  it('an endpoint nobody listens on: FAILED, "could not be reached"', async () => {
    const down = await createStandard('down', { model: { baseURL: `http://127.0.0.1:${await closedPort()}/v1` } });
    const { task } = await call(down, 'SendMessage', { message: userMessage('hi') });
    expect(task?.status.state).toBe('TASK_STATE_FAILED');
    expect(task?.status.message?.parts[0]?.text).toMatch(/could not be reached: .*ECONNREFUSED/);
  });

  it('a stream that stalls: FAILED after model.timeoutMs, and the connection is closed', async () => {
    const slow = await createStandard('slow', { model: { timeoutMs: 300 } });
    model.push({ text: ['a', 'b'], stallAfter: 2 });
    const start = model.requests.length;
    const { task } = await call(slow, 'SendMessage', { message: userMessage('hi') });
    expect(task?.status.state).toBe('TASK_STATE_FAILED');
    expect(task?.status.message?.parts[0]?.text).toMatch(/did not finish answering within 300 ms/);
    await until(() => model.requests[start]?.closedEarly === true, 'the model connection to close');
  });

  it('a missing key variable: FAILED naming the variable, and no request is made', async () => {
    const keyless = await createStandard('keyless', { model: { apiKeyEnv: 'NO_SUCH_KEY_VARIABLE' } });
    const start = model.requests.length;
    const { task } = await call(keyless, 'SendMessage', { message: userMessage('hi') });
    expect(task?.status.state).toBe('TASK_STATE_FAILED');
    expect(task?.status.message?.parts[0]?.text).toMatch(/NO_SUCH_KEY_VARIABLE is not set/);
    expect(model.requests.length).toBe(start);
  });

  it('a cancel aborts the model call', async () => {
    model.push({ text: ['x'], stallAfter: 2 });
    const start = model.requests.length;
    const { task } = await call(chat(), 'SendMessage', { message: userMessage('slow'), configuration: { returnImmediately: true } });
    await until(() => model.requests.length > start, 'the model to be called');
    const canceled = await call(chat(), 'CancelTask', { id: task?.id ?? '' });
    expect(canceled.status.state).toBe('TASK_STATE_CANCELED');
    await until(() => model.requests[start]?.closedEarly === true, 'the model connection to close');
  });

  it('an endpoint without a key gets no Authorization header', async () => {
    const open = await createStandard('open', { model: { apiKeyEnv: undefined } });
    model.push({ text: ['hi'] });
    await call(open, 'SendMessage', { message: userMessage('hi') });
    expect(model.requests.at(-1)?.headers.authorization).toBeUndefined();
  });

  it('an endpoint the outbound destination policy refuses is refused when the instance is saved', async () => {
    const strict = await startTestHub({ env, outbound: { urlPolicy: { allowLoopback: false } } });
    try {
      const refused = await fails(strict.url, {
        action: 'inbound.create',
        name: 'blocked',
        description: 'd',
        version: '1',
        preset: 'standard',
        model: { baseURL: model.baseURL, model: 'test-model' },
      });
      expect(refused.text).toMatch(/model\.baseURL: .*outbound\.urlPolicy\.allowLoopback/);
    } finally {
      await strict.dispose();
    }
  });

  it('a model URL with a credential in its query is refused when saved, without repeating it; other query members are kept', async () => {
    const refused = await fails(hub.url, {
      action: 'inbound.create',
      name: 'keyed',
      description: 'd',
      version: '1',
      preset: 'standard',
      model: { baseURL: `${model.baseURL}?api-version=1&api-key=QUERY-SECRET-1`, model: 'test-model' },
    });
    expect(refused.text).toMatch(/model\.baseURL carries a credential in its query \(api-key\).*model\.apiKeyEnv/);
    expect(refused.text).not.toContain('QUERY-SECRET-1');
    const versioned = await createStandard('versioned', { model: { baseURL: `${model.baseURL}?api-version=1` } });
    expect(versioned).toMatch(/\/a2a\//);
  });

  it('a model URL stored with a credential in its query (before they were refused) never shows it in a failure', async () => {
    const { ChatModel, ModelError } = await import('../../src/executors/standard/chat-model.js');
    const down = new ChatModel(
      { baseURL: `http://127.0.0.1:${await closedPort()}/v1?api-version=1&access_token=QUERY-SECRET-2`, model: 'm', maxRetries: 0 },
      { env: {} },
    );
    const failure = await down
      .complete({ messages: [{ role: 'user', content: 'hi' }] }, () => undefined, new AbortController().signal)
      .then(
        () => undefined,
        (error: unknown) => error,
      );
    expect(failure).toBeInstanceOf(ModelError);
    expect(String(failure)).toMatch(/could not be reached/);
    expect(String(failure)).not.toContain('QUERY-SECRET-2');
    expect(String(failure)).not.toContain('access_token');
  });

  it('an instance of the standard preset needs a model', async () => {
    const refused = await fails(hub.url, { action: 'inbound.create', name: 'nomodel', description: 'd', version: '1', preset: 'standard' });
    expect(refused.text).toMatch(/standard preset needs model/);
  });
});
