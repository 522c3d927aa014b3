import { isThisProtocolVersion, PROTOCOL_VERSION } from '../../generated/a2a/1.0/protocol.js';
import { a2aError, type A2AError } from './a2a-error.js';

export interface VersionPolicy {
  /**
   * Spec §3.6.2 reads an absent A2A-Version as 0.3, which a 1.0-only server must reject.
   * Many 1.0 clients omit the header, so by default it is served as 1.0; `strict` rejects.
   */
  readonly strict: boolean;
}

/** `1.0` and `1.0.x` are 1.0 (patch versions never affect negotiation); anything else is refused. */
export function negotiateVersion(
  requested: string | undefined,
  policy: VersionPolicy,
): { ok: true; version: string } | { ok: false; error: A2AError } {
  const value = requested?.trim() ?? '';
  if (value === '') {
    if (!policy.strict) return { ok: true, version: PROTOCOL_VERSION };
    return refuse(
      `no A2A-Version was sent, which means 0.3 (spec §3.6.2); this endpoint serves ${PROTOCOL_VERSION}: send A2A-Version: ${PROTOCOL_VERSION}`,
      '',
    );
  }
  if (isThisProtocolVersion(value)) return { ok: true, version: PROTOCOL_VERSION };
  return refuse(`A2A-Version ${value} is not supported; this endpoint serves ${PROTOCOL_VERSION}`, value);
}

function refuse(message: string, requested: string): { ok: false; error: A2AError } {
  return { ok: false, error: a2aError('VersionNotSupportedError', message, { metadata: { requested, supported: PROTOCOL_VERSION } }) };
}
