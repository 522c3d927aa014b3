import { describe, expect, it } from 'vitest';
import { ERRORS } from '../../generated/a2a/1.0/errors.js';
import { HEADERS, MEDIA_TYPES, PROTOCOL_VERSION } from '../../generated/a2a/1.0/protocol.js';
import type { AgentCard, Message, StreamResponse } from '../../generated/a2a/1.0/types.js';
import { A2AClient, A2ATransportError, type StreamEvent } from '../../src/client/a2a-client.js';
import { A2AError, a2aError } from '../../src/protocol/a2a-error.js';
import { fillRoute, routeOf } from '../../src/protocol/rest-routes.js';
import {
  CONTEXT_ID,
  TASK_ID,
  chunkFrame,
  dropLater,
  fakeCard,
  fakeRestAgent,
  fakeRestCard,
  openRestSse,
  replyRest,
  statusFrame,
  taskFrame,
  type FakeRestAgent,
  type RestHandler,
} from './fake-agent.js';

/**
 * The client's HTTP+JSON binding against a scripted REST-only agent: routes and bodies from the
 * route table, tenants in the path, answers validated like JSON-RPC ones, Status error bodies
 * and `event: error` frames back to the registry's errors.
 */

const message: Message = { messageId: 'm1', role: 'ROLE_USER', parts: [{ text: 'hi' }] };
const task = taskFrame('TASK_STATE_COMPLETED').task;

async function withRest(
  handler: RestHandler,
  body: (client: A2AClient, fake: FakeRestAgent) => Promise<void>,
  card?: (interfaceUrl: string) => AgentCard,
): Promise<void> {
  const fake = await fakeRestAgent(handler, card);
  try {
    await body(await A2AClient.connect(fake.url, { retries: 0, token: 'secret' }), fake);
  } finally {
    await fake.close();
  }
}

/** The path the route table gives `method` for `values`, so that no test retypes a route. */
function pathOf(method: Parameters<typeof routeOf>[0], values: Record<string, string> = {}): string {
  return fillRoute(routeOf(method, values['tenant'] !== undefined), values) ?? '';
}

