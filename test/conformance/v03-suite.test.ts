import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CATALOG_SIZES, REQUIREMENTS } from '../../generated/conformance/requirements.js';
import type { ConformanceReport } from '../../generated/conformance/types.js';
import { renderConsole } from '../../conformance/report/console.js';
import { renderJUnit } from '../../conformance/report/junit.js';
import { validateConformanceReport } from '../../generated/conformance/validators.js';
import { runConformance } from '../../conformance/suite.js';
import { startTestHub, type TestHub } from '../helpers/hub.js';
import { startSdk03Agent, type Sdk03Agent } from '../interop/sdk03-agent.js';
import { verdicts } from './harness.js';

/**
 * The suite on A2A 0.3 (spec/conformance/requirements-0.3.json, conformance/checks/v03/): the
 * version detected from the card and chosen with --protocol, the hub's 0.3 interface passing it,
 * the last 0.3 release of @a2a-js/sdk judged with its deviations named (docs/conformance.md),
 * and faults planted in that agent's answers caught.
 */

const V03_IDS = REQUIREMENTS.filter((entry) => entry.protocol === '0.3').map((entry) => entry.id);

let hub: TestHub;
let sdk: Sdk03Agent;
beforeAll(async () => {
  [hub, sdk] = await Promise.all([startTestHub({ store: 'memory' }), startSdk03Agent()]);
});
afterAll(async () => {
  await Promise.all([hub?.dispose(), sdk?.close()]);
});

function notPassing(report: ConformanceReport): Record<string, string> {
  return verdicts(
    report,
    report.results.filter((result) => result.verdict !== 'PASS').map((result) => result.id),
  );
}

describe('the A2A 0.3 catalog', () => {
  it('is its own, the size the docs quote; the envelope JSON-RPC only, the routes HTTP+JSON only, the rest both', () => {
    expect(V03_IDS.length).toBe(CATALOG_SIZES['0.3']);
    expect(V03_IDS.every((id) => id.startsWith('V03-'))).toBe(true);
    const byBindings: Record<string, (typeof REQUIREMENTS)[number][]> = {};
    for (const entry of REQUIREMENTS.filter((candidate) => candidate.protocol === '0.3'))
      (byBindings[entry.bindings.join(' ')] ??= []).push(entry);
    expect(Object.keys(byBindings).sort()).toEqual(['HTTP+JSON', 'JSONRPC', 'JSONRPC HTTP+JSON']);
    expect(byBindings['HTTP+JSON']?.every((entry) => entry.id.startsWith('V03-REST-'))).toBe(true);
    // The JSON-RPC envelope, and the card's JSON-RPC interfaces answering JSON-RPC.
    expect(byBindings['JSONRPC']?.every((entry) => /^V03-(RPC-|CARD-00[56])/.test(entry.id))).toBe(true);
  });
});

describe('--protocol and the version a card declares', () => {
  it('the hub declares both: --protocol 0.3 tests its 0.3 interface alone, and it passes', async () => {
    const { report, exitCode } = await runConformance(hub.url, { protocol: '0.3', runs: 5, seed: 3, timeoutMs: 5000 });
    expect(validateConformanceReport(report) ? [] : validateConformanceReport.errors).toEqual([]);
    expect(report.target.protocolVersions).toEqual(['0.3']);
    expect(report.target.interfaces).toEqual([
      { binding: 'JSONRPC', protocolVersion: '0.3', endpoint: hub.endpoint },
      { binding: 'HTTP+JSON', protocolVersion: '0.3', endpoint: hub.endpoint },
    ]);
    expect(report.results.map((result) => result.id)).toEqual(V03_IDS);
    expect(notPassing(report)).toEqual({
      // The hub declares what these check the absence of.
      'V03-CAP-002': 'SKIP — the card declares streaming',
      'V03-CAP-003': 'SKIP — the card declares pushNotifications',
    });
    expect(exitCode).toBe(0);
    // Every report says which version it tested.
    expect(renderConsole(report, { color: false }).split('\n')[0]).toMatch(/· A2A 0\.3 ·/);
    expect(renderJUnit(report)).toContain('<property name="protocolVersions" value="0.3"/>');
  });

  it('--protocol 1.0 leaves the 0.3 catalog out; a pure 0.3 agent asked for 1.0 gets a report saying it has no 1.0 interface', async () => {
    const { report } = await runConformance(hub.url, { protocol: '1.0', only: ['GET-002'], timeoutMs: 5000 });
    expect(report.target.protocolVersions).toEqual(['1.0']);
    expect(report.results.some((result) => result.id.startsWith('V03-'))).toBe(false);
    const legacy = await runConformance(sdk.url, { protocol: '1.0', timeoutMs: 5000, only: ['CARD-005'] });
    expect(legacy.exitCode).toBe(1);
    expect(verdicts(legacy.report, ['CARD-005'])['CARD-005']).toMatch(
      /^FAIL — .*declares no interface for protocol version 1\.0 \(it declares JSONRPC 0\.3\)/,
    );
  });
});

