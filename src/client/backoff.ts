import { abortError } from './transport-error.js';

/** Jittered exponential delay: base × 2^attempt × 0.5–1.5, so that many clients do not retry in step. */
export function backoffDelay(baseMs: number, attempt: number): number {
  return baseMs * 2 ** attempt * (0.5 + Math.random());
}

/** Waits the backoff delay; rejects at once when `signal` aborts. */
export async function backoff(baseMs: number, attempt: number, signal: AbortSignal | undefined): Promise<void> {
  await sleep(backoffDelay(baseMs, attempt), signal);
}

export async function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  if (signal?.aborted) throw abortError('request', signal, signal.reason);
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = (): void => {
      clearTimeout(timer);
      if (signal !== undefined) reject(abortError('request', signal, signal.reason));
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
