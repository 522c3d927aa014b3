import { a2aError, type A2AError } from './a2a-error.js';

export const SERVED_VERSION = '1.0';

export interface VersionPolicy {
  /**
   * Spec §3.6.2 reads an absent A2A-Version as 0.3, which a 1.0-only server must reject.
   * Many 1.0 clients omit the header, so by default it is served as 1.0; `strict` rejects.
   */
  readonly strict: boolean;
}

/** `1.0` and `1.0.x` are 1.0 (patch versions never affect negotiation); anything else is refused. */
export function negotiateVersion(requested: string | undefined, policy: VersionPolicy): { ok: true; version: string } | { ok: false; error: A2AError } {
  const value = requested?.trim() ?? '';
  if (value === '') {
    if (!policy.strict) return { ok: true, version: SERVED_VERSION };
    return refuse('no A2A-Version was sent, which means 0.3 (spec §3.6.2); this endpoint serves 1.0: send A2A-Version: 1.0', '');
  }
  if (/^1\.0(\.\d+)?$/.test(value)) return { ok: true, version: SERVED_VERSION };
  return refuse(`A2A-Version ${value} is not supported; this endpoint serves ${SERVED_VERSION}`, value);
}

function refuse(message: string, requested: string): { ok: false; error: A2AError } {
  return { ok: false, error: a2aError('VersionNotSupportedError', message, { metadata: { requested, supported: SERVED_VERSION } }) };
}
