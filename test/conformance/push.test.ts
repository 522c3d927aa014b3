import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RequirementId } from '../../generated/conformance/requirements.js';
import { discoveryChecks } from '../../conformance/checks/discovery.js';
import { pushChecks } from '../../conformance/checks/push.js';
import { sendMessageChecks } from '../../conformance/checks/send-message.js';
import { startWebhookReceiver } from '../../conformance/core/webhook-receiver.js';
import { startSdkAgent, type SdkAgent } from '../interop/sdk-agent.js';
import { runChecks, verdicts } from './harness.js';

/**
 * The push checks (conformance/checks/push.ts) against the official @a2a-js/sdk server with push
 * on (its in-memory config store and its sender, which POSTs to the suite's loopback receiver),
 * over both bindings, and the capability-absence checks against the same agent without push.
 */

const CRUD: RequirementId[] = ['PUSH-002', 'PUSH-003', 'PUSH-004', 'PUSH-005', 'PUSH-006', 'PUSH-012', 'PUSH-014'];
const DELIVERY: RequirementId[] = ['PUSH-007', 'PUSH-008', 'PUSH-009', 'PUSH-010', 'PUSH-015'];
const ABSENT: RequirementId[] = ['PUSH-001', 'SEND-018'];
const absenceChecks = [...discoveryChecks, ...sendMessageChecks].filter((check) =>
  ['push-absent', 'send-push-config-unsupported'].includes(check.id),
);

let withPush: SdkAgent;
let withoutPush: SdkAgent;
beforeAll(async () => {
  withPush = await startSdkAgent({ push: true, bindings: ['JSONRPC', 'HTTP+JSON'] });
  withoutPush = await startSdkAgent({ bindings: ['JSONRPC', 'HTTP+JSON'] });
});
afterAll(async () => {
  await withPush?.close();
  await withoutPush?.close();
});

describe('the push checks against an @a2a-js/sdk agent with push', () => {
  it.each(['JSONRPC', 'HTTP+JSON'] as const)(
    'pass config CRUD and delivery on %s, and warn that Get and List echo the secrets',
    async (binding) => {
      const report = await runChecks(withPush.url, pushChecks, { binding, webhookTimeoutMs: 10_000 });
      const pass = Object.fromEntries([...CRUD, ...DELIVERY].map((id) => [id, 'PASS']));
      expect(verdicts(report, [...CRUD, ...DELIVERY])).toEqual(pass);
      // The SDK stores and returns configs as given: token and credentials come back on Get and List.
      expect(verdicts(report, ['PUSH-013'])['PUSH-013']).toMatch(
        /^WARN — Get returns the config's token and authentication\.credentials as given/,
      );
      expect(report.summary.ERROR).toBe(0);
      expect(report.results.find((result) => result.id === 'WIRE-001')?.verdict).toBe('PASS');
    },
    120_000,
  );

  it('skips the absence checks: the card declares the capability', async () => {
    const report = await runChecks(withPush.url, absenceChecks);
    for (const id of ABSENT)
      expect(report.results.find((result) => result.id === id)?.findings[0]?.skipReason, id).toBe('capability-declared');
  });
});

describe('the push checks against an @a2a-js/sdk agent without push', () => {
  it('leave the capability checks skipped and keep the -32003 checks', async () => {
    const report = await runChecks(withoutPush.url, [...pushChecks, ...absenceChecks], { binding: 'all' });
    expect(verdicts(report, ['PUSH-001'])).toEqual({ 'PUSH-001': 'PASS' });
    // The SDK ignores an inline config when push is off, which SEND-018 (a MAY) reports as a warning.
    expect(verdicts(report, ['SEND-018'])['SEND-018']).toMatch(/^WARN — the push config was silently ignored/);
    for (const id of [...CRUD, ...DELIVERY, 'PUSH-013'])
      expect(
        report.results.find((result) => result.id === id)?.findings.map((finding) => finding.skipReason),
        id,
      ).toEqual(expect.arrayContaining(['capability-not-declared']));
  });
});

describe('the suite webhook receiver', () => {
  it('keeps each inbox apart, answers 204, and a stray path 404', async () => {
    const receiver = await startWebhookReceiver();
    try {
      const one = receiver.inbox();
      const two = receiver.inbox();
      expect(new URL(one.url).hostname).toBe('127.0.0.1');
      const answered = await fetch(one.url, { method: 'POST', headers: { 'content-type': 'application/a2a+json' }, body: '{"task":{}}' });
      expect(answered.status).toBe(204);
      expect((await fetch(`${receiver.baseUrl}/elsewhere`, { method: 'POST', body: '{}' })).status).toBe(404);
      const arrived = await one.waitFor((list) => list.length === 1, 5000);
      expect(arrived.map((delivery) => [delivery.method, delivery.headers['content-type'], delivery.json])).toEqual([
        ['POST', 'application/a2a+json', { task: {} }],
      ]);
      expect(two.deliveries()).toEqual([]);
    } finally {
      await receiver.close();
    }
  });
});
