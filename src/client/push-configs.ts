import { randomUUID } from 'node:crypto';
import type {
  ListTaskPushNotificationConfigsResponse,
  SendMessageRequest,
  TaskPushNotificationConfig,
} from '../../generated/a2a/1.0/types.js';
import { a2aError } from '../protocol/a2a-error.js';
import { WEBHOOK_SECRET_HEADER } from '../protocol/push-headers.js';

/**
 * The client's side of push notifications that is more than one call: the inline config of a
 * send, the signing secret a2a-hub returns once in a response header, and walking the pages of
 * ListTaskPushNotificationConfigs. A2AClient's push methods are built from these.
 */

/** A webhook registered with a message (SendMessageConfiguration.taskPushNotificationConfig): the task is the one the message creates or continues. */
export type InlinePushConfig = Omit<TaskPushNotificationConfig, 'taskId'>;

/** What CreateTaskPushNotificationConfig gave back. */
export interface CreatedPushConfig {
  /** The stored config, as the agent returned it (its `id` is the caller's or the UUID the client chose). */
  readonly config: TaskPushNotificationConfig;
  /**
   * The secret a2a-hub signs this config's deliveries with (Standard Webhooks `webhook-signature`),
   * sent once in the `A2A-Hub-Webhook-Secret` answer header and never again: keep it. Undefined
   * from agents that do not sign deliveries.
   */
  readonly signingSecret?: string;
}

/** The push members of the send options. */
export interface PushSendOptions {
  /** Registers this webhook for the task (sent as `configuration.taskPushNotificationConfig`). */
  readonly pushConfig?: InlinePushConfig;
  /** Told the webhook signing secret when the agent returned one for `pushConfig` (a2a-hub does, once). */
  readonly onSigningSecret?: (secret: string) => void;
}

/**
 * `config` with an id: the caller's, else a fresh UUID. Choosing it here rather than leaving it
 * to the agent makes a retried create replace the config it already made instead of adding a twin.
 */
export function withConfigId<T extends { readonly id?: string }>(config: T): T {
  return config.id === undefined || config.id === '' ? { ...config, id: randomUUID() } : config;
}

/** `params` with `pushConfig` (given an id by withConfigId) as its inline config; giving one both ways is a mistake, refused before anything is sent. */
export function withInlinePushConfig(
  method: string,
  params: SendMessageRequest,
  pushConfig: InlinePushConfig | undefined,
): SendMessageRequest {
  if (pushConfig === undefined) return params;
  if (params.configuration?.taskPushNotificationConfig !== undefined) {
    throw a2aError(
      'InvalidParamsError',
      `${method}: the pushConfig option and configuration.taskPushNotificationConfig both give a push config; give one`,
      { violations: [{ field: 'configuration.taskPushNotificationConfig', description: 'is also given as the pushConfig option' }] },
    );
  }
  return { ...params, configuration: { ...params.configuration, taskPushNotificationConfig: withConfigId(pushConfig) } };
}

/** The signing secret an answer carries (a2a-hub's `A2A-Hub-Webhook-Secret` header), if any. */
export function signingSecretOf(headers: Headers): string | undefined {
  const value = headers.get(WEBHOOK_SECRET_HEADER)?.trim();
  return value === undefined || value === '' ? undefined : value;
}

/** The `onHeaders` hook of a send that registers an inline config and wants its secret; undefined when it does neither. */
export function signingSecretHook(options: PushSendOptions): ((headers: Headers) => void) | undefined {
  const tell = options.onSigningSecret;
  if (options.pushConfig === undefined || tell === undefined) return undefined;
  return (headers) => {
    const secret = signingSecretOf(headers);
    if (secret !== undefined) tell(secret);
  };
}

/**
 * Every config of every page, fetching the next page only when the caller gets there. A
 * token seen before would loop forever, so it is an InvalidAgentResponse instead.
 */
export async function* everyPage(
  fetchPage: (pageToken: string | undefined) => Promise<ListTaskPushNotificationConfigsResponse>,
): AsyncGenerator<TaskPushNotificationConfig, void, undefined> {
  const seen = new Set<string>();
  let pageToken: string | undefined;
  for (;;) {
    const page = await fetchPage(pageToken);
    yield* page.configs ?? [];
    const next = page.nextPageToken;
    if (next === undefined || next === '') return;
    if (seen.has(next)) {
      throw a2aError(
        'InvalidAgentResponseError',
        `ListTaskPushNotificationConfigs: the agent returned the page token ${JSON.stringify(next)} twice`,
      );
    }
    seen.add(next);
    pageToken = next;
  }
}
