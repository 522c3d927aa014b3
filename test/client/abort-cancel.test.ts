import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Message, StreamResponse } from '../../generated/a2a/1.0/types.js';
import { A2AClient, type StreamEvent } from '../../src/client/a2a-client.js';
import type { A2AError } from '../../src/protocol/a2a-error.js';
import { startTestHub, type TestHub } from '../helpers/hub.js';
import { TASK_ID, openSse, reply, replyError, statusFrame, taskFrame, withFake } from './fake-agent.js';

function userMessage(text: string): Message {
  return { messageId: randomUUID(), role: 'ROLE_USER', parts: [{ text }] };
}

/** Reads `frames` until `abortWhen` says so, aborts with `reason`, and returns what the loop threw. */
async function abortDuring<T>(
  frames: (signal: AbortSignal) => AsyncIterable<T>,
  abortWhen: (item: T) => boolean,
  reason: Error,
): Promise<{ seen: T[]; thrown: unknown }> {
  const controller = new AbortController();
  const seen: T[] = [];
  try {
    for await (const item of frames(controller.signal)) {
      seen.push(item);
      if (abortWhen(item)) controller.abort(reason);
    }
  } catch (error) {
    return { seen, thrown: error };
  }
  return { seen, thrown: undefined };
}

function taskIdOf(frame: StreamResponse | undefined): string | undefined {
  return frame?.task?.id ?? frame?.statusUpdate?.taskId ?? frame?.artifactUpdate?.taskId;
}

describe('a local abort cancels the remote task (hub)', () => {
  let hub: TestHub;
  beforeAll(async () => {
    hub = await startTestHub();
  });
  afterAll(async () => {
    await hub.dispose();
  });

  it('aborting sendStreamingMessage during ::slow cancels the task, then rethrows the reason', async () => {
    const client = await A2AClient.connect(hub.url);
    const reason = new Error('user gave up');
    const { seen, thrown } = await abortDuring(
      (signal) => client.sendStreamingMessage({ message: userMessage('::slow 50') }, { signal }),
      (frame) => textOf(frame) === 'step 1 of 50',
      reason,
    );
    expect(thrown).toBe(reason);
    const taskId = taskIdOf(seen[0]) ?? '';
    expect(taskId).not.toBe('');
    const task = await client.getTask({ id: taskId });
    expect(task.status.state).toBe('TASK_STATE_CANCELED');
  });

  it('aborting subscribeToTask cancels the task it follows', async () => {
    const client = await A2AClient.connect(hub.url);
    const sent = await client.sendMessage({ message: userMessage('::slow 50'), configuration: { returnImmediately: true } });
    const taskId = sent.task?.id ?? '';
    const reason = new Error('stop following');
    const { thrown } = await abortDuring(
      (signal) => client.subscribeToTask({ id: taskId }, { signal }),
      (event: StreamEvent) => event.frame.task !== undefined,
      reason,
    );
    expect(thrown).toBe(reason);
    expect((await client.getTask({ id: taskId })).status.state).toBe('TASK_STATE_CANCELED');
  });

  it('leaves the task running with cancelOnAbort: false', async () => {
    const client = await A2AClient.connect(hub.url);
    const sent = await client.sendMessage({ message: userMessage('::slow 50'), configuration: { returnImmediately: true } });
    const taskId = sent.task?.id ?? '';
    const { thrown } = await abortDuring(
      (signal) => client.subscribeToTask({ id: taskId }, { signal, cancelOnAbort: false }),
      (event: StreamEvent) => event.frame.task !== undefined,
      new Error('just watching'),
    );
    expect((thrown as Error).message).toBe('just watching');
    expect((await client.getTask({ id: taskId })).status.state).toBe('TASK_STATE_WORKING');
    expect((await client.cancelTask({ id: taskId })).status.state).toBe('TASK_STATE_CANCELED');
  });
});

function textOf(frame: StreamResponse): string {
  return (frame.statusUpdate?.status.message?.parts ?? []).map((part) => part.text ?? '').join('');
}

