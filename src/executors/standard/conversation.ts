import type {
  ChatCompletionContentPart,
  ChatCompletionContentPartImage,
  ChatCompletionMessageParam,
  ChatCompletionUserMessageParam,
} from 'openai/resources/chat/completions';
import { isFailureState } from '../../../generated/a2a/1.0/task-states.js';
import type { Artifact, Message, Part, Task } from '../../../generated/a2a/1.0/types.js';
import type { ModelToolCall } from './chat-model.js';
import { MAX_IMAGES_BYTES, modelInputOf, type ModelPiece, type NotGiven } from './file-parts.js';

/** The artifact the standard preset writes each turn's answer into (one per turn, the name shared). */
export const ANSWER_ARTIFACT = 'answer';

/** Artifact metadata: the messageId of the user message an answer answers, so a rebuilt conversation puts it in its place. */
export const ANSWERS_KEY = 'a2a-hub/answers';

/** Turns kept per conversation: beyond it the oldest are dropped, a whole exchange at a time. */
const MAX_MESSAGES = 200;

/** An ask_user call: open while the model still waits for its tool result. */
interface Question {
  readonly callId: string;
  readonly text: string;
  open: boolean;
}

/**
 * The model's side of one A2A conversation (instance, tenant, contextId): the chat messages so
 * far, kept in the session between turns. When the session is gone (a restart, an idle session
 * released) it is rebuilt from the stored tasks of the context: what the user said, what the
 * agent asked and answered. Tool calls are not rebuilt, only their outcome as the answers say it.
 */
export class Conversation {
  readonly #messages: ChatCompletionMessageParam[] = [];
  /** ask_user questions by the task that asked, until the user answers on that task. */
  readonly #questions = new Map<string, Question>();
  /** The images in the conversation: their size, and the note that stands in for one dropped to keep the conversation bounded. */
  readonly #images = new WeakMap<ChatCompletionContentPartImage, { readonly bytes: number; readonly label: string }>();

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

  /**
   * The user's message on task `taskId`. When the model asked that task a question with ask_user
   * and still waits, it is the tool result; when the question was left open by another request
   * since, it is a user message that says which question it answers. Any other open question is
   * closed first, since a chat may not go on past a tool call without its result. Returns the
   * parts the model was not given (or given only in part), for the user to be told.
   */
  addUser(message: Message, taskId: string): readonly NotGiven[] {
    const { pieces, notGiven } = modelInputOf(message.parts);
    const question = this.#questions.get(taskId);
    this.#questions.delete(taskId);
    if (question?.open === true) {
      this.#closeOpenQuestions();
      // Only user messages may carry images: the answer's text is the tool result, its images follow in a user message.
      const images = pieces.filter((piece) => piece.kind === 'image');
      const text = pieces.map((piece) => (piece.kind === 'text' ? piece.text : `[image ${piece.label}: in the next message]`)).join('\n');
      this.#messages.push({ role: 'tool', tool_call_id: question.callId, content: text });
      if (images.length > 0) this.#pushUser([{ kind: 'text', text: '(the images of my answer)' }, ...images]);
      this.#trim();
      return notGiven;
    }
    this.#closeOpenQuestions();
    this.#pushUser(question === undefined ? pieces : answering(question.text, pieces));
    this.#trim();
    return notGiven;
  }

