import { randomUUID } from 'node:crypto';
import type { ChatCompletionFunctionTool } from 'openai/resources/chat/completions';
import { DEFAULTS } from '../../../generated/control/defaults.js';
import type { AgentExecutor, ExecutionEvents, ExecutionRequest, ExecutorTools } from '../executor.js';
import type { PresetInstance } from '../presets.js';
import { ModelError, type ChatModel, type ModelToolCall } from './chat-model.js';
import { ANSWER_ARTIFACT, ANSWERS_KEY, Conversation } from './conversation.js';
import type { NotGiven } from './file-parts.js';
import { ASK_USER_TOOL, askUserQuestion, callTool, checkToolCall, MAX_INVALID_TOOL_CALLS, toolAllowed } from './tool-use.js';

/** Where a session keeps its conversation. */
const CONVERSATION_KEY = 'standard.conversation';

/** The artifact that tells the user which parts of their message the model was not given, and why. */
export const NOT_GIVEN_ARTIFACT = 'not given to the model';

export interface StandardExecutorDeps {
  /** The instance's configuration as it is now (it can change between messages). */
  readonly instanceOf: (instanceId: string) => PresetInstance | undefined;
  /** The model of an instance, built for its current options. */
  readonly modelOf: (instance: PresetInstance) => ChatModel | undefined;
}

/**
 * The `standard` preset's executor: one turn of a model-backed conversation per message. The
 * model's text streams as chunks of an `answer` artifact; the enabled outbound tools the instance
 * allows are offered, and each call and its result appear as a `tool-call-<id>` artifact of data
 * parts (seed 001 §2.4.1); an `ask_user` call ends the turn INPUT_REQUIRED with the question.
 */
export function standardExecutor(deps: StandardExecutorDeps): AgentExecutor {
  return {
    async execute(request, events, signal) {
      const instance = deps.instanceOf(request.instanceId);
      const model = instance === undefined ? undefined : deps.modelOf(instance);
      if (instance === undefined || model === undefined) {
        events.fail('this agent has no model configured (model.baseURL and model.model of the standard preset)');
        return;
      }
      const conversation = await conversationOf(request);
      const notGiven = conversation.addUser(request.message, request.taskId);
      const mark = conversation.length;
      events.working();
      if (notGiven.length > 0) reportNotGiven(events, notGiven);
      let finished = false;
      try {
        await new Turn(request, events, signal, model, instance, conversation).run();
        finished = !signal.aborted;
      } finally {
        // A turn that was stopped (cancel, timeout) or failed leaves no half-made exchange behind.
        if (!finished) conversation.rollback(mark);
      }
    },
  };
}

/**
 * Tells the user, before the model answers, which parts of their message it was not given and
 * why: an artifact of its own, so that it stays on the task however the turn ends (an answer, a
 * question, a failure), a text part for people and a data part for programs.
 */
function reportNotGiven(events: ExecutionEvents, notGiven: readonly NotGiven[]): void {
  const lines = notGiven.map((part) => {
    const name = part.filename === undefined ? `parts[${part.index}]` : `${part.filename} (parts[${part.index}])`;
    return `- ${name}${part.mediaType === undefined ? '' : `, ${part.mediaType}`}: ${part.reason}`;
  });
  events.artifact({
    artifactId: `not-given-${randomUUID()}`,
    name: NOT_GIVEN_ARTIFACT,
    parts: [
      { text: `Parts of your message the model was not given in full:\n${lines.join('\n')}` },
      { data: { type: 'parts_not_given', parts: notGiven.map((part) => ({ ...part })) } },
    ],
    lastChunk: true,
  });
}

/** The session's conversation, or one rebuilt from the stored tasks of the context when the session is new. */
async function conversationOf(request: ExecutionRequest): Promise<Conversation> {
  const held = request.session.values.get(CONVERSATION_KEY);
  if (held instanceof Conversation) return held;
  const conversation = Conversation.rebuilt(await request.contextTasks());
  if (request.resumed) conversation.replayCurrent(request.task, request.message);
  request.session.values.set(CONVERSATION_KEY, conversation);
  return conversation;
}

