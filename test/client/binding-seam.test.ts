import { describe, expect, it } from 'vitest';
import type { MethodName, MethodTypes } from '../../generated/a2a/1.0/methods.js';
import type { Message, StreamResponse } from '../../generated/a2a/1.0/types.js';
import { A2AClient, A2ATransportError, type ClientBinding, type StreamEvent, type StreamingMethod } from '../../src/client/a2a-client.js';
import type { BindingCallOptions, BindingStreamOptions } from '../../src/client/binding.js';
import { TASK_ID, chunkFrame, fakeCard, statusFrame, taskFrame } from './fake-agent.js';

/**
 * A2AClient over a binding that is not JSON-RPC: the client must need nothing but method names
 * and typed params, so that another binding (HTTP+JSON) slots in without touching it.
 */

interface Seen {
  readonly method: MethodName;
  readonly params: unknown;
  readonly options: BindingCallOptions | BindingStreamOptions | undefined;
}

type Script = (
  method: StreamingMethod,
  params: unknown,
  options: BindingStreamOptions | undefined,
  index: number,
) => Iterable<StreamEvent> | AsyncIterable<StreamEvent>;

class ScriptedBinding implements ClientBinding {
  readonly endpoint = 'scripted://agent';
  readonly protocolBinding = 'SCRIPTED';
  readonly seen: Seen[] = [];
  private streams = 0;

  constructor(
    private readonly answer: (method: MethodName, params: unknown) => unknown,
    private readonly script: Script = () => [],
  ) {}

  call<M extends MethodName>(method: M, params: MethodTypes[M]['params'], options?: BindingCallOptions): Promise<MethodTypes[M]['result']> {
    this.seen.push({ method, params, options });
    return Promise.resolve(this.answer(method, params) as MethodTypes[M]['result']);
  }

  stream<M extends StreamingMethod>(
    method: M,
    params: MethodTypes[M]['params'],
    options?: BindingStreamOptions,
  ): AsyncIterable<StreamEvent> {
    this.seen.push({ method, params, options });
    return pulled(this.script(method, params, options, this.streams++));
  }
}

async function* pulled(events: Iterable<StreamEvent> | AsyncIterable<StreamEvent>): AsyncGenerator<StreamEvent, void, undefined> {
  for await (const event of events) yield event;
}

const message: Message = { messageId: 'm1', role: 'ROLE_USER', parts: [{ text: 'hi' }] };

function clientOver(binding: ClientBinding): A2AClient {
  return new A2AClient(fakeCard(binding.endpoint), 'scripted://agent/card', binding, { retryBaseMs: 1 });
}

describe('A2AClient over a ClientBinding', () => {
  it('hands unary methods to the binding by name with typed params and the caller signal', async () => {
    const binding = new ScriptedBinding((method) => (method === 'GetTask' ? taskFrame('TASK_STATE_WORKING').task : { message }));
    const client = clientOver(binding);
    const signal = new AbortController().signal;
    expect(client.endpoint).toBe('scripted://agent');
    expect(await client.sendMessage({ message }, { signal })).toEqual({ message });
    expect((await client.getTask({ id: TASK_ID })).id).toBe(TASK_ID);
    expect(binding.seen.map((entry) => entry.method)).toEqual(['SendMessage', 'GetTask']);
    expect(binding.seen[0]?.params).toEqual({ message });
    expect(binding.seen[0]?.options?.signal).toBe(signal);
  });

  it('resumes a dropped stream through the binding with SubscribeToTask and the last event id', async () => {
    const binding = new ScriptedBinding(
      () => undefined,
      function* (_method, _params, _options, index) {
        if (index === 0) {
          yield { id: '1', frame: taskFrame('TASK_STATE_WORKING') };
          yield { id: '2', frame: chunkFrame('echo: ', false) };
          throw new A2ATransportError('the stream broke');
        }
        yield { frame: taskFrame('TASK_STATE_WORKING', 'echo: ') };
        yield { id: '3', frame: chunkFrame('hi', true, true) };
        yield { id: '4', frame: statusFrame('TASK_STATE_COMPLETED') };
      },
    );
    const frames: StreamResponse[] = [];
    for await (const frame of clientOver(binding).sendStreamingMessage({ message, tenant: 'acme' })) frames.push(frame);
    expect(frames.at(-1)?.statusUpdate?.status.state).toBe('TASK_STATE_COMPLETED');
    expect(binding.seen.map((entry) => entry.method)).toEqual(['SendStreamingMessage', 'SubscribeToTask']);
    expect(binding.seen[1]?.params).toEqual({ id: TASK_ID, tenant: 'acme' });
    expect((binding.seen[1]?.options as BindingStreamOptions).lastEventId).toBe('2');
  });

  it('cancels the task through the binding when the caller aborts the stream', async () => {
    const binding = new ScriptedBinding(
      () => taskFrame('TASK_STATE_CANCELED').task,
      async function* (_method, _params, options) {
        yield { frame: taskFrame('TASK_STATE_WORKING') };
        // Like a real connection: the caller's abort ends the pending read with its reason.
        const signal = options?.signal;
        await new Promise((_resolve, reject) => {
          if (signal?.aborted) reject(signal.reason as Error);
          signal?.addEventListener('abort', () => reject(signal.reason as Error));
        });
      },
    );
    const controller = new AbortController();
    const reason = new Error('stop');
    const run = async (): Promise<void> => {
      for await (const frame of clientOver(binding).sendStreamingMessage({ message }, { signal: controller.signal })) {
        if (frame.task !== undefined) controller.abort(reason);
      }
    };
    await expect(run()).rejects.toBe(reason);
    const cancel = binding.seen.find((entry) => entry.method === 'CancelTask');
    expect(cancel?.params).toEqual({ id: TASK_ID });
    expect(cancel?.options?.signal).not.toBe(controller.signal);
  });
});
