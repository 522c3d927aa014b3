import type { Task as SdkTask, StreamResponse as SdkStreamResponse, TaskPushNotificationConfig as SdkConfig } from '@a2a-js/sdk';
import {
  InMemoryPushNotificationStore,
  V1PushNotificationSerializer,
  type PushNotificationSender,
  type PushNotificationStore,
  type ServerCallContext,
} from '@a2a-js/sdk/server';
import { RequestMalformedError, UnsupportedOperationError } from '@a2a-js/sdk/errors';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RequirementId } from '../../generated/conformance/requirements.js';
import { discoveryChecks } from '../../conformance/checks/discovery.js';
import { pushChecks } from '../../conformance/checks/push.js';
import { sendMessageChecks } from '../../conformance/checks/send-message.js';
import { startWebhookReceiver } from '../../conformance/core/webhook-receiver.js';
import { startTestHub } from '../helpers/hub.js';
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
      // Nor does it guard against SSRF: a loopback webhook is accepted.
      expect(verdicts(report, ['PUSH-011'])['PUSH-011']).toMatch(
        /^WARN — recommended behaviour not met: a webhook on a loopback address was accepted/,
      );
      expect(verdicts(report, ['PUSH-013'])['PUSH-013']).toMatch(
        /^WARN — Get returns the config's token and authentication\.credentials as given/,
      );
      expect(report.summary.ERROR).toBe(0);
      expect(report.results.find((result) => result.id === 'WIRE-001')?.verdict).toBe('PASS');
      // Both ways of registering a webhook were observed: inline with the message, and created for the running task.
      const judgedBy = report.results
        .find((result) => result.id === 'PUSH-009')
        ?.findings.map((finding) => `${finding.check} ${finding.verdict}`);
      expect(judgedBy).toEqual(['push-delivery-inline PASS', 'push-delivery-created PASS']);
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

// --- Agents that get push wrong on purpose: each fault must turn the requirement it breaks red. ---

type Fault = 'no-auth' | 'reversed' | 'silent';

/** A push sender with one fault; the SDK's own serializer writes the bodies. */
function faultySender(fault: Fault): (store: PushNotificationStore) => PushNotificationSender {
  return (store) => {
    const serializer = new V1PushNotificationSerializer();
    const held = new Map<string, { url: string; body: string }[]>();
    const post = (url: string, body: string, headers: Record<string, string>): Promise<unknown> =>
      fetch(url, { method: 'POST', headers, body })
        .then((response) => response.body?.cancel())
        .catch(() => undefined);
    return {
      async send(frame: SdkStreamResponse, context: ServerCallContext, _task?: SdkTask): Promise<void> {
        const payload = frame.payload;
        if (fault === 'silent' || payload === undefined) return;
        const taskId = payload.$case === 'task' ? payload.value.id : payload.value.taskId;
        const { body } = serializer.serialize(frame);
        for (const config of await store.load(taskId, context)) {
          if (fault === 'no-auth') {
            await post(config.url, body, { 'content-type': 'application/json' });
            continue;
          }
          // Held back until the task ends, then sent newest first.
          const queue = held.get(taskId) ?? [];
          queue.push({ url: config.url, body });
          held.set(taskId, queue);
          const auth = config.authentication;
          if (!body.includes('TASK_STATE_COMPLETED')) continue;
          for (const entry of queue.reverse())
            await post(entry.url, entry.body, {
              'content-type': 'application/a2a+json',
              authorization: `${auth?.scheme ?? ''} ${auth?.credentials ?? ''}`,
            });
        }
      },
    };
  };
}

/**
 * Keeps every create (a same-id create is added, not replaced), leaves the secrets out of reads, and
 * refuses loopback webhooks: by default only the literal 127.0.0.1, as a guard comparing strings does,
 * and with InvalidParams; `refusal` changes both.
 */
class AppendingRedactingStore implements PushNotificationStore {
  private readonly configs = new Map<string, SdkConfig[]>();

  constructor(
    private readonly refusal: { readonly hosts: readonly string[]; readonly error: () => Error } = {
      hosts: ['127.0.0.1'],
      error: () => new RequestMalformedError('url: loopback webhooks are refused'),
    },
  ) {}

  save(taskId: string, _context: ServerCallContext, config: SdkConfig): Promise<void> {
    if (this.refusal.hosts.includes(new URL(config.url).hostname)) return Promise.reject(this.refusal.error());
    if (!config.id) config.id = crypto.randomUUID();
    this.configs.set(taskId, [...(this.configs.get(taskId) ?? []), structuredClone(config)]);
    return Promise.resolve();
  }

  load(taskId: string): Promise<SdkConfig[]> {
    return Promise.resolve((this.configs.get(taskId) ?? []).map((config) => ({ ...config, token: '', authentication: undefined })));
  }

  delete(taskId: string, _context: ServerCallContext, configId?: string): Promise<void> {
    this.configs.set(
      taskId,
      (this.configs.get(taskId) ?? []).filter((config) => configId !== undefined && config.id !== configId),
    );
    return Promise.resolve();
  }
}

