import type { TaskState } from '../../generated/a2a/1.0/types.js';

/**
 * Why a tool call produced no result:
 * - `unknown-tool`: no tool has that name (GET /a2a/api/tools lists them);
 * - `bad-arguments`: the arguments do not match the tool's input schema;
 * - `not-connected`: the tool's connection is not connected any more;
 * - `task-ended`: the remote task ended FAILED, REJECTED or CANCELED;
 * - `remote-error`: the remote answered with an error, or not at all;
 * - `aborted`: the caller's signal aborted the call (the remote task was canceled);
 * - `timeout`: the connection's timeoutMs ran out (the remote task was canceled).
 */
export type ToolErrorKind = 'unknown-tool' | 'bad-arguments' | 'not-connected' | 'task-ended' | 'remote-error' | 'aborted' | 'timeout';

export interface ToolErrorDetails {
  readonly tool: string;
  readonly state?: TaskState;
  readonly taskId?: string;
  readonly contextId?: string;
  /** The remote's own words: the text of the final status message. */
  readonly remoteMessage?: string;
  readonly cause?: unknown;
}

/** A failed tool call. Its message is meant for the model (or the person) that made the call. */
export class ToolError extends Error {
  readonly kind: ToolErrorKind;
  readonly tool: string;
  readonly state: TaskState | undefined;
  readonly taskId: string | undefined;
  readonly contextId: string | undefined;
  readonly remoteMessage: string | undefined;

  constructor(kind: ToolErrorKind, message: string, details: ToolErrorDetails) {
    super(message, details.cause === undefined ? undefined : { cause: details.cause });
    this.name = 'ToolError';
    this.kind = kind;
    this.tool = details.tool;
    this.state = details.state;
    this.taskId = details.taskId;
    this.contextId = details.contextId;
    this.remoteMessage = details.remoteMessage;
  }
}
