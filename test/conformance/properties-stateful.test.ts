import { PROFILES } from '../../conformance/core/profiles.js';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { METHODS, isMethodName } from '../../generated/a2a/1.0/methods.js';
import type { AgentCard, Task } from '../../generated/a2a/1.0/types.js';
import type { ConformanceReport, Finding } from '../../generated/conformance/types.js';
import { propertyChecks } from '../../conformance/checks/properties.js';
import { statefulChecks } from '../../conformance/checks/stateful.js';
import { scanWire, wireChecks, type WireFinding } from '../../conformance/checks/wire.js';
import { A2A_1_0 } from '../../src/protocol/a2a-schema.js';
import { checkValue } from '../../src/protocol/validation.js';
import { startTestHub, type TestHub } from '../helpers/hub.js';
import { runChecks, verdicts } from './harness.js';

const PROPERTY_IDS = ['ROBUST-001', 'ROBUST-002', 'ROBUST-003', 'ROBUST-004'];
const WIRE_IDS = ['WIRE-002', 'WIRE-003', 'WIRE-004', 'WIRE-005', 'DATA-002'];
const STATE_IDS = ['STATE-001', 'STATE-002', 'STATE-003', 'STATE-004', 'STATE-005'];

function findings(report: ConformanceReport, id: string): Finding[] {
  return report.results.find((result) => result.id === id)?.findings ?? [];
}

function summary(found: readonly WireFinding[]): string[] {
  return found.map((finding) => `${finding.requirement} ${finding.severity} ${finding.path}`).sort();
}

describe('property, stateful and wire checks against the hub', () => {
  let hub: TestHub;
  beforeAll(async () => {
    hub = await startTestHub();
  });
  afterAll(() => hub.dispose());

  it('pass every requirement in cooperative mode', async () => {
    const started = Date.now();
    const report = await runChecks(hub.url, [...propertyChecks, ...wireChecks, ...statefulChecks]);
    const ids = [...PROPERTY_IDS, ...WIRE_IDS, ...STATE_IDS];
    expect(verdicts(report, ids)).toEqual(Object.fromEntries(ids.map((id) => [id, 'PASS'])));
    expect(verdicts(report, ['WIRE-001'])).toEqual({ 'WIRE-001': expect.stringMatching(/^(PASS|SKIP)/) as unknown });
    expect(Date.now() - started).toBeLessThan(20_000);
  });

  it('exercise every requirement but STATE-004 on the tasks the agent finishes on its own in black-box mode', async () => {
    const report = await runChecks(hub.url, statefulChecks, { profile: PROFILES.none });
    const result = verdicts(report, STATE_IDS);
    for (const id of ['STATE-001', 'STATE-002', 'STATE-003', 'STATE-005']) expect(result[id], id).toBe('PASS');
    expect(result['STATE-004']).toMatch(/^SKIP — needs an agent that can be asked for slow work of a chosen length with progress updates/);
  });
});

describe('scanWire', () => {
  it('reports an A2A 0.3 task: kind members and lowercase states and roles', () => {
    const legacy = {
      kind: 'task',
      id: 't1',
      contextId: 'c1',
      status: { state: 'completed', timestamp: '2026-05-28T10:30:00.000Z' },
      history: [{ kind: 'message', messageId: 'm1', role: 'user', parts: [{ kind: 'text', text: 'hi' }] }],
    };
    expect(summary(scanWire(legacy, 'result'))).toEqual([
      'WIRE-002 fail result.history[0].kind',
      'WIRE-002 fail result.history[0].parts[0].kind',
      'WIRE-002 fail result.kind',
      'WIRE-003 fail result.history[0].role',
      'WIRE-003 fail result.status.state',
    ]);
  });

  it('reports UNSPECIFIED enum values', () => {
    expect(summary(scanWire({ status: { state: 'TASK_STATE_UNSPECIFIED' } }))).toEqual(['WIRE-003 fail status.state']);
  });

  it('warns about implicit-presence defaults, but not about REQUIRED paging members or content', () => {
    const frame = {
      artifactUpdate: {
        taskId: 't',
        contextId: 'c',
        artifact: { artifactId: 'a', parts: [{ text: '' }], metadata: {} },
        append: false,
        lastChunk: false,
      },
    };
    const found = scanWire(frame, 'result');
    expect(summary(found)).toEqual([
      'WIRE-004 warn result.artifactUpdate.append',
      'WIRE-004 warn result.artifactUpdate.artifact.metadata',
      'WIRE-004 warn result.artifactUpdate.lastChunk',
    ]);
    expect(found.every((finding) => finding.severity === 'warn')).toBe(true);
    expect(
      summary(scanWire({ task: { id: 't', contextId: '', status: { state: 'TASK_STATE_WORKING' }, history: [], artifacts: [] } })),
    ).toEqual(['WIRE-004 warn task.artifacts', 'WIRE-004 warn task.contextId', 'WIRE-004 warn task.history']);
    expect(scanWire({ tasks: [], nextPageToken: '', pageSize: 50, totalSize: 0 })).toEqual([]);
  });

  it('does not look inside free-form metadata and data, nor at text content', () => {
    const task = {
      id: 't',
      status: { state: 'TASK_STATE_COMPLETED', timestamp: '2026-05-28T10:30:00.000Z' },
      metadata: { kind: 'mine', state: 'done', at: '2026-05-28T10:30:00+02:00' },
      history: [
        {
          messageId: 'm',
          role: 'ROLE_USER',
          parts: [
            { data: { kind: 'x', role: 'user', append: false } },
            { text: 'ROLE_UNSPECIFIED' },
            { text: '2026-05-28T10:30:00+02:00' },
          ],
        },
      ],
    };
    expect(scanWire(task)).toEqual([]);
  });

  it('fails timestamps with an offset and warns about non-millisecond precision', () => {
    const found = scanWire({ status: { state: 'TASK_STATE_WORKING', timestamp: '2026-05-28T12:30:00.000+02:00' } }, 'result');
    expect(summary(found)).toEqual(['DATA-002 fail result.status.timestamp', 'WIRE-005 fail result.status.timestamp']);
    expect(found[0]?.message).toContain('+02:00');
    expect(summary(scanWire({ timestamp: '2026-05-28T10:30:00Z' }))).toEqual(['DATA-002 warn timestamp']);
    expect(summary(scanWire({ timestamp: '2026-05-28T10:30:00.123456Z' }))).toEqual(['DATA-002 warn timestamp']);
    expect(summary(scanWire({ timestamp: '2026-05-28T10:30:00' }))).toEqual(['DATA-002 fail timestamp', 'WIRE-005 fail timestamp']);
    expect(scanWire({ timestamp: '2026-05-28T10:30:00.123Z' })).toEqual([]);
  });
});

