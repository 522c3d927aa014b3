import { PROFILES } from '../../conformance/core/profiles.js';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REQUIREMENT_BY_ID } from '../../generated/conformance/requirements.js';
import type { ConformanceReport } from '../../generated/conformance/types.js';
import { streamingChecks } from '../../conformance/checks/streaming.js';
import { startTestHub, type TestHub } from '../helpers/hub.js';
import { runChecks, verdicts } from './harness.js';

/** The hub is tested over JSON-RPC here: the requirements of the other binding (SSE-004) are the REST run's. */
const onJsonRpc = (id: string): boolean => REQUIREMENT_BY_ID.get(id)?.bindings.includes('JSONRPC') === true;
const ALL = [...new Set(streamingChecks.flatMap((check) => check.requirements))].filter(onJsonRpc);
const BLACK_BOX = [...new Set(streamingChecks.filter((check) => check.needs === undefined).flatMap((check) => check.requirements))].filter(
  onJsonRpc,
);
const COOPERATIVE_ONLY = ALL.filter((id) => !BLACK_BOX.includes(id));
const SEND_STREAM = streamingChecks.filter((check) => check.id === 'sse-send-stream');
const SUB_INTERRUPTED = streamingChecks.filter((check) => check.id === 'sub-interrupted-task');

let hub: TestHub;
beforeAll(async () => {
  hub = await startTestHub();
});
afterAll(() => hub.dispose());

function verdictOf(report: ConformanceReport, id: string): string | undefined {
  return report.results.find((result) => result.id === id)?.verdict;
}

describe('streaming checks against the hub', () => {
  it('pass on every implemented requirement in cooperative mode', async () => {
    const started = Date.now();
    const report = await runChecks(hub.url, streamingChecks);
    expect(verdicts(report, ALL)).toEqual(Object.fromEntries(ALL.map((id) => [id, 'PASS'])));
    expect(verdictOf(report, 'WIRE-001')).not.toBe('FAIL');
    expect(Date.now() - started).toBeLessThan(15_000);
  });

  it('pass a subscription to an INPUT_REQUIRED task that follows the resumed turn to its terminal state', async () => {
    const report = await runChecks(hub.url, SUB_INTERRUPTED);
    expect(verdicts(report, ['SUB-004', 'SUB-005', 'SSE-010'])).toEqual({ 'SUB-004': 'PASS', 'SUB-005': 'PASS', 'SSE-010': 'PASS' });
  });

  it('skip the cooperative requirements in black-box mode and pass the rest', async () => {
    const report = await runChecks(hub.url, streamingChecks, { profile: PROFILES.none });
    expect(verdicts(report, BLACK_BOX)).toEqual(Object.fromEntries(BLACK_BOX.map((id) => [id, 'PASS'])));
    for (const id of COOPERATIVE_ONLY) expect(verdictOf(report, id), id).toBe('SKIP');
  });
});

type Variant = 'status-first' | 'working-after-completed' | 'never-closes';

interface FakeAgent {
  readonly url: string;
  close(): Promise<void>;
}

/** A streaming agent that gets one thing wrong, to prove the checks catch it. */
async function startBrokenAgent(variant: Variant): Promise<FakeAgent> {
  let base = '';
  const server = createServer((request: IncomingMessage, response: ServerResponse) => {
    if (request.method === 'GET' && request.url === '/.well-known/agent-card.json') {
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(JSON.stringify(card(base)));
      return;
    }
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}') as { id?: string | number | null; method?: string };
      const id = body.id ?? null;
      if (body.method !== 'SendStreamingMessage') {
        response.writeHead(200, { 'content-type': 'application/json' });
        response.end(JSON.stringify({ jsonrpc: '2.0', id, error: { code: -32601, message: 'not implemented by this fake' } }));
        return;
      }
      response.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
      let seq = 0;
      const send = (result: unknown): void => {
        response.write(`id: ${seq++}\ndata: ${JSON.stringify({ jsonrpc: '2.0', id, result })}\n\n`);
      };
      const task = { id: 'task-1', contextId: 'context-1', status: { state: 'TASK_STATE_SUBMITTED' } };
      const status = (state: string) => ({ statusUpdate: { taskId: 'task-1', contextId: 'context-1', status: { state } } });
      if (variant !== 'status-first') send({ task });
      send(status('TASK_STATE_WORKING'));
      send(status('TASK_STATE_COMPLETED'));
      if (variant === 'working-after-completed') send(status('TASK_STATE_WORKING'));
      if (variant !== 'never-closes') response.end();
    });
  });
  server.listen(0, '127.0.0.1');
  await new Promise<void>((resolve) => server.once('listening', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url: base,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function card(base: string): Record<string, unknown> {
  return {
    name: 'broken streaming agent',
    description: 'A fake agent whose streams break one rule.',
    supportedInterfaces: [{ url: `${base}/a2a`, protocolBinding: 'JSONRPC', protocolVersion: '1.0' }],
    version: '1.0.0',
    capabilities: { streaming: true },
    defaultInputModes: ['text/plain'],
    defaultOutputModes: ['text/plain'],
    skills: [{ id: 'echo', name: 'echo', description: 'echoes', tags: ['test'] }],
  };
}

describe('streaming checks against broken agents', () => {
  it('fail SSE-007 when the first event is a statusUpdate instead of the task', async () => {
    const agent = await startBrokenAgent('status-first');
    try {
      const report = await runChecks(agent.url, SEND_STREAM, { profile: PROFILES.none });
      const result = verdicts(report, ['SSE-007', 'SSE-008', 'SSE-010']);
      expect(result['SSE-007']).toMatch(/^FAIL — the first event .* is not a task/);
      expect(result['SSE-007']).toContain('statusUpdate WORKING');
      expect(result['SSE-008']).toBe('PASS');
      expect(result['SSE-010']).toBe('PASS');
    } finally {
      await agent.close();
    }
  });

  it('fail SSE-010 when a WORKING status follows COMPLETED', async () => {
    const agent = await startBrokenAgent('working-after-completed');
    try {
      const report = await runChecks(agent.url, SEND_STREAM, { profile: PROFILES.none });
      const result = verdicts(report, ['SSE-007', 'SSE-010']);
      expect(result['SSE-007']).toBe('PASS');
      expect(result['SSE-010']).toMatch(/^FAIL — events arrived after the terminal status COMPLETED/);
      expect(result['SSE-010']).toContain('statusUpdate WORKING');
    } finally {
      await agent.close();
    }
  });

  it('fail SSE-008 with a timeout when the stream never closes after COMPLETED', async () => {
    const agent = await startBrokenAgent('never-closes');
    try {
      const report = await runChecks(agent.url, SEND_STREAM, { profile: PROFILES.none, timeoutMs: 400 });
      const result = verdicts(report, ['SSE-007', 'SSE-008', 'SSE-010']);
      expect(result['SSE-007']).toBe('PASS');
      expect(result['SSE-010']).toBe('PASS');
      expect(result['SSE-008']).toMatch(/^FAIL — the stream did not end after the terminal status COMPLETED/);
      expect(result['SSE-008']).toContain('timeout');
    } finally {
      await agent.close();
    }
  });
});