describe('RestBinding: requests', () => {
  it('picks the HTTP+JSON interface of a REST-only card and POSTs SendMessage to its route with the request as body', async () => {
    await withRest(
      (_call, res) => replyRest(res, { task }),
      async (client, fake) => {
        expect(client.protocolBinding).toBe('HTTP+JSON');
        expect(client.endpoint).toBe(fake.interfaceUrl);
        const response = await client.sendMessage({ message, configuration: { returnImmediately: true } });
        expect(response.task).toEqual(task);
        const [call] = fake.calls;
        expect(call?.verb).toBe('POST');
        expect(call?.path).toBe(pathOf('SendMessage'));
        expect(call?.body).toEqual({ message, configuration: { returnImmediately: true } });
        expect(call?.headers['content-type']).toBe(MEDIA_TYPES.a2aJson);
        expect(call?.headers['accept']).toContain(MEDIA_TYPES.a2aJson);
        expect(call?.headers[HEADERS.version.toLowerCase()]).toBe(PROTOCOL_VERSION);
        expect(call?.headers['authorization']).toBe('Bearer secret');
      },
    );
  });

  it('sends GET fields as query parameters, percent-encodes path fields and leaves them out of bodies', async () => {
    await withRest(
      (call, res) =>
        replyRest(res, call.path === pathOf('ListTasks') ? { tasks: [task], nextPageToken: '', pageSize: 5, totalSize: 1 } : task),
      async (client, fake) => {
        await client.getTask({ id: 'a/b:c', historyLength: 2 });
        await client.listTasks({ contextId: CONTEXT_ID, pageSize: 5, status: 'TASK_STATE_WORKING', includeArtifacts: true });
        await client.cancelTask({ id: TASK_ID, metadata: { why: 'test' } });
        const [get, list, cancel] = fake.calls;
        expect(get?.verb).toBe('GET');
        expect(get?.path).toBe(pathOf('GetTask', { id: 'a/b:c' }));
        expect(get?.path).toContain(encodeURIComponent('a/b:c'));
        expect(Object.fromEntries(get?.query ?? [])).toEqual({ historyLength: '2' });
        expect(get?.body).toBeUndefined();
        expect(list?.path).toBe(pathOf('ListTasks'));
        expect(Object.fromEntries(list?.query ?? [])).toEqual({
          contextId: CONTEXT_ID,
          pageSize: '5',
          status: 'TASK_STATE_WORKING',
          includeArtifacts: 'true',
        });
        expect(cancel?.verb).toBe('POST');
        expect(cancel?.path).toBe(pathOf('CancelTask', { id: TASK_ID }));
        expect(cancel?.body).toEqual({ metadata: { why: 'test' } });
      },
    );
  });

  it("puts the interface's tenant, or the request's own, in the /{tenant}/ prefix and never in the body", async () => {
    await withRest(
      (_call, res) => replyRest(res, { task }),
      async (client, fake) => {
        await client.sendMessage({ message });
        await client.sendMessage({ message, tenant: 'other' });
        expect(fake.calls.map((call) => call.path)).toEqual([
          pathOf('SendMessage', { tenant: 'acme' }),
          pathOf('SendMessage', { tenant: 'other' }),
        ]);
        expect(fake.calls.map((call) => call.body)).toEqual([{ message }, { message }]);
      },
      (url) => ({
        ...fakeRestCard(url),
        supportedInterfaces: [{ url, protocolBinding: 'HTTP+JSON', protocolVersion: '1.0', tenant: 'acme' }],
      }),
    );
  });

  it("keeps a query the interface URL carries (an API key) after every route, before the route's own parameters", async () => {
    await withRest(
      (call, res) => replyRest(res, call.verb === 'GET' ? task : { task }),
      async (client, fake) => {
        await client.sendMessage({ message });
        await client.getTask({ id: TASK_ID, historyLength: 2 });
        expect(fake.calls.map((call) => call.path)).toEqual([pathOf('SendMessage'), pathOf('GetTask', { id: TASK_ID })]);
        expect(fake.calls.map((call) => [...call.query])).toEqual([
          [['key', 'k1']],
          [
            ['key', 'k1'],
            ['historyLength', '2'],
          ],
        ]);
      },
      (url) => ({
        ...fakeRestCard(url),
        supportedInterfaces: [{ url: `${url}/?key=k1`, protocolBinding: 'HTTP+JSON', protocolVersion: '1.0' }],
      }),
    );
  });

  it('DELETEs a push config and takes HTTP 204 as the Empty result', async () => {
    await withRest(
      (_call, res) => {
        res.writeHead(204).end();
      },
      async (client, fake) => {
        await expect(client.call('DeleteTaskPushNotificationConfig', { taskId: TASK_ID, id: 'p1' })).resolves.toEqual({});
        expect(fake.calls[0]?.verb).toBe('DELETE');
        expect(fake.calls[0]?.path).toBe(pathOf('DeleteTaskPushNotificationConfig', { taskId: TASK_ID, id: 'p1' }));
      },
    );
  });

  it('refuses, before sending, a call whose path field is missing, or a dot segment a URL would resolve away', async () => {
    await withRest(
      (_call, res) => replyRest(res, task),
      async (client, fake) => {
        for (const id of ['', '.', '..']) {
          const error = await client.getTask({ id }).catch((caught: unknown) => caught);
          expect((error as A2AError).name, JSON.stringify(id)).toBe('InvalidParamsError');
          expect((error as A2AError).violations.map((violation) => violation.field)).toEqual(['id']);
        }
        const dotted = await client.listPushConfigs({ taskId: '.' }).catch((caught: unknown) => caught);
        expect((dotted as A2AError).message).toMatch(/taskId cannot be "\.": a URL path resolves it away/);
        expect(fake.calls).toHaveLength(0);
      },
    );
  });
});

