import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AgentSkill } from '../../generated/a2a/1.0/types.js';
import { A2AClient } from '../../src/client/a2a-client.js';
import { ToolError, type ToolResult } from '../../src/outbound/tool-registry.js';
import type { TestHub } from '../helpers/hub.js';
import { startTestHub } from '../helpers/hub.js';
import { startSdkAgent, type SdkAgent } from '../interop/sdk-agent.js';
import { startSdk03Agent, type Sdk03Agent } from '../interop/sdk03-agent.js';
import { cardUrl, createOutbound, ok, slowTaskUnderway, startLocalHub, until } from './helpers.js';

/**
 * Tool calls through the module API (`hub.tools.call`), against two remotes that follow the
 * test directives (docs/test-directives.md): another a2a-hub and an agent built with the
 * official @a2a-js/sdk. Every outcome of the tool contract (seed 001 §3) is reached.
 */

let remote: TestHub;
let sdk: SdkAgent;
/** The same agent serving only HTTP+JSON (an Awaken-style REST-only card), streaming and not. */
let sdkRest: SdkAgent;
let sdkRestPolled: SdkAgent;
/** An A2A 0.3 agent (the last 0.3 @a2a-js/sdk), spoken to in 0.3: on JSON-RPC, and on HTTP+JSON only. */
let sdk03: Sdk03Agent;
let sdk03Rest: Sdk03Agent;
let hub: TestHub;

beforeAll(async () => {
  [remote, sdk, sdkRest, sdkRestPolled, sdk03, sdk03Rest] = await Promise.all([
    startTestHub(),
    startSdkAgent(),
    startSdkAgent({ bindings: ['HTTP+JSON'] }),
    startSdkAgent({ bindings: ['HTTP+JSON'], streaming: false }),
    startSdk03Agent(),
    startSdk03Agent({ bindings: ['HTTP+JSON'] }),
  ]);
  hub = await startLocalHub();
  await createOutbound(hub.url, 'hub', cardUrl(remote));
  await createOutbound(hub.url, 'sdk', sdk.url);
  await createOutbound(hub.url, 'rest', sdkRest.url);
  await createOutbound(hub.url, 'polled', sdkRestPolled.url, { pollIntervalMs: 50 });
  await createOutbound(hub.url, 'old', sdk03.url);
  await createOutbound(hub.url, 'oldrest', sdk03Rest.url);
});
afterAll(async () => {
  await hub.dispose();
  await Promise.all([remote.dispose(), sdk.close(), sdkRest.close(), sdkRestPolled.close(), sdk03.close(), sdk03Rest.close()]);
});

/** The ToolError a call rejects with. */
async function toolError(call: Promise<ToolResult>): Promise<ToolError> {
  const error: unknown = await call.then(
    (result) => new Error(`expected a ToolError, got ${JSON.stringify(result)}`),
    (reason: unknown) => reason,
  );
  expect(error).toBeInstanceOf(ToolError);
  return error as ToolError;
}

