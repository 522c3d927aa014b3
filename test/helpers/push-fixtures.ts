import type { Task } from '../../generated/a2a/1.0/types.js';
import { configIdentity, SecretSealer } from '../../src/push/sealed-secrets.js';
import { generateSigningSecret } from '../../src/push/signature.js';
import type { PushConfigs, PushOutbox, StoredPushConfig } from '../../src/store/push-store.js';

/**
 * Push configs put straight into a store, for tests of what reads them (the control API, the
 * panel). The secrets are sealed without a key, so they sit in the stored value in clear: a
 * read that leaked the sealed value would show them, and the tests look for exactly that.
 */

export const PUSH_TOKEN = 'tok-SECRET';
export const PUSH_CREDENTIALS = 'cred-SECRET';
/** Every signing secret the hub generates starts with this (Standard Webhooks). */
export const SIGNING_SECRET_PREFIX = 'whsec_';
/** What no control-API answer or page may contain. */
export const PUSH_SECRET_MARKERS = [PUSH_TOKEN, PUSH_CREDENTIALS, SIGNING_SECRET_PREFIX] as const;

type Store = Pick<PushConfigs, 'putPushConfig'> & Pick<PushOutbox, 'enqueueDelivery'>;

export interface SeedOptions {
  readonly url?: string;
  /** The authentication scheme; null for a config without authentication. */
  readonly scheme?: string | null;
  readonly tenant?: string;
}

/** Stores config `id` of `taskId` with a token, credentials and a signing secret, as the push layer would. */
export async function seedPushConfig(store: Store, taskId: string, id: string, options: SeedOptions = {}): Promise<StoredPushConfig> {
  const scheme = options.scheme === undefined ? 'Bearer' : options.scheme;
  const stored: StoredPushConfig = {
    taskId,
    id,
    config: {
      id,
      taskId,
      url: options.url ?? `https://receiver.example/hooks/${id}`,
      ...(scheme === null ? {} : { authentication: { scheme } }),
      ...(options.tenant === undefined ? {} : { tenant: options.tenant }),
    },
    secrets: new SecretSealer().seal(
      { token: PUSH_TOKEN, credentials: PUSH_CREDENTIALS, signingSecret: generateSigningSecret() },
      configIdentity(taskId, id),
    ),
    createdAt: new Date().toISOString(),
  };
  await store.putPushConfig(stored);
  return stored;
}

/** Queues `count` deliveries of the task's snapshot to one config. */
export async function queueDeliveries(store: Store, task: Task, configId: string, count: number): Promise<void> {
  for (let index = 0; index < count; index += 1) await store.enqueueDelivery(task.id, configId, { task });
}