describe('RestBinding: answers and errors', () => {
  it('validates answers like JSON-RPC results: a 0.3 shape is InvalidAgentResponseError', async () => {
    await withRest(
      (_call, res) => replyRest(res, { kind: 'task', id: 't1', contextId: 'c1', status: { state: 'completed' } }),
      async (client) => {
        const error = await client.getTask({ id: TASK_ID }).catch((caught: unknown) => caught);
        expect((error as A2AError).name).toBe('InvalidAgentResponseError');
        expect((error as A2AError).violations.length).toBeGreaterThan(0);
      },
    );
  });

  it('maps a Status body to the error its ErrorInfo names, keeping metadata and BadRequest violations', async () => {
    const invalid = a2aError('InvalidParamsError', 'bad page size', {
      metadata: { hint: 'x' },
      violations: [{ field: 'pageSize', description: 'must be at most 100' }],
    });
    await withRest(
      (call, res) =>
        call.path === pathOf('ListTasks')
          ? replyRest(res, invalid.toRestErrorResponse(), ERRORS.InvalidParamsError.httpStatus)
          : replyRest(res, a2aError('TaskNotFoundError', 'no t9', { metadata: { taskId: 't9' } }).toRestErrorResponse(), 404),
      async (client) => {
        const missing = await client.getTask({ id: 't9' }).catch((caught: unknown) => caught);
        expect(missing).toBeInstanceOf(A2AError);
        expect((missing as A2AError).name).toBe('TaskNotFoundError');
        expect((missing as A2AError).message).toBe('no t9');
        expect((missing as A2AError).metadata).toEqual({ taskId: 't9' });
        const bad = await client.listTasks({ pageSize: 1000 }).catch((caught: unknown) => caught);
        expect((bad as A2AError).name).toBe('InvalidParamsError');
        expect((bad as A2AError).violations).toEqual([{ field: 'pageSize', description: 'must be at most 100' }]);
      },
    );
  });

  it("names a Status without ErrorInfo by its statuses among the method's errors (404 NOT_FOUND on GetTask is TaskNotFoundError)", async () => {
    const { httpStatus, grpcStatus } = ERRORS.TaskNotFoundError;
    await withRest(
      (_call, res) => replyRest(res, { error: { code: httpStatus, status: grpcStatus, message: 'gone' } }, httpStatus),
      async (client) => {
        const error = await client.getTask({ id: TASK_ID }).catch((caught: unknown) => caught);
        expect((error as A2AError).name).toBe('TaskNotFoundError');
        expect((error as A2AError).message).toBe('gone');
      },
    );
  });

  it('trusts a registered ErrorInfo at the 1.0.0 status of its row, or at any other status', async () => {
    const atStatus = (error: A2AError, httpStatus: number, grpcStatus: string) => {
      const body = error.toRestErrorResponse();
      return { error: { ...body.error, code: httpStatus, status: grpcStatus } };
    };
    const notCancelable = ERRORS.TaskNotCancelableError.legacy;
    const unsupported = ERRORS.ContentTypeNotSupportedError.legacy;
    expect(notCancelable?.httpStatus).toBe(409);
    expect(unsupported?.httpStatus).toBe(415);
    await withRest(
      (call, res) => {
        if (call.verb === 'GET') {
          return replyRest(res, atStatus(a2aError('TaskNotFoundError', 'odd status'), 418, 'UNKNOWN'), 418);
        }
        if (call.path === pathOf('SendMessage')) {
          const { httpStatus, grpcStatus } = unsupported;
          return replyRest(res, atStatus(a2aError('ContentTypeNotSupportedError', 'no png'), httpStatus, grpcStatus), httpStatus);
        }
        const { httpStatus, grpcStatus } = notCancelable;
        return replyRest(res, atStatus(a2aError('TaskNotCancelableError', 'done already'), httpStatus, grpcStatus), httpStatus);
      },
      async (client) => {
        const cancel = await client.cancelTask({ id: TASK_ID }).catch((caught: unknown) => caught);
        expect((cancel as A2AError).name).toBe('TaskNotCancelableError');
        expect((cancel as A2AError).message).toBe('done already');
        const send = await client.sendMessage({ message }).catch((caught: unknown) => caught);
        expect((send as A2AError).name).toBe('ContentTypeNotSupportedError');
        const get = await client.getTask({ id: TASK_ID }).catch((caught: unknown) => caught);
        expect((get as A2AError).name).toBe('TaskNotFoundError');
        expect((get as A2AError).message).toBe('odd status');
      },
    );
  });

  it('is UnauthenticatedError on HTTP 401 with or without a Status body', async () => {
    const status = ERRORS.UnauthenticatedError.httpStatus;
    await withRest(
      (call, res) =>
        call.verb === 'GET'
          ? void res.writeHead(status, { 'www-authenticate': 'Bearer' }).end()
          : replyRest(res, a2aError('UnauthenticatedError', 'token refused').toRestErrorResponse(), status),
      async (client) => {
        const bare = await client.getTask({ id: TASK_ID }).catch((caught: unknown) => caught);
        expect((bare as A2AError).name).toBe('UnauthenticatedError');
        const withBody = await client.sendMessage({ message }).catch((caught: unknown) => caught);
        expect((withBody as A2AError).name).toBe('UnauthenticatedError');
        expect((withBody as A2AError).message).toBe('token refused');
      },
    );
  });

  it('is A2ATransportError with the status for an HTML 502 from a proxy', async () => {
    await withRest(
      (_call, res) => {
        res.writeHead(502, { 'content-type': 'text/html' }).end('<html><body>Bad Gateway</body></html>');
      },
      async (client) => {
        const error = await client.getTask({ id: TASK_ID }).catch((caught: unknown) => caught);
        expect(error).toBeInstanceOf(A2ATransportError);
        expect((error as A2ATransportError).status).toBe(502);
      },
    );
  });
});

