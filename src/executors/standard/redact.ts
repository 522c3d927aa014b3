/**
 * Text from a model endpoint with key material taken out: the configured key wherever it occurs,
 * and anything shaped like an API key, which some endpoints quote back in part ("Incorrect API
 * key provided: sk-abc***xyz"). The result goes into task status messages and logs.
 */
export function redactSecret(text: string, key: string | undefined): string {
  let clean = key !== undefined && key.length >= 4 ? text.split(key).join('[redacted]') : text;
  clean = clean.replace(KEY_SHAPED, '[redacted]');
  return clean;
}

/**
 * sk-…, sk-proj-…, key-…, Bearer … and long opaque runs that include masking stars. The last
 * branch starts only where a run starts (the lookbehind): tried at every position of a long run
 * of letters, it backtracked over the rest of the run each time, quadratic in what a remote sent.
 */
const KEY_SHAPED =
  /\b(?:sk|rk|pk|key)-[A-Za-z0-9*_-]{6,}|Bearer\s+[A-Za-z0-9._~+/*=-]{6,}|(?<![A-Za-z0-9_-])[A-Za-z0-9_-]{4,}\*{3,}[A-Za-z0-9_-]*/g;
