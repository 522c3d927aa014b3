import { randomUUID } from 'node:crypto';
import { createServer, connect, type Server, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { StreamResponse } from '../../generated/a2a/1.0/types.js';
import { A2AClient, A2ATransportError, assembleArtifacts, textOf, type StreamEvent } from '../../src/client/a2a-client.js';
import { followTaskStream, type TaskStreamSource } from '../../src/client/task-stream.js';
import { A2AError, a2aError } from '../../src/protocol/a2a-error.js';
import { errorResponse } from '../../src/protocol/jsonrpc.js';
import { startTestHub, type TestHub } from '../helpers/hub.js';
import { until } from '../helpers/wait.js';
import {
  TASK_ID,
  chunkFrame,
  dropLater,
  openSse,
  reply,
  replyError,
  statusFrame,
  taskFrame,
  withFake,
  type RpcHandler,
  type SseFrame,
} from './fake-agent.js';

const message = { messageId: 'm-1', role: 'ROLE_USER' as const, parts: [{ text: 'hi' }] };

async function collect(frames: AsyncIterable<StreamResponse>): Promise<StreamResponse[]> {
  const out: StreamResponse[] = [];
  for await (const frame of frames) out.push(frame);
  return out;
}

function chunkTexts(frames: readonly StreamResponse[]): string[] {
  return frames.filter((frame) => frame.artifactUpdate !== undefined).map((frame) => textOf(frame.artifactUpdate?.artifact));
}

/**
 * A scripted agent whose first stream writes `first` and then loses its connection; every later
 * request (the resume) gets `resumed`, then the end of the stream unless `keepOpen`.
 */
function dropThenResume(first: readonly SseFrame[], resumed: readonly SseFrame[], options: { keepOpen?: boolean } = {}): RpcHandler {
  return (call, res, index) => {
    if (index === 0) {
      openSse(res, call, first);
      dropLater(res);
      return;
    }
    openSse(res, call, resumed);
    if (options.keepOpen !== true) res.end();
  };
}

describe('resuming a dropped stream (scripted agent)', () => {
  it('re-subscribes with Last-Event-ID after a broken connection and yields every chunk exactly once', async () => {
    await withFake(
      dropThenResume(
        [
          { id: '1', result: taskFrame('TASK_STATE_SUBMITTED') },
          { id: '2', result: statusFrame('TASK_STATE_WORKING') },
          { id: '3', result: chunkFrame('one ', false) },
        ],
        // What a server may legitimately do: a fresh snapshot, then replay from the id (the
        // chunk with id 3 again), then the rest.
        [
          { id: '3', result: taskFrame('TASK_STATE_WORKING', 'one ') },
          { id: '3', result: chunkFrame('one ', false) },
          { id: '4', result: chunkFrame('two ', true) },
          { id: '5', result: chunkFrame('three', true, true) },
          { id: '6', result: statusFrame('TASK_STATE_COMPLETED') },
        ],
      ),
      async (fake) => {
        const client = await A2AClient.connect(fake.url, { retryBaseMs: 5 });
        const frames = await collect(client.sendStreamingMessage({ message }));
        expect(fake.methods()).toEqual(['SendStreamingMessage', 'SubscribeToTask']);
        expect(fake.calls[1]?.params).toEqual({ id: TASK_ID });
        expect(fake.calls[1]?.headers['last-event-id']).toBe('3');
        expect(chunkTexts(frames)).toEqual(['one ', 'two ', 'three']);
        expect(frames.filter((frame) => frame.task !== undefined).map((frame) => frame.task?.status.state)).toEqual([
          'TASK_STATE_SUBMITTED',
          'TASK_STATE_WORKING',
        ]);
        expect(textOf(assembleArtifacts(frames)[0])).toBe('one two three');
        expect(frames.at(-1)?.statusUpdate?.status.state).toBe('TASK_STATE_COMPLETED');
        expect(frames).toHaveLength(7);
      },
    );
  });

  it('re-subscribes with Last-Event-ID when the agent ends a stream with StreamOverrunError (a reader too slow)', async () => {
    await withFake(
      (call, res) => {
        if (call.method === 'SendStreamingMessage') {
          openSse(res, call, [
            { id: '1', result: taskFrame('TASK_STATE_SUBMITTED') },
            { id: '2', result: statusFrame('TASK_STATE_WORKING') },
          ]);
          // What the hub writes when it cuts a slow reader off: the error event, with the id to resume from.
          const overrun = errorResponse(call.id as string | number, a2aError('StreamOverrunError', 'read too slowly; resume'));
          res.end(`id: 2\ndata: ${JSON.stringify(overrun)}\n\n`);
          return;
        }
        openSse(res, call, [
          { id: '2', result: taskFrame('TASK_STATE_WORKING') },
          { id: '3', result: statusFrame('TASK_STATE_COMPLETED') },
        ]);
        res.end();
      },
      async (fake) => {
        const client = await A2AClient.connect(fake.url, { retryBaseMs: 5 });
        const frames = await collect(client.sendStreamingMessage({ message }));
        expect(fake.methods()).toEqual(['SendStreamingMessage', 'SubscribeToTask']);
        expect(fake.calls[1]?.headers['last-event-id']).toBe('2');
        expect(frames.at(-1)?.statusUpdate?.status.state).toBe('TASK_STATE_COMPLETED');
      },
    );
  });

  it('re-subscribes when the stream ends cleanly before a final state', async () => {
    await withFake(
      (call, res) => {
        if (call.method === 'SendStreamingMessage') {
          openSse(res, call, [
            { id: '1', result: taskFrame('TASK_STATE_SUBMITTED') },
            { id: '2', result: statusFrame('TASK_STATE_WORKING') },
          ]);
          res.end();
          return;
        }
        openSse(res, call, [
          { id: '2', result: taskFrame('TASK_STATE_WORKING') },
          { id: '3', result: statusFrame('TASK_STATE_INPUT_REQUIRED') },
        ]);
        res.end();
      },
      async (fake) => {
        const client = await A2AClient.connect(fake.url, { retryBaseMs: 5 });
        const frames = await collect(client.sendStreamingMessage({ message }));
        expect(fake.methods()).toEqual(['SendStreamingMessage', 'SubscribeToTask']);
        expect(fake.calls[1]?.headers['last-event-id']).toBe('2');
        expect(frames.map((frame) => frame.task?.status.state ?? frame.statusUpdate?.status.state)).toEqual([
          'TASK_STATE_SUBMITTED',
          'TASK_STATE_WORKING',
          'TASK_STATE_WORKING',
          'TASK_STATE_INPUT_REQUIRED',
        ]);
      },
    );
  });

  it('falls back to GetTask when the task became terminal while the stream was down', async () => {
    await withFake(
      (call, res) => {
        if (call.method === 'SendStreamingMessage') {
          openSse(res, call, [{ id: '1', result: taskFrame('TASK_STATE_WORKING') }]);
          dropLater(res);
        } else if (call.method === 'SubscribeToTask') {
          replyError(res, call, -32004, 'task t1 is already TASK_STATE_COMPLETED');
        } else {
          reply(res, call, taskFrame('TASK_STATE_COMPLETED', 'all of it').task);
        }
      },
      async (fake) => {
        const client = await A2AClient.connect(fake.url, { retryBaseMs: 5 });
        const frames = await collect(client.sendStreamingMessage({ message }));
        expect(fake.methods()).toEqual(['SendStreamingMessage', 'SubscribeToTask', 'GetTask']);
        expect(fake.calls[2]?.params).toEqual({ id: TASK_ID });
        expect(frames).toHaveLength(2);
        expect(frames[1]?.task?.status.state).toBe('TASK_STATE_COMPLETED');
        expect(textOf(assembleArtifacts(frames)[0])).toBe('all of it');
      },
    );
  });

  it('does not resume when resume is off', async () => {
    await withFake(
      (call, res) => {
        openSse(res, call, [{ id: '1', result: taskFrame('TASK_STATE_WORKING') }]);
        dropLater(res);
      },
      async (fake) => {
        const client = await A2AClient.connect(fake.url, { resume: false });
        const error = await collect(client.sendStreamingMessage({ message })).catch((caught: unknown) => caught);
        expect(error).toBeInstanceOf(A2ATransportError);
        expect((error as Error).message).toMatch(/SendStreamingMessage: the stream broke/);
        expect(fake.methods()).toEqual(['SendStreamingMessage']);
      },
    );
  });

  it('gives up after the configured attempts bring nothing new', async () => {
    await withFake(
      (call, res) => {
        if (call.method === 'SendStreamingMessage') {
          openSse(res, call, [{ id: '1', result: taskFrame('TASK_STATE_WORKING') }]);
          dropLater(res);
          return;
        }
        res.writeHead(503, { 'content-type': 'text/plain' }).end('busy');
      },
      async (fake) => {
        const client = await A2AClient.connect(fake.url, { retries: 0, retryBaseMs: 5, resume: { attempts: 2 } });
        const frames: StreamResponse[] = [];
        const error = await (async () => {
          for await (const frame of client.sendStreamingMessage({ message })) frames.push(frame);
        })().catch((caught: unknown) => caught);
        expect(error).toBeInstanceOf(A2ATransportError);
        expect((error as Error).message).toBe(
          'the stream of task t1 ended before a final state and 2 attempts to resume it brought nothing new',
        );
        expect(fake.methods()).toEqual(['SendStreamingMessage', 'SubscribeToTask', 'SubscribeToTask']);
        expect(frames).toHaveLength(1);
      },
    );
  });

  it('does not resume after an answer that says no (TaskNotFound) or a non-conforming frame', async () => {
    await withFake(
      (call, res) => {
        if (call.method === 'SendStreamingMessage') {
          openSse(res, call, [{ id: '1', result: taskFrame('TASK_STATE_WORKING') }]);
          dropLater(res);
          return;
        }
        replyError(res, call, -32001, 'task t1 is gone');
      },
      async (fake) => {
        const client = await A2AClient.connect(fake.url, { retryBaseMs: 5 });
        const error = await collect(client.sendStreamingMessage({ message })).catch((caught: unknown) => caught);
        expect((error as A2AError).name).toBe('TaskNotFoundError');
        expect(fake.methods()).toEqual(['SendStreamingMessage', 'SubscribeToTask']);
      },
    );
    await withFake(
      (call, res) => {
        openSse(res, call, [
          { id: '1', result: taskFrame('TASK_STATE_WORKING') },
          { id: '2', result: { statusUpdate: { taskId: TASK_ID, contextId: 'c1', status: { state: 'working' } } } },
        ]);
        res.end();
      },
      async (fake) => {
        const client = await A2AClient.connect(fake.url, { retryBaseMs: 5 });
        const error = await collect(client.sendStreamingMessage({ message })).catch((caught: unknown) => caught);
        expect(error).toBeInstanceOf(A2AError);
        expect((error as A2AError).name).toBe('InvalidAgentResponseError');
        expect((error as A2AError).violations[0]?.field).toMatch(/^result\.statusUpdate\.status\.state/);
        expect(fake.methods()).toEqual(['SendStreamingMessage']);
      },
    );
  });

  it('retries a 503 when opening a stream, and only that', async () => {
    await withFake(
      (call, res, index) => {
        if (index === 0) {
          res.writeHead(503).end();
          return;
        }
        openSse(res, call, [
          { id: '1', result: taskFrame('TASK_STATE_WORKING') },
          { id: '2', result: statusFrame('TASK_STATE_COMPLETED') },
        ]);
        res.end();
      },
      async (fake) => {
        const client = await A2AClient.connect(fake.url, { retries: 1, retryBaseMs: 5 });
        const frames = await collect(client.sendStreamingMessage({ message }));
        expect(fake.methods()).toEqual(['SendStreamingMessage', 'SendStreamingMessage']);
        expect(frames.at(-1)?.statusUpdate?.status.state).toBe('TASK_STATE_COMPLETED');
      },
    );
  });

  it('continuing an interrupted task, a stale INPUT_REQUIRED snapshot does not end the stream', async () => {
    await withFake(
      dropThenResume(
        // The snapshot still shows the state from before the message, then the line drops.
        [{ id: '4', result: taskFrame('TASK_STATE_INPUT_REQUIRED') }],
        [
          { id: '5', result: taskFrame('TASK_STATE_WORKING') },
          { id: '6', result: statusFrame('TASK_STATE_COMPLETED') },
        ],
      ),
      async (fake) => {
        const client = await A2AClient.connect(fake.url, { retryBaseMs: 5 });
        const frames = await collect(client.sendStreamingMessage({ message: { ...message, taskId: TASK_ID } }));
        expect(fake.methods()).toEqual(['SendStreamingMessage', 'SubscribeToTask']);
        expect(frames.map((frame) => frame.task?.status.state ?? frame.statusUpdate?.status.state)).toEqual([
          'TASK_STATE_INPUT_REQUIRED',
          'TASK_STATE_WORKING',
          'TASK_STATE_COMPLETED',
        ]);
      },
    );
  });

  it('a resumed stream whose snapshot is interrupted ends there, even if the server keeps it open', async () => {
    await withFake(
      dropThenResume(
        [
          { id: '1', result: taskFrame('TASK_STATE_SUBMITTED') },
          { id: '2', result: statusFrame('TASK_STATE_WORKING') },
        ],
        // The task stopped for input while we were away; like @a2a-js/sdk, this server never ends the stream.
        [
          { id: '4', result: taskFrame('TASK_STATE_INPUT_REQUIRED') },
          { id: '3', result: statusFrame('TASK_STATE_WORKING') },
          { id: '4', result: statusFrame('TASK_STATE_INPUT_REQUIRED') },
        ],
        { keepOpen: true },
      ),
      async (fake) => {
        const client = await A2AClient.connect(fake.url, { retryBaseMs: 5 });
        const frames = await collect(client.sendStreamingMessage({ message }));
        expect(fake.methods()).toEqual(['SendStreamingMessage', 'SubscribeToTask']);
        expect(frames.at(-1)?.task?.status.state).toBe('TASK_STATE_INPUT_REQUIRED');
      },
    );
  });

  it('continuing an interrupted task, a resumed snapshot that is still the stale one does not end the stream', async () => {
    await withFake(
      dropThenResume(
        [{ id: '4', result: taskFrame('TASK_STATE_INPUT_REQUIRED') }],
        // Nothing was logged since: the snapshot still shows the state from before the message.
        [
          { id: '4', result: taskFrame('TASK_STATE_INPUT_REQUIRED') },
          { id: '5', result: statusFrame('TASK_STATE_WORKING') },
          { id: '6', result: statusFrame('TASK_STATE_COMPLETED') },
        ],
      ),
      async (fake) => {
        const client = await A2AClient.connect(fake.url, { retryBaseMs: 5 });
        const frames = await collect(client.sendStreamingMessage({ message: { ...message, taskId: TASK_ID } }));
        expect(fake.calls[1]?.headers['last-event-id']).toBe('4');
        expect(frames.at(-1)?.statusUpdate?.status.state).toBe('TASK_STATE_COMPLETED');
      },
    );
  });

  it('status frames replayed after a resumed snapshot are older than it and do not settle the stream', async () => {
    await withFake(
      (call, res, index) => {
        if (index === 0) {
          openSse(res, call, [
            { id: '1', result: taskFrame('TASK_STATE_WORKING') },
            { id: '2', result: statusFrame('TASK_STATE_WORKING') },
          ]);
          dropLater(res);
          return;
        }
        if (index === 1) {
          // INPUT_REQUIRED ended an earlier turn; the snapshot shows the task working again.
          openSse(res, call, [
            { id: '6', result: taskFrame('TASK_STATE_WORKING') },
            { id: '4', result: statusFrame('TASK_STATE_INPUT_REQUIRED') },
          ]);
          dropLater(res);
          return;
        }
        openSse(res, call, [
          { id: '7', result: taskFrame('TASK_STATE_WORKING') },
          { id: '8', result: statusFrame('TASK_STATE_COMPLETED') },
        ]);
        res.end();
      },
      async (fake) => {
        const client = await A2AClient.connect(fake.url, { retryBaseMs: 5 });
        const frames = await collect(client.sendStreamingMessage({ message }));
        expect(fake.methods()).toEqual(['SendStreamingMessage', 'SubscribeToTask', 'SubscribeToTask']);
        expect(frames.at(-1)?.statusUpdate?.status.state).toBe('TASK_STATE_COMPLETED');
      },
    );
  });

  it("subscribeToTask resumes too, starting from the caller's lastEventId", async () => {
    await withFake(
      dropThenResume(
        [
          { id: '7', result: taskFrame('TASK_STATE_WORKING') },
          { id: '8', result: chunkFrame('a', false) },
        ],
        [
          { id: '8', result: taskFrame('TASK_STATE_WORKING', 'a') },
          { id: '9', result: chunkFrame('b', true, true) },
          { id: '10', result: statusFrame('TASK_STATE_COMPLETED') },
        ],
      ),
      async (fake) => {
        const client = await A2AClient.connect(fake.url, { retryBaseMs: 5 });
        const events: StreamEvent[] = [];
        for await (const event of client.subscribeToTask({ id: TASK_ID }, { lastEventId: '6' })) events.push(event);
        expect(fake.calls.map((call) => call.headers['last-event-id'])).toEqual(['6', '8']);
        expect(events.map((event) => event.id)).toEqual(['7', '8', '8', '9', '10']);
        expect(textOf(assembleArtifacts(events)[0])).toBe('ab');
      },
    );
  });
});

describe('resuming after the server cut off a slow reader', () => {
  /** A source whose first stream ends with `failure` after one frame; the resubscription completes the task. */
  function source(failure: Error) {
    const resubscribed: (string | undefined)[] = [];
    const taskStreamSource: TaskStreamSource = {
      async *open() {
        yield { id: '1', frame: taskFrame('TASK_STATE_WORKING') };
        await Promise.resolve();
        throw failure;
      },
      async *resubscribe(_taskId, lastEventId) {
        resubscribed.push(lastEventId);
        await Promise.resolve();
        yield { id: '1', frame: taskFrame('TASK_STATE_WORKING') };
        yield { id: '2', frame: statusFrame('TASK_STATE_COMPLETED') };
      },
      getTask: () => Promise.reject(new Error('not expected')),
      cancel: () => Promise.resolve(),
    };
    return { taskStreamSource, resubscribed };
  }
  const options = { resumeAttempts: 3, retryBaseMs: 1, cancelOnAbort: false };

  it('resumes with Last-Event-ID on StreamOverrunError, as on a dropped connection', async () => {
    const { taskStreamSource, resubscribed } = source(a2aError('StreamOverrunError', 'read too slowly'));
    const events: StreamEvent[] = [];
    for await (const event of followTaskStream(taskStreamSource, options)) events.push(event);
    expect(resubscribed).toEqual(['1']);
    expect(events.at(-1)?.frame.statusUpdate?.status.state).toBe('TASK_STATE_COMPLETED');
  });

  it('does not resume on another A2A error', async () => {
    const { taskStreamSource, resubscribed } = source(a2aError('InternalError', 'something else'));
    const error = await (async () => {
      for await (const event of followTaskStream(taskStreamSource, options)) expect(event.id).toBe('1');
    })().catch((caught: unknown) => caught);
    expect((error as A2AError).name).toBe('InternalError');
    expect(resubscribed).toEqual([]);
  });
});

/**
 * A TCP proxy to the hub that cuts the first SendStreamingMessage response once `marker` has
 * gone through, the way a flaky network or a restarting load balancer would.
 */
async function cuttingProxy(
  targetPort: number,
  marker: string,
  /** Connections made after the cut wait for this before they reach the hub. */
  afterCut: () => Promise<void> = () => Promise.resolve(),
): Promise<{ url: string; cuts: () => number; requests: string[]; close(): Promise<void> }> {
  let cuts = 0;
  const requests: string[] = [];
  const sockets = new Set<Socket>();
  const server: Server = createServer((client) => {
    const upstream = connect(targetPort, '127.0.0.1');
    /** Keeps what the client sends in order while later requests wait for `afterCut`. */
    let forwarding = Promise.resolve();
    sockets.add(client).add(upstream);
    let armed = false;
    let seen = '';
    let cutting = false;
    client.on('data', (data: Buffer) => {
      const text = data.toString();
      requests.push(text);
      if (cuts === 0 && text.includes('"SendStreamingMessage"')) armed = true;
      const held = cuts > 0;
      forwarding = forwarding.then(held ? afterCut : undefined).then(() => void upstream.write(data), close);
    });
    upstream.on('data', (data: Buffer) => {
      if (cutting) return;
      if (armed) seen += data.toString();
      if (armed && cuts === 0 && seen.includes(marker)) {
        cuts += 1;
        cutting = true;
        client.write(data, () => {
          client.destroy();
          upstream.destroy();
        });
        return;
      }
      client.write(data);
    });
    function close(): void {
      client.destroy();
      upstream.destroy();
    }
    client.on('close', close).on('error', close);
    upstream.on('close', close).on('error', close);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    cuts: () => cuts,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

describe('resuming against the hub', () => {
  let hub: TestHub;
  beforeAll(async () => {
    hub = await startTestHub();
  });
  afterAll(async () => {
    await hub.dispose();
  });

  it('a stream cut mid-task resumes: every status once, the artifact whole', async () => {
    const proxy = await cuttingProxy(Number(new URL(hub.url).port), 'step 1 of 4');
    try {
      const client = await A2AClient.connect(proxy.url, { retryBaseMs: 10 });
      const frames = await collect(
        client.sendStreamingMessage({
          message: { messageId: randomUUID(), role: 'ROLE_USER', parts: [{ text: 'resume me\n::slow 4\n::chunks 3' }] },
        }),
      );
      expect(proxy.cuts()).toBe(1);
      expect(proxy.requests.some((request) => request.includes('"SubscribeToTask"') && /last-event-id: \d+/i.test(request))).toBe(true);
      const steps = frames.map((frame) => textOf(frame.statusUpdate?.status.message)).filter((text) => text.startsWith('step'));
      expect(steps).toEqual(['step 1 of 4', 'step 2 of 4', 'step 3 of 4', 'step 4 of 4']);
      expect(chunkTexts(frames).join('')).toBe('echo: resume me');
      expect(textOf(assembleArtifacts(frames)[0])).toBe('echo: resume me');
      expect(frames.at(-2)?.statusUpdate?.status.state).toBe('TASK_STATE_COMPLETED');
      expect(frames.at(-1)?.task?.status.state).toBe('TASK_STATE_COMPLETED');
    } finally {
      await proxy.close();
    }
  });

  it('a stream cut before the task stops for input ends with INPUT_REQUIRED once resumed', async () => {
    let taskId: string | undefined;
    const direct = await A2AClient.connect(hub.url);
    // The resume reaches the hub only after the task is waiting for input.
    const proxy = await cuttingProxy(Number(new URL(hub.url).port), 'step 1 of 3', () =>
      until(
        async () => taskId !== undefined && (await direct.getTask({ id: taskId })).status.state === 'TASK_STATE_INPUT_REQUIRED',
        'the task to wait for input',
      ),
    );
    try {
      const client = await A2AClient.connect(proxy.url, { retryBaseMs: 10 });
      const frames: StreamResponse[] = [];
      for await (const frame of client.sendStreamingMessage({
        message: { messageId: randomUUID(), role: 'ROLE_USER', parts: [{ text: 'ask me\n::slow 3\n::input-required' }] },
      })) {
        taskId ??= frame.task?.id;
        frames.push(frame);
      }
      expect(proxy.cuts()).toBe(1);
      expect(proxy.requests.some((request) => request.includes('"SubscribeToTask"') && /last-event-id: \d+/i.test(request))).toBe(true);
      expect(frames.at(-1)?.task?.status.state ?? frames.at(-1)?.statusUpdate?.status.state).toBe('TASK_STATE_INPUT_REQUIRED');
    } finally {
      await proxy.close();
    }
  });
});