  /** The model asked the user on task `taskId`; the turn ends, and the answer comes with the next message on that task. */
  asked(taskId: string, callId: string, text: string): void {
    this.#questions.set(taskId, { callId, text, open: true });
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

  /** Forgets what came after `length` messages: a turn that was stopped leaves no half-made exchange (a tool call without its result). */
  rollback(length: number): void {
    if (length < this.#messages.length) this.#messages.splice(length);
  }

  #closeOpenQuestions(): void {
    for (const question of this.#questions.values()) {
      if (!question.open) continue;
      question.open = false;
      this.#messages.push({
        role: 'tool',
        tool_call_id: question.callId,
        content: '(no answer yet: the user sent another message instead; they may still answer later)',
      });
    }
  }

  #replay(task: Task, stopAt: string | undefined): void {
    const answers = (task.artifacts ?? []).filter((artifact) => artifact.name === ANSWER_ARTIFACT);
    const placed = new Set<Artifact>();
    // The status message of a task that ended in failure reports on the agent; it was never said in the conversation.
    const unsaid = task.status.message !== undefined && isFailureState(task.status.state) ? task.status.message.messageId : undefined;
    for (const message of task.history ?? []) {
      if (message.messageId === stopAt) break;
      if (message.messageId === unsaid) continue;
      if (message.role !== 'ROLE_USER') {
        const content = promptOf(message.parts);
        if (content !== '') this.#messages.push({ role: 'assistant', content });
        continue;
      }
      this.#pushUser(modelInputOf(message.parts).pieces);
      const own = answers.filter((artifact) => artifact.metadata?.[ANSWERS_KEY] === message.messageId);
      for (const artifact of own) placed.add(artifact);
      this.#pushAnswer(own);
    }
    // Answers stored without the message they answer: after the task's turns.
    if (stopAt === undefined)
      this.#pushAnswer(answers.filter((artifact) => !placed.has(artifact) && artifact.metadata?.[ANSWERS_KEY] === undefined));
    this.#trim();
  }

  #pushAnswer(artifacts: readonly Artifact[]): void {
    const text = artifacts.map((artifact) => promptOf(artifact.parts)).join('\n');
    if (text !== '') this.#messages.push({ role: 'assistant', content: text });
  }

  /**
   * A user message of these pieces: a plain string when they are all text (what every endpoint
   * takes), else content parts with each image in its place. Nothing is pushed for no content.
   */
  #pushUser(pieces: readonly ModelPiece[]): void {
    if (pieces.every((piece) => piece.kind === 'text')) {
      const text = pieces.map((piece) => piece.text).join('\n');
      if (text !== '') this.#messages.push({ role: 'user', content: text });
      return;
    }
    const content: ChatCompletionContentPart[] = [];
    for (const piece of pieces) {
      const last = content.at(-1);
      if (piece.kind === 'text') {
        if (last?.type === 'text') last.text += `\n${piece.text}`;
        else content.push({ type: 'text', text: piece.text });
        continue;
      }
      const image: ChatCompletionContentPartImage = { type: 'image_url', image_url: { url: piece.url } };
      this.#images.set(image, { bytes: piece.bytes, label: piece.label });
      content.push(image);
    }
    this.#messages.push({ role: 'user', content });
    this.#boundImages();
  }

  /**
   * Keeps the images of the newest messages, up to MAX_IMAGES_BYTES in all; an older one is
   * replaced by a note. Every later model call carries every image kept, as does the session's
   * memory. The newest message's images fit on their own (modelInputOf holds them to it).
   */
  #boundImages(): void {
    let kept = 0;
    for (let index = this.#messages.length - 1; index >= 0; index -= 1) {
      const message = this.#messages[index];
      if (message?.role !== 'user' || typeof message.content === 'string') continue;
      const content: ChatCompletionUserMessageParam['content'] = message.content.map((part) => {
        const image = part.type === 'image_url' ? this.#images.get(part) : undefined;
        if (image === undefined) return part;
        kept += image.bytes;
        if (kept <= MAX_IMAGES_BYTES) return part;
        return { type: 'text', text: `[image ${image.label}: shown to you earlier, no longer attached]` };
      });
      message.content = content;
    }
  }

  /** Drops the oldest turns beyond the cap, starting again at a user message so no tool result is orphaned. */
  #trim(): void {
    if (this.#messages.length <= MAX_MESSAGES) return;
    let cut = this.#messages.length - MAX_MESSAGES;
    while (cut < this.#messages.length && this.#messages[cut]?.role !== 'user') cut += 1;
    this.#messages.splice(0, cut);
  }
}

/** The pieces of an answer to a question that is no longer open: the first says which question it answers. */
function answering(question: string, pieces: readonly ModelPiece[]): ModelPiece[] {
  const prefix = `(answering your question "${question}")`;
  const [first, ...rest] = pieces;
  if (first?.kind === 'text') return [{ kind: 'text', text: `${prefix} ${first.text}` }, ...rest];
  return [{ kind: 'text', text: prefix }, ...pieces];
}

/**
 * The agent's parts (its questions and answers) as model text: text as it is, structured data as
 * JSON, a file by its name and type. An assistant message holds text only; the user's parts are
 * modelInputOf's.
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
