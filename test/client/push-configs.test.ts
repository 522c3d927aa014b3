import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ERRORS } from '../../generated/a2a/1.0/errors.js';
import type { Message, TaskPushNotificationConfig } from '../../generated/a2a/1.0/types.js';
import { A2AClient, WEBHOOK_SECRET_HEADER } from '../../src/client/a2a-client.js';
import { A2AError } from '../../src/protocol/a2a-error.js';
import { startWebhookReceiver, type WebhookReceiver } from '../../conformance/core/webhook-receiver.js';
import { startSdkAgent, type SdkAgent } from '../interop/sdk-agent.js';
import { TASK_ID, fakeAgent, fakeRestAgent, reply, replyRest, taskFrame, type FakeAgent, type RpcHandler } from './fake-agent.js';

/**
 * The client's push-config calls and inline config: against the official @a2a-js/sdk server with
 * push on (both bindings), against it with push off (-32003), and against scripted agents for
 * what the SDK cannot show: a2a-hub's one-time signing secret header, paging, bad answers.
 */

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const message = (text: string): Message => ({ messageId: crypto.randomUUID(), role: 'ROLE_USER', parts: [{ text }] });

let withPush: SdkAgent;
let withoutPush: SdkAgent;
let receiver: WebhookReceiver;
beforeAll(async () => {
  withPush = await startSdkAgent({ push: true, bindings: ['JSONRPC', 'HTTP+JSON'] });
  withoutPush = await startSdkAgent({ bindings: ['JSONRPC', 'HTTP+JSON'] });
  receiver = await startWebhookReceiver();
});
afterAll(async () => {
  await withPush?.close();
  await withoutPush?.close();
  await receiver?.close();
});

function errorName(error: unknown): string {
  return error instanceof A2AError ? `${error.definition.name} ${error.definition.code}` : String(error);
}

describe.each(['JSONRPC', 'HTTP+JSON'] as const)('push configs over %s against an @a2a-js/sdk agent', (binding) => {
  it('registers an inline config with the message, and the webhook gets the events with the configured Authorization', async () => {
    const client = await A2AClient.connect(withPush.url, { binding });
    const inbox = receiver.inbox();
    let secret: string | undefined;
    const answer = await client.sendMessage(
      { message: message('push me') },
      {
        pushConfig: { id: 'inline-1', url: inbox.url, authentication: { scheme: 'Bearer', credentials: 'hook-credentials' } },
        onSigningSecret: (value) => (secret = value),
      },
    );
    const taskId = answer.task?.id ?? '';
    expect(answer.task?.status.state).toBe('TASK_STATE_COMPLETED');
    // Only a2a-hub returns a signing secret.
    expect(secret).toBeUndefined();
    const listed = await client.listPushConfigs({ taskId });
    expect(listed.configs?.map((config) => [config.id, config.url])).toEqual([['inline-1', inbox.url]]);
    const deliveries = await inbox.waitFor(
      (list) => list.some((delivery) => JSON.stringify(delivery.json).includes('TASK_STATE_COMPLETED')),
      10_000,
    );
    expect(deliveries.length).toBeGreaterThan(0);
    expect(new Set(deliveries.map((delivery) => delivery.headers['authorization']))).toEqual(new Set(['Bearer hook-credentials']));
  });

  it('creates (the client assigns the id), gets, lists page by page and deletes a config; a deleted or unknown one is TaskNotFound', async () => {
    const client = await A2AClient.connect(withPush.url, { binding });
    const taskId = (await client.sendMessage({ message: message('a task') })).task?.id ?? '';
    const url = receiver.inbox().url;
    const created = await client.createPushConfig({ taskId, url });
    expect(created.signingSecret).toBeUndefined();
    expect(created.config).toMatchObject({ taskId, url, id: expect.stringMatching(/./) as unknown });
    const id = created.config.id ?? '';
    expect(await client.getPushConfig({ taskId, id })).toMatchObject({ id, taskId, url });
    await client.createPushConfig({ taskId, id: 'second', url });
    const all: TaskPushNotificationConfig[] = [];
    for await (const config of client.listAllPushConfigs({ taskId, pageSize: 1 })) all.push(config);
    expect(all.map((config) => config.id).sort()).toEqual([id, 'second'].sort());
    await client.deletePushConfig({ taskId, id });
    await expect(client.getPushConfig({ taskId, id }).catch(errorName)).resolves.toBe(`TaskNotFoundError ${ERRORS.TaskNotFoundError.code}`);
    // Delete is idempotent.
    await expect(client.deletePushConfig({ taskId, id })).resolves.toBeUndefined();
    await expect(client.createPushConfig({ taskId: 'no-such-task', url }).catch(errorName)).resolves.toBe(
      `TaskNotFoundError ${ERRORS.TaskNotFoundError.code}`,
    );
  });

  it('an agent without push refuses each call with PushNotificationNotSupported', async () => {
    const client = await A2AClient.connect(withoutPush.url, { binding });
    const taskId = (await client.sendMessage({ message: message('a task') })).task?.id ?? '';
    const expected = `PushNotificationNotSupportedError ${ERRORS.PushNotificationNotSupportedError.code}`;
    await expect(client.createPushConfig({ taskId, url: 'https://example.invalid/hook' }).catch(errorName)).resolves.toBe(expected);
    await expect(client.getPushConfig({ taskId, id: 'x' }).catch(errorName)).resolves.toBe(expected);
    await expect(client.listPushConfigs({ taskId }).catch(errorName)).resolves.toBe(expected);
    await expect(client.deletePushConfig({ taskId, id: 'x' }).catch(errorName)).resolves.toBe(expected);
  });
});