/** One turn: model calls and tool rounds until the model answers, asks, or the round budget is spent. */
class Turn {
  readonly #answerId = `${ANSWER_ARTIFACT}-${randomUUID()}`;
  #answer = '';
  #chunks = 0;
  /** Tool calls with invalid arguments since the last valid one, in this turn. */
  #invalidInRow = 0;

  constructor(
    private readonly request: ExecutionRequest,
    private readonly events: ExecutionEvents,
    private readonly signal: AbortSignal,
    private readonly model: ChatModel,
    private readonly instance: PresetInstance,
    private readonly conversation: Conversation,
  ) {}

  async run(): Promise<void> {
    const maxRounds = this.instance.maxToolRounds ?? DEFAULTS.InboundCreateAction.maxToolRounds;
    const tools = offeredTools(this.request.tools, this.instance.tools);
    for (let round = 0; ; round += 1) {
      const lastRound = round >= maxRounds;
      // Said for this one call only: the conversation keeps no stale budget notes.
      const note =
        lastRound && round > 0
          ? `You have used all ${maxRounds} rounds of tool calls allowed for this turn. Answer the user now with what you have.`
          : undefined;
      const answer = await this.#complete(lastRound ? [] : tools, note);
      if (lastRound && answer.toolCalls.length > 0 && answer.text === '')
        throw new ModelError(`the model kept calling tools after the last of its ${maxRounds} rounds (maxToolRounds) and gave no answer`);
      const calls = lastRound ? [] : answer.toolCalls;
      this.conversation.addAssistant(answer.text, calls);
      if (calls.length === 0) {
        if (answer.finishReason === 'length' && this.#answer === '')
          throw new ModelError('the model stopped at its token limit before saying anything (model.maxTokens)');
        this.#closeAnswer();
        this.events.complete();
        return;
      }
      const question = await this.#runCalls(calls, tools);
      if (this.signal.aborted) return;
      if (question !== undefined) {
        this.conversation.asked(this.request.taskId, question.id, question.text);
        this.#closeAnswer();
        this.events.inputRequired(question.text);
        return;
      }
    }
  }

  /**
   * One round's calls, in the model's order, each checked against the parameters of the tool
   * offered: an invalid call is not run, its result tells the model what is wrong. ask_user is
   * held back, so that every other call has its result before the turn waits for the user; the
   * first valid one is the round's question.
   */
  async #runCalls(
    calls: readonly ModelToolCall[],
    tools: readonly ChatCompletionFunctionTool[],
  ): Promise<{ readonly id: string; readonly text: string } | undefined> {
    const schemas = new Map(tools.map((tool) => [tool.function.name, tool.function.parameters]));
    let question: { readonly id: string; readonly text: string } | undefined;
    for (const call of calls) {
      // A tool that was not offered has no schema here: callTool refuses it (the allowlist) or the registry does (unknown).
      const checked = checkToolCall(call, schemas.get(call.name));
      if (!checked.ok) {
        this.#refuse(call, checked.problem);
        continue;
      }
      this.#invalidInRow = 0;
      if (call.name !== ASK_USER_TOOL.function.name) {
        await this.#runTool(call);
        if (this.signal.aborted) return undefined;
      } else if (question === undefined) question = { id: call.id, text: askUserQuestion(checked.args) };
      // A chat may not go on past a tool call without its result, and one question is asked at a time.
      else this.conversation.addToolResult(call.id, 'error: only one question is asked at a time; ask this one after the user answers');
    }
    return question;
  }