describe.each([
  { remoteName: 'a2a-hub', tool: 'a2a__hub__chat', agent: 'echo', polled: false },
  { remoteName: '@a2a-js/sdk', tool: 'a2a__sdk__chat', agent: 'sdk-echo', polled: false },
  { remoteName: '@a2a-js/sdk over HTTP+JSON only', tool: 'a2a__rest__chat', agent: 'sdk-echo', polled: false },
  { remoteName: '@a2a-js/sdk over HTTP+JSON only, not streaming (polled)', tool: 'a2a__polled__chat', agent: 'sdk-echo', polled: true },
  { remoteName: '@a2a-js/sdk 0.3 (A2A 0.3)', tool: 'a2a__old__chat', agent: 'sdk03-echo', polled: false },
  { remoteName: '@a2a-js/sdk 0.3 over HTTP+JSON only (A2A 0.3)', tool: 'a2a__oldrest__chat', agent: 'sdk03-echo', polled: false },
])('tool calls to an $remoteName agent', ({ tool, agent, polled }) => {
  it('COMPLETED: returns the text of the artifacts', async () => {
    const result = await hub.tools.call(tool, { prompt: 'hello there' });
    expect(result).toMatchObject({ text: 'echo: hello there', state: 'TASK_STATE_COMPLETED' });
    expect(result.taskId).toEqual(expect.any(String));
    expect(result.contextId).toEqual(expect.any(String));
  });

  it('FAILED: rejects with a ToolError carrying the remote status message', async () => {
    const error = await toolError(hub.tools.call(tool, { prompt: '::fail' }));
    expect(error).toMatchObject({
      kind: 'task-ended',
      tool,
      state: 'TASK_STATE_FAILED',
      remoteMessage: `${agent} failed as the test directive asked`,
    });
    expect(error.taskId).toEqual(expect.any(String));
    expect(error.message).toBe(
      `the remote task ${error.taskId} ended TASK_STATE_FAILED saying: ${agent} failed as the test directive asked`,
    );
  });

  it('REJECTED: rejects with a ToolError too', async () => {
    const error = await toolError(hub.tools.call(tool, { prompt: '::reject' }));
    expect(error).toMatchObject({
      kind: 'task-ended',
      state: 'TASK_STATE_REJECTED',
      remoteMessage: `${agent} rejected the task as the test directive asked`,
    });
  });

  it('INPUT_REQUIRED: returns the question with the taskId, and a call with that taskId continues the task', async () => {
    const asked = await hub.tools.call(tool, { prompt: 'first\n::input-required' });
    expect(asked.state).toBe('TASK_STATE_INPUT_REQUIRED');
    const taskId = asked.taskId ?? '';
    expect(asked.text).toBe(
      `The remote agent needs more input (TASK_STATE_INPUT_REQUIRED, taskId: ${taskId}). It says: "${agent} needs more input: send another message with this taskId". To continue, call this tool again with "taskId": "${taskId}" and the answer as prompt.`,
    );
    const continued = await hub.tools.call(tool, { prompt: 'the answer', taskId });
    expect(continued).toMatchObject({ state: 'TASK_STATE_COMPLETED', taskId, text: 'echo: the answer', contextId: asked.contextId });
  });

  it('AUTH_REQUIRED: returns text with the taskId, and continuing completes the task', async () => {
    const asked = await hub.tools.call(tool, { prompt: '::auth-required' });
    expect(asked.state).toBe('TASK_STATE_AUTH_REQUIRED');
    const taskId = asked.taskId ?? '';
    expect(asked.text).toContain(`needs authentication (TASK_STATE_AUTH_REQUIRED, taskId: ${taskId})`);
    expect(asked.text).toContain(`${agent} needs authentication`);
    const continued = await hub.tools.call(tool, JSON.stringify({ prompt: 'authorised now', taskId }));
    expect(continued).toMatchObject({ state: 'TASK_STATE_COMPLETED', taskId });
    // The SDK stores the second chunk of a continued AUTH_REQUIRED task twice (its own GetTask says
    // "echo: authorised noworised now", over JSON-RPC too), and a polled turn can only read what is stored.
    if (polled) expect(continued.text).toMatch(/^echo: authorised now/);
    else expect(continued.text).toBe('echo: authorised now');
  });

  it('a direct Message answer is returned as text with state "message"', async () => {
    const result = await hub.tools.call(tool, { prompt: 'quick\n::message' });
    expect(result).toMatchObject({ text: 'echo: quick', state: 'message' });
    expect(result.taskId).toBeUndefined();
  });

  it('one caller keeps one remote contextId; another caller gets its own', async () => {
    const alice1 = await hub.tools.call(tool, { prompt: 'one' }, { callerId: `alice-${agent}` });
    const alice2 = await hub.tools.call(tool, { prompt: 'two' }, { callerId: `alice-${agent}` });
    const bob = await hub.tools.call(tool, { prompt: 'three' }, { callerId: `bob-${agent}` });
    expect(alice1.contextId).toEqual(expect.any(String));
    expect(alice2.contextId).toBe(alice1.contextId);
    expect(alice2.taskId).not.toBe(alice1.taskId);
    expect(bob.contextId).toEqual(expect.any(String));
    expect(bob.contextId).not.toBe(alice1.contextId);
  });
});