const config = { taskId: TASK_ID, id: 'c1', url: 'https://hooks.example/a2a' } satisfies TaskPushNotificationConfig;

async function withRpc(handler: RpcHandler, body: (client: A2AClient, fake: FakeAgent) => Promise<void>): Promise<void> {
  const fake = await fakeAgent(handler);
  try {
    await body(await A2AClient.connect(fake.url, { retries: 0 }), fake);
  } finally {
    await fake.close();
  }
}

describe("a2a-hub's signing secret header", () => {
  it('createPushConfig resolves the secret the JSON-RPC answer carries in A2A-Hub-Webhook-Secret', async () => {
    await withRpc(
      (call, res) => {
        res.setHeader(WEBHOOK_SECRET_HEADER, 'whsec_one-time');
        reply(res, call, config);
      },
      async (client) => {
        expect(await client.createPushConfig(config)).toEqual({ config, signingSecret: 'whsec_one-time' });
      },
    );
  });

  it('createPushConfig over HTTP+JSON reads it too', async () => {
    const fake = await fakeRestAgent((_call, res) => {
      res.setHeader(WEBHOOK_SECRET_HEADER, 'whsec_rest');
      replyRest(res, config);
    });
    try {
      const client = await A2AClient.connect(fake.url, { retries: 0 });
      expect(await client.createPushConfig(config)).toEqual({ config, signingSecret: 'whsec_rest' });
      expect(fake.calls[0]?.body).toEqual({ id: 'c1', url: config.url });
    } finally {
      await fake.close();
    }
  });

  it('sendMessage and sendStreamingMessage send pushConfig as the inline config and tell the secret', async () => {
    const task = taskFrame('TASK_STATE_COMPLETED').task;
    await withRpc(
      (call, res) => {
        res.setHeader(WEBHOOK_SECRET_HEADER, `whsec_${call.method}`);
        if (call.method === 'SendMessage') return reply(res, call, { task });
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.end(`data: ${JSON.stringify({ jsonrpc: '2.0', id: call.id, result: { task } })}\n\n`);
      },
      async (client, fake) => {
        const secrets: string[] = [];
        const pushConfig = { url: config.url, token: 'tok' };
        await client.sendMessage({ message: message('hi') }, { pushConfig, onSigningSecret: (secret) => secrets.push(secret) });
        for await (const frame of client.sendStreamingMessage(
          { message: message('hi') },
          { pushConfig, onSigningSecret: (secret) => secrets.push(secret) },
        ))
          expect(frame.task?.id).toBe(TASK_ID);
        expect(secrets).toEqual(['whsec_SendMessage', 'whsec_SendStreamingMessage']);
        const sent = fake.calls.map((call) => (call.params['configuration'] as Record<string, unknown>)['taskPushNotificationConfig']);
        const withId = { ...pushConfig, id: expect.stringMatching(UUID) as unknown };
        expect(sent).toEqual([withId, withId]);
      },
    );
  });

  it('a config without an id is sent with a fresh UUID, so creating it again replaces it; a given id is kept', async () => {
    await withRpc(
      (call, res) => reply(res, call, call.params),
      async (client, fake) => {
        const { taskId, url } = config;
        const first = await client.createPushConfig({ taskId, url });
        expect(first.config.id).toMatch(UUID);
        await client.createPushConfig({ ...first.config });
        await client.createPushConfig({ taskId, url });
        await client.createPushConfig({ taskId, id: 'mine', url });
        const ids = fake.calls.map((call) => call.params['id']);
        expect(ids[1]).toBe(first.config.id);
        expect(ids[2]).toMatch(UUID);
        expect(ids[2]).not.toBe(ids[0]);
        expect(ids[3]).toBe('mine');
      },
    );
  });

  it('a push config given both as the option and in configuration is refused before anything is sent', async () => {
    await withRpc(
      (call, res) => reply(res, call, { task: taskFrame('TASK_STATE_COMPLETED').task }),
      async (client, fake) => {
        const both = client.sendMessage(
          { message: message('hi'), configuration: { taskPushNotificationConfig: { url: config.url } } },
          { pushConfig: { url: config.url } },
        );
        await expect(both.catch(errorName)).resolves.toBe(`InvalidParamsError ${ERRORS.InvalidParamsError.code}`);
        expect(fake.calls).toEqual([]);
      },
    );
  });
});