/** Refuses a webhook whose host cannot resolve, as an agent that checks destinations at create time does. */
class ResolvingStore extends InMemoryPushNotificationStore {
  override save(taskId: string, context: ServerCallContext, config: SdkConfig): Promise<void> {
    if (new URL(config.url).hostname.endsWith('.invalid'))
      return Promise.reject(new RequestMalformedError('url: the host does not resolve'));
    return super.save(taskId, context, config);
  }
}

describe('the push checks against an agent that resolves webhook hosts at create time', () => {
  it('register the CRUD configs at the suite receiver instead, and pass', async () => {
    const agent = await startSdkAgent({ push: true, pushStore: new ResolvingStore() });
    try {
      const report = await runChecks(
        agent.url,
        pushChecks.filter((check) => check.id === 'push-config-crud'),
      );
      expect(verdicts(report, ['PUSH-002', 'PUSH-004', 'PUSH-005', 'PUSH-006', 'PUSH-012'])).toEqual({
        'PUSH-002': 'PASS',
        'PUSH-004': 'PASS',
        'PUSH-005': 'PASS',
        'PUSH-006': 'PASS',
        'PUSH-012': 'PASS',
      });
    } finally {
      await agent.close();
    }
  });
});

describe('the push checks catch what an agent gets wrong', () => {
  it.each<[Fault, Record<string, RegExp>]>([
    [
      'no-auth',
      {
        'PUSH-007': /^FAIL — delivery 1 does not carry the configured Authorization/,
        'PUSH-008': /^WARN — recommended behaviour not met: delivery 1 has another Content-Type/,
        'PUSH-009': /^PASS$/,
      },
    ],
    ['reversed', { 'PUSH-015': /^WARN — recommended behaviour not met: the webhook received \w+ after COMPLETED/, 'PUSH-007': /^PASS$/ }],
    [
      'silent',
      { 'PUSH-007': /^FAIL — no request reached the webhook within 1500 ms/, 'PUSH-009': /^FAIL — no request reached the webhook/ },
    ],
  ])('a sender with fault %s', async (fault, expected) => {
    const agent = await startSdkAgent({ push: true, pushSender: faultySender(fault) });
    try {
      const checks = pushChecks.filter((check) => check.id === 'push-delivery-inline');
      const report = await runChecks(agent.url, checks, { webhookTimeoutMs: 1500 });
      const found = verdicts(report, Object.keys(expected));
      for (const [id, pattern] of Object.entries(expected)) expect(found[id], id).toMatch(pattern);
    } finally {
      await agent.close();
    }
  });

  it('PUSH-011 probes the IPv4-mapped form too: a guard that compares address strings is reported, a refusal of another kind warns', async () => {
    const loopbackCheck = pushChecks.filter((check) => check.id === 'push-config-loopback-refused');
    const naive = await startSdkAgent({ push: true, pushStore: new AppendingRedactingStore() });
    const unsupported = await startSdkAgent({
      push: true,
      pushStore: new AppendingRedactingStore({
        hosts: ['127.0.0.1', '[::ffff:7f00:1]'],
        error: () => new UnsupportedOperationError('no loopback webhooks'),
      }),
    });
    try {
      const failed = verdicts(await runChecks(naive.url, loopbackCheck), ['PUSH-011'])['PUSH-011'];
      expect(failed).toMatch(
        /^WARN — recommended behaviour not met: a webhook on a loopback address was accepted: https:\/\/\[::ffff:127\.0\.0\.1\]:9\//,
      );
      const warned = verdicts(await runChecks(unsupported.url, loopbackCheck), ['PUSH-011'])['PUSH-011'];
      expect(warned).toMatch(/^WARN — a loopback webhook was refused, but not as invalid params/);
    } finally {
      await Promise.all([naive.close(), unsupported.close()]);
    }
  });

  it('PUSH-011 passes against the hub under its default destination policy, which refuses both forms', async () => {
    const hub = await startTestHub({ store: 'memory' });
    try {
      const report = await runChecks(
        hub.endpoint,
        pushChecks.filter((check) => check.id === 'push-config-loopback-refused'),
      );
      expect(verdicts(report, ['PUSH-011'])['PUSH-011']).toBe('PASS');
      expect(report.results.find((result) => result.id === 'PUSH-011')?.findings.map((finding) => finding.message)).toContain(
        'loopback webhooks (2 forms, IPv4-mapped included) are refused at create time as invalid params',
      );
    } finally {
      await hub.dispose();
    }
  });

  it('a store that adds a same-id create beside the old one fails PUSH-012; one that redacts secrets and refuses loopback passes PUSH-013 and PUSH-011', async () => {
    const agent = await startSdkAgent({ push: true, pushStore: new AppendingRedactingStore() });
    try {
      const report = await runChecks(
        agent.url,
        pushChecks.filter((check) => check.id === 'push-config-crud'),
      );
      const found = verdicts(report, ['PUSH-002', 'PUSH-012', 'PUSH-013']);
      expect(found['PUSH-002']).toBe('PASS');
      expect(found['PUSH-012']).toMatch(
        /^FAIL — (Get after the re-create returned another config|after a re-create List does not hold the config once)/,
      );
      expect(found['PUSH-013']).toBe('PASS');
    } finally {
      await agent.close();
    }
  });
});
