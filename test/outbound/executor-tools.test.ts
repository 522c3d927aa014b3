import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AgentExecutor } from '../../src/executors/executor.js';
import { PresetRegistry } from '../../src/executors/presets.js';
import { call, userMessage } from '../helpers/a2a-client.js';
import { startTestHub, type TestHub } from '../helpers/hub.js';

/**
 * An executor that uses the tools of the hub's outbound connections, the way an LLM agent
 * would: it lists them, calls one with the user's text, and answers with what came back.
 */
const delegate: AgentExecutor = {
  async execute(request, events) {
    const [tool] = request.tools.list();
    if (tool === undefined) return events.fail('no tools are connected');
    const taskId = request.session.values.get('remoteTaskId') as string | undefined;
    const result = await request.tools.call(tool.name, { prompt: request.text, ...(taskId === undefined ? {} : { taskId }) });
    if (result.state === 'TASK_STATE_INPUT_REQUIRED') {
      request.session.values.set('remoteTaskId', result.taskId);
      return events.inputRequired(`${tool.name} asks: ${result.text}`);
    }
    request.session.values.delete('remoteTaskId');
    events.artifact({ name: 'answer', parts: `${tool.name} said: ${result.text}` });
  },
};

let remote: TestHub;
let hub: TestHub;
let endpoint: string;

beforeAll(async () => {
  remote = await startTestHub();
  const presets = new PresetRegistry();
  presets.register({
    id: 'delegate',
    name: 'Delegate',
    description: 'Hands every message to the first tool.',
    executor: delegate,
    skills: [{ id: 'chat', name: 'chat', description: 'Delegates.', tags: ['test'] }],
    inputModes: ['text/plain'],
    outputModes: ['text/plain'],
    extensions: [],
  });
  hub = await startTestHub({ presets });
  await hub.outbounds.create({ name: 'remote', agentCardUrl: `${remote.url}/a2a/default/agent-card.json` });
  const created = await hub.inbounds.create({ name: 'delegator', description: 'uses a tool', version: '1.0.0', preset: 'delegate' });
  endpoint = `${hub.url}${created.endpointPath}`;
});
afterAll(async () => {
  await hub.dispose();
  await remote.dispose();
});

describe('executors and the tool registry', () => {
  it('an executor lists and calls the tools of the outbound connections', async () => {
    const { task } = await call(endpoint, 'SendMessage', { message: userMessage('through a tool') });
    expect(task?.status.state).toBe('TASK_STATE_COMPLETED');
    expect(task?.artifacts?.[0]?.parts[0]?.text).toBe('a2a__remote__chat said: echo: through a tool');
  });

  it('one local conversation is one remote conversation: both calls share a remote contextId', async () => {
    const first = await call(endpoint, 'SendMessage', { message: userMessage('one') });
    await call(endpoint, 'SendMessage', { message: userMessage('two', { contextId: first.task?.contextId }) });
    const other = await call(endpoint, 'SendMessage', { message: userMessage('elsewhere') });
    expect(other.task?.status.state).toBe('TASK_STATE_COMPLETED');
    const remoteTasks = (await call(`${remote.url}/a2a/default`, 'ListTasks', { pageSize: 3, historyLength: 1 })).tasks;
    const [elsewhere, two, one] = remoteTasks;
    expect(one?.history?.[0]?.parts[0]?.text).toBe('one');
    expect(two?.history?.[0]?.parts[0]?.text).toBe('two');
    expect(two?.contextId).toBe(one?.contextId);
    expect(elsewhere?.contextId).not.toBe(one?.contextId);
  });

  it('continues a remote task that asked for input across two local turns', async () => {
    const first = await call(endpoint, 'SendMessage', { message: userMessage('::input-required') });
    expect(first.task?.status.state).toBe('TASK_STATE_INPUT_REQUIRED');
    expect(first.task?.status.message?.parts[0]?.text).toMatch(/^a2a__remote__chat asks: .*taskId: /);
    const second = await call(endpoint, 'SendMessage', { message: userMessage('the missing part', { taskId: first.task?.id }) });
    expect(second.task?.status.state).toBe('TASK_STATE_COMPLETED');
    expect(second.task?.artifacts?.[0]?.parts[0]?.text).toBe('a2a__remote__chat said: echo: the missing part');
  });
});
