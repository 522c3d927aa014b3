import { Agent, createServer, request as forward } from 'node:http';
import { cpuNow, memoryNow, serveHttpChild, type ServerOps } from './ipc.js';

/**
 * The bench's load balancer for replicas: a round-robin HTTP proxy in its own process, no
 * sticky sessions, every request to the next backend in turn over kept-alive connections,
 * responses streamed through as they come (SSE included). argv: <backend URL>...
 */
const backends = process.argv.slice(2).map((raw) => new URL(raw));
if (backends.length === 0) throw new Error('usage: round-robin.ts <backend URL>...');
const agent = new Agent({ keepAlive: true, maxSockets: Infinity });
let next = 0;

const server = createServer((request, response) => {
  const backend = backends[next++ % backends.length] as URL;
  const upstream = forward(
    { host: backend.hostname, port: backend.port, method: request.method, path: request.url, headers: request.headers, agent },
    (answer) => {
      response.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(response);
    },
  );
  upstream.on('error', (error) => {
    if (response.headersSent) return void response.destroy(error);
    response.writeHead(502, { 'content-type': 'text/plain' }).end(`round-robin: ${error.message}`);
  });
  request.pipe(upstream);
});
server.keepAliveTimeout = 5000;

await serveHttpChild<ServerOps>(server, { cpu: () => cpuNow(), memory: () => memoryNow() }, () => agent.destroy());
