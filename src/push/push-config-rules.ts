import type { FieldViolation, TaskPushNotificationConfig } from '../../generated/a2a/1.0/types.js';
import type { FieldViolationReason } from '../../generated/hub/field-violations.js';
import { checkUrl, screenHost, UrlPolicyError, type UrlPolicy } from '../net/destination-policy.js';
import type { LookupFunction } from 'node:net';
import { isFieldValue, isHttpToken, MAX_HEADER_VALUE_LENGTH } from '../support/http-syntax.js';

/**
 * What a push config must be before a2a-hub stores it, beyond its schema: rules that the
 * schema cannot say, because they come from HTTP (the values end up in request headers) and
 * from this hub's destination policy. Each broken rule is a violation naming its field under
 * `prefix`, from the request message's root.
 */

/** Longest webhook URL taken: longer ones are no receiver's, and every delivery would carry it. */
export const MAX_URL_LENGTH = 2048;
/** Longest config id taken: it is a path segment of the HTTP+JSON routes and part of every delivery's key. */
export const MAX_CONFIG_ID_LENGTH = 128;

/** What a path segment cannot carry, even percent-encoded: a2a-hub's routes match one segment, decoded. */
function unfitForSegment(id: string): boolean {
  if (id === '.' || id === '..') return true;
  for (const char of id) {
    const code = char.charCodeAt(0);
    if (char === '/' || char === '\\' || code < 0x20 || code === 0x7f) return true;
  }
  return false;
}

const INVALID: FieldViolationReason = 'INVALID_VALUE';

/**
 * The violations of a config as sent (Create's params, or SendMessage's inline config). The
 * task it belongs to is checked by the caller: by path or params on Create, by the message on
 * an inline config.
 */
export function configViolations(config: TaskPushNotificationConfig, policy: UrlPolicy, prefix: string): FieldViolation[] {
  const at = (field: string) => (prefix === '' ? field : `${prefix}.${field}`);
  const violations: FieldViolation[] = [];
  const url = urlProblem(config.url, policy);
  if (url !== undefined) violations.push({ field: at('url'), description: url, reason: INVALID });
  if (config.id !== undefined && config.id !== '') {
    const id = idProblem(config.id);
    if (id !== undefined) violations.push({ field: at('id'), description: id, reason: INVALID });
  }
  const header = (field: string, value: string | undefined, name: string): void => {
    const problem = value === undefined ? undefined : headerValueProblem(value, name);
    if (problem !== undefined) violations.push({ field: at(field), description: problem, reason: INVALID });
  };
  header('token', config.token, 'A2A-Notification-Token');
  const auth = config.authentication;
  if (auth !== undefined) {
    if (auth.scheme.length > MAX_HEADER_VALUE_LENGTH) header('authentication.scheme', auth.scheme, 'Authorization');
    else if (!isHttpToken(auth.scheme))
      violations.push({
        field: at('authentication.scheme'),
        description:
          "must be an HTTP authentication scheme name (an RFC 9110 token: letters, digits and !#$%&'*+-.^_`|~, no space), e.g. Bearer or Basic",
        reason: INVALID,
      });
    header('authentication.credentials', auth.credentials, 'Authorization');
  }
  return violations;
}

/**
 * The violation of a config whose host resolves, now, to an address the policy refuses, if it
 * does. Run after configViolations found none: it only resolves names (IP literals were judged there).
 */
// The message names the refused range, not the address: a caller must not learn how this hub
// resolves names it could not otherwise see (internal DNS).
export async function destinationViolation(
  config: TaskPushNotificationConfig,
  policy: UrlPolicy,
  prefix: string,
  options: { readonly lookup?: LookupFunction; readonly timeoutMs?: number } = {},
): Promise<FieldViolation | undefined> {
  const refused = await screenHost(new URL(config.url), policy, options);
  if (refused === undefined) return undefined;
  return {
    field: prefix === '' ? 'url' : `${prefix}.url`,
    description: `is refused by the push destination policy: its host resolves to an address in ${policyReason(refused)}`,
    reason: INVALID,
  };
}

function urlProblem(url: string, policy: UrlPolicy): string | undefined {
  if (url.length > MAX_URL_LENGTH) return `is ${url.length} characters long; a webhook URL may have at most ${MAX_URL_LENGTH}`;
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return 'must be an absolute http or https URL, e.g. https://receiver.example.com/a2a/push';
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:')
    return `must be an absolute http or https URL; ${parsed.protocol.replace(/:$/, '')} is neither`;
  if (parsed.username !== '' || parsed.password !== '')
    return 'must not carry credentials (user:password@): put them in authentication, which is stored sealed and never shown again';
  try {
    checkUrl(parsed, policy);
  } catch (error) {
    if (!(error instanceof UrlPolicyError)) throw error;
    return `is refused by the push destination policy: ${policyReason(error)}`;
  }
  return undefined;
}

/** The policy's own reason, which names the push.destinations member that decides it, without the URL the field already is. */
function policyReason(error: UrlPolicyError): string {
  return error.message.replace(/^URL policy: .*? is refused: /, '');
}

function idProblem(id: string): string | undefined {
  if (id.length > MAX_CONFIG_ID_LENGTH) return `is ${id.length} characters long; a config id may have at most ${MAX_CONFIG_ID_LENGTH}`;
  if (unfitForSegment(id))
    return 'must be usable as one URL path segment (the HTTP+JSON routes name it): no /, \\ or control characters, and not . or ..';
  return undefined;
}

/** What keeps `value` from going out in the `header` of every delivery, if anything. The length is told, never the value. */
function headerValueProblem(value: string, header: string): string | undefined {
  if (value.length > MAX_HEADER_VALUE_LENGTH)
    return `is ${value.length} characters long; a value sent in the ${header} header may have at most ${MAX_HEADER_VALUE_LENGTH}`;
  if (!isFieldValue(value))
    return `is sent in the ${header} header of every delivery, so it must be a valid header value: no CR, LF or other control character`;
  return undefined;
}
