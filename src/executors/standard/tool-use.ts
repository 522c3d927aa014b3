import type { ChatCompletionFunctionTool } from 'openai/resources/chat/completions';
import { ToolError } from '../../outbound/tool-error.js';
import type { ExecutorTools } from '../executor.js';
import type { ModelToolCall } from './chat-model.js';

/**
 * The tool a model calls to ask the user something it needs before it can go on: the turn ends
 * INPUT_REQUIRED with the question as the status message, and the user's next message on the
 * task is the tool's result.
 */
export const ASK_USER_TOOL: ChatCompletionFunctionTool = {
  type: 'function',
  function: {
    name: 'ask_user',
    description:
      'Ask the user a question when you cannot go on without their answer (missing details, a choice, a confirmation). The turn ends; their reply comes back as this tool result.',
    parameters: {
      type: 'object',
      properties: { question: { type: 'string', description: 'The question, as the user should read it.' } },
      required: ['question'],
      additionalProperties: false,
    },
  },
};

/** The question of an ask_user call; the raw arguments when the model did not write them as asked. */
export function askUserQuestion(call: ModelToolCall): string {
  try {
    const parsed = JSON.parse(call.arguments) as { question?: unknown };
    if (typeof parsed.question === 'string' && parsed.question.trim() !== '') return parsed.question;
  } catch {
    // Some models write the question as plain text.
  }
  return call.arguments.trim() === '' ? 'The agent needs more input to go on.' : call.arguments;
}

/** Whether an allowlist lets a tool through: absent allows all; `*` in an entry stands for any run of characters. */
export function toolAllowed(name: string, allowlist: readonly string[] | undefined): boolean {
  if (allowlist === undefined) return true;
  return allowlist.some((entry) => (entry.includes('*') ? wildcardMatches(entry, name) : entry === name));
}

/**
 * Whether `name` is `entry` with each `*` standing for any run of characters. Each piece between
 * stars is found at its leftmost place after the one before, which is all a star needs: linear
 * in the name, where a regular expression with a `.*` per star backtracks to a power of it.
 */
function wildcardMatches(entry: string, name: string): boolean {
  const pieces = entry.split('*');
  const first = pieces[0] ?? '';
  const last = pieces[pieces.length - 1] ?? '';
  if (name.length < first.length + last.length || !name.startsWith(first) || !name.endsWith(last)) return false;
  const end = name.length - last.length;
  let at = first.length;
  for (const piece of pieces.slice(1, -1)) {
    const found = name.indexOf(piece, at);
    if (found === -1 || found + piece.length > end) return false;
    at = found + piece.length;
  }
  return true;
}

/** A tool call's outcome: what the stream's tool-call artifact shows, and what the model is told. */
export interface ToolOutcome {
  readonly data: Readonly<Record<string, unknown>>;
  readonly forModel: string;
}

/**
 * Runs one tool call the model made. Nothing here throws for the model's mistakes or the remote's
 * failures: an unknown or forbidden tool, bad arguments, a FAILED remote task are results the
 * model reads and can act on. An interrupted remote task comes back as text naming its taskId, so
 * the model can continue it (seed 001 §3).
 */
export async function callTool(tools: ExecutorTools, call: ModelToolCall, allowlist: readonly string[] | undefined): Promise<ToolOutcome> {
  if (!toolAllowed(call.name, allowlist)) {
    const text = `tool ${call.name} is not available to this agent`;
    return { data: { state: 'refused', error: text }, forModel: `error: ${text}` };
  }
  try {
    const result = await tools.call(call.name, argumentsOf(call.arguments) as Parameters<ExecutorTools['call']>[1]);
    return {
      data: { state: result.state, ...(result.taskId === undefined ? {} : { taskId: result.taskId }), text: result.text },
      forModel: result.text,
    };
  } catch (error) {
    const text = error instanceof Error ? error.message : String(error);
    const details =
      error instanceof ToolError
        ? {
            kind: error.kind,
            ...(error.state === undefined ? {} : { state: error.state }),
            ...(error.taskId ? { taskId: error.taskId } : {}),
          }
        : { kind: 'error' };
    return { data: { state: 'error', ...details, error: text }, forModel: `error: ${text}` };
  }
}

/** The arguments as a value when they are JSON (the registry checks them), else the text for it to refuse. */
function argumentsOf(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}
