import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Message, StreamResponse } from '../../generated/a2a/1.0/types.js';
import { A2AClient, textOf } from '../../src/client/a2a-client.js';
import { runRemoteTurn } from '../../src/client/remote-run.js';
import { startTestHub, type TestHub } from '../helpers/hub.js';
import { TASK_ID, dropLater, fakeAgent, openSse, reply, statusFrame, taskFrame } from './fake-agent.js';

function userMessage(text: string, extra: Partial<Message> = {}): Message {
  return { messageId: randomUUID(), role: 'ROLE_USER', parts: [{ text }], ...extra };
}

function stateOf(frame: StreamResponse): string | undefined {
  return frame.task?.status.state ?? frame.statusUpdate?.status.state;
}

let hub: TestHub;
let client: A2AClient;
beforeAll(async () => {
  hub = await startTestHub();
  client = await A2AClient.connect(hub.url);
});
afterAll(async () => {
  await hub.dispose();
});

const POLL = { min: 10, max: 40 };

describe.each([
  { mode: 'stream', stream: true },
  { mode: 'poll', stream: false },
])('runRemoteTurn ($mode)', ({ stream }) => {
  it('completes with the assembled artifact', async () => {
    const frames: StreamResponse[] = [];
    const result = await runRemoteTurn(
      client,
      { message: userMessage('hello\n::slow 2\n::chunks 3') },
      { stream, pollMs: POLL, onFrame: (frame) => frames.push(frame) },
    );
    expect(result.task?.status.state).toBe('TASK_STATE_COMPLETED');
    expect(result.message).toBeUndefined();
    expect(result.artifacts).toHaveLength(1);
    expect(textOf(result.artifacts[0])).toBe('echo: hello');
    expect(result.task?.artifacts?.map((artifact) => textOf(artifact))).toEqual(['echo: hello']);
    expect(frames.at(-1) === undefined ? undefined : stateOf(frames.at(-1) as StreamResponse)).toBe('TASK_STATE_COMPLETED');
    if (stream) {
      expect(frames.filter((frame) => frame.artifactUpdate !== undefined)).toHaveLength(3);
    } else {
      // Snapshots only, each one different from the one before.
      expect(frames.every((frame) => frame.task !== undefined)).toBe(true);
      const serialised = frames.map((frame) => JSON.stringify(frame));
      expect(serialised.every((text, index) => index === 0 || text !== serialised[index - 1])).toBe(true);
      expect(frames.length).toBeGreaterThanOrEqual(2);
    }
  });

  it('ends FAILED with the status message', async () => {
    const result = await runRemoteTurn(client, { message: userMessage('::fail') }, { stream, pollMs: POLL });
    expect(result.task?.status.state).toBe('TASK_STATE_FAILED');
    expect(textOf(result.task?.status.message)).toBe('echo failed as the test directive asked');
    expect(result.artifacts).toEqual([]);
  });

  it('stops at INPUT_REQUIRED and continues the same task with its taskId', async () => {
    const first = await runRemoteTurn(client, { message: userMessage('::input-required') }, { stream, pollMs: POLL });
    expect(first.task?.status.state).toBe('TASK_STATE_INPUT_REQUIRED');
    const taskId = first.task?.id ?? '';
    const contextId = first.task?.contextId ?? '';
    const second = await runRemoteTurn(client, { message: userMessage('more', { taskId, contextId }) }, { stream, pollMs: POLL });
    expect(second.task?.id).toBe(taskId);
    expect(second.task?.status.state).toBe('TASK_STATE_COMPLETED');
    expect(textOf(second.artifacts[0])).toBe('echo: more');
  });

  it('stops at AUTH_REQUIRED and continues after it', async () => {
    const first = await runRemoteTurn(client, { message: userMessage('::auth-required') }, { stream, pollMs: POLL });
    expect(first.task?.status.state).toBe('TASK_STATE_AUTH_REQUIRED');
    const taskId = first.task?.id ?? '';
    const second = await runRemoteTurn(client, { message: userMessage('authorised', { taskId }) }, { stream, pollMs: POLL });
    expect(second.task?.status.state).toBe('TASK_STATE_COMPLETED');
    expect(textOf(second.artifacts[0])).toBe('echo: authorised');
  });

  it('returns a direct Message answer as { message }', async () => {
    const frames: StreamResponse[] = [];
    const result = await runRemoteTurn(
      client,
      { message: userMessage('hi\n::message') },
      { stream, pollMs: POLL, onFrame: (frame) => frames.push(frame) },
    );
    expect(result.task).toBeUndefined();
    expect(textOf(result.message)).toBe('echo: hi');
    expect(result.artifacts).toEqual([]);
    expect(frames).toHaveLength(1);
    expect(frames[0]?.message?.role).toBe('ROLE_AGENT');
  });

  it('on abort cancels the remote task and rejects with the reason', async () => {
    const controller = new AbortController();
    const reason = new Error('turn aborted');
    let taskId = '';
    const turn = runRemoteTurn(
      client,
      { message: userMessage('::slow 50') },
      {
        stream,
        pollMs: POLL,
        signal: controller.signal,
        onFrame: (frame) => {
          taskId ||= frame.task?.id ?? frame.statusUpdate?.taskId ?? '';
          if (stateOf(frame) === 'TASK_STATE_WORKING') controller.abort(reason);
        },
      },
    );
    await expect(turn).rejects.toBe(reason);
    expect(taskId).not.toBe('');
    expect((await client.getTask({ id: taskId })).status.state).toBe('TASK_STATE_CANCELED');
  });
});

