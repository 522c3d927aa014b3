import { ToolError } from './tool-error.js';

/** The arguments every tool takes. */
export interface ToolArguments {
  readonly prompt: string;
  /** Continues a remote task that stopped in TASK_STATE_INPUT_REQUIRED or TASK_STATE_AUTH_REQUIRED. */
  readonly taskId?: string;
}

/**
 * The JSON Schema of ToolArguments, in the subset OpenAI- and Anthropic-style function
 * calling accepts (no $schema, no formats). `parseToolArguments` enforces exactly this.
 */
export const TOOL_INPUT_SCHEMA = {
  type: 'object',
  properties: {
    prompt: { type: 'string', minLength: 1, description: 'The task or instruction to send to the remote agent.' },
    taskId: {
      type: 'string',
      minLength: 1,
      description:
        'Only to continue a remote task that asked for input or authentication: the taskId its answer gave. Put the answer in prompt.',
    },
  },
  required: ['prompt'],
  additionalProperties: false,
} as const;

/**
 * Checks arguments against TOOL_INPUT_SCHEMA. A JSON string is parsed first, because that is
 * how function-calling APIs hand arguments over. Every problem is named in one message.
 */
export function parseToolArguments(tool: string, args: unknown): ToolArguments {
  let value = args;
  if (typeof value === 'string') {
    try {
      value = JSON.parse(value) as unknown;
    } catch {
      throw badArguments(tool, ['the arguments are a string that is not JSON']);
    }
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    throw badArguments(tool, ['the arguments must be an object like {"prompt": "…"}']);
  const record = value as Record<string, unknown>;
  const problems: string[] = [];
  const { prompt, taskId } = record;
  if (prompt === undefined) problems.push('prompt is required');
  else if (typeof prompt !== 'string') problems.push('prompt must be a string');
  else if (prompt === '') problems.push('prompt must not be empty');
  if (taskId !== undefined && (typeof taskId !== 'string' || taskId === '')) problems.push('taskId must be a non-empty string');
  for (const key of Object.keys(record))
    if (key !== 'prompt' && key !== 'taskId') problems.push(`${key} is not an argument of this tool (only prompt and taskId are)`);
  if (problems.length > 0) throw badArguments(tool, problems);
  return { prompt: prompt as string, ...(typeof taskId === 'string' ? { taskId } : {}) };
}

function badArguments(tool: string, problems: readonly string[]): ToolError {
  return new ToolError('bad-arguments', `invalid arguments for tool ${tool}: ${problems.join('; ')}`, { tool });
}