describe('tool calls to an a2a-hub agent: what the remote sees', () => {
  it('sends metadata.skill, so a remote with several skills runs the one the tool names', async () => {
    const skill = (id: string): AgentSkill => ({ id, name: id, description: `the ${id} skill`, tags: ['test'] });
    const instance = (
      await remote.inbounds.create({
        name: 'skills',
        description: 'two skills',
        version: '1.0.0',
        skills: [skill('alpha'), skill('beta')],
      })
    ).id;
    await createOutbound(hub.url, 'skills', cardUrl(remote, instance));
    const result = await hub.tools.call('a2a__skills__beta', { prompt: 'routed' });
    expect(result.text).toBe('echo: routed');
    expect(await remote.store.getTaskInfo(result.taskId ?? '')).toMatchObject({ instanceId: instance, skill: 'beta' });
  });

  it('the contextId of a caller is the remote task context', async () => {
    const first = await hub.tools.call('a2a__hub__chat', { prompt: 'a' }, { callerId: 'carol' });
    const second = await hub.tools.call('a2a__hub__chat', { prompt: 'b' }, { callerId: 'carol' });
    expect((await remote.store.getTaskInfo(first.taskId ?? ''))?.contextId).toBe(first.contextId);
    expect((await remote.store.getTaskInfo(second.taskId ?? ''))?.contextId).toBe(first.contextId);
  });

  it('an abort during ::slow cancels the remote task', async () => {
    const controller = new AbortController();
    const call = hub.tools.call('a2a__hub__chat', { prompt: 'slow work\n::slow 100' }, { signal: controller.signal, callerId: 'aborter' });
    const taskId = await slowTaskUnderway(remote);
    controller.abort();
    const error = await toolError(call);
    expect(error.kind).toBe('aborted');
    await until(async () => (await remote.store.getTaskInfo(taskId))?.state === 'TASK_STATE_CANCELED', 'the remote task to be CANCELED');
  });

  it('a call that outlives the connection timeoutMs is a timeout, and the remote task is canceled', async () => {
    const id = await createOutbound(hub.url, 'hasty', cardUrl(remote), { timeoutMs: 600 });
    const started = Date.now();
    const error = await toolError(hub.tools.call('a2a__hasty__chat', { prompt: 'too slow\n::slow 100' }));
    expect(error.kind).toBe('timeout');
    expect(error.message).toBe(
      "tool a2a__hasty__chat got no final answer within the connection's timeoutMs (600 ms); the remote task was asked to cancel",
    );
    expect(Date.now() - started).toBeLessThan(5000);
    const canceled = (await remote.store.browseTasks({ instanceId: 'default', limit: 1, offset: 0 })).rows[0];
    await until(
      async () => (await remote.store.getTaskInfo(canceled?.id ?? ''))?.state === 'TASK_STATE_CANCELED',
      'the remote task to be CANCELED',
    );
    await ok(hub.url, { action: 'outbound.remove', id });
  });

  it('removing the connection aborts its running calls', async () => {
    const id = await createOutbound(hub.url, 'doomed', cardUrl(remote));
    const call = hub.tools.call('a2a__doomed__chat', { prompt: 'slow\n::slow 100' });
    const taskId = await slowTaskUnderway(remote);
    await ok(hub.url, { action: 'outbound.remove', id });
    const error = await toolError(call);
    expect(error).toMatchObject({
      kind: 'not-connected',
      message: 'the call of tool a2a__doomed__chat was stopped: outbound connection "doomed" was removed',
    });
    await until(async () => (await remote.store.getTaskInfo(taskId))?.state === 'TASK_STATE_CANCELED', 'the remote task to be CANCELED');
  });
});

