import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RequirementId } from '../../generated/conformance/requirements.js';
import { envelopeChecks } from '../../conformance/checks/envelope.js';
import type { Check } from '../../conformance/core/check.js';
import { resolveTarget, TargetError } from '../../conformance/core/target.js';
import { runConformance } from '../../conformance/suite.js';
import { startTestHub, type TestHub } from '../helpers/hub.js';
import { runChecks } from './harness.js';

let hub: TestHub;
let broken: Server;
let brokenUrl = '';

beforeAll(async () => {
  hub = await startTestHub();
  // Answers malformed JSON with -32600 instead of -32700: JSONRPC-ENV-003 fails, the rest of the envelope holds.
  broken = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk: Buffer) => (body += chunk.toString()));
    request.on('end', () => {
      let parsed: { id?: unknown; method?: unknown } | undefined;
      try {
        parsed = JSON.parse(body) as { id?: unknown; method?: unknown };
      } catch {
        parsed = undefined;
      }
      response.setHeader('content-type', 'application/json');
      response.end(JSON.stringify({ jsonrpc: '2.0', id: parsed?.id ?? null, error: { code: parsed ? -32601 : -32600, message: 'nope' } }));
    });
  });
  await new Promise<void>((resolve) => broken.listen(0, '127.0.0.1', resolve));
  brokenUrl = `http://127.0.0.1:${(broken.address() as AddressInfo).port}/rpc`;
});
afterAll(async () => {
  await hub.dispose();
  await new Promise((resolve) => broken.close(resolve));
});

const only = ['JSONRPC-ENV-003'];

describe('the runner', () => {
  it('exits 1 on an unlisted MUST failure and 0 when the baseline lists it, marking it baselined', async () => {
    const plain = await runConformance(brokenUrl, { checks: envelopeChecks, only, seed: 1 });
    expect(plain.report.results.find((result) => result.id === 'JSONRPC-ENV-003')?.verdict).toBe('FAIL');
    expect(plain.exitCode).toBe(1);
    const listed = await runConformance(brokenUrl, {
      checks: envelopeChecks,
      only,
      seed: 1,
      baseline: new Map([['JSONRPC-ENV-003', 'known']]),
    });
    expect(listed.report.results.find((result) => result.id === 'JSONRPC-ENV-003')?.baselined).toBe('known');
    expect(listed.exitCode).toBe(0);
  });

  it('fails the run when a baselined requirement now passes (stale baseline)', async () => {
    const { report, exitCode } = await runConformance(hub.url, {
      checks: envelopeChecks,
      only,
      seed: 1,
      baseline: new Map([['JSONRPC-ENV-003', 'was broken once']]),
    });
    expect(report.summary.baselineStale).toEqual(['JSONRPC-ENV-003']);
    expect(exitCode).toBe(1);
  });

  it('reports a verdict on an id outside the catalog as an ERROR of the check, never drops it', async () => {
    const typo: Check = {
      id: 'typo-check',
      title: 'records a verdict on a requirement id that a cast let through',
      requirements: ['JSONRPC-ENV-003'],
      run(context) {
        context.pass('JSONRPC-ENV-3' as RequirementId, 'passed');
        return Promise.resolve();
      },
    };
    const { report } = await runConformance(hub.url, { checks: [typo], only, seed: 1 });
    const result = report.results.find((entry) => entry.id === 'JSONRPC-ENV-003');
    expect(result?.verdict).toBe('ERROR');
    expect(result?.findings[0]?.message).toMatch(/"JSONRPC-ENV-3", which is not a requirement of the catalog/);
  });

  it('judges the ErrorInfo reason of A2A errors only: JSON-RPC errors are judged by code', async () => {
    const exchange = (code: number, reason: string) => ({
      request: { method: 'POST', url: brokenUrl, headers: {} },
      status: 200,
      headers: {},
      bodyText: '',
      durationMs: 1,
      id: 1,
      error: { code, message: 'm', data: [{ '@type': 'type.googleapis.com/google.rpc.ErrorInfo', reason, domain: 'example.com' }] },
    });
    const verdicts: boolean[] = [];
    const probe: Check = {
      id: 'reason-probe',
      title: 'expectError over answers with reasons of their own',
      requirements: ['JSONRPC-ENV-006', 'GET-002'],
      run(context) {
        verdicts.push(context.expectError('JSONRPC-ENV-006', exchange(-32602, 'BAD_PARAMS'), 'InvalidParamsError'));
        verdicts.push(context.expectError('GET-002', exchange(-32001, 'NO_SUCH_TASK'), 'TaskNotFoundError'));
        verdicts.push(context.expectError('GET-002', exchange(-32001, 'TASK_NOT_FOUND'), 'TaskNotFoundError'));
        return Promise.resolve();
      },
    };
    await runConformance(hub.url, { checks: [probe], only: ['JSONRPC-ENV-006', 'GET-002'], seed: 1, binding: 'JSONRPC' });
    expect(verdicts).toEqual([true, false, true]);
  });

  it('warns that a run proves little when most requests are refused', async () => {
    // A locked endpoint is refused before the run (below); the warning is for credentials that stop working during one.
    const target = await resolveTarget(hub.url, { timeoutMs: 5000 });
    await hub.inbounds.setAuth('default', 'runner-test-token');
    try {
      const refused = await runConformance(hub.url, { checks: envelopeChecks, seed: 1 }).catch((error: unknown) => error);
      expect(refused).toBeInstanceOf(TargetError);
      expect((refused as TargetError).unauthenticated).toBe(true);
      const report = await runChecks(target, envelopeChecks, { seed: 1 });
      expect(report.summary.deniedRequests).toBeGreaterThan(report.summary.requests / 2);
      expect(report.warnings.join('\n')).toMatch(/were refused \(401, 403, or a 404 that is no A2A error\): this run proves little/);
      const authorised = await runConformance(hub.url, {
        checks: envelopeChecks,
        seed: 1,
        headers: { authorization: 'Bearer runner-test-token' },
      });
      expect(authorised.report.warnings.join('\n')).not.toMatch(/proves little/);
    } finally {
      await hub.inbounds.setAuth('default', undefined);
    }
  });
});

