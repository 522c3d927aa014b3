import type { LookupFunction } from 'node:net';
import type { PushSettings } from '../generated/hub/types.js';
import { guardedAgent } from './net/guarded-agent.js';
import { ConfigError } from './config.js';
import { PushDispatcher, type AttemptObservation } from './push/push-dispatcher.js';
import { resolvePushSettings, type ResolvedPushSettings } from './push/push-settings.js';
import { SealedSecretsError, SecretSealer } from './push/sealed-secrets.js';
import { WebhookSender } from './push/webhook-sender.js';
import type { PushConfigs, PushOutbox } from './store/push-store.js';
import type { TaskReads, BatchWrites } from './store/task-store.js';
import type { LogFunction } from './support/log.js';

/** The push side of a running hub (HubParts.push). */
export interface HubPush {
  readonly settings: ResolvedPushSettings;
  /** Seals a config's secrets for the store, and opens them for delivery. */
  readonly sealer: SecretSealer;
  readonly dispatcher: PushDispatcher;
}

export interface HubPushOptions {
  readonly store: PushConfigs & PushOutbox & BatchWrites & Pick<TaskReads, 'getTaskInfo'>;
  readonly settings: PushSettings | undefined;
  /** Whether an instance serves push now; see PushDispatcherOptions.pushEnabled. */
  readonly pushEnabled?: (instanceId: string) => boolean;
  readonly env: NodeJS.ProcessEnv;
  readonly log: LogFunction;
  readonly onAttempt?: (attempt: AttemptObservation) => void;
  /** The resolver deliveries connect through (default: node:dns lookup); HubOptions.lookup. */
  readonly lookup?: LookupFunction;
}

/**
 * Builds webhook delivery from the hub's `push` settings: a sender that connects only through
 * the push destination policy (checked per URL and again for every resolved address at dial
 * time), the sealer from `secretKeyEnv`, and the dispatcher over the store's outbox. Nothing
 * is sent until `dispatcher.start()`.
 */
export function createHubPush(options: HubPushOptions): HubPush {
  const settings = resolvePushSettings(options.settings);
  const sealer = sealerFrom(settings.secretKeyEnv, options.env);
  const sender = new WebhookSender({
    policy: settings.policy,
    dispatcher: guardedAgent(settings.policy, options.lookup),
    timeoutMs: settings.timeoutMs,
  });
  const dispatcher = new PushDispatcher({
    store: options.store,
    sender,
    sealer,
    settings,
    log: options.log,
    ...(options.pushEnabled ? { pushEnabled: options.pushEnabled } : {}),
    ...(options.onAttempt ? { onAttempt: options.onAttempt } : {}),
  });
  return { settings, sealer, dispatcher };
}

function sealerFrom(keyEnv: string | undefined, env: NodeJS.ProcessEnv): SecretSealer {
  if (keyEnv === undefined) return new SecretSealer();
  const key = env[keyEnv];
  if (key === undefined || key.trim() === '')
    throw new ConfigError(`push.secretKeyEnv names ${keyEnv}, which is not set; set it to 32 bytes (make one with: openssl rand -hex 32)`);
  try {
    return new SecretSealer(key);
  } catch (error) {
    if (error instanceof SealedSecretsError) throw new ConfigError(`push.secretKeyEnv (${keyEnv}): ${error.message}`);
    throw error;
  }
}
