import type { MethodName, MethodTypes, StreamingMethodName } from '../../generated/a2a/1.0/methods.js';
import type { StreamEvent } from './task-stream.js';

/**
 * What A2AClient needs from a wire binding (spec §3.2: JSON-RPC, HTTP+JSON, gRPC). The client
 * speaks in method names and typed params, so a binding is free to map them to an envelope
 * (JSON-RPC) or to a route (HTTP+JSON, from `METHODS[method].http`) without the client knowing.
 *
 * Resuming and cancelling after an abort (task-stream.ts) decide by the error class, so every
 * binding must fail alike:
 * - an A2A error answer → the A2AError of the registry entry (`a2aError(name, …)`);
 * - an answer that does not conform → InvalidAgentResponseError (answer-validation.ts);
 * - no answer, a broken stream or a timeout → A2ATransportError without status; an HTTP error
 *   without an A2A error body → A2ATransportError with that status;
 * - a URL the policy refuses → UrlPolicyError; the caller's abort → the signal's reason.
 */

/** The methods whose answer is a stream of StreamResponse (generated from methods.json). */
export type StreamingMethod = StreamingMethodName;

export interface BindingCallOptions {
  readonly signal?: AbortSignal;
  /**
   * Told the HTTP headers of the answer (once, before its body is judged), for what an agent
   * says beside the result: a2a-hub's one-time webhook signing secret (docs/client.md).
   */
  readonly onHeaders?: ((headers: Headers) => void) | undefined;
}

export interface BindingStreamOptions extends BindingCallOptions {
  /** Resume after this SSE event id (SubscribeToTask). */
  readonly lastEventId?: string | undefined;
}

export interface ClientBinding {
  /** The interface URL from the card that this binding talks to. */
  readonly endpoint: string;
  /** The binding as AgentInterface.protocolBinding names it (`JSONRPC`, `HTTP+JSON`, or a custom binding's own name). */
  readonly protocolBinding: string;
  /** The protocol version it speaks on the wire (AgentInterface.protocolVersion); 1.0 when absent. Its callers see 1.0 either way. */
  readonly protocolVersion?: string;
  /** One request, one answer: the validated result of `method`. */
  call<M extends MethodName>(method: M, params: MethodTypes[M]['params'], options?: BindingCallOptions): Promise<MethodTypes[M]['result']>;
  /** The validated frames of a streaming method, in order; the connection closes when the consumer stops pulling. */
  stream<M extends StreamingMethod>(
    method: M,
    params: MethodTypes[M]['params'],
    options?: BindingStreamOptions,
  ): AsyncIterable<StreamEvent>;
}
