import { Ajv2020, type AnySchema, type ErrorObject, type ValidateFunction } from 'ajv/dist/2020.js';
import type { ChatCompletionFunctionTool } from 'openai/resources/chat/completions';
import type { JsonSchema } from '../../protocol/json-schema.js';
import { toFieldViolations } from '../../protocol/violations.js';
import { canonicalJson } from '../../support/canonical-json.js';
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
      properties: { question: { type: 'string', minLength: 1, description: 'The question, as the user should read it.' } },
      required: ['question'],
      additionalProperties: false,
    },
  },
};

/** Invalid tool calls in a row after which a turn fails: the model heard what was wrong each time and did not correct it. */
export const MAX_INVALID_TOOL_CALLS = 3;

/**
 * One ajv for the tools' parameter schemas. Not strict: a tool's schema is its own and may use
 * keywords or a draft ajv does not check strictly. allErrors: the model hears of every problem
 * at once, not one per retry.
 */
const ajv = new Ajv2020({ strict: false, allErrors: true, validateSchema: false });

/** Compiled validators by the schema's canonical JSON; null for a schema ajv could not compile (the tool checks its own arguments then). */
const validators = new Map<string, ValidateFunction | null>();

function validatorOf(schema: object): ValidateFunction | null {
  const key = canonicalJson(schema);
  let validator = validators.get(key);
  if (validator === undefined) {
    try {
      // A copy: ajv keeps what it compiled, and a caller's schema object may change later.
      validator = ajv.compile(structuredClone(schema) as AnySchema);
    } catch {
      validator = null;
    }
    validators.set(key, validator);
  }
  return validator;
}

/** A tool call's arguments as a value, or what is wrong with them, said so the model can write them again. */
export type CheckedCall = { readonly ok: true; readonly args: unknown } | { readonly ok: false; readonly problem: string };

/**
 * Checks a call's arguments against the parameters schema of the tool that was offered, before
 * anything is run: an invalid call is never executed, and the model is told which member is
 * wrong or missing. ask_user's question must also have something in it besides blanks, since it
 * is shown to the user as it is.
 */
export function checkToolCall(call: ModelToolCall, schema: object | undefined): CheckedCall {
  const invalid = (problems: readonly string[]): CheckedCall => ({
    ok: false,
    problem: `invalid arguments for ${call.name}: ${problems.join('; ')}`,
  });
  let args: unknown;
  try {
    // No arguments at all is how some servers send {}.
    args = JSON.parse(call.arguments.trim() === '' ? '{}' : call.arguments) as unknown;
  } catch {
    return invalid(['the arguments are not JSON']);
  }
  const validator = schema === undefined ? null : validatorOf(schema);
  if (validator !== null && schema !== undefined && !validator(args)) return invalid(problemsOf(validator.errors ?? [], schema, args));
  if (call.name === ASK_USER_TOOL.function.name) {
    const question = (args as { question?: unknown } | null)?.question;
    if (typeof question !== 'string') return invalid(['question is required']);
    if (question.trim() === '') return invalid(['question must not be blank']);
  }
  return { ok: true, args };
}

/** ajv's errors as short phrases (`question is required`), through the same explanation the hub gives callers of its API. */
function problemsOf(errors: readonly ErrorObject[], schema: object, args: unknown): string[] {
  try {
    const violations = toFieldViolations(errors, {
      document: { $defs: { arguments: schema as JsonSchema } },
      def: 'arguments',
      data: args,
    });
    if (violations.length > 0)
      return violations.map((violation) =>
        violation.field === '' ? `the arguments ${violation.description}` : `${violation.field} ${violation.description}`,
      );
  } catch {
    // A schema the explanation cannot walk (a reference it does not know): ajv's own words below.
  }
  return errors.map(
    (error) => `${error.instancePath === '' ? 'the arguments' : error.instancePath.slice(1)} ${error.message ?? 'are invalid'}`,
  );
}

/** The question of an ask_user call whose arguments passed checkToolCall. */
export function askUserQuestion(args: unknown): string {
  return (args as { question: string }).question;
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