describe('tool calls to an A2A 0.3 agent: what the remote sees', () => {
  it.each([
    { binding: 'JSON-RPC (tasks/cancel)', tool: 'a2a__old__chat', agent: () => sdk03 },
    { binding: 'HTTP+JSON (POST /v1/tasks/{id}:cancel)', tool: 'a2a__oldrest__chat', agent: () => sdk03Rest },
  ])('an abort during ::slow cancels the remote task over $binding', async ({ tool, agent }) => {
    const controller = new AbortController();
    const before = agent().canceled().length;
    const call = hub.tools.call(tool, { prompt: 'slow work\n::slow 100' }, { signal: controller.signal, callerId: `aborter-${tool}` });
    await new Promise((resolve) => setTimeout(resolve, 300));
    controller.abort();
    expect((await toolError(call)).kind).toBe('aborted');
    await until(() => agent().canceled().length > before, 'the 0.3 agent to be asked to cancel');
  });
});

describe('tool calls to a REST-only agent: what the remote sees', () => {
  it.each([
    { how: 'streamed', tool: 'a2a__rest__chat', agent: () => sdkRest },
    { how: 'polled', tool: 'a2a__polled__chat', agent: () => sdkRestPolled },
  ])('an abort during ::slow cancels the remote task ($how)', async ({ tool, agent }) => {
    const observer = await A2AClient.connect(agent().url);
    const controller = new AbortController();
    const call = hub.tools.call(tool, { prompt: 'slow work\n::slow 100' }, { signal: controller.signal, callerId: `aborter-${tool}` });
    const working = async (): Promise<string | undefined> => (await observer.listTasks({ status: 'TASK_STATE_WORKING' })).tasks[0]?.id;
    let taskId: string | undefined;
    await until(async () => (taskId = await working()) !== undefined, 'the remote task to be WORKING');
    controller.abort();
    expect((await toolError(call)).kind).toBe('aborted');
    await until(
      async () => (await observer.getTask({ id: taskId ?? '' })).status.state === 'TASK_STATE_CANCELED',
      'the remote task to be CANCELED',
    );
  });
});

describe('tool calls that never reach the remote', () => {
  it('an unknown tool is a ToolError naming where the tools are listed', async () => {
    const error = await toolError(hub.tools.call('a2a__nobody__chat', { prompt: 'x' }));
    expect(error).toMatchObject({
      kind: 'unknown-tool',
      message: 'no tool is named a2a__nobody__chat; GET /a2a/api/tools lists the tools of the connected outbound connections',
    });
  });

  it.each([
    [{}, 'prompt is required'],
    [{ prompt: 7 }, 'prompt must be a string'],
    [{ prompt: '' }, 'prompt must not be empty'],
    [{ prompt: 'x', taskId: '' }, 'taskId must be a non-empty string'],
    [{ prompt: 'x', temperature: 1 }, 'temperature is not an argument of this tool (only prompt and taskId are)'],
    [['x'], 'the arguments must be an object like {"prompt": "…"}'],
    ['{"prompt": ', 'the arguments are a string that is not JSON'],
  ])('arguments %j are refused: %s', async (args, problem) => {
    const error = await toolError(hub.tools.call('a2a__hub__chat', args));
    expect(error).toMatchObject({ kind: 'bad-arguments', message: `invalid arguments for tool a2a__hub__chat: ${problem}` });
  });

  it('a taskId the remote does not know is a remote error', async () => {
    const error = await toolError(hub.tools.call('a2a__hub__chat', { prompt: 'x', taskId: 'no-such-task' }));
    expect(error.kind).toBe('remote-error');
    expect(error.message).toMatch(/^the remote agent of tool a2a__hub__chat could not be used: /);
  });
});
