import { credentialParameters } from '../../support/shown-url.js';
import type { ModelOptions } from '../../../generated/control/types.js';
import { checkUrl, UrlPolicyError, type UrlPolicy } from '../../net/destination-policy.js';
import { canonicalJson } from '../../support/canonical-json.js';
import type { Preset, PresetInstance } from '../presets.js';
import { ChatModel } from './chat-model.js';
import { standardExecutor } from './standard-executor.js';

export const STANDARD_PRESET = 'standard';

export interface StandardPresetDeps {
  /** The instance's configuration as it is when a message arrives. */
  readonly instanceOf: (instanceId: string) => PresetInstance | undefined;
  /** Where API key variables are read (default: process.env). */
  readonly env?: NodeJS.ProcessEnv;
  /** The outbound destination policy (hub config outbound.urlPolicy); model endpoints pass it like remote agents do. */
  readonly urlPolicy?: UrlPolicy;
}

/**
 * The `standard` preset (seed 001's default session executor): a model behind an
 * OpenAI-compatible Chat Completions endpoint answers each message, streaming its text, calling
 * the outbound tools the instance allows and asking the user with ask_user. Messages of one
 * conversation are answered in order (fifo), each with the conversation so far.
 */
export function standardPreset(deps: StandardPresetDeps): Preset {
  const models = new Map<string, { readonly key: string; readonly model: ChatModel }>();
  const modelOf = (instance: PresetInstance): ChatModel | undefined => {
    if (instance.model === undefined) return undefined;
    const key = canonicalJson(instance.model);
    const held = models.get(instance.id);
    if (held?.key === key) return held.model;
    const model = new ChatModel(instance.model, {
      env: deps.env ?? process.env,
      ...(deps.urlPolicy === undefined ? {} : { urlPolicy: deps.urlPolicy }),
    });
    models.set(instance.id, { key, model });
    return model;
  };
  return {
    id: STANDARD_PRESET,
    name: 'Standard',
    description:
      'A model behind an OpenAI-compatible endpoint (OpenAI, DeepSeek, Ollama, vLLM, llama.cpp) that streams its answer and calls the outbound tools it is allowed.',
    executor: standardExecutor({ instanceOf: deps.instanceOf, modelOf }),
    skills: [
      {
        id: 'chat',
        name: 'chat',
        description: 'Talks with the model behind this agent; it may call other agents as tools to answer.',
        tags: ['chat', 'llm'],
      },
    ],
    // The images the model is given, and anything else: a part the model cannot be given is named to it and to the user, not refused.
    inputModes: ['text/plain', 'application/json', 'image/png', 'image/jpeg', 'image/gif', 'image/webp', '*/*'],
    outputModes: ['text/plain', 'application/json'],
    extensions: [],
    sessionOrder: 'fifo',
    validate: (instance) =>
      instance.sessionOrder === 'concurrent'
        ? 'the standard preset keeps one conversation per session and answers its messages in order: sessionOrder must be fifo (or left out)'
        : modelProblem(instance.model, deps.urlPolicy),
  };
}

/** What is wrong with an instance's model options that can be known before a call: a missing model, an endpoint the policy refuses by its URL. */
function modelProblem(model: ModelOptions | undefined, policy: UrlPolicy | undefined): string | undefined {
  if (model === undefined)
    return 'the standard preset needs model: {"baseURL": "…/v1", "model": "…"}, and apiKeyEnv when the endpoint wants a key';
  // A key in the URL would be shown wherever the endpoint is: in status messages every caller reads, and in logs.
  const credentials = credentialParameters(model.baseURL).map(([name]) => name);
  if (credentials.length > 0)
    return `model.baseURL carries a credential in its query (${credentials.join(', ')}): put the key in an environment variable and name it in model.apiKeyEnv`;
  try {
    checkUrl(model.baseURL, { ...policy, configuredAt: 'outbound.urlPolicy' });
  } catch (error) {
    if (error instanceof UrlPolicyError) return `model.baseURL: ${error.message}`;
    throw error;
  }
  return undefined;
}
