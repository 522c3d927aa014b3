import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

/** What a push config holds that must never be shown again: the store keeps it sealed (StoredPushConfig.secrets). */
export interface PushSecrets {
  /** The config's `token`, sent as A2A-Notification-Token. */
  readonly token?: string;
  /** `authentication.credentials`, sent after the scheme in Authorization. */
  readonly credentials?: string;
  /** The Standard Webhooks secret the hub generated for the config. */
  readonly signingSecret: string;
}

/** Thrown when sealed secrets cannot be opened: another key, no key, or a damaged value. */
export class SealedSecretsError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SealedSecretsError';
  }
}

const PLAIN = 'plain:';
const SEALED = 'aes256gcm:';
const KEY_BYTES = 32;
const IV_BYTES = 12;
const TAG_BYTES = 16;

/**
 * Seals push secrets for the store. With a key (PushSettings.secretKeyEnv) they are encrypted
 * with AES-256-GCM, a fresh IV each time and the config's identity as associated data, so a
 * sealed value copied onto another config does not open. Without one they are kept as JSON,
 * marked so that a hub started later with a key still reads them (and seals them when they
 * are next written).
 */
export class SecretSealer {
  readonly #key: Buffer | undefined;

  /** `key`: 32 bytes, as 64 hex digits or base64 (what `secretKeyEnv` names). */
  constructor(key?: string) {
    this.#key = key === undefined ? undefined : parseKey(key);
  }

  /** Whether secrets are encrypted at rest. */
  get encrypts(): boolean {
    return this.#key !== undefined;
  }

  seal(secrets: PushSecrets, configIdentity: string): string {
    const json = JSON.stringify(secrets);
    if (this.#key === undefined) return `${PLAIN}${json}`;
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', this.#key, iv);
    cipher.setAAD(Buffer.from(configIdentity, 'utf8'));
    const sealed = Buffer.concat([cipher.update(json, 'utf8'), cipher.final()]);
    return `${SEALED}${Buffer.concat([iv, cipher.getAuthTag(), sealed]).toString('base64')}`;
  }

  open(value: string, configIdentity: string): PushSecrets {
    if (value.startsWith(PLAIN)) return parseSecrets(value.slice(PLAIN.length));
    if (!value.startsWith(SEALED)) throw new SealedSecretsError('the stored push secrets are in no known form');
    if (this.#key === undefined)
      throw new SealedSecretsError('the push secrets were encrypted with a key, and this hub has none (set push.secretKeyEnv)');
    const bytes = Buffer.from(value.slice(SEALED.length), 'base64');
    if (bytes.length < IV_BYTES + TAG_BYTES) throw new SealedSecretsError('the stored push secrets are damaged');
    const decipher = createDecipheriv('aes-256-gcm', this.#key, bytes.subarray(0, IV_BYTES));
    decipher.setAAD(Buffer.from(configIdentity, 'utf8'));
    decipher.setAuthTag(bytes.subarray(IV_BYTES, IV_BYTES + TAG_BYTES));
    try {
      return parseSecrets(Buffer.concat([decipher.update(bytes.subarray(IV_BYTES + TAG_BYTES)), decipher.final()]).toString('utf8'));
    } catch (error) {
      if (error instanceof SealedSecretsError) throw error;
      throw new SealedSecretsError('the push secrets do not open with this key (was push.secretKeyEnv changed?)');
    }
  }
}

/** The associated data a config's secrets are sealed under. */
export function configIdentity(taskId: string, configId: string): string {
  return JSON.stringify([taskId, configId]);
}

function parseKey(text: string): Buffer {
  const trimmed = text.trim();
  const key = /^[0-9a-fA-F]{64}$/.test(trimmed) ? Buffer.from(trimmed, 'hex') : Buffer.from(trimmed, 'base64');
  if (key.length !== KEY_BYTES || (!/^[0-9a-fA-F]{64}$/.test(trimmed) && !/^[A-Za-z0-9+/]{43}=?$/.test(trimmed)))
    throw new SealedSecretsError(
      `the push secret key must be 32 bytes, as 64 hex digits or base64 (got ${trimmed.length} characters); make one with: openssl rand -hex 32`,
    );
  return key;
}

function parseSecrets(json: string): PushSecrets {
  const value: unknown = JSON.parse(json);
  if (typeof value !== 'object' || value === null || typeof (value as { signingSecret?: unknown }).signingSecret !== 'string')
    throw new SealedSecretsError('the stored push secrets are damaged');
  return value as PushSecrets;
}
