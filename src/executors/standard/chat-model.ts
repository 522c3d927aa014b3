import { credentialParameters, shownUrl } from '../../support/shown-url.js';
import { randomUUID } from 'node:crypto';
import OpenAI, { APIConnectionError, APIConnectionTimeoutError, APIError, APIUserAbortError } from 'openai';
import type { ChatCompletionFunctionTool, ChatCompletionMessageParam } from 'openai/resources/chat/completions';
import { fetch as undiciFetch } from 'undici';
import type { ModelOptions } from '../../../generated/control/types.js';
import { DEFAULTS } from '../../../generated/control/defaults.js';
import { checkUrl, findUrlPolicyError, type UrlPolicy } from '../../net/destination-policy.js';
import { guardedAgent } from '../../net/guarded-agent.js';
import { redactSecret } from './redact.js';

/** A tool call the model asked for, its arguments as the model wrote them (JSON text, maybe broken). */
export interface ModelToolCall {
  readonly id: string;
  readonly name: string;
  readonly arguments: string;
}

export interface ModelAnswer {
  readonly text: string;
  readonly toolCalls: readonly ModelToolCall[];
  /** stop, length, tool_calls, content_filter, … as the endpoint said; null when it did not. */
  readonly finishReason: string | null;
}

export interface ModelCall {
  readonly messages: readonly ChatCompletionMessageParam[];
  /** Offered tools; none: the model must answer in text. */
  readonly tools?: readonly ChatCompletionFunctionTool[];
}

/** A model call that did not give an answer, said so that a person can act on it; never holds key material. */
export class ModelError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ModelError';
  }
}

export interface ChatModelDeps {
  /** Where the API key variable is read, when each call starts. */
  readonly env: NodeJS.ProcessEnv;
  /** The outbound destination policy the endpoint must pass (outbound.urlPolicy). */
  readonly urlPolicy?: UrlPolicy;
}

/**
 * One OpenAI-compatible Chat Completions endpoint, through the official `openai` package: a call
 * streams, text deltas are handed over as they come, tool-call deltas are assembled, and reasoning
 * deltas (DeepSeek's reasoning_content, Ollama's reasoning) are dropped. Every request goes through
 * the project's destination policy, at the URL and again at connect time.
 */
export class ChatModel {
  readonly #options: ModelOptions;
  readonly #deps: ChatModelDeps;
  #client: { readonly key: string; readonly client: OpenAI } | undefined;

  constructor(options: ModelOptions, deps: ChatModelDeps) {
    this.#options = options;
    this.#deps = deps;
  }

