import { setTimeout as sleep } from 'node:timers/promises';
import { isInterruptedState, isTerminalState } from '../../generated/a2a/1.0/task-states.js';
import type { Task } from '../../generated/a2a/1.0/types.js';
import type { A2AClient } from '../client/a2a-client.js';

/**
 * A message that continues an interrupted task is answered first with a snapshot of that task
 * still in its old INPUT_REQUIRED or AUTH_REQUIRED status (a2a-hub and @a2a-js/sdk agents both
 * do this). runRemoteTurn looks past it on a stream, but a turn that polls, or a stream that
 * broke right after that snapshot, can still end on it, before the remote has looked at the
 * answer. The status the caller was shown is known here, so such a turn is recognised exactly
 * and finished by polling.
 */

/** The status as it is compared: a remote serialises the same status the same way every time. */
export function statusKey(task: Task): string {
  return JSON.stringify(task.status);
}

/** Whether the turn ended on the very status the caller already answered. */
export function isStale(task: Task, answeredStatus: string | undefined): boolean {
  return answeredStatus !== undefined && isInterruptedState(task.status.state) && statusKey(task) === answeredStatus;
}

const POLL_MIN_MS = 100;
const POLL_MAX_MS = 2000;

/** Polls GetTask until the status is another one and final again; an abort cancels the task. */
export async function followContinuation(client: A2AClient, stale: Task, signal: AbortSignal): Promise<Task> {
  const answered = statusKey(stale);
  let interval = POLL_MIN_MS;
  try {
    for (;;) {
      await sleep(interval, undefined, { signal });
      const task = await client.getTask({ id: stale.id }, { signal });
      const state = task.status.state;
      if (statusKey(task) !== answered && (isTerminalState(state) || isInterruptedState(state))) return task;
      interval = Math.min(POLL_MAX_MS, interval * 2);
    }
  } catch (error) {
    if (signal.aborted) {
      await client.cancelQuietly(stale.id);
      throw signal.reason;
    }
    throw error;
  }
}