describe('RestBinding: retries and redirects', () => {
  it('retries a 5xx without a Status body, never one with a Status body', async () => {
    const fake = await fakeRestAgent((call, res, index) => {
      if (call.path === pathOf('ListTasks')) {
        replyRest(res, a2aError('AgentUnavailableError', 'down for now').toRestErrorResponse(), ERRORS.AgentUnavailableError.httpStatus);
        return;
      }
      if (index < 2) res.writeHead(503, { 'content-type': 'text/plain' }).end('busy');
      else replyRest(res, task);
    });
    try {
      const client = await A2AClient.connect(fake.url, { retries: 2, retryBaseMs: 1 });
      await expect(client.getTask({ id: TASK_ID })).resolves.toEqual(task);
      expect(fake.calls).toHaveLength(3);
      const error = await client.listTasks({}).catch((caught: unknown) => caught);
      expect((error as A2AError).name).toBe('AgentUnavailableError');
      expect(fake.calls).toHaveLength(4);
    } finally {
      await fake.close();
    }
  });

  it('does not follow a redirect: the interface URL is the one the card names', async () => {
    await withRest(
      (_call, res) => {
        res.writeHead(307, { location: 'http://127.0.0.1:9/elsewhere' }).end();
      },
      async (client) => {
        const error = await client.getTask({ id: TASK_ID }).catch((caught: unknown) => caught);
        expect(error).toBeInstanceOf(A2ATransportError);
        expect((error as A2ATransportError).status).toBe(307);
        expect((error as Error).message).toMatch(/HTTP\+JSON calls do not follow redirects/);
      },
    );
  });
});

describe('RestBinding: streams', () => {
  it('reads bare StreamResponse frames with their ids from message:stream', async () => {
    const frames: StreamResponse[] = [
      taskFrame('TASK_STATE_WORKING'),
      chunkFrame('he', false),
      chunkFrame('llo', true, true),
      statusFrame('TASK_STATE_COMPLETED'),
    ];
    await withRest(
      (_call, res) => {
        openRestSse(
          res,
          frames.map((frame, index) => ({ id: `e${index}`, frame })),
        );
        res.end();
      },
      async (client, fake) => {
        const got: StreamResponse[] = [];
        for await (const frame of client.sendStreamingMessage({ message })) got.push(frame);
        expect(got).toEqual(frames);
        expect(fake.calls[0]?.path).toBe(pathOf('SendStreamingMessage'));
        expect(fake.calls[0]?.headers['accept']).toBe(MEDIA_TYPES.eventStream);
      },
    );
  });

  it('throws the A2AError of an `event: error` frame', async () => {
    await withRest(
      (_call, res) => {
        openRestSse(res, [
          { id: '1', frame: taskFrame('TASK_STATE_WORKING') },
          { event: 'error', frame: a2aError('UnsupportedOperationError', 'not now').toRestErrorResponse() },
        ]);
        res.end();
      },
      async (client) => {
        const seen: StreamResponse[] = [];
        const error = await (async () => {
          for await (const frame of client.sendStreamingMessage({ message }, { resume: false })) seen.push(frame);
        })().catch((caught: unknown) => caught);
        expect(seen).toHaveLength(1);
        expect((error as A2AError).name).toBe('UnsupportedOperationError');
        expect((error as A2AError).message).toBe('not now');
      },
    );
  });

  it('resumes a dropped stream with SubscribeToTask on its GET route and Last-Event-ID', async () => {
    await withRest(
      (call, res, index) => {
        if (index === 0) {
          openRestSse(res, [
            { id: '1', frame: taskFrame('TASK_STATE_WORKING') },
            { id: '2', frame: chunkFrame('hel', false) },
          ]);
          dropLater(res);
          return;
        }
        openRestSse(res, [
          { id: '3', frame: chunkFrame('lo', true, true) },
          { id: '4', frame: statusFrame('TASK_STATE_COMPLETED') },
        ]);
        res.end();
      },
      async (client, fake) => {
        const events: StreamEvent[] = [];
        for await (const event of client.subscribeToTask({ id: TASK_ID })) events.push(event);
        expect(events.map((event) => event.id)).toEqual(['1', '2', '3', '4']);
        const [first, second] = fake.calls;
        expect(first?.verb).toBe(routeOf('SubscribeToTask', false).verb);
        expect(first?.path).toBe(pathOf('SubscribeToTask', { id: TASK_ID }));
        expect(second?.path).toBe(pathOf('SubscribeToTask', { id: TASK_ID }));
        expect(second?.headers['last-event-id']).toBe('2');
      },
    );
  });
});