  /** Streams one completion; resolves with the whole answer, or rejects with a ModelError (or the abort reason). */
  async complete(call: ModelCall, onText: (delta: string) => void, signal: AbortSignal): Promise<ModelAnswer> {
    const { options } = this;
    const key = this.#apiKey();
    const timeoutMs = options.timeoutMs ?? DEFAULTS.ModelOptions.timeoutMs;
    // The package's own timeout stops at the response headers; a stream that stalls later is this one's.
    const deadline = AbortSignal.timeout(timeoutMs);
    const combined = AbortSignal.any([signal, deadline]);
    let text = '';
    const calls = new Map<number, { id: string; name: string; arguments: string }>();
    let finishReason: string | null = null;
    try {
      const stream = await this.#clientFor(key).chat.completions.create(
        {
          model: options.model,
          messages: [...call.messages],
          stream: true,
          ...(call.tools === undefined || call.tools.length === 0 ? {} : { tools: [...call.tools] }),
          ...(options.temperature === undefined ? {} : { temperature: options.temperature }),
          ...(options.maxTokens === undefined ? {} : { max_tokens: options.maxTokens }),
        },
        { signal: combined, timeout: timeoutMs },
      );
      for await (const chunk of stream) {
        const choice = chunk.choices?.[0];
        if (choice === undefined) continue;
        const delta = choice.delta;
        if (typeof delta?.content === 'string' && delta.content !== '') {
          text += delta.content;
          onText(delta.content);
        }
        (delta?.tool_calls ?? []).forEach((piece, position) => {
          // Some servers leave index out; the position in the delta stands in for it then.
          const index = typeof piece.index === 'number' ? piece.index : position;
          const held = calls.get(index) ?? { id: '', name: '', arguments: '' };
          if (piece.id) held.id = piece.id;
          // Assigned, as the package's own accumulator does: servers repeat the name, never split it.
          if (piece.function?.name) held.name = piece.function.name;
          if (piece.function?.arguments) held.arguments += piece.function.arguments;
          calls.set(index, held);
        });
        if (choice.finish_reason) finishReason = choice.finish_reason;
      }
    } catch (error) {
      if (signal.aborted) throw signal.reason;
      throw this.#explain(error, deadline.aborted, timeoutMs, key);
    }
    // The package's stream ends quietly, as if complete, when its signal aborts.
    if (signal.aborted) throw signal.reason;
    if (deadline.aborted) throw this.#explain(undefined, true, timeoutMs, key);
    if (finishReason === null && text === '' && calls.size === 0)
      throw new ModelError(`the model endpoint ${shownUrl(options.baseURL)} ended its answer without saying anything`);
    const toolCalls = [...calls.entries()]
      .sort(([a], [b]) => a - b)
      // A call id must be unique in the conversation (it names the tool-call artifact and its result).
      .map(([, held]) => ({ ...held, id: held.id === '' ? `call_${randomUUID()}` : held.id }))
      .filter((held) => held.name !== '');
    return { text, toolCalls, finishReason };
  }

  get options(): ModelOptions {
    return this.#options;
  }

  /** The key from its variable, read per call so a rotated key is picked up; undefined when none is configured. */
  #apiKey(): string | undefined {
    const name = this.#options.apiKeyEnv;
    if (name === undefined) return undefined;
    const key = this.#deps.env[name];
    if (key === undefined || key === '') {
      throw new ModelError(`the model's API key variable ${name} is not set in the hub's environment (model.apiKeyEnv)`);
    }
    return key;
  }

  #clientFor(key: string | undefined): OpenAI {
    const cacheKey = key ?? '';
    if (this.#client?.key === cacheKey) return this.#client.client;
    const policy = { ...this.#deps.urlPolicy, configuredAt: 'outbound.urlPolicy' };
    const dispatcher = guardedAgent(policy);
    const client = new OpenAI({
      baseURL: this.#options.baseURL,
      // The package insists on a key; an endpoint without one (Ollama, llama.cpp) gets no header at all.
      apiKey: key ?? 'none',
      maxRetries: this.#options.maxRetries ?? DEFAULTS.ModelOptions.maxRetries,
      fetch: async (url, init) => {
        const target = urlText(url);
        checkUrl(target, policy);
        const headers = new Headers(init?.headers);
        if (key === undefined) headers.delete('authorization');
        // A redirect would lead past the URL check above (only the address check at connect time would remain).
        const request = { ...init, headers: Object.fromEntries(headers.entries()), dispatcher, redirect: 'error' };
        return await undiciFetch(target, request as unknown as Parameters<typeof undiciFetch>[1]);
      },
    });
    this.#client = { key: cacheKey, client };
    return client;
  }

  /** What went wrong, for a status message: the endpoint, the HTTP status or the network cause, no key. */
  #explain(error: unknown, timedOut: boolean, timeoutMs: number, key: string | undefined): Error {
    // Shown without its query: a stored config from before credentials were refused there may hold one.
    const endpoint = `the model endpoint ${shownUrl(this.#options.baseURL)}`;
    const inUrl = credentialParameters(this.#options.baseURL).map(([, value]) => value);
    const clean = (text: string): string => inUrl.reduce((cleaned, value) => redactSecret(cleaned, value), redactSecret(text, key));
    if (error instanceof ModelError) return error;
    if (timedOut || error instanceof APIConnectionTimeoutError) {
      return new ModelError(`${endpoint} did not finish answering within ${timeoutMs} ms (model.timeoutMs)`);
    }
    const refused = findUrlPolicyError(error);
    if (refused !== undefined)
      return new ModelError(`${endpoint} is refused by the outbound destination policy: ${clean(refused.message)}`);
    if (error instanceof APIError && error.status !== undefined) {
      const said = clean(messageOf(error));
      const hint =
        error.status === 401 || error.status === 403
          ? `; check the key in ${this.#options.apiKeyEnv ?? 'model.apiKeyEnv (none is configured)'}`
          : error.status === 404
            ? `; check model.baseURL (requests go to <baseURL>/chat/completions) and that model "${this.#options.model}" exists there`
            : '';
      return new ModelError(`${endpoint} answered HTTP ${error.status}${said === '' ? '' : `: ${said}`}${hint}`);
    }
    if (error instanceof APIUserAbortError) return new ModelError(`${endpoint}: the call was aborted`);
    // An error event inside the stream, or a chunk that is not JSON: the endpoint was reached.
    if ((error instanceof APIError && !(error instanceof APIConnectionError)) || error instanceof SyntaxError)
      return new ModelError(`${endpoint} sent an error while streaming its answer: ${clean(messageOf(error))}`);
    const cause = rootCause(error);
    return new ModelError(`${endpoint} could not be reached: ${clean(cause)}`);
  }
}

/** What the package's fetch is given to fetch: a string, a URL or a Request. */
function urlText(url: string | URL | Request): string {
  return typeof url === 'string' ? url : url instanceof URL ? url.href : url.url;
}

/** The message an APIError carries, without the status the package puts in front of it. */
function messageOf(error: { readonly error?: unknown; readonly message: string }): string {
  const body = error.error as { message?: unknown } | undefined;
  const text = typeof body?.message === 'string' ? body.message : error.message.replace(/^\d{3}\s*/, '');
  return text.length > 300 ? `${text.slice(0, 300)}…` : text;
}

/** The innermost cause's message: `connect ECONNREFUSED 127.0.0.1:9` rather than "Connection error.". */
function rootCause(error: unknown): string {
  let current: unknown = error;
  let text = error instanceof Error ? error.message : String(error);
  for (let depth = 0; current instanceof Error && depth < 8; depth += 1) {
    const code = (current as { code?: unknown }).code;
    text = typeof code === 'string' && !current.message.includes(code) ? `${current.message} (${code})` : current.message;
    current = current.cause;
  }
  return text;
}
