import { afterAll, describe, expect, it } from 'vitest';
import { PresetRegistry, type AgentExecutor } from '../../src/index.js';
import { call, stream, userMessage } from '../helpers/a2a-client.js';
import { startTestHub, type TestHub } from '../helpers/hub.js';

// The README's "plug in your own agent" example, run for real.
const shout: AgentExecutor = {
  execute(request, events) {
    events.artifact({ name: 'shout', parts: request.text.toUpperCase() });
    events.complete();
    return Promise.resolve();
  },
};

const broken: AgentExecutor = {
  async execute() {
    await Promise.resolve();
    throw new Error('database unreachable');
  },
};

let hub: TestHub | undefined;
afterAll(() => hub?.dispose());

describe('a custom executor', () => {
  it('is hosted in a few lines and speaks the whole protocol', async () => {
    const presets = new PresetRegistry();
    presets.register({
      id: 'shout',
      name: 'Shout',
      description: 'Answers in capitals.',
      executor: shout,
      skills: [{ id: 'chat', name: 'chat', description: 'Shouts back.', tags: ['demo'] }],
      inputModes: ['text/plain'],
      outputModes: ['text/plain'],
      extensions: [],
    });
    presets.register({
      id: 'broken',
      name: 'Broken',
      description: 'Always throws.',
      executor: broken,
      skills: [{ id: 'chat', name: 'chat', description: 'fails', tags: ['demo'] }],
      inputModes: ['text/plain'],
      outputModes: ['text/plain'],
      extensions: [],
    });
    hub = await startTestHub({ presets });
    const shouter = hub.inbounds.create({ name: 'shouter', description: 'shouts', version: '1.0.0', preset: 'shout' });
    const endpoint = `${hub.url}${shouter.endpointPath}`;

    const result = await call(endpoint, 'SendMessage', { message: userMessage('hello there') });
    expect(result.task?.status.state).toBe('TASK_STATE_COMPLETED');
    expect(result.task?.artifacts?.[0]?.parts[0]?.text).toBe('HELLO THERE');

    const streamed = await stream(endpoint, 'SendStreamingMessage', { message: userMessage('quiet') });
    expect(streamed.events.map((event) => Object.keys(event.frame)[0])).toEqual(['task', 'statusUpdate', 'artifactUpdate', 'statusUpdate']);

    const failing = hub.inbounds.create({ name: 'broken', description: 'fails', version: '1.0.0', preset: 'broken' });
    const failed = await call(`${hub.url}${failing.endpointPath}`, 'SendMessage', { message: userMessage('try') });
    expect(failed.task?.status.state).toBe('TASK_STATE_FAILED');
    expect(failed.task?.status.message?.parts[0]?.text).toBe('the agent failed: database unreachable');
    expect(JSON.stringify(failed)).not.toMatch(/\n\s+at /);
  });
});
