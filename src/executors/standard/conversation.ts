import type { ChatCompletionMessageParam } from 'openai/resources/chat/completions';
import type { Message, Part, Task } from '../../../generated/a2a/1.0/types.js';
import type { ModelToolCall } from './chat-model.js';

/** The artifact the standard preset writes each turn's answer into (one per task run, the name shared). */
export const ANSWER_ARTIFACT = 'answer';

/** Turns kept per conversation: beyond it the oldest are dropped, a whole exchange at a time. */
const MAX_MESSAGES = 200;

/**
 * The model's side of one A2A conversation (instance, tenant, contextId): the chat messages so
 * far, kept in the session between turns. When the session is gone (a restart, an idle session
 * released) it is rebuilt from the stored tasks of the context: what the user said, what the
 * agent asked and answered. Tool calls are not rebuilt, only their outcome as the answer says it.
 */
export class Conversation {
  readonly #messages: ChatCompletionMessageParam[] = [];
  /** The ask_user call the model is waiting on: the next user message answers it. */
  pendingQuestion: string | undefined;

  /** The conversation as the stored tasks of its context tell it, oldest first. */
  static rebuilt(tasks: readonly Task[]): Conversation {
    const conversation = new Conversation();
    for (const task of tasks) conversation.#replay(task, undefined);
    return conversation;
  }

  /** The current task's stored turns before the message now being answered (a resumed task after a restart). */
  replayCurrent(task: Task, answering: Message): void {
    this.#replay(task, answering.messageId);
  }

  /** What the model is sent: the system prompt, then the conversation. */
  messages(instructions: string | undefined): ChatCompletionMessageParam[] {
    return instructions === undefined || instructions === ''
      ? [...this.#messages]
      : [{ role: 'system', content: instructions }, ...this.#messages];
  }

  /** The user's message; when the model asked a question with ask_user, it is the answer. */
  addUser(message: Message): void {
    const content = promptOf(message.parts);
    if (this.pendingQuestion !== undefined) {
      this.#messages.push({ role: 'tool', tool_call_id: this.pendingQuestion, content });
      this.pendingQuestion = undefined;
      return;
    }
    this.#messages.push({ role: 'user', content });
    this.#trim();
  }

  /** A new task in the context while the model still waits for an answer: the question stays unanswered. */
  abandonQuestion(): void {
    if (this.pendingQuestion === undefined) return;
    this.#messages.push({ role: 'tool', tool_call_id: this.pendingQuestion, content: '(no answer: the user sent a new request instead)' });
    this.pendingQuestion = undefined;
  }

  addAssistant(text: string, toolCalls: readonly ModelToolCall[]): void {
    this.#messages.push({
      role: 'assistant',
      content: text === '' && toolCalls.length > 0 ? null : text,
      ...(toolCalls.length === 0
        ? {}
        : {
            tool_calls: toolCalls.map((call) => ({
              id: call.id,
              type: 'function' as const,
              function: { name: call.name, arguments: call.arguments },
            })),
          }),
    });
  }

  addToolResult(callId: string, content: string): void {
    this.#messages.push({ role: 'tool', tool_call_id: callId, content });
  }

  get length(): number {
    return this.#messages.length;
  }

  #replay(task: Task, stopAt: string | undefined): void {
    for (const message of task.history ?? []) {
      if (message.messageId === stopAt) return;
      const content = promptOf(message.parts);
      if (content === '') continue;
      this.#messages.push(message.role === 'ROLE_USER' ? { role: 'user', content } : { role: 'assistant', content });
    }
    const answer = (task.artifacts ?? [])
      .filter((artifact) => artifact.name === ANSWER_ARTIFACT)
      .map((artifact) => promptOf(artifact.parts))
      .join('\n');
    if (answer !== '') this.#messages.push({ role: 'assistant', content: answer });
    this.#trim();
  }

  /** Drops the oldest turns beyond the cap, starting again at a user message so no tool result is orphaned. */
  #trim(): void {
    if (this.#messages.length <= MAX_MESSAGES) return;
    let cut = this.#messages.length - MAX_MESSAGES;
    while (cut < this.#messages.length && this.#messages[cut]?.role !== 'user') cut += 1;
    this.#messages.splice(0, cut);
  }
}

/**
 * Parts as model text: text as it is, structured data as JSON, a file by its name and type (the
 * hub does not fetch URLs or decode files for the model).
 */
export function promptOf(parts: readonly Part[]): string {
  const pieces: string[] = [];
  for (const part of parts) {
    if (typeof part.text === 'string') pieces.push(part.text);
    else if (part.data !== undefined) pieces.push(JSON.stringify(part.data));
    else if (part.url !== undefined)
      pieces.push(`[file ${part.filename ?? ''} ${part.url}${part.mediaType ? ` (${part.mediaType})` : ''}]`);
    else if (part.raw !== undefined)
      pieces.push(`[attached file${part.filename ? ` ${part.filename}` : ''}${part.mediaType ? ` (${part.mediaType})` : ''}, not shown]`);
  }
  return pieces.join('\n');
}
