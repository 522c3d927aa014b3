import type { AgentDeclaration, DataAgentConfig, DataAgentModel, ModelOptions } from '../../../generated/control/types.js';
import { STANDARD_PRESET } from '../../executors/standard/standard-preset.js';
import { CONTROL } from '../../protocol/control-schema.js';
import { checkValue } from '../../protocol/validation.js';
import { isRecord } from '../../support/records.js';
import { AgentsFileError, fieldSegments, locatedPhrases, type SourceFile, type ValuePath } from './source.js';

/**
 * Seed 002's agent YAML (DataAgent's `serve-a2a --config`) read as one of our declarations: the
 * standard preset on the MODEL entry's OpenAI-compatible endpoint, with SCENARIO.chat's
 * instructions. docs/server.md (One agent, DataAgent style) has this table.
 */

/** The preset seed 002's agent runs on: a model behind an OpenAI-compatible endpoint. */
const DATA_AGENT_PRESET = STANDARD_PRESET;

/** The OpenAI-compatible endpoint of each provider seed 002's MODEL section may name, and the variable its key is read from. */
export const KNOWN_PROVIDERS: Readonly<Record<string, { readonly baseURL: string; readonly apiKeyEnv?: string }>> = {
  // DeepSeek documents https://api.deepseek.com as the base for OpenAI SDKs (…/v1 works too).
  deepseek: { baseURL: 'https://api.deepseek.com', apiKeyEnv: 'DEEPSEEK_API_KEY' },
  openai: { baseURL: 'https://api.openai.com/v1', apiKeyEnv: 'OPENAI_API_KEY' },
  ollama: { baseURL: 'http://127.0.0.1:11434/v1' },
};

/** Whether a parsed file is seed 002's shape rather than ours: DataAgent requires its AGENT_CONFIG section. */
export function isDataAgentConfig(value: unknown): boolean {
  return isRecord(value) && 'AGENT_CONFIG' in value;
}

export function dataAgentDeclaration(source: SourceFile, id: string): { declaration: AgentDeclaration; notes: string[] } {
  const checked = checkValue(CONTROL, 'DataAgentConfig', source.value, { flavour: 'exact' });
  if (!checked.ok) throw new AgentsFileError(locatedPhrases(source, checked.violations, 'the file'));
  const config = checked.value;
  const notes: string[] = [];
  const identity = config.AGENT_CONFIG;
  const runtime = [
    ...(identity.backend === undefined ? [] : [`backend "${identity.backend}"`]),
    ...(identity.type === undefined ? [] : [`type "${identity.type}"`]),
  ];
  if (runtime.length > 0) {
    notes.push(
      `${source.name}:${source.lineOf(['AGENT_CONFIG'])}: AGENT_CONFIG ${runtime.join(' and ')} choose DataAgent's runtime and are ignored: a2a-hub serves the agent on its ${DATA_AGENT_PRESET} preset (a model behind an OpenAI-compatible endpoint)`,
    );
  }
  const [key, entry] = chosenModel(config, source, notes);
  const modelPath = ['MODEL', key];
  const { model, origins } = modelOptions(source, modelPath, entry, notes);
  const instructions = config.SCENARIO?.chat?.instructions;
  const declaration: AgentDeclaration = {
    id,
    name: identity.name,
    description: identity.description,
    version: identity.version,
    preset: DATA_AGENT_PRESET,
    model,
    ...(instructions === undefined || instructions === '' ? {} : { instructions }),
  };
  // The seed's members were checked by type; what ModelOptions asks beyond that (an http URL, ranges) is checked here, named as the seed names it.
  const result = checkValue(CONTROL, 'AgentDeclaration', declaration, { flavour: 'exact' });
  if (!result.ok) {
    throw new AgentsFileError(
      result.violations.map((violation) => {
        const origin = origins.get(violation.field) ?? [];
        const field = origin.length === 0 ? violation.field : origin.join('.');
        return `${source.name}:${source.lineOf(origin.length === 0 ? fieldSegments(violation.field) : origin)}: ${field} ${violation.description}`;
      }),
    );
  }
  return { declaration: result.value, notes };
}

/** The MODEL entry whose model_type is chat, else the first; a note says which when there are several. */
function chosenModel(config: DataAgentConfig, source: SourceFile, notes: string[]): [string, DataAgentModel] {
  const entries = Object.entries(config.MODEL).flatMap(([key, entry]) =>
    entry === undefined ? [] : [[key, entry] as [string, DataAgentModel]],
  );
  const chosen = entries.find(([, entry]) => entry.model_type === 'chat') ?? entries[0];
  if (chosen === undefined) throw new AgentsFileError([`${source.name}:${source.lineOf(['MODEL'])}: MODEL has no model entry`]);
  if (entries.length > 1) {
    notes.push(
      `${source.name}:${source.lineOf(['MODEL', chosen[0]])}: MODEL has ${entries.length} entries; the agent uses ${chosen[0]}${chosen[1].model_type === 'chat' ? ' (model_type chat)' : ' (the first: none has model_type chat)'}`,
    );
  }
  return chosen;
}

/** ModelOptions from a MODEL entry, with the seed path each member came from. */
function modelOptions(
  source: SourceFile,
  path: ValuePath,
  entry: DataAgentModel,
  notes: string[],
): { model: ModelOptions; origins: Map<string, ValuePath> } {
  const params = entry.params;
  const provider = KNOWN_PROVIDERS[entry.provider.toLowerCase()];
  const baseURL = params.base_url ?? provider?.baseURL;
  if (baseURL === undefined) {
    throw new AgentsFileError([
      `${source.name}:${source.lineOf([...path, 'provider'])}: ${path.join('.')}.provider "${entry.provider}" has no endpoint a2a-hub knows (it knows ${Object.keys(KNOWN_PROVIDERS).join(', ')}): give ${path.join('.')}.params.base_url, the provider's OpenAI-compatible API base, and params.api_key_env, the environment variable holding its key`,
    ]);
  }
  const apiKeyEnv = params.api_key_env ?? provider?.apiKeyEnv;
  if ('api_key' in params) {
    notes.push(
      `${source.name}:${source.lineOf([...path, 'params', 'api_key'])}: ${path.join('.')}.params.api_key is not read: a2a-hub never keeps a key in a file; it reads the key from the environment variable ${apiKeyEnv ?? 'that params.api_key_env names'} when a turn starts`,
    );
  }
  const model: ModelOptions = {
    baseURL,
    model: params.model,
    ...(apiKeyEnv === undefined ? {} : { apiKeyEnv }),
    ...(params.temperature === undefined ? {} : { temperature: params.temperature }),
    ...(params.max_tokens === undefined ? {} : { maxTokens: params.max_tokens }),
  };
  const origins = new Map<string, ValuePath>([
    ['model.baseURL', params.base_url === undefined ? [...path, 'provider'] : [...path, 'params', 'base_url']],
    ['model.model', [...path, 'params', 'model']],
    ['model.apiKeyEnv', [...path, 'params', 'api_key_env']],
    ['model.temperature', [...path, 'params', 'temperature']],
    ['model.maxTokens', [...path, 'params', 'max_tokens']],
  ]);
  return { model, origins };
}