// ---------------------------------------------------------------------------------------------
// A deliberately broken agent

interface Fake {
  readonly url: string;
  readonly requests: { method: string; params: unknown }[];
  close(): Promise<void>;
}

interface FakeBugs {
  /** Answer GetTask with HTTP 500 when params.id is not a string (a crash on `id.trim()`). */
  readonly crashOnNumericId?: boolean;
  /** Start each ListTasks page at the last task of the page before, which so appears twice. */
  readonly overlappingPages?: boolean;
  /** CancelTask "cancels" a completed task: a terminal task changes state. */
  readonly cancelsCompleted?: boolean;
}

/** A minimal JSON-RPC agent: validates params, keeps tasks in memory, completes every task at once. */
async function startFakeAgent(bugs: FakeBugs): Promise<Fake> {
  const tasks: Task[] = [];
  const requests: Fake['requests'] = [];
  let clock = Date.parse('2026-01-01T00:00:00.000Z');
  let counter = 0;
  const rpcError = (id: unknown, code: number, message: string) => ({ jsonrpc: '2.0', id: id ?? null, error: { code, message } });
  const handle = (body: { id?: unknown; method?: unknown; params?: unknown }): unknown => {
    const { id, method, params } = body;
    if (typeof method !== 'string' || !isMethodName(method)) return rpcError(id, -32601, 'no such method');
    requests.push({ method, params });
    const checked = checkValue(A2A_1_0, METHODS[method].paramsType as 'SendMessageRequest', params ?? {});
    if (!checked.ok) return rpcError(id, -32602, 'invalid params');
    const p = params as Record<string, unknown>;
    switch (method) {
      case 'SendMessage': {
        const message = (p['message'] ?? {}) as { contextId?: string; taskId?: string };
        if (message.taskId !== undefined) return rpcError(id, -32004, 'tasks end at once here');
        counter += 1;
        clock += 1;
        const task: Task = {
          id: `task-${counter}`,
          contextId: message.contextId ?? `context-${counter}`,
          status: { state: 'TASK_STATE_COMPLETED', timestamp: new Date(clock).toISOString() },
        };
        tasks.push(task);
        return { jsonrpc: '2.0', id, result: { task } };
      }
      case 'GetTask': {
        const task = tasks.find((each) => each.id === p['id']);
        return task ? { jsonrpc: '2.0', id, result: task } : rpcError(id, -32001, 'task not found');
      }
      case 'CancelTask': {
        const task = tasks.find((each) => each.id === p['id']);
        if (task === undefined) return rpcError(id, -32001, 'task not found');
        if (!bugs.cancelsCompleted) return rpcError(id, -32002, 'not cancelable');
        task.status = { ...task.status, state: 'TASK_STATE_CANCELED' };
        return { jsonrpc: '2.0', id, result: task };
      }
      case 'ListTasks': {
        const matching = tasks.filter((task) => p['contextId'] === undefined || task.contextId === p['contextId']).reverse();
        const pageSize = typeof p['pageSize'] === 'number' ? p['pageSize'] : 50;
        // The token is the id of the last task served; the next page starts after it (or, broken, at it).
        const after =
          typeof p['pageToken'] === 'string' && p['pageToken'] !== '' ? matching.findIndex((task) => task.id === p['pageToken']) : -1;
        const offset = after < 0 ? 0 : after + (bugs.overlappingPages ? 0 : 1);
        const page = matching.slice(offset, offset + pageSize);
        const next = offset + pageSize < matching.length ? (page.at(-1)?.id ?? '') : '';
        return { jsonrpc: '2.0', id, result: { tasks: page, nextPageToken: next, pageSize, totalSize: matching.length } };
      }
      default:
        return rpcError(id, -32004, 'unsupported');
    }
  };
  const server: Server = createServer((request: IncomingMessage, response: ServerResponse) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const reply = (status: number, body: unknown): void => {
        response.writeHead(status, { 'content-type': 'application/json' });
        response.end(JSON.stringify(body));
      };
      if (request.method === 'GET' && request.url === '/.well-known/agent-card.json') return reply(200, card);
      let body: { id?: unknown; method?: unknown; params?: unknown };
      try {
        body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as typeof body;
      } catch {
        return reply(200, rpcError(null, -32700, 'parse error'));
      }
      if (bugs.crashOnNumericId && body.method === 'GetTask' && typeof (body.params as { id?: unknown } | undefined)?.id === 'number') {
        return reply(500, { message: 'TypeError: params.id.trim is not a function' });
      }
      reply(200, handle(body));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const card: AgentCard = {
    name: 'broken fake',
    description: 'A deliberately broken agent for the conformance tests.',
    supportedInterfaces: [{ url: `${url}/rpc`, protocolBinding: 'JSONRPC', protocolVersion: '1.0' }],
    version: '0',
    capabilities: {},
    defaultInputModes: ['text/plain'],
    defaultOutputModes: ['text/plain'],
    skills: [{ id: 'fake', name: 'fake', description: 'fake', tags: ['fake'] }],
  };
  return { url, requests, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

describe('against a deliberately broken agent', () => {
  it('reports the mutated input answered with HTTP 500 as a ROBUST-003 failure, shrunk, with the seed', async () => {
    const fake = await startFakeAgent({ crashOnNumericId: true });
    try {
      const report = await runChecks(
        fake.url,
        propertyChecks.filter((check) => check.id === 'robust-mutated-params'),
        { seed: 1234 },
      );
      const result = verdicts(report, ['ROBUST-002', 'ROBUST-003']);
      expect(result['ROBUST-003']).toMatch(/^FAIL/);
      expect(result['ROBUST-002']).toMatch(/^FAIL/);
      const failure = findings(report, 'ROBUST-003').find((finding) => finding.verdict === 'FAIL');
      expect(failure?.seed).toBe(1234);
      expect(failure?.counterexample).toMatchObject({
        method: 'GetTask',
        params: { id: 12345 },
        mutation: { kind: 'wrong-type', pointer: '/id' },
      });
      // Shrunk: nothing but the id that makes it crash.
      expect((failure?.counterexample as { params: unknown }).params).toEqual({ id: 12345 });
      expect(failure?.observed).toContain('HTTP 500');
      expect(failure?.curl).toContain('"method":"GetTask"');
    } finally {
      await fake.close();
    }
  });

  it('reports a task repeated across ListTasks pages as a STATE-003 failure with the command sequence', async () => {
    const fake = await startFakeAgent({ overlappingPages: true });
    try {
      const report = await runChecks(fake.url, statefulChecks, { profile: PROFILES.none });
      const result = verdicts(report, ['STATE-001', 'STATE-003']);
      expect(result['STATE-003']).toMatch(/^FAIL/);
      expect(result['STATE-001']).toBe('PASS');
      const failure = findings(report, 'STATE-003').find((finding) => finding.verdict === 'FAIL');
      expect(failure?.message).toMatch(/again on page|first page's totalSize/);
      expect(failure?.seed).toBe(42);
      expect(failure?.counterexample).toMatchObject({ commands: expect.stringContaining('List(') as unknown, profile: 'none' });
      expect(failure?.curl).toContain('ListTasks');
    } finally {
      await fake.close();
    }
  });

  it('reports a terminal task that changes, and a resend that makes a second task, in cooperative mode', async () => {
    const fake = await startFakeAgent({ cancelsCompleted: true });
    try {
      const report = await runChecks(fake.url, statefulChecks, { profile: PROFILES.directives });
      const result = verdicts(report, STATE_IDS);
      expect(result['STATE-001']).toBe('PASS');
      expect(result['STATE-003']).toBe('PASS');
      expect(result['STATE-002']).toMatch(/^FAIL — CancelTask on terminal task/);
      // STATE-004 is a MAY: the runner turns its failure into a warning.
      expect(result['STATE-004']).toMatch(/^(FAIL|WARN) — (optional behaviour not offered: )?resending messageId/);
      expect(result['STATE-005']).toMatch(/^FAIL — task .* went from TASK_STATE_COMPLETED to TASK_STATE_CANCELED/);
      for (const id of ['STATE-002', 'STATE-004', 'STATE-005']) {
        const failure = findings(report, id).find((finding) => finding.verdict === 'FAIL' || finding.verdict === 'WARN');
        expect(failure?.counterexample).toMatchObject({ commands: expect.any(String) as unknown, profile: 'directives' });
        expect(failure?.seed).toBe(42);
      }
    } finally {
      await fake.close();
    }
  });
});
