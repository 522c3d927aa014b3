/**
 * Bounded waits for what happens in the background of a test (a task settling, a connection
 * coming back). A wait that runs out throws, naming what it waited for; an error thrown by the
 * probe itself is not retried but fails the test at once.
 */

/** Reads every `intervalMs` until `done` holds for what was read, and returns that value. */
export async function waitFor<T>(
  read: () => Promise<T> | T,
  done: (value: T) => boolean,
  what: string,
  timeoutMs = 10_000,
  intervalMs = 25,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}; last read: ${shown(value)}`);
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}

/** Checks every `intervalMs` until `check` holds. */
export async function until(check: () => Promise<boolean> | boolean, what: string, timeoutMs = 10_000, intervalMs = 25): Promise<void> {
  await waitFor(check, (held) => held, what, timeoutMs, intervalMs);
}

function shown(value: unknown): string {
  const text = typeof value === 'string' ? value : JSON.stringify(value);
  return text === undefined ? String(value) : text.length > 500 ? `${text.slice(0, 500)}…` : text;
}