describe('an endpoint without a card', () => {
  it('is tested in 0.3 when it knows tasks/get but not the 1.0 GetTask (digest §14.2 probe)', async () => {
    const server = createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        if (request.method !== 'POST') {
          response.writeHead(404, { 'content-type': 'application/json' }).end('{"error":"no card here"}');
          return;
        }
        const { id, method } = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { id: unknown; method: string };
        const error = method.startsWith('tasks/')
          ? { code: -32001, message: 'Task not found' }
          : { code: -32601, message: 'Method not found' };
        response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ jsonrpc: '2.0', id, error }));
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/rpc`;
    try {
      const { report } = await runConformance(url, { only: ['V03-TASK-002'], timeoutMs: 5000 });
      expect(report.target).toMatchObject({ assumedCard: true, protocolVersions: ['0.3'] });
      expect(verdicts(report, ['V03-TASK-002'])['V03-TASK-002']).toBe('PASS');
    } finally {
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });
});

describe('@a2a-js/sdk 0.3.14, a real 0.3 agent', () => {
  it('over HTTP+JSON too, when its card declares it: the routes and the shared requirements on that binding', async () => {
    const both = await startSdk03Agent({ bindings: ['JSONRPC', 'HTTP+JSON'] });
    try {
      const { report } = await runConformance(both.url, { profile: 'directives', binding: 'HTTP+JSON', runs: 5, seed: 3, timeoutMs: 5000 });
      expect(report.target.interfaces).toEqual([{ binding: 'HTTP+JSON', protocolVersion: '0.3', endpoint: both.restEndpoint }]);
      expect(report.summary.ERROR).toBe(0);
      const jsonRpcOnly = 'SKIP — applies to the JSONRPC binding, not to HTTP+JSON (the one tested)';
      expect(notPassing(report)).toEqual({
        'V03-CAP-002': 'SKIP — the card declares streaming',
        'V03-CAP-003': 'SKIP — the card declares pushNotifications',
        'V03-CAP-004': expect.stringMatching(/^WARN — .*did not answer -32007 .*\(observed: HTTP 400, error -32004/) as string,
        // Its server reads the set request whole ({parent, config}) where the proto's annotation
        // (body: "config") and its own client send the config alone (docs/conformance.md).
        'V03-PUSH-001': expect.stringMatching(
          /^FAIL — tasks\/pushNotificationConfig\/set failed .*HTTP 400, error -32602: .*`config` object/,
        ) as string,
        // Its REST handler has no serializer for the error of a resubscribe to an unknown task.
        'V03-TASK-002': expect.stringMatching(/^WARN — .*tasks\/resubscribe of an unknown task did not answer -32001 .*HTTP 500/) as string,
        ...Object.fromEntries(V03_IDS.filter((id) => id.startsWith('V03-RPC-')).map((id) => [id, jsonRpcOnly])),
      });
    } finally {
      await both.close();
    }
  });

  it('is found to be 0.3 by its card and judged without an ERROR; its deviations are the documented ones', async () => {
    const { report } = await runConformance(sdk.url, { profile: 'directives', runs: 5, seed: 3, timeoutMs: 5000 });
    expect(report.target.protocolVersions).toEqual(['0.3']);
    expect(report.summary.ERROR).toBe(0);
    expect(notPassing(report)).toEqual({
      'V03-CAP-002': 'SKIP — the card declares streaming',
      'V03-CAP-003': 'SKIP — the card declares pushNotifications',
      'V03-CAP-004': expect.stringMatching(/^WARN — .*did not answer -32007 .*\(observed: HTTP 200, error -32004/) as string,
      'V03-RPC-006': expect.stringMatching(/^FAIL — message\/send without message did not answer -32602 .*error -32603/) as string,
      'V03-REST-001': 'SKIP — applies to the HTTP+JSON binding, not to JSONRPC (the one tested)',
      'V03-REST-002': 'SKIP — applies to the HTTP+JSON binding, not to JSONRPC (the one tested)',
    });
  });
});

/**
 * The SDK agent behind a proxy that bends its answers, one fault at a time: the proxy rewrites
 * the agent's origin to its own everywhere, so the suite reads the card and calls through it.
 */
const FAULTS: readonly {
  id: string;
  /** The binding the run tests: HTTP+JSON bends an agent that declares both (its routes below /rest/v1). */
  binding?: 'HTTP+JSON';
  expect: Record<string, RegExp>;
  bend: (body: string, request: string) => string;
}[] = [
  {
    id: 'state in 1.0 spelling',
    expect: { 'V03-SEND-001': /^FAIL — the task is not a valid A2A 0\.3 Task .*status\.state must be one of/ },
    bend: (body) => body.replaceAll('"state":"completed"', '"state":"TASK_STATE_COMPLETED"'),
  },
  {
    id: 'no final on the stream',
    expect: { 'V03-SSE-003': /^FAIL — no status-update said final true/ },
    bend: (body) => body.replaceAll('"final":true', '"final":false'),
  },
  {
    id: 'an unknown task is an internal error',
    expect: { 'V03-TASK-002': /^WARN — recommended behaviour not met: tasks\/get of an unknown task did not answer -32001/ },
    bend: (body, request) => (request.includes('"tasks/get"') ? body.replace('"code":-32001', '"code":-32603') : body),
  },
  {
    id: 'the main url answers 404',
    expect: { 'V03-CARD-005': /^FAIL — the main url .* does not answer JSON-RPC/ },
    bend: (body, request) =>
      request === 'GET /.well-known/agent-card.json' ? body.replace(/"url":"([^"]+?)\/"/, '"url":"$1/nowhere"') : body,
  },
  {
    id: 'an HTTP+JSON route answers a bare 404',
    binding: 'HTTP+JSON',
    expect: {
      'V03-REST-001': /^FAIL — GET \/rest\/v1\/tasks\/.* \(tasks\/get\) is not served/,
      'V03-REST-002': /^WARN — .*tasks\/get: the refusal has no 0\.3 error object/,
    },
    bend: (body, request) => (request.startsWith('GET /rest/v1/tasks/') ? 'no such page' : body),
  },
  {
    id: 'a ProtoJSON task state in the JSON spelling',
    binding: 'HTTP+JSON',
    expect: { 'V03-SEND-001': /^FAIL — .*a body that is no 0\.3 SendMessageResponse \(result\.task\.status\.state must be one of/ },
    bend: (body) => body.replaceAll('"TASK_STATE_COMPLETED"', '"completed"'),
  },
];

const HOP_BY_HOP = new Set(['host', 'connection', 'keep-alive', 'transfer-encoding', 'content-length']);

async function bentProxy(
  upstream: string,
  bend: (body: string, request: string) => string,
): Promise<{ url: string; close(): Promise<void> }> {
  let origin = '';
  const server: Server = createServer((request: IncomingMessage, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      // Hop-by-hop and length headers are fetch's to set.
      const headers = Object.fromEntries(
        Object.entries(request.headers).filter(
          (entry): entry is [string, string] => typeof entry[1] === 'string' && !HOP_BY_HOP.has(entry[0]),
        ),
      );
      void fetch(`${upstream}${request.url ?? '/'}`, { method: request.method ?? 'GET', headers, ...(body === '' ? {} : { body }) })
        .then(async (answer) => {
          const text = (await answer.text()).replaceAll(upstream, origin);
          const described = request.method === 'GET' ? `GET ${request.url ?? ''}` : body;
          response.writeHead(answer.status, { 'content-type': answer.headers.get('content-type') ?? 'application/json' });
          response.end(bend(text, described));
        })
        .catch(() => response.destroy());
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url: origin,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

describe('faults planted in a 0.3 agent', () => {
  it.each(FAULTS)('$id', async (fault) => {
    const upstream = fault.binding === undefined ? undefined : await startSdk03Agent({ bindings: ['JSONRPC', 'HTTP+JSON'] });
    const proxy = await bentProxy(upstream?.url ?? sdk.url, fault.bend);
    try {
      const { report } = await runConformance(proxy.url, {
        ...(fault.binding === undefined ? {} : { binding: fault.binding }),
        profile: 'directives',
        runs: 5,
        seed: 3,
        timeoutMs: 5000,
        only: Object.keys(fault.expect),
      });
      const got = verdicts(report, Object.keys(fault.expect));
      for (const [id, pattern] of Object.entries(fault.expect)) expect(got[id], id).toMatch(pattern);
    } finally {
      await proxy.close();
      await upstream?.close();
    }
  });
});
