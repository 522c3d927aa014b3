import { randomUUID } from 'node:crypto';
import { isFailureState, isInterruptedState } from '../../generated/a2a/1.0/task-states.js';
import type { Artifact, Message, SendMessageRequest, Task, TaskState } from '../../generated/a2a/1.0/types.js';
import { textOf } from '../client/a2a-client.js';
import { runRemoteTurn } from '../client/remote-run.js';
import { turnOptionsOf } from './turn-options.js';
import { followContinuation, isStale, statusKey } from './continuation.js';
import type { OutboundConnection } from './outbound-registry.js';
import type { ToolArguments } from './tool-arguments.js';
import { ToolError } from './tool-error.js';

/** What a tool call returns: text for the model, and where the remote conversation stands. */
export interface ToolResult {
  readonly text: string;
  /** The remote task's final state, or `message` when the remote answered with a direct message. */
  readonly state: TaskState | 'message';
  readonly taskId?: string;
  readonly contextId?: string;
}

export interface RemoteSkillCall {
  readonly tool: string;
  readonly connection: OutboundConnection;
  readonly skillId: string;
  readonly args: ToolArguments;
  /** The caller's conversation on this remote, when it has one. */
  readonly contextId?: string;
  /** For a continuation: the key (statusKey) of the interrupted status the caller was shown. */
  readonly answeredStatus?: string;
  readonly signal?: AbortSignal;
}

export interface RemoteSkillOutcome {
  readonly result: ToolResult;
  /** When the task is interrupted: the key of its status, which a continuation answers. */
  readonly interruptedStatus?: string;
}

/**
 * Sends the prompt to the remote skill as one A2A message and waits for the turn to end:
 * streaming when the card advertises it, polling GetTask otherwise. The call is bounded by the
 * connection's timeoutMs; a timeout or an abort cancels the remote task once its id is known.
 */
export async function callRemoteSkill(call: RemoteSkillCall): Promise<RemoteSkillOutcome> {
  const { connection, args, tool } = call;
  const timeout = AbortSignal.timeout(connection.config.timeoutMs);
  const signal = AbortSignal.any([timeout, connection.signal, ...(call.signal === undefined ? [] : [call.signal])]);
  const request: SendMessageRequest = {
    message: {
      messageId: randomUUID(),
      role: 'ROLE_USER',
      parts: [{ text: args.prompt }],
      // Our hub routes on metadata.skill; other agents may ignore it and pick a skill themselves.
      metadata: { skill: call.skillId },
      // The task already belongs to a context; naming another one would be refused.
      ...(args.taskId === undefined ? (call.contextId === undefined ? {} : { contextId: call.contextId }) : { taskId: args.taskId }),
    },
  };
  let outcome: { task?: Task; message?: Message; artifacts: Artifact[] };
  try {
    outcome = await runRemoteTurn(connection.client, request, { signal, ...turnOptionsOf(connection) });
    if (outcome.task !== undefined && isStale(outcome.task, call.answeredStatus)) {
      const task = await followContinuation(connection.client, outcome.task, signal);
      outcome = { task, artifacts: task.artifacts ?? [] };
    }
  } catch (error) {
    throw remoteFailure(tool, error, { timeout, connection, caller: call.signal, timeoutMs: connection.config.timeoutMs });
  }
  if (outcome.task !== undefined) {
    const result = resultOfTask(tool, outcome.task, outcome.artifacts, connection.redact);
    return { result, ...(isInterruptedState(outcome.task.status.state) ? { interruptedStatus: statusKey(outcome.task) } : {}) };
  }
  if (outcome.message !== undefined) {
    return {
      result: {
        text: textOf(outcome.message),
        state: 'message',
        ...(outcome.message.contextId === undefined ? {} : { contextId: outcome.message.contextId }),
      },
    };
  }
  throw new ToolError('remote-error', `the remote agent of tool ${tool} ended the turn without a task or a message`, { tool });
}

function resultOfTask(tool: string, task: Task, artifacts: readonly Artifact[], redact: (text: string) => string): ToolResult {
  const state = task.status.state;
  const statusText = redact(textOf(task.status.message).trim());
  const ids = { taskId: task.id, ...(task.contextId === '' ? {} : { contextId: task.contextId }) };
  if (isFailureState(state)) {
    const said = statusText === '' ? 'without saying why' : `saying: ${statusText}`;
    throw new ToolError('task-ended', `the remote task ${task.id} ended ${state} ${said}`, {
      tool,
      state,
      ...ids,
      ...(statusText === '' ? {} : { remoteMessage: statusText }),
    });
  }
  if (isInterruptedState(state)) {
    const needs = state === 'TASK_STATE_INPUT_REQUIRED' ? 'needs more input' : 'needs authentication';
    const question = statusText === '' ? '' : ` It says: "${statusText}".`;
    return {
      text: `The remote agent ${needs} (${state}, taskId: ${task.id}).${question} To continue, call this tool again with "taskId": "${task.id}" and the answer as prompt.`,
      state,
      ...ids,
    };
  }
  const artifactText = (artifacts.length > 0 ? artifacts : (task.artifacts ?? []))
    .map((artifact) => textOf(artifact))
    .filter((text) => text !== '')
    .join('\n');
  return { text: artifactText !== '' ? artifactText : statusText, state, ...ids };
}

function remoteFailure(
  tool: string,
  error: unknown,
  context: { timeout: AbortSignal; connection: OutboundConnection; caller: AbortSignal | undefined; timeoutMs: number },
): ToolError {
  if (error instanceof ToolError) return error;
  const reason = context.connection.redact(error instanceof Error ? error.message : String(error));
  if (context.caller?.aborted === true)
    return new ToolError('aborted', `the call of tool ${tool} was aborted; the remote task, if one was started, was asked to cancel`, {
      tool,
      cause: error,
    });
  if (context.connection.signal.aborted) {
    const why: unknown = context.connection.signal.reason;
    return new ToolError(
      'not-connected',
      `the call of tool ${tool} was stopped: ${why instanceof Error ? why.message : 'the connection went away'}`,
      { tool, cause: error },
    );
  }
  if (context.timeout.aborted) {
    return new ToolError(
      'timeout',
      `tool ${tool} got no final answer within the connection's timeoutMs (${context.timeoutMs} ms); the remote task was asked to cancel`,
      { tool, cause: error },
    );
  }
  return new ToolError('remote-error', `the remote agent of tool ${tool} could not be used: ${reason}`, { tool, cause: error });
}
