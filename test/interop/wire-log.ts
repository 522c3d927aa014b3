import { beforeEach } from 'vitest';

/**
 * A logging `fetch` for third-party clients that accept a custom fetch: it records what the
 * client sent and what came back, byte for byte, without changing either. Response bodies
 * (JSON and SSE alike) are recorded as they stream through, so a client that stops reading
 * early still cancels the underlying request.
 */
export interface WireExchange {
  readonly method: string;
  readonly url: string;
  readonly requestHeaders: Record<string, string>;
  readonly requestBody: string | undefined;
  status?: number;
  responseHeaders?: Record<string, string>;
  responseBody: string;
  /** Set once the response body has been read to its end (or the read was cancelled). */
  done: boolean;
  error?: string;
}

export interface WireLog {
  readonly fetch: typeof fetch;
  readonly exchanges: WireExchange[];
  /** Drops everything recorded so far. */
  clear(): void;
  /** The exchanges whose URL ends with `suffix` (all of them without one). */
  to(suffix?: string): WireExchange[];
  /** The recorded JSON-RPC request envelopes (parsed), in order. */
  rpcRequests(): { method: string; params?: unknown; id?: unknown }[];
  /** A readable dump for failure reports. */
  format(limit?: number): string;
}

export function createWireLog(inner: typeof fetch = globalThis.fetch): WireLog {
  const exchanges: WireExchange[] = [];

  const logged = async (input: Parameters<typeof fetch>[0], init?: Parameters<typeof fetch>[1]): Promise<Response> => {
    const request = input instanceof Request ? input : undefined;
    const exchange: WireExchange = {
      method: init?.method ?? request?.method ?? 'GET',
      url: request?.url ?? (input instanceof URL ? input.href : (input as string)),
      requestHeaders: Object.fromEntries(new Headers(init?.headers ?? request?.headers).entries()),
      requestBody: typeof init?.body === 'string' ? init.body : undefined,
      responseBody: '',
      done: false,
    };
    exchanges.push(exchange);
    let response: Response;
    try {
      response = await inner(input, init);
    } catch (error) {
      exchange.error = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
      exchange.done = true;
      throw error;
    }
    exchange.status = response.status;
    exchange.responseHeaders = Object.fromEntries(response.headers.entries());
    if (response.body === null) {
      exchange.done = true;
      return response;
    }
    const decoder = new TextDecoder();
    const recorded = response.body.pipeThrough(
      new TransformStream<Uint8Array, Uint8Array>({
        transform(chunk, controller) {
          exchange.responseBody += decoder.decode(chunk, { stream: true });
          controller.enqueue(chunk);
        },
        flush() {
          exchange.responseBody += decoder.decode();
          exchange.done = true;
        },
      }),
    );
    return new Response(recorded, { status: response.status, statusText: response.statusText, headers: response.headers });
  };

  return {
    fetch: logged,
    exchanges,
    clear() {
      exchanges.length = 0;
    },
    to(suffix) {
      return suffix === undefined ? [...exchanges] : exchanges.filter((exchange) => exchange.url.endsWith(suffix));
    },
    rpcRequests() {
      return exchanges.flatMap((exchange) => {
        if (exchange.method !== 'POST' || exchange.requestBody === undefined) return [];
        try {
          return [JSON.parse(exchange.requestBody) as { method: string; params?: unknown; id?: unknown }];
        } catch {
          return [];
        }
      });
    },
    format(limit = 12) {
      return exchanges
        .slice(-limit)
        .map((exchange, index) =>
          [
            `#${index + 1} ${exchange.method} ${exchange.url}`,
            `  request headers: ${JSON.stringify(exchange.requestHeaders)}`,
            ...(exchange.requestBody === undefined ? [] : [`  request body: ${exchange.requestBody}`]),
            exchange.error === undefined
              ? `  -> ${exchange.status ?? '?'} ${JSON.stringify(exchange.responseHeaders ?? {})}${exchange.done ? '' : ' (body not fully read)'}`
              : `  -> fetch failed: ${exchange.error}`,
            ...(exchange.responseBody === '' ? [] : [`  response body: ${exchange.responseBody.trimEnd().replace(/\n/g, '\n    ')}`]),
          ].join('\n'),
        )
        .join('\n');
    },
  };
}

/**
 * For each test: starts `wire` afresh and, when the test fails, prints its last exchanges
 * (console.error: a failing test may write to stderr, a passing one never does).
 */
export function showWireOnFailure(wire: () => WireLog): void {
  beforeEach((context) => {
    wire().clear();
    context.onTestFailed(() => {
      console.error(`wire log of "${context.task.name}" (last exchanges):\n${wire().format()}`);
    });
  });
}
