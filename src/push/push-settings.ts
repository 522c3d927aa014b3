import { DEFAULTS } from '../../generated/hub/defaults.js';
import type { PushSettings } from '../../generated/hub/types.js';
import { pushDestinationPolicy, type UrlPolicy } from '../net/destination-policy.js';

/** PushSettings with every default filled in; `secretKeyEnv` stays optional (no key: secrets kept in clear). */
export type ResolvedPushSettings = Required<Omit<PushSettings, 'secretKeyEnv' | 'destinations'>> &
  Pick<PushSettings, 'secretKeyEnv'> & {
    /** Where webhooks may go: the push destinations as a destination policy. */
    readonly policy: UrlPolicy;
  };

/** The hub's `push` settings with the schema's defaults for what they leave out. */
export function resolvePushSettings(settings: PushSettings = {}): ResolvedPushSettings {
  const { destinations = {}, ...rest } = settings;
  return {
    ...DEFAULTS.PushSettings,
    ...rest,
    policy: pushDestinationPolicy(destinations),
  };
}
