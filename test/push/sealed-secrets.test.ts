import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { configIdentity, SealedSecretsError, SecretSealer } from '../../src/push/sealed-secrets.js';

const SECRETS = { token: 'tok-123', credentials: 'cred-456', signingSecret: 'whsec_c2lnbmluZy1zZWNyZXQtb2YtdGhpcy1jb25maWc=' };
const ID = configIdentity('task-1', 'config-1');

describe('push secrets at rest', () => {
  it('without a key keeps them as marked JSON, which a hub with a key still opens', () => {
    const sealed = new SecretSealer().seal(SECRETS, ID);
    expect(sealed.startsWith('plain:')).toBe(true);
    expect(new SecretSealer(randomBytes(32).toString('hex')).open(sealed, ID)).toEqual(SECRETS);
  });

  it('with a key encrypts them: no secret is readable, each seal differs, and it opens only with that key and config', () => {
    const key = randomBytes(32).toString('hex');
    const sealer = new SecretSealer(key);
    const sealed = sealer.seal(SECRETS, ID);
    expect(sealer.encrypts).toBe(true);
    for (const secret of Object.values(SECRETS)) expect(sealed).not.toContain(secret);
    expect(sealer.seal(SECRETS, ID)).not.toBe(sealed);
    expect(sealer.open(sealed, ID)).toEqual(SECRETS);
    expect(
      new SecretSealer(randomBytes(32).toString('base64')).open.bind(new SecretSealer(randomBytes(32).toString('base64')), sealed, ID),
    ).toThrow(SealedSecretsError);
    expect(() => sealer.open(sealed, configIdentity('task-1', 'config-2'))).toThrow('do not open with this key');
    expect(() => new SecretSealer().open(sealed, ID)).toThrow('set push.secretKeyEnv');
  });

  it('accepts a base64 key and refuses a key of the wrong size with advice', () => {
    expect(new SecretSealer(randomBytes(32).toString('base64')).encrypts).toBe(true);
    expect(() => new SecretSealer('abc')).toThrow('openssl rand -hex 32');
    expect(() => new SecretSealer(randomBytes(16).toString('hex'))).toThrow(SealedSecretsError);
  });
});
