/** The delays between webhook attempts (docs/push.md, "Delivery, retries and failing configs"). */
export interface BackoffSettings {
  /** The first retry's delay. */
  readonly retryMinMs: number;
  /** The longest delay, and the interval between probes of a failing config. */
  readonly retryMaxMs: number;
}

/**
 * The delay before the next attempt of a delivery that has failed `failedAttempts` times
 * (1 after the first failure): retryMinMs doubling per failure, capped at retryMaxMs, with
 * "equal jitter" (the upper half of the step is random) so that configs failing together do
 * not retry in lockstep, yet no retry comes sooner than half its step. A receiver's
 * Retry-After is a lower bound, itself capped at retryMaxMs: a receiver cannot park a
 * delivery for longer than the operator allowed.
 */
export function retryDelayMs(failedAttempts: number, settings: BackoffSettings, random: () => number, retryAfterMs?: number): number {
  const exponent = Math.min(Math.max(failedAttempts, 1) - 1, 40);
  const step = Math.min(settings.retryMaxMs, settings.retryMinMs * 2 ** exponent);
  const jittered = Math.round(step / 2 + random() * (step / 2));
  return retryAfterMs === undefined ? jittered : Math.max(jittered, Math.min(retryAfterMs, settings.retryMaxMs));
}

/**
 * The wait before the next probe of a failing config: between half and all of retryMaxMs, so
 * that configs which started failing together (one receiver down) do not all probe together.
 */
export function probeDelayMs(settings: BackoffSettings, random: () => number): number {
  return Math.round(settings.retryMaxMs / 2 + random() * (settings.retryMaxMs / 2));
}

/** The shortest gap probeDelayMs gives: a failing config is sent nothing sooner than this after its last attempt. */
export function minProbeGapMs(settings: BackoffSettings): number {
  return Math.round(settings.retryMaxMs / 2);
}
