import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ERROR_DOMAIN, ERRORS } from '../../generated/a2a/1.0/errors.js';
import { validateStreamResponse } from '../../generated/a2a/1.0/validators.js';
import { JsonRpcTransport } from '../../conformance/core/jsonrpc-transport.js';
import { RestTransport } from '../../conformance/core/rest-transport.js';
import { resolveTarget } from '../../conformance/core/target.js';
import { fillRoute, matchRestRoute, routeOf } from '../../src/protocol/rest-routes.js';

/*
 * The suite's HTTP+JSON transport against a scripted REST agent: requests go to the routes of
 * methods.json with path fields, queries and bodies where the binding puts them; answers are read
 * as the checks read JSON-RPC ones (errors by their ErrorInfo reason), the Status kept beside.
 */

interface Seen {
  readonly method: string;
  readonly url: string;
  readonly body: string;
  readonly authorization?: string;
}

const seen: Seen[] = [];
let server: Server;
let base = '';
const { TaskNotFoundError } = ERRORS;
const notFound = {
  error: {
    code: TaskNotFoundError.httpStatus,
    status: TaskNotFoundError.grpcStatus,
    message: 'no such task',
    details: [{ '@type': 'type.googleapis.com/google.rpc.ErrorInfo', reason: TaskNotFoundError.reason, domain: ERROR_DOMAIN }],
  },
};
const task = { id: 't-1', contextId: 'c-1', status: { state: 'TASK_STATE_WORKING' } };

function answer(request: IncomingMessage, response: ServerResponse, body: string): void {
  const authorization = request.headers.authorization;
  seen.push({ method: request.method ?? '', url: request.url ?? '', body, ...(authorization === undefined ? {} : { authorization }) });
  const path = (request.url ?? '').split('?')[0] ?? '';
  if (path.endsWith(':subscribe') || (request.method === 'POST' && path === '/rpc')) {
    response.writeHead(200, { 'content-type': 'text/event-stream' });
    response.end(`id: 1\ndata: ${JSON.stringify({ task })}\n\nevent: error\ndata: ${JSON.stringify(notFound)}\n\n`);
    return;
  }
  if (path.startsWith('/rest/') && request.method === 'GET' && path.includes('/tasks/')) {
    response.writeHead(TaskNotFoundError.httpStatus, { 'content-type': 'application/a2a+json' });
    response.end(JSON.stringify(notFound));
    return;
  }
  response.writeHead(404, { 'content-type': 'text/plain' });
  response.end('not here');
}

beforeAll(async () => {
  server = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk: Buffer) => (body += chunk.toString()));
    request.on('end', () => answer(request, response, body));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise((resolve) => server.close(resolve)));

function transport(tenant?: string): RestTransport {
  return new RestTransport({ endpoint: `${base}/rest/`, timeoutMs: 3000, ...(tenant === undefined ? {} : { tenant }) });
}