describe('push config answers', () => {
  it('listAllPushConfigs follows nextPageToken, and a token repeated forever is InvalidAgentResponse', async () => {
    const pages: Record<string, unknown> = {
      '': { configs: [{ ...config, id: 'a' }], nextPageToken: 'p2' },
      p2: { configs: [{ ...config, id: 'b' }], nextPageToken: 'p3' },
      p3: { configs: [], nextPageToken: 'p2' },
    };
    await withRpc(
      (call, res) => reply(res, call, pages[typeof call.params['pageToken'] === 'string' ? call.params['pageToken'] : '']),
      async (client) => {
        const ids: string[] = [];
        const walk = async (): Promise<void> => {
          for await (const entry of client.listAllPushConfigs({ taskId: TASK_ID })) ids.push(entry.id ?? '');
        };
        await expect(walk().catch(errorName)).resolves.toBe(`InvalidAgentResponseError ${ERRORS.InvalidAgentResponseError.code}`);
        expect(ids).toEqual(['a', 'b']);
      },
    );
  });

  it('a config without its url is InvalidAgentResponse, and an unknown member is dropped', async () => {
    await withRpc(
      (call, res) => reply(res, call, call.method === 'GetTaskPushNotificationConfig' ? { ...config, createdAt: 'x' } : { id: 'c1' }),
      async (client) => {
        await expect(client.createPushConfig({ taskId: TASK_ID, url: config.url }).catch(errorName)).resolves.toBe(
          `InvalidAgentResponseError ${ERRORS.InvalidAgentResponseError.code}`,
        );
        expect(await client.getPushConfig({ taskId: TASK_ID, id: 'c1' })).toEqual(config);
      },
    );
  });
});