describe('a run over two bindings', () => {
  /** Checks that only record what binding they ran on: the runner's bookkeeping is what is tested. */
  const ran: string[] = [];
  const recording: Check[] = [
    {
      id: 'neutral',
      title: 'runs on each binding',
      requirements: ['GET-002', 'JSONRPC-ENV-009'],
      run(context) {
        ran.push(`neutral ${context.transport.binding}`);
        context.pass('GET-002', 'found');
        // A method check records the JSON-RPC code rule too: only the JSON-RPC run may judge it.
        context.fail('JSONRPC-ENV-009', { message: `judged on ${context.transport.binding}` });
        return Promise.resolve();
      },
    },
    {
      id: 'rest-only',
      title: 'runs on HTTP+JSON only',
      bindings: ['HTTP+JSON'],
      requirements: ['REST-ENV-001'],
      run(context) {
        ran.push(`rest-only ${context.transport.binding}`);
        context.fail('REST-ENV-001', { message: 'a route is missing' });
        return Promise.resolve();
      },
    },
    {
      id: 'card',
      title: 'runs once',
      once: true,
      requirements: ['CARD-002'],
      run(context) {
        ran.push(`card ${context.transports.length}`);
        context.pass('CARD-002');
        return Promise.resolve();
      },
    },
  ];

  it('runs each check on the bindings it applies to, and reports the verdict per binding', async () => {
    ran.length = 0;
    const report = await runChecks(hub.url, recording, { binding: 'JSONRPC' });
    expect(ran).toEqual(['neutral JSONRPC', 'card 1']);
    expect(report.results.find((result) => result.id === 'REST-ENV-008')?.findings[0]?.skipReason).toBe('other-binding');

    // The hub's card declares both bindings.
    const both = await resolveTarget(hub.url, { timeoutMs: 5000 });
    ran.length = 0;
    const twice = await runChecks(both, recording, { binding: 'all' });
    expect(ran).toEqual(['neutral JSONRPC', 'neutral HTTP+JSON', 'rest-only HTTP+JSON', 'card 2']);
    const result = (id: RequirementId) => twice.results.find((entry) => entry.id === id);
    expect(result('GET-002')?.bindings).toEqual({ JSONRPC: 'PASS', 'HTTP+JSON': 'PASS' });
    expect(result('JSONRPC-ENV-009')?.findings.map((finding) => finding.message)).toEqual(['judged on JSONRPC']);
    expect(result('REST-ENV-001')?.findings).toEqual([
      expect.objectContaining({ verdict: 'FAIL', binding: 'HTTP+JSON', check: 'rest-only' }),
    ]);
    expect(result('CARD-002')?.findings[0]?.binding).toBeUndefined();
    expect(twice.target.interfaces?.map((entry) => entry.binding)).toEqual(['JSONRPC', 'HTTP+JSON']);
  });
});
