import type { Artifact, Message, Part, Task } from '../../generated/a2a/1.0/types.js';

/**
 * What an agent implements to be hosted by a2a-hub. The hub owns the protocol: it creates
 * and stores the task, streams frames, enforces the state machine and handles cancel.
 * The executor only decides what to say:
 *
 * ```ts
 * const shout: AgentExecutor = {
 *   async execute(request, events) {
 *     events.complete(request.text.toUpperCase());
 *   },
 * };
 * ```
 *
 * Returning without a final status completes the task; throwing fails it (the error
 * message becomes the status message, the stack never leaves the hub). When the caller
 * cancels, `signal` aborts and every later event is ignored.
 */
export interface AgentExecutor {
  execute(request: ExecutionRequest, events: ExecutionEvents, signal: AbortSignal): Promise<void>;
}

export interface ExecutionRequest {
  readonly instanceId: string;
  /**
   * The tenant the task belongs to ('' for none): the same contextId under another tenant is
   * another conversation, so anything an executor keeps per context belongs under this too.
   */
  readonly tenant: string;
  readonly taskId: string;
  readonly contextId: string;
  /** The skill the message asked for (`metadata.skill`), already checked against the card. */
  readonly skill: string;
  /** The message that started or resumed the task. */
  readonly message: Message;
  /** The text of the message's text parts, joined with newlines. */
  readonly text: string;
  /** The task as stored before this execution (whole history, all artifacts). */
  readonly task: Task;
  /**
   * The tasks the message names in `referenceTaskIds`, as stored, in that order: those of this
   * instance and tenant only. An id of no such task (unknown, or another tenant's) is left out.
   */
  readonly referenceTasks: readonly Task[];
  /** Whether this message resumes a task that was waiting for input or authentication. */
  readonly resumed: boolean;
  /** Media types the client accepts for output; empty when it did not say. */
  readonly acceptedOutputModes: readonly string[];
  /**
   * Whether the message came on a stream (SendStreamingMessage) that shows the task's events as
   * they happen. Otherwise the caller sees the task as stored: artifact chunks are then only parts.
   */
  readonly streaming: boolean;
  /** State kept for the conversation (instance, tenant, contextId) across messages and tasks. */
  readonly session: SessionState;
  /**
   * The conversation's earlier tasks (same instance, tenant and contextId; this one left out) as
   * stored, oldest first, with their history and artifacts: at most the newest `limit` (default
   * 20, at most 100). What an executor rebuilds a conversation from when its session state is gone
   * (a restart, an idle session released); read from the store on each call.
   */
  contextTasks(limit?: number): Promise<readonly Task[]>;
  /**
   * The tools made of the connected remote agents' skills (docs/outbound.md). Calls are made on
   * behalf of this conversation, so the remote sees one conversation per local one, and abort
   * with the task.
   */
  readonly tools: ExecutorTools;
}

/** What an executor sees of the tool registry. */
export interface ExecutorTools {
  list(): readonly { readonly name: string; readonly description: string; readonly inputSchema: object }[];
  call(
    name: string,
    args: { readonly prompt: string; readonly taskId?: string },
  ): Promise<{ readonly text: string; readonly state: string; readonly taskId?: string }>;
}

export interface SessionState {
  readonly contextId: string;
  /** Scratch space the executor may use for the conversation; lives as long as the session. */
  readonly values: Map<string, unknown>;
}

/** Text, a single part, or parts: whatever is easiest for the executor to hand over. */
export type Content = string | Part | readonly Part[];

export interface ArtifactChunk {
  /** Defaults to a fresh id for a new artifact; repeat it to add to an artifact. */
  readonly artifactId?: string;
  readonly name?: string;
  readonly description?: string;
  readonly parts: Content;
  /** Add these parts to the artifact already sent with this artifactId. */
  readonly append?: boolean;
  /** This is the final chunk of the artifact. */
  readonly lastChunk?: boolean;
  readonly metadata?: Artifact['metadata'];
  /** URIs of extensions the artifact uses. */
  readonly extensions?: Artifact['extensions'];
}

export interface ExecutionEvents {
  /**
   * Makes the task exist, SUBMITTED, and answers the send with it, for an executor that will not
   * work on it at once (the worker preset's task waits for a worker). Any other event does so too.
   */
  accept(): void;
  /** WORKING, optionally with a progress message. */
  working(message?: Content): void;
  /** Emits an artifact or a chunk of one; returns its artifactId. */
  artifact(chunk: ArtifactChunk): string;
  complete(message?: Content): void;
  fail(message: Content): void;
  reject(message: Content): void;
  inputRequired(message: Content): void;
  authRequired(message: Content): void;
  /**
   * Ends the task CANCELED on the agent's own account (a relay mirroring a remote that was
   * canceled). A client's CancelTask needs nothing from the executor: it sees `signal` abort.
   */
  cancel(message?: Content): void;
  /**
   * Answers with a direct Message instead of a task. Only as the first and only event of a
   * new request; the hub then stores no task.
   */
  reply(message: Content): void;
}

export function toParts(content: Content): Part[] {
  if (typeof content === 'string') return [{ text: content }];
  if (Array.isArray(content)) return [...(content as readonly Part[])];
  return [content as Part];
}

/**
 * A message's text parts as one prompt, one part per line: what `ExecutionRequest.text` holds.
 * (The client's `textOf` concatenates instead, as streamed chunks of one text are.)
 */
export function promptText(message: Pick<Message, 'parts'>): string {
  let text: string | undefined;
  for (const part of message.parts) {
    if (typeof part.text === 'string') text = text === undefined ? part.text : `${text}\n${part.text}`;
  }
  return text ?? '';
}
