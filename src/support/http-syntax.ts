/**
 * The bits of RFC 9110 syntax a2a-hub checks itself, because values users give end up in
 * request headers it sends: one definition for the server's rules and the CLI's flags.
 */

/** Longest value taken for a header a2a-hub sends on a user's behalf (a scheme, credentials, a token). */
export const MAX_HEADER_VALUE_LENGTH = 4096;

/** RFC 9110 §5.6.2 token: what an authentication scheme name is (§11.1). */
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
/** RFC 9110 §5.5 field-value characters: visible ASCII, space, tab and obs-text; no CR, LF or other control character. */
const FIELD_VALUE = /^[\t\u0020-\u007e\u0080-\u00ff]*$/;

export function isHttpToken(value: string): boolean {
  return TOKEN.test(value);
}

/** Whether `value` can be sent as a header value as it is: no CR, LF, NUL or other control character but tab. */
export function isFieldValue(value: string): boolean {
  return FIELD_VALUE.test(value);
}