  /**
   * An invalid call: the model gets the problem as the call's result, to write the call again.
   * An invalid ask_user leaves nothing the user sees (its only form for the user is its
   * question); any other tool's call shows in its artifact, as a failed call does. Bounded:
   * MAX_INVALID_TOOL_CALLS in a row fail the turn rather than let a model that cannot write the
   * arguments go on trying.
   */
  #refuse(call: ModelToolCall, problem: string): void {
    this.#invalidInRow += 1;
    if (this.#invalidInRow >= MAX_INVALID_TOOL_CALLS)
      throw new ModelError(
        `the model made ${MAX_INVALID_TOOL_CALLS} tool calls in a row with invalid arguments and was stopped; the last: ${problem}`,
      );
    if (call.name !== ASK_USER_TOOL.function.name) {
      this.events.artifact({
        artifactId: `tool-call-${call.id}`,
        name: `tool call ${call.name}`,
        parts: [
          { data: { type: 'tool_call', id: call.id, name: call.name, arguments: parsedArguments(call.arguments) } },
          { data: { type: 'tool_result', id: call.id, name: call.name, state: 'error', kind: 'bad-arguments', error: problem } },
        ],
        lastChunk: true,
      });
    }
    this.conversation.addToolResult(call.id, `error: ${problem}. Call ${call.name} again with arguments that match its parameters.`);
  }

  async #complete(tools: readonly ChatCompletionFunctionTool[], note: string | undefined) {
    const messages = this.conversation.messages(this.instance.instructions);
    if (note !== undefined) messages.push({ role: 'system', content: note });
    return this.model.complete({ messages, tools }, (delta) => this.#stream(delta), this.signal);
  }

  /** A text delta: on a stream, a chunk of the answer at once; otherwise held for the one part the stored task shows. */
  #stream(delta: string): void {
    this.#answer += delta;
    if (!this.request.streaming) return;
    this.events.artifact({
      artifactId: this.#answerId,
      name: ANSWER_ARTIFACT,
      parts: delta,
      append: this.#chunks > 0,
      lastChunk: false,
      ...(this.#chunks > 0 ? {} : { metadata: this.#answerMetadata() }),
    });
    this.#chunks += 1;
  }

  /**
   * The answer's closing chunk: the whole text in one part, replacing the streamed pieces
   * (append false), so the stored task holds one part and a client that follows the chunks ends
   * with the same text.
   */
  #closeAnswer(): void {
    if (this.#answer === '' && this.#chunks === 0) return;
    this.events.artifact({
      artifactId: this.#answerId,
      name: ANSWER_ARTIFACT,
      parts: this.#answer,
      append: false,
      lastChunk: true,
      metadata: this.#answerMetadata(),
    });
  }

  /** Which message this answer answers, for a conversation rebuilt from the stored tasks. */
  #answerMetadata(): Record<string, unknown> {
    return { [ANSWERS_KEY]: this.request.message.messageId };
  }

  async #runTool(call: ModelToolCall): Promise<void> {
    const artifactId = `tool-call-${call.id}`;
    this.events.artifact({
      artifactId,
      name: `tool call ${call.name}`,
      parts: [{ data: { type: 'tool_call', id: call.id, name: call.name, arguments: parsedArguments(call.arguments) } }],
      append: false,
      lastChunk: false,
    });
    const outcome = await callTool(this.request.tools, call, this.instance.tools);
    if (this.signal.aborted) return;
    this.events.artifact({
      artifactId,
      parts: [{ data: { type: 'tool_result', id: call.id, name: call.name, ...outcome.data } }],
      append: true,
      lastChunk: true,
    });
    this.conversation.addToolResult(call.id, outcome.forModel);
  }
}

/**
 * The tools the model is offered: the outbound tools the instance's allowlist lets through, then
 * ask_user. Last, because models lean towards what they are offered first, and the instance's
 * own tools should be tried before the user is asked.
 */
function offeredTools(tools: ExecutorTools, allowlist: readonly string[] | undefined): ChatCompletionFunctionTool[] {
  const outbound = tools
    .list()
    .filter((tool) => toolAllowed(tool.name, allowlist))
    .map((tool): ChatCompletionFunctionTool => ({
      type: 'function',
      function: { name: tool.name, description: tool.description, parameters: tool.inputSchema as Record<string, unknown> },
    }));
  return [...outbound, ASK_USER_TOOL];
}

/** The arguments as JSON when they parse (the artifact shows structure), else the text the model wrote. */
function parsedArguments(text: string): unknown {
  try {
    return JSON.parse(text === '' ? '{}' : text) as unknown;
  } catch {
    return text;
  }
}