describe('choosing the interface', () => {
  const both = (rest: string): AgentCard => ({
    ...fakeCard(rest),
    supportedInterfaces: [
      { url: rest, protocolBinding: 'HTTP+JSON', protocolVersion: '1.0' },
      { url: rest.replace(/\/rest$/, '/rpc'), protocolBinding: 'JSONRPC', protocolVersion: '1.0' },
    ],
  });

  it("takes the card's first interface the client speaks, unless preferredBindings reorders or binding restricts", async () => {
    const fake = await fakeRestAgent((_call, res) => replyRest(res, task), both);
    try {
      expect((await A2AClient.connect(fake.url)).protocolBinding).toBe('HTTP+JSON');
      expect((await A2AClient.connect(fake.url, { preferredBindings: ['JSONRPC'] })).protocolBinding).toBe('JSONRPC');
      expect((await A2AClient.connect(fake.url, { binding: 'JSONRPC' })).endpoint).toBe(`${fake.url}/rpc`);
    } finally {
      await fake.close();
    }
  });

  it('refuses a card without a usable interface, naming what it declares', async () => {
    const grpcOnly = (url: string): AgentCard => ({
      ...fakeCard(url),
      supportedInterfaces: [
        { url: 'localhost:50051', protocolBinding: 'GRPC', protocolVersion: '1.0' },
        { url, protocolBinding: 'GRPC', protocolVersion: '0.3' },
      ],
    });
    const fake = await fakeRestAgent((_call, res) => replyRest(res, task), grpcOnly);
    try {
      const error = await A2AClient.connect(fake.url).catch((caught: unknown) => caught);
      expect((error as A2AError).name).toBe('InvalidAgentResponseError');
      expect((error as A2AError).message).toMatch(
        /declares no JSONRPC or HTTP\+JSON interface for protocol version 1\.x, nor a JSONRPC or HTTP\+JSON one for 0\.3; it declares GRPC 1\.0, GRPC 0\.3/,
      );
      const restOnly = await fakeRestAgent((_call, res) => replyRest(res, task));
      try {
        const wrong = await A2AClient.connect(restOnly.url, { binding: 'JSONRPC' }).catch((caught: unknown) => caught);
        expect((wrong as A2AError).message).toMatch(/declares no JSONRPC interface.*it declares HTTP\+JSON 1\.0/);
      } finally {
        await restOnly.close();
      }
    } finally {
      await fake.close();
    }
  });
});

describe('the interface tenant on the JSON-RPC binding', () => {
  it("is echoed in the tenant member of every request that names none (AgentInterface.tenant), the request's own winning", async () => {
    const withTenant = (rest: string): AgentCard => ({
      ...fakeCard(rest),
      supportedInterfaces: [{ url: rest.replace(/\/rest$/, '/rpc'), protocolBinding: 'JSONRPC', protocolVersion: '1.0', tenant: 'acme' }],
    });
    const fake = await fakeRestAgent(
      (call, res) => replyRest(res, { jsonrpc: '2.0', id: (call.body as { id: unknown }).id, result: task }),
      withTenant,
    );
    try {
      const client = await A2AClient.connect(fake.url);
      await client.getTask({ id: TASK_ID });
      await client.getTask({ id: TASK_ID, tenant: 'other' });
      expect(fake.calls.map((call) => (call.body as { params: { tenant?: string } }).params.tenant)).toEqual(['acme', 'other']);
    } finally {
      await fake.close();
    }
  });
});
