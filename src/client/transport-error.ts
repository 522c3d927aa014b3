/** The peer could not be reached, or answered HTTP without an error body of the binding (a JSON-RPC error, a google.rpc.Status). */
export class A2ATransportError extends Error {
  /** HTTP status, when the peer answered at all. */
  readonly status: number | undefined;

  constructor(message: string, options: { status?: number; cause?: unknown } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'A2ATransportError';
    this.status = options.status;
  }
}

/** The error to surface when `signal` ended a request: a timeout is a transport error, a caller's abort keeps its reason. */
export function abortError(method: string, signal: AbortSignal, error: unknown): Error {
  const reason: unknown = signal.reason;
  if (reason instanceof DOMException && reason.name === 'TimeoutError') {
    return new A2ATransportError(`${method}: timed out`, { cause: error });
  }
  return reason instanceof Error ? reason : new A2ATransportError(`${method}: aborted`, { cause: error });
}
