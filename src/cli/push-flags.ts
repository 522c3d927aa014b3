import { randomUUID } from 'node:crypto';
import type { InlinePushConfig } from '../client/a2a-client.js';
import { isFieldValue, isHttpToken, MAX_HEADER_VALUE_LENGTH } from '../support/http-syntax.js';

/**
 * `send --push-url URL [--push-token TOKEN] [--push-auth "SCHEME CREDENTIALS"]`: the inline push
 * config a send registers, checked before anything is sent so that a typo is a usage error
 * rather than an agent's refusal. The id is chosen here, so the command can name the config
 * whether or not the agent echoes it anywhere.
 */

export interface PushFlags {
  pushUrl?: string;
  pushToken?: string;
  pushAuth?: string;
}

/** A value the agent will send in a header: one line, no control characters, not over the hub's limit. */
function headerValue(value: string): boolean {
  return value.length <= MAX_HEADER_VALUE_LENGTH && isFieldValue(value);
}

/** The config the flags describe, undefined without --push-url, or the usage problem in words. */
export function pushConfigOf(flags: PushFlags): { config?: InlinePushConfig } | { problem: string } {
  if (flags.pushUrl === undefined) {
    if (flags.pushToken !== undefined || flags.pushAuth !== undefined)
      return { problem: '--push-token and --push-auth describe the webhook of --push-url, which is missing' };
    return {};
  }
  let url: URL;
  try {
    url = new URL(flags.pushUrl);
  } catch {
    return { problem: `--push-url takes an absolute http(s) URL, got ${JSON.stringify(flags.pushUrl)}` };
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    return { problem: `--push-url takes an http or https URL, got ${url.protocol.slice(0, -1)}` };
  if (url.username !== '' || url.password !== '')
    return { problem: '--push-url must not carry credentials; give them with --push-auth "SCHEME CREDENTIALS"' };
  if (flags.pushToken !== undefined && (flags.pushToken === '' || !headerValue(flags.pushToken)))
    return {
      problem: `--push-token takes a non-empty value on one line, without control characters, of at most ${MAX_HEADER_VALUE_LENGTH} characters`,
    };
  const authentication = flags.pushAuth === undefined ? undefined : authenticationOf(flags.pushAuth);
  if (typeof authentication === 'string') return { problem: authentication };
  return {
    config: {
      id: randomUUID(),
      url: flags.pushUrl,
      ...(flags.pushToken === undefined ? {} : { token: flags.pushToken }),
      ...(authentication === undefined ? {} : { authentication }),
    },
  };
}

/** `SCHEME CREDENTIALS` (credentials optional) as AuthenticationInfo, or what is wrong with it. */
function authenticationOf(value: string): InlinePushConfig['authentication'] | string {
  const [scheme = '', ...rest] = value.trim().split(/ +/);
  const credentials = rest.join(' ');
  if (!isHttpToken(scheme) || scheme.length > MAX_HEADER_VALUE_LENGTH)
    return `--push-auth takes "SCHEME CREDENTIALS" with an HTTP auth scheme such as Bearer or Basic, got scheme ${JSON.stringify(scheme)}`;
  if (!headerValue(credentials))
    return `--push-auth credentials must be one line, without control characters, of at most ${MAX_HEADER_VALUE_LENGTH} characters`;
  return credentials === '' ? { scheme } : { scheme, credentials };
}