describe('the HTTP+JSON transport', () => {
  it('sends GetTask on its route with the id as one encoded segment and the rest as typed query parameters', async () => {
    seen.length = 0;
    const exchange = await transport().call('GetTask', { id: 'a/b:c', historyLength: 2 });
    expect(seen[0]).toEqual({
      method: 'GET',
      url: `/rest${fillRoute(routeOf('GetTask', false), { id: 'a/b:c' }) ?? ''}?historyLength=2`,
      body: '',
    });
    // The Status is read as the registered error its ErrorInfo names, and kept as sent.
    expect(exchange.error?.code).toBe(TaskNotFoundError.code);
    expect(exchange.restError).toEqual(notFound.error);
    expect(exchange.status).toBe(TaskNotFoundError.httpStatus);
  });

  it('puts a tenant in the path, from the params or else from the card', async () => {
    seen.length = 0;
    await transport().call('GetTask', { id: 'x', tenant: 'acme' });
    await transport('card-tenant').call('ListTasks', { pageSize: 3 });
    expect(seen.map((entry) => entry.url)).toEqual([
      `/rest${fillRoute(routeOf('GetTask', true), { id: 'x', tenant: 'acme' }) ?? ''}`,
      `/rest${fillRoute(routeOf('ListTasks', true), { tenant: 'card-tenant' }) ?? ''}?pageSize=3`,
    ]);
  });

  it("keeps a query the interface URL carries (an API key) after the route, before the route's own parameters", async () => {
    seen.length = 0;
    const keyed = new RestTransport({ endpoint: `${base}/rest/?key=k1`, timeoutMs: 3000 });
    await keyed.call('GetTask', { id: 'x', historyLength: 2 });
    await keyed.call('CancelTask', { id: 'x' });
    expect(seen.map((entry) => entry.url)).toEqual([
      `/rest${fillRoute(routeOf('GetTask', false), { id: 'x' }) ?? ''}?key=k1&historyLength=2`,
      `/rest${fillRoute(routeOf('CancelTask', false), { id: 'x' }) ?? ''}?key=k1`,
    ]);
  });

  it('sends a body route its request without the path fields, and garbage as garbage', async () => {
    seen.length = 0;
    await transport().callRaw('CancelTask', { id: 't-9', metadata: 'not an object' });
    await transport().callRaw('ListTasks', { pageSize: 'many', status: { nested: true } });
    await transport().callRaw('message/send', { message: {} });
    expect(seen[0]).toEqual({
      method: 'POST',
      url: `/rest${fillRoute(routeOf('CancelTask', false), { id: 't-9' }) ?? ''}`,
      body: '{"metadata":"not an object"}',
    });
    expect(seen[1]?.url).toBe(`/rest${fillRoute(routeOf('ListTasks', false), {}) ?? ''}?pageSize=many&status=%7B%22nested%22%3Atrue%7D`);
    // An unknown method goes to a path no route matches.
    const unknown = seen[2]?.url.slice('/rest'.length) ?? '';
    expect(matchRestRoute('POST', unknown).kind).toBe('none');
  });

  it('reads SSE data as bare StreamResponse frames and an event: error as the error its Status names', async () => {
    const stream = await transport().stream('SubscribeToTask', { id: 't-1' });
    expect(stream.ending).toBe('closed');
    expect(stream.events).toHaveLength(2);
    expect(validateStreamResponse(stream.events[0]?.frame)).toBe(true);
    expect(stream.events[1]?.error?.code).toBe(TaskNotFoundError.code);
    expect(stream.events[1]?.restError).toEqual(notFound.error);
  });
});

describe('both transports on the shared HTTP reader', () => {
  it("send the run's credentials on streams as on calls", async () => {
    seen.length = 0;
    const headers = { authorization: 'Bearer conform-secret' };
    await new RestTransport({ endpoint: `${base}/rest`, timeoutMs: 3000, headers }).stream('SubscribeToTask', { id: 't-1' });
    await new JsonRpcTransport({ endpoint: `${base}/rpc`, timeoutMs: 3000, headers }).stream('SubscribeToTask', { id: 't-1' });
    await new JsonRpcTransport({ endpoint: `${base}/rpc`, timeoutMs: 3000, headers }).call('GetTask', { id: 't-1' });
    expect(seen.map((entry) => entry.authorization)).toEqual(['Bearer conform-secret', 'Bearer conform-secret', 'Bearer conform-secret']);
  });
});

describe("the interface's tenant on the JSON-RPC transport", () => {
  it('is put into the params of every call that names none; a call naming its own keeps it', async () => {
    seen.length = 0;
    const scoped = new JsonRpcTransport({ endpoint: `${base}/rpc`, timeoutMs: 3000, tenant: 'acme' });
    await scoped.call('GetTask', { id: 't-1' });
    await scoped.call('GetTask', { id: 't-1', tenant: 'other' });
    await scoped.stream('SubscribeToTask', { id: 't-1' });
    await new JsonRpcTransport({ endpoint: `${base}/rpc`, timeoutMs: 3000, tenant: '' }).call('GetTask', { id: 't-1' });
    expect(seen.map((entry) => (JSON.parse(entry.body) as { params: unknown }).params)).toEqual([
      { id: 't-1', tenant: 'acme' },
      { id: 't-1', tenant: 'other' },
      { id: 't-1', tenant: 'acme' },
      { id: 't-1' },
    ]);
  });
});

describe('finding a bare HTTP+JSON interface', () => {
  it('tests a URL with no card that answers GetTask with a Status naming TaskNotFoundError, as HTTP+JSON with a minimal card', async () => {
    const target = await resolveTarget(`${base}/rest`, { timeoutMs: 3000 });
    expect(target.assumedCard).toBe(true);
    expect(target.interfaces).toEqual([{ binding: 'HTTP+JSON', url: `${base}/rest`, protocolVersion: '1.0' }]);
    expect(target.card.supportedInterfaces).toEqual([expect.objectContaining({ protocolBinding: 'HTTP+JSON', url: `${base}/rest` })]);
  });
});