describe('abort → CancelTask edge cases (scripted agent)', () => {
  it('sends no CancelTask when no frame revealed the task id', async () => {
    await withFake(
      () => {
        // Never answers: the abort comes while the client waits for headers.
      },
      async (fake) => {
        const client = await A2AClient.connect(fake.url);
        const controller = new AbortController();
        const reason = new Error('too slow');
        setTimeout(() => controller.abort(reason), 50);
        const thrown = await (async () => {
          for await (const frame of client.sendStreamingMessage({ message: userMessage('hi') }, { signal: controller.signal })) void frame;
        })().catch((caught: unknown) => caught);
        expect(thrown).toBe(reason);
        expect(fake.methods()).toEqual(['SendStreamingMessage']);
      },
    );
  });

  it('sends no CancelTask for a task already in a final state', async () => {
    await withFake(
      (call, res) => {
        openSse(res, call, [
          { id: '1', result: taskFrame('TASK_STATE_WORKING') },
          { id: '2', result: statusFrame('TASK_STATE_INPUT_REQUIRED') },
        ]);
      },
      async (fake) => {
        const client = await A2AClient.connect(fake.url);
        const { thrown } = await abortDuring(
          (signal) => client.sendStreamingMessage({ message: userMessage('hi') }, { signal }),
          (frame) => frame.statusUpdate?.status.state === 'TASK_STATE_INPUT_REQUIRED',
          new Error('done anyway'),
        );
        expect((thrown as Error).message).toBe('done anyway');
        expect(fake.methods()).toEqual(['SendStreamingMessage']);
      },
    );
  });

  it('reports a failed CancelTask through onCancelError and still rethrows the abort', async () => {
    await withFake(
      (call, res) => {
        if (call.method === 'CancelTask') {
          replyError(res, call, -32002, 'not cancelable here');
          return;
        }
        openSse(res, call, [{ id: '1', result: taskFrame('TASK_STATE_WORKING') }]);
      },
      async (fake) => {
        const reported: { error: unknown; taskId: string }[] = [];
        const client = await A2AClient.connect(fake.url, { onCancelError: (error, taskId) => reported.push({ error, taskId }) });
        const reason = new Error('abort');
        const { thrown } = await abortDuring(
          (signal) => client.sendStreamingMessage({ message: userMessage('hi') }, { signal }),
          () => true,
          reason,
        );
        expect(thrown).toBe(reason);
        expect(fake.methods()).toEqual(['SendStreamingMessage', 'CancelTask']);
        expect(fake.calls[1]?.params).toEqual({ id: TASK_ID });
        expect(reported).toHaveLength(1);
        expect(reported[0]?.taskId).toBe(TASK_ID);
        expect((reported[0]?.error as A2AError).code).toBe(-32002);
      },
    );
  });

  it('bounds the CancelTask by cancelTimeoutMs, not by the aborted signal', async () => {
    await withFake(
      (call, res) => {
        if (call.method === 'CancelTask') return; // hangs
        openSse(res, call, [{ id: '1', result: taskFrame('TASK_STATE_WORKING') }]);
      },
      async (fake) => {
        const reported: unknown[] = [];
        const client = await A2AClient.connect(fake.url, {
          retries: 0,
          cancelTimeoutMs: 200,
          onCancelError: (error) => reported.push(error),
        });
        const started = Date.now();
        const reason = new Error('abort');
        const { thrown } = await abortDuring(
          (signal) => client.sendStreamingMessage({ message: userMessage('hi') }, { signal }),
          () => true,
          reason,
        );
        const elapsed = Date.now() - started;
        expect(thrown).toBe(reason);
        // The CancelTask was really sent (an aborted signal would have stopped it at once) and then timed out.
        expect(fake.methods()).toEqual(['SendStreamingMessage', 'CancelTask']);
        expect(elapsed).toBeGreaterThanOrEqual(180);
        expect(elapsed).toBeLessThan(5000);
        expect((reported[0] as Error).message).toBe('CancelTask: timed out');
      },
    );
  });

  it('a successful CancelTask is not reported as an error', async () => {
    await withFake(
      (call, res) => {
        if (call.method === 'CancelTask') {
          reply(res, call, taskFrame('TASK_STATE_CANCELED').task);
          return;
        }
        openSse(res, call, [{ id: '1', result: taskFrame('TASK_STATE_WORKING') }]);
      },
      async (fake) => {
        const reported: unknown[] = [];
        const client = await A2AClient.connect(fake.url, { onCancelError: (error) => reported.push(error) });
        const { thrown } = await abortDuring(
          (signal) => client.sendStreamingMessage({ message: userMessage('hi') }, { signal }),
          () => true,
          new Error('abort'),
        );
        expect((thrown as Error).message).toBe('abort');
        expect(fake.methods()).toEqual(['SendStreamingMessage', 'CancelTask']);
        expect(reported).toEqual([]);
      },
    );
  });
});
