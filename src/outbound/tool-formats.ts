import type { ToolInputSchema, ToolList } from '../../generated/control/types.js';
import type { ToolDefinition } from './tool-registry.js';

/** The shapes GET /a2a/api/tools answers in: ours, and the two that function-calling APIs take. */
export type ToolFormat = 'hub' | 'openai' | 'anthropic';

/** The tool list in `format`; each entry gets its own copy of the schema, so a caller may change it. */
export function formatTools(tools: readonly ToolDefinition[], format: ToolFormat): ToolList {
  const schema = (tool: ToolDefinition): ToolInputSchema => structuredClone(tool.inputSchema);
  switch (format) {
    case 'openai':
      return {
        tools: tools.map((tool) => ({
          type: 'function' as const,
          function: { name: tool.name, description: tool.description, parameters: schema(tool) },
        })),
      };
    case 'anthropic':
      return { tools: tools.map((tool) => ({ name: tool.name, description: tool.description, input_schema: schema(tool) })) };
    default:
      return {
        tools: tools.map((tool) => ({
          name: tool.name,
          description: tool.description,
          inputSchema: schema(tool),
          connectionId: tool.connectionId,
          connectionName: tool.connectionName,
          skillId: tool.skillId,
        })),
      };
  }
}
