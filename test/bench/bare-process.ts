import { createServer } from 'node:http';
import { cpuNow, memoryNow, serveHttpChild, type BareOps } from './ipc.js';

/**
 * The reference: a bare node:http JSON-RPC responder, in its own process like the hub (it
 * answers the HTTP+JSON sends the same way). It
 * does the minimum any JSON-RPC server must do (read the whole body, JSON.parse it) and
 * answers with fixed bytes: the card, a JSON-RPC success, or an SSE response holding the
 * same frames as the hub's echo stream, written at once. The parent configures the bodies
 * with what the hub answered to a sample request, so both sides send the same bytes.
 */
let bodies = { card: '{}', rpc: '{"jsonrpc":"2.0","id":1,"result":{}}', sse: '' };

const server = createServer((request, response) => {
  if (request.method === 'GET') {
    response.writeHead(200, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(bodies.card) });
    response.end(bodies.card);
    return;
  }
  const chunks: Buffer[] = [];
  request.on('data', (chunk: Buffer) => chunks.push(chunk));
  request.on('end', () => {
    let method: unknown;
    try {
      method = (JSON.parse(Buffer.concat(chunks).toString('utf8')) as { method?: unknown }).method;
    } catch {
      const body = '{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"parse error"}}';
      response.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
      response.end(body);
      return;
    }
    // HTTP+JSON names the method in the path (`…/message:stream`), JSON-RPC in the body.
    if (method === 'SendStreamingMessage' || request.url?.endsWith(':stream') === true) {
      // No content-length: chunked, like the hub's SSE response.
      response.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache, no-transform' });
      response.end(bodies.sse);
      return;
    }
    response.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(bodies.rpc) });
    response.end(bodies.rpc);
  });
});
server.keepAliveTimeout = 5000;

await serveHttpChild<BareOps>(server, {
  cpu: () => cpuNow(),
  configure(next) {
    bodies = next;
    return null;
  },
  memory: () => memoryNow(),
});
