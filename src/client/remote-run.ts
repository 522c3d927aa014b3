import { isInterruptedState } from '../../generated/a2a/1.0/task-states.js';
import type { Artifact, Message, SendMessageRequest, StreamResponse, Task, TaskStatus } from '../../generated/a2a/1.0/types.js';
import { a2aError } from '../protocol/a2a-error.js';
import { assembleArtifacts, type A2AClient } from './a2a-client.js';
import { sleep } from './backoff.js';
import { isFinalState } from './task-stream.js';

/**
 * One turn with a remote agent: send, then follow the task until it is terminal or waiting
 * (input or auth). Used by the outbound tools and the relay executor, so both see the same
 * lifecycle, cancellation and artifact assembly.
 */

export interface RemoteTurnOptions {
  readonly signal?: AbortSignal;
  /** Stream when true (the remote card advertises capabilities.streaming); otherwise send with returnImmediately and poll GetTask. */
  readonly stream: boolean;
  /** Every frame as it arrives, in order (Task snapshots, statusUpdate, artifactUpdate). Polling emits a Task snapshot whenever the task changed. */
  readonly onFrame?: (frame: StreamResponse) => void;
  /** Poll interval bounds for non-streaming remotes. Defaults 100 ms rising to 2000 ms. */
  readonly pollMs?: { readonly min: number; readonly max: number };
}

export interface RemoteTurnResult {
  /** The task at the end of the turn (terminal or interrupted), or undefined when the agent answered with a Message. */
  readonly task?: Task;
  readonly message?: Message;
  /** Artifacts assembled from the chunks (append/lastChunk) in order. */
  readonly artifacts: Artifact[];
}

const DEFAULT_POLL = { min: 100, max: 2000 } as const;

/**
 * Sends `request` and follows the task to a terminal or interrupted state. On abort the remote
 * task is canceled once its id is known, then the promise rejects with the abort reason.
 */
export async function runRemoteTurn(client: A2AClient, request: SendMessageRequest, options: RemoteTurnOptions): Promise<RemoteTurnResult> {
  try {
    if (options.stream) return await streamTurn(client, request, options);
    return await pollTurn(client, request, options);
  } catch (error) {
    // The client surfaces aborts in its own words; callers of a turn asked for their reason.
    if (options.signal?.aborted) throw options.signal.reason;
    throw error;
  }
}

async function streamTurn(client: A2AClient, request: SendMessageRequest, options: RemoteTurnOptions): Promise<RemoteTurnResult> {
  const frames: StreamResponse[] = [];
  let snapshot: Task | undefined;
  let status: TaskStatus | undefined;
  let message: Message | undefined;
  let done = false;
  // Continuing an interrupted task, the first snapshot can still show the state before our
  // message, and so can a resumed one taken before anything new happened (the same status).
  let staleSnapshot = request.message.taskId !== undefined;
  let staleStatus: string | undefined;
  const signal = options.signal === undefined ? {} : { signal: options.signal };
  for await (const frame of client.sendStreamingMessage(request, signal)) {
    frames.push(frame);
    options.onFrame?.(frame);
    if (frame.task !== undefined) {
      snapshot = frame.task;
      status = frame.task.status;
      const stale = isInterruptedState(status.state) && (staleSnapshot || JSON.stringify(status) === staleStatus);
      if (staleSnapshot && stale) staleStatus = JSON.stringify(status);
      done = isFinalState(status.state) && !stale;
      staleSnapshot = false;
    } else if (frame.statusUpdate !== undefined) {
      staleStatus = undefined;
      snapshot ??= { id: frame.statusUpdate.taskId, contextId: frame.statusUpdate.contextId, status: frame.statusUpdate.status };
      status = frame.statusUpdate.status;
      done = isFinalState(status.state);
    } else if (frame.message !== undefined) {
      message = frame.message;
    }
    // A server may keep the stream open in an interrupted state; the turn ends there anyway.
    if (done) break;
  }
  if (snapshot === undefined || status === undefined) {
    if (message !== undefined) return { message, artifacts: [] };
    throw a2aError('InvalidAgentResponseError', 'SendStreamingMessage: the stream ended without a task or a message');
  }
  const artifacts = assembleArtifacts(frames);
  const task: Task = { ...snapshot, status, artifacts };
  if (done) return { task, artifacts, ...(message === undefined ? {} : { message }) };
  // Resuming is off or the stream ended early: finish the turn by polling rather than leave it half done.
  return followByPolling(client, task, request, options, { refresh: true, artifacts });
}

async function pollTurn(client: A2AClient, request: SendMessageRequest, options: RemoteTurnOptions): Promise<RemoteTurnResult> {
  const signal = options.signal === undefined ? {} : { signal: options.signal };
  // returnImmediately gives us the task id early, so an abort can cancel it; a remote that
  // ignores it simply answers when the task is done.
  const response = await client.sendMessage({ ...request, configuration: { ...request.configuration, returnImmediately: true } }, signal);
  if (response.task === undefined) {
    if (response.message === undefined)
      throw a2aError('InvalidAgentResponseError', 'SendMessage: the answer holds neither a task nor a message');
    options.onFrame?.({ message: response.message });
    return { message: response.message, artifacts: [] };
  }
  options.onFrame?.({ task: response.task });
  // Continuing an interrupted task, the answer can still show the state before our message
  // (returnImmediately answers before the agent has looked at it): that is not the end.
  const stale = request.message.taskId !== undefined && isInterruptedState(response.task.status.state) ? response.task.status : undefined;
  return followByPolling(client, response.task, request, options, undefined, stale);
}

async function followByPolling(
  client: A2AClient,
  first: Task,
  request: SendMessageRequest,
  options: RemoteTurnOptions,
  streamed?: { readonly refresh: boolean; readonly artifacts: Artifact[] },
  stale?: TaskStatus,
): Promise<RemoteTurnResult> {
  const bounds = options.pollMs ?? DEFAULT_POLL;
  const historyLength = request.configuration?.historyLength;
  const query = {
    id: first.id,
    ...(request.tenant === undefined ? {} : { tenant: request.tenant }),
    ...(historyLength === undefined ? {} : { historyLength }),
  };
  let task = first;
  let seen = JSON.stringify(task);
  let interval = bounds.min;
  // After a stream the last state seen may be stale, so look at least once.
  let refresh = streamed?.refresh === true;
  const staleStatus = stale === undefined ? undefined : JSON.stringify(stale);
  const isStale = (current: Task): boolean => staleStatus !== undefined && JSON.stringify(current.status) === staleStatus;
  try {
    while (refresh || !isFinalState(task.status.state) || isStale(task)) {
      refresh = false;
      await sleep(interval, options.signal);
      task = await client.getTask(query, options.signal === undefined ? {} : { signal: options.signal });
      const now = JSON.stringify(task);
      if (now === seen) {
        interval = Math.min(bounds.max, interval * 2);
        continue;
      }
      seen = now;
      interval = bounds.min;
      options.onFrame?.({ task });
    }
  } catch (error) {
    if (options.signal?.aborted && !isFinalState(task.status.state)) await client.cancelQuietly(task.id, request.tenant);
    throw error;
  }
  const artifacts = task.artifacts ?? streamed?.artifacts ?? [];
  return { task, artifacts };
}
