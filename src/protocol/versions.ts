import { isThisProtocolVersion as is03, PROTOCOL_VERSION as VERSION_03 } from '../../generated/a2a/0.3/protocol.js';
import { isThisProtocolVersion, PROTOCOL_VERSION } from '../../generated/a2a/1.0/protocol.js';
import { a2aError, type A2AError } from './a2a-error.js';

/** The protocol versions a request may be served in. */
export type ServedVersion = typeof PROTOCOL_VERSION | typeof VERSION_03;

export interface VersionPolicy {
  /**
   * The version of a request without A2A-Version that does not show its own (see
   * VersionRequest.implied). Spec §3.6.2 says 0.3, the default; `1.0` serves 1.0 clients that
   * omit the header.
   */
  readonly absent: ServedVersion;
}

export interface VersionRequest {
  /** The A2A-Version header, or the query parameter when the header is absent. */
  readonly requested: string | undefined;
  /** The versions the agent serves on this binding (both, on either binding; versionsServedBy). */
  readonly served: readonly ServedVersion[];
  /**
   * The version a request without A2A-Version shows by itself, if it shows one: 0.3 for a
   * 0.3 method name (message/send), 1.0 for a 1.0 method whose params only 1.0 accepts.
   * Asked only when no version was sent.
   */
  readonly implied?: () => ServedVersion | undefined;
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
    const version: ServedVersion = request.implied?.() ?? policy.absent;
    if (request.served.includes(version)) return { ok: true, version };
    return refuse(
      version === VERSION_03
        ? `no A2A-Version was sent, which means ${VERSION_03} (spec §3.6.2); this endpoint serves ${supported}: send A2A-Version: ${PROTOCOL_VERSION}`
        : `no A2A-Version was sent, which this hub reads as ${version}; this endpoint serves ${supported}`,
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
