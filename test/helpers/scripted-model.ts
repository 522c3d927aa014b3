import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * An OpenAI-compatible Chat Completions server for tests: real HTTP on port 0 and real SSE, each
 * answer scripted. It records every request (body and headers) so a test can see what the model
 * was sent, and whether the client went away before the answer ended.
 */

export interface ScriptedToolCall {
  readonly id: string;
  readonly name: string;
  /** Sent in two pieces, as models stream arguments. */
  readonly arguments: string;
}

export interface ScriptedTurn {
  /** Text deltas, streamed in order. */
  readonly text?: readonly string[];
  /** Reasoning deltas (DeepSeek's reasoning_content), which the hub must not show. */
  readonly reasoning?: readonly string[];
  readonly toolCalls?: readonly ScriptedToolCall[];
  /** Wait this long before each chunk. */
  readonly delayMs?: number;
  /** Answer this HTTP status with an OpenAI error body instead of a stream. */
  readonly error?: { readonly status: number; readonly message: string };
  /** Stream this many chunks, then stall until the client goes away. */
  readonly stallAfter?: number;
  /** finish_reason of the last chunk; default tool_calls with tool calls, else stop. */
  readonly finishReason?: string;
}

export interface ModelRequest {
  readonly body: {
    readonly model?: string;
    readonly messages: readonly {
      readonly role: string;
      readonly content?: unknown;
      readonly tool_call_id?: string;
      readonly tool_calls?: unknown;
    }[];
    readonly tools?: readonly { readonly function: { readonly name: string } }[];
    readonly stream?: boolean;
    readonly temperature?: number;
    readonly max_tokens?: number;
  };
  readonly headers: IncomingHttpHeaders;
  /** Whether the client closed the connection before the answer ended (an abort). */
  closedEarly: boolean;
}

export interface ScriptedModel {
  /** The baseURL to configure: http://127.0.0.1:<port>/v1 */
  readonly baseURL: string;
  readonly requests: ModelRequest[];
  /** Queues answers, used in order; a request with none queued gets `fallback` (default: a 500). */
  push(...turns: ScriptedTurn[]): void;
  /** Answers computed from the request instead of the queue. */
  respondWith(answer: ((request: ModelRequest, index: number) => ScriptedTurn) | undefined): void;
  close(): Promise<void>;
}

export async function startScriptedModel(): Promise<ScriptedModel> {
  const requests: ModelRequest[] = [];
  const queue: ScriptedTurn[] = [];
  let answer: ((request: ModelRequest, index: number) => ScriptedTurn) | undefined;
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      if (req.method !== 'POST' || !req.url?.endsWith('/chat/completions')) {
        sendError(res, 404, `no route ${req.method ?? ''} ${req.url ?? ''}`);
        return;
      }
      const record: ModelRequest = {
        body: JSON.parse(Buffer.concat(chunks).toString('utf8')) as ModelRequest['body'],
        headers: req.headers,
        closedEarly: false,
      };
      const index = requests.length;
      requests.push(record);
      res.on('close', () => {
        if (!res.writableFinished) record.closedEarly = true;
      });
      const turn = answer?.(record, index) ??
        queue.shift() ?? { error: { status: 500, message: 'the scripted model has no answer queued' } };
      void play(turn, record, res);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseURL: `http://127.0.0.1:${port}/v1`,
    requests,
    push: (...turns) => queue.push(...turns),
    respondWith: (fn) => (answer = fn),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function sendError(res: ServerResponse, status: number, message: string): void {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify({ error: { message, type: 'invalid_request_error', code: null } }));
}

async function play(turn: ScriptedTurn, request: ModelRequest, res: ServerResponse): Promise<void> {
  if (turn.error !== undefined) {
    sendError(res, turn.error.status, turn.error.message);
    return;
  }
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  const model = request.body.model ?? 'scripted';
  const chunk = (delta: Record<string, unknown>, finish: string | null = null): string =>
    `data: ${JSON.stringify({ id: 'chatcmpl-scripted', object: 'chat.completion.chunk', created: 0, model, choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
  const frames: string[] = [chunk({ role: 'assistant', content: '' })];
  for (const piece of turn.reasoning ?? []) frames.push(chunk({ reasoning_content: piece }));
  for (const piece of turn.text ?? []) frames.push(chunk({ content: piece }));
  (turn.toolCalls ?? []).forEach((call, index) => {
    const cut = Math.ceil(call.arguments.length / 2);
    frames.push(
      chunk({
        tool_calls: [{ index, id: call.id, type: 'function', function: { name: call.name, arguments: call.arguments.slice(0, cut) } }],
      }),
    );
    frames.push(chunk({ tool_calls: [{ index, function: { arguments: call.arguments.slice(cut) } }] }));
  });
  frames.push(chunk({}, turn.finishReason ?? ((turn.toolCalls?.length ?? 0) > 0 ? 'tool_calls' : 'stop')));
  frames.push('data: [DONE]\n\n');
  for (const [index, frame] of frames.entries()) {
    if (res.destroyed) return;
    if (turn.stallAfter !== undefined && index >= turn.stallAfter) return; // the client's abort or timeout ends it
    if (turn.delayMs !== undefined) await new Promise((resolve) => setTimeout(resolve, turn.delayMs));
    res.write(frame);
  }
  res.end();
}
