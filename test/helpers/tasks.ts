import { expect } from 'vitest';
import type { MethodTypes } from '../../generated/a2a/1.0/methods.js';
import type { Task } from '../../generated/a2a/1.0/types.js';
import { call, userMessage } from './a2a-client.js';

/** Tasks made and read through the strict client (a2a-client.ts), for tests of what a task holds. */

type SendParams = MethodTypes['SendMessage']['params'];

/** Sends a message to `url` and returns the task, failing when the agent answered with a Message. */
export async function sendTask(url: string, params: SendParams): Promise<Task> {
  const result = await call(url, 'SendMessage', params);
  expect(result.message, 'expected a task, got a direct message').toBeUndefined();
  expect(result.task).toBeDefined();
  return result.task as Task;
}

/** Puts a task of the echo agent at `url` into INPUT_REQUIRED and returns it; `extra` goes into the message (contextId…). */
export async function inputRequiredTask(url: string, extra: Record<string, unknown> = {}): Promise<Task> {
  const task = await sendTask(url, { message: userMessage('hello\n::input-required', extra) });
  expect(task.status.state).toBe('TASK_STATE_INPUT_REQUIRED');
  return task;
}

/** The text of all parts of all artifacts, chunks joined in order. */
export function artifactText(task: Pick<Task, 'artifacts'>): string {
  return (task.artifacts ?? []).flatMap((artifact) => artifact.parts.map((part) => part.text ?? '')).join('');
}
