import { isThisProtocolVersion as is03, PROTOCOL_VERSION as VERSION_03 } from '../../generated/a2a/0.3/protocol.js';
import { isThisProtocolVersion, PROTOCOL_VERSION } from '../../generated/a2a/1.0/protocol.js';
import { a2aError, type A2AError } from './a2a-error.js';

/** The protocol versions a request may be served in. */
export type ServedVersion = typeof PROTOCOL_VERSION | typeof VERSION_03;

export interface VersionPolicy {
  /**
   * Spec §3.6.2 reads an absent A2A-Version as 0.3. `strict` applies that literally; otherwise
   * (the default, for the many 1.0 clients that omit the header) an absent version is 1.0,
   * unless the request itself is 0.3 (a 0.3 method name such as message/send).
   */
  readonly strict: boolean;
}

export interface VersionRequest {
  /** The A2A-Version header, or the query parameter when the header is absent. */
  readonly requested: string | undefined;
  /** The versions this binding serves: JSON-RPC both, HTTP+JSON 1.0 only (for now). */
  readonly served: readonly ServedVersion[];
  /** True when the request is unmistakably 0.3 whatever its header says (a slash method name). */
  readonly legacyRequest?: boolean;
}

/**
 * The version a request is served in: `1.0`/`1.0.x` is 1.0 and `0.3`/`0.3.x` is 0.3 (patch
 * versions never affect negotiation); absent as the policy says; anything else is refused.
 */
export function negotiateVersion(
  request: VersionRequest,
  policy: VersionPolicy,
): { ok: true; version: ServedVersion } | { ok: false; error: A2AError } {
  const value = request.requested?.trim() ?? '';
  const supported = request.served.join(' and ');
  if (value === '') {
    const version: ServedVersion = policy.strict || request.legacyRequest === true ? VERSION_03 : PROTOCOL_VERSION;
    if (request.served.includes(version)) return { ok: true, version };
    return refuse(
      `no A2A-Version was sent, which means ${VERSION_03} (spec §3.6.2); this endpoint serves ${supported}: send A2A-Version: ${PROTOCOL_VERSION}`,
      '',
      supported,
    );
  }
  const version: ServedVersion | undefined = isThisProtocolVersion(value) ? PROTOCOL_VERSION : is03(value) ? VERSION_03 : undefined;
  if (version !== undefined && request.served.includes(version)) return { ok: true, version };
  return refuse(`A2A-Version ${value} is not supported; this endpoint serves ${supported}`, value, supported);
}

function refuse(message: string, requested: string, supported: string): { ok: false; error: A2AError } {
  return { ok: false, error: a2aError('VersionNotSupportedError', message, { metadata: { requested, supported } }) };
}