describe('runRemoteTurn against scripted remotes', () => {
  it('poll mode: a remote that ignores returnImmediately answers once, done', async () => {
    const fake = await fakeAgent((call, res) => reply(res, call, { task: taskFrame('TASK_STATE_COMPLETED', 'at once').task }));
    try {
      const remote = await A2AClient.connect(fake.url);
      const result = await runRemoteTurn(remote, { message: userMessage('hi') }, { stream: false });
      expect(fake.methods()).toEqual(['SendMessage']);
      expect(fake.calls[0]?.params['configuration']).toEqual({ returnImmediately: true });
      expect(result.task?.status.state).toBe('TASK_STATE_COMPLETED');
      expect(textOf(result.artifacts[0])).toBe('at once');
    } finally {
      await fake.close();
    }
  });

  it('stream mode: a stream that ends early without resume is finished by polling', async () => {
    const fake = await fakeAgent((call, res) => {
      if (call.method === 'SendStreamingMessage') {
        openSse(res, call, [
          { id: '1', result: taskFrame('TASK_STATE_SUBMITTED') },
          { id: '2', result: statusFrame('TASK_STATE_WORKING') },
        ]);
        res.end();
        return;
      }
      reply(res, call, taskFrame('TASK_STATE_COMPLETED', 'polled').task);
    });
    try {
      const remote = await A2AClient.connect(fake.url, { resume: false });
      const frames: StreamResponse[] = [];
      const result = await runRemoteTurn(
        remote,
        { message: userMessage('hi') },
        { stream: true, pollMs: POLL, onFrame: (frame) => frames.push(frame) },
      );
      expect(fake.methods()).toEqual(['SendStreamingMessage', 'GetTask']);
      expect(fake.calls[1]?.params).toEqual({ id: TASK_ID });
      expect(result.task?.status.state).toBe('TASK_STATE_COMPLETED');
      expect(textOf(result.artifacts[0])).toBe('polled');
      expect(frames.map(stateOf)).toEqual(['TASK_STATE_SUBMITTED', 'TASK_STATE_WORKING', 'TASK_STATE_COMPLETED']);
    } finally {
      await fake.close();
    }
  });

  it('stream mode: a continuation whose stream drops and resumes on the same stale INPUT_REQUIRED snapshot runs to the end', async () => {
    const stale = taskFrame('TASK_STATE_INPUT_REQUIRED');
    const fake = await fakeAgent((call, res) => {
      if (call.method === 'SendStreamingMessage') {
        openSse(res, call, [{ id: '4', result: stale }]);
        dropLater(res);
        return;
      }
      // The agent had not read the message yet when the resumed snapshot was taken.
      openSse(res, call, [
        { id: '4', result: stale },
        { id: '5', result: statusFrame('TASK_STATE_WORKING') },
        { id: '6', result: statusFrame('TASK_STATE_COMPLETED') },
      ]);
      res.end();
    });
    try {
      const remote = await A2AClient.connect(fake.url, { retryBaseMs: 5 });
      const result = await runRemoteTurn(
        remote,
        { message: userMessage('the answer', { taskId: TASK_ID }) },
        { stream: true, pollMs: POLL },
      );
      expect(fake.methods()).toEqual(['SendStreamingMessage', 'SubscribeToTask']);
      expect(result.task?.status.state).toBe('TASK_STATE_COMPLETED');
    } finally {
      await fake.close();
    }
  });

  it('poll mode: a continuation whose first answer still shows the old INPUT_REQUIRED keeps polling', async () => {
    const stale = taskFrame('TASK_STATE_INPUT_REQUIRED', 'what next?').task;
    const fake = await fakeAgent((call, res, index) => {
      if (call.method === 'SendMessage') {
        reply(res, call, { task: stale });
        return;
      }
      // GetTask: the old state twice more, then the agent has read the message.
      reply(res, call, index >= 3 ? taskFrame('TASK_STATE_COMPLETED', 'done').task : stale);
    });
    try {
      const remote = await A2AClient.connect(fake.url);
      const result = await runRemoteTurn(
        remote,
        { message: userMessage('the answer', { taskId: TASK_ID }) },
        { stream: false, pollMs: { min: 5, max: 10 } },
      );
      expect(result.task?.status.state).toBe('TASK_STATE_COMPLETED');
      expect(fake.methods().filter((method) => method === 'GetTask')).toHaveLength(3);
    } finally {
      await fake.close();
    }
  });

  it('poll mode: the interval grows while nothing changes and stays within pollMs', async () => {
    const polls: number[] = [];
    const fake = await fakeAgent((call, res, index) => {
      if (call.method === 'SendMessage') {
        reply(res, call, { task: taskFrame('TASK_STATE_WORKING').task });
        return;
      }
      polls.push(Date.now());
      reply(res, call, taskFrame(index >= 6 ? 'TASK_STATE_COMPLETED' : 'TASK_STATE_WORKING').task);
    });
    try {
      const remote = await A2AClient.connect(fake.url);
      const frames: StreamResponse[] = [];
      const result = await runRemoteTurn(
        remote,
        { message: userMessage('hi') },
        { stream: false, pollMs: { min: 20, max: 80 }, onFrame: (frame) => frames.push(frame) },
      );
      expect(result.task?.status.state).toBe('TASK_STATE_COMPLETED');
      expect(polls).toHaveLength(6);
      expect(frames.map(stateOf)).toEqual(['TASK_STATE_WORKING', 'TASK_STATE_COMPLETED']);
      const gaps = polls.slice(1).map((time, index) => time - (polls[index] ?? time));
      // Gaps of 40, 80, 80, …: they rise from the minimum, then hold at the maximum.
      expect(gaps[0]).toBeLessThan(gaps[2] ?? 0);
      expect(Math.max(...gaps)).toBeLessThan(80 + 60);
    } finally {
      await fake.close();
    }
  });
});
