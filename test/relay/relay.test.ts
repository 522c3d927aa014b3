import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AgentCard, Task } from '../../generated/a2a/1.0/types.js';
import { runConformance } from '../../conformance/suite.js';
import { TEST_DIRECTIVES_EXTENSION } from '../../generated/hub/test-directives.js';
import { A2AClient } from '../../src/client/a2a-client.js';
import { call, stream, userMessage } from '../helpers/a2a-client.js';
import { startTestHub, type TestHub } from '../helpers/hub.js';
import { artifactText } from '../helpers/tasks.js';
import { waitFor } from '../helpers/wait.js';
import { startSdkAgent, type SdkAgent } from '../interop/sdk-agent.js';
import { startSdk03Agent, type Sdk03Agent } from '../interop/sdk03-agent.js';
import { fails, ok, snapshot } from '../outbound/helpers.js';

/**
 * A relay instance on one hub (the gateway) in front of another hub's echo agent (the remote),
 * driven over real HTTP: the local task must mirror the remote one in every outcome.
 */

let remote: TestHub;
let gateway: TestHub;
let relayEndpoint: string;
let outboundId: string;

async function createRelay(hub: TestHub, name: string, relayTo: string): Promise<string> {
  const created = await ok(hub.url, {
    action: 'inbound.create',
    name,
    description: `relays to ${relayTo}`,
    version: '1.0.0',
    preset: 'relay',
    relayTo,
  });
  return `${hub.url}/a2a/${created.id ?? ''}`;
}

beforeAll(async () => {
  remote = await startTestHub();
  gateway = await startTestHub();
  const created = await ok(gateway.url, {
    action: 'outbound.create',
    name: 'remote-echo',
    agentCardUrl: `${remote.url}/a2a/default/agent-card.json`,
  });
  outboundId = created.id ?? '';
  relayEndpoint = await createRelay(gateway, 'Echo gateway', outboundId);
});
afterAll(async () => {
  await gateway.dispose();
  await remote.dispose();
});

describe('the relay preset', () => {
  it('publishes a card with the remote skills, media types and extensions, at its own URL', async () => {
    const card = (await (await fetch(`${relayEndpoint}/agent-card.json`)).json()) as AgentCard;
    const remoteCard = (await (await fetch(`${remote.url}/a2a/default/agent-card.json`)).json()) as AgentCard;
    expect(card.supportedInterfaces[0]?.url).toBe(relayEndpoint);
    expect(card.skills.map((skill) => skill.id)).toEqual(remoteCard.skills.map((skill) => skill.id));
    expect(card.defaultInputModes).toEqual(remoteCard.defaultInputModes);
    expect(card.capabilities.extensions?.map((extension) => extension.uri)).toContain(TEST_DIRECTIVES_EXTENSION);
    const row = (await snapshot(gateway.url)).inbounds.find((inbound) => `${gateway.url}${inbound.endpointPath}` === relayEndpoint);
    expect(row?.relayTo).toBe(outboundId);
  });

  it('answers a blocking SendMessage with the remote result, and the remote holds the twin task', async () => {
    const before = (await call(`${remote.url}/a2a/default`, 'ListTasks', {})).totalSize;
    const { task } = await call(relayEndpoint, 'SendMessage', { message: userMessage('hello relay') });
    expect(task?.status.state).toBe('TASK_STATE_COMPLETED');
    expect(artifactText(task as Task)).toBe('echo: hello relay');
    const remoteTasks = await call(`${remote.url}/a2a/default`, 'ListTasks', { includeArtifacts: true });
    expect(remoteTasks.totalSize).toBe(before + 1);
    expect(artifactText(remoteTasks.tasks[0] as Task)).toBe('echo: hello relay');
    expect(remoteTasks.tasks[0]?.id).not.toBe(task?.id);
  });

  it('streams the remote frames through: working steps, every artifact chunk with append and lastChunk, then COMPLETED', async () => {
    const { events } = await stream(relayEndpoint, 'SendStreamingMessage', { message: userMessage('::slow 2\n::chunks 4\nstreamed text') });
    const frames = events.map((event) => event.frame);
    expect(frames[0]?.task?.status.state).toBe('TASK_STATE_SUBMITTED');
    const steps = frames.flatMap((frame) => frame.statusUpdate?.status.message?.parts.map((part) => part.text) ?? []);
    expect(steps).toEqual(['step 1 of 2', 'step 2 of 2']);
    const chunks = frames.flatMap((frame) => (frame.artifactUpdate === undefined ? [] : [frame.artifactUpdate]));
    expect(chunks).toHaveLength(4);
    expect(chunks.map((chunk) => chunk.append === true)).toEqual([false, true, true, true]);
    expect(chunks.map((chunk) => chunk.lastChunk === true)).toEqual([false, false, false, true]);
    expect(chunks.flatMap((chunk) => chunk.artifact.parts.map((part) => part.text)).join('')).toBe('echo: streamed text');
    expect(frames.at(-2)?.statusUpdate?.status.state).toBe('TASK_STATE_COMPLETED');
    expect(frames.at(-1)?.task?.status.state).toBe('TASK_STATE_COMPLETED');
    // Every SSE frame has an id, so the relay's own replay works.
    expect(events.every((event) => event.id !== undefined)).toBe(true);
  });

  it('mirrors INPUT_REQUIRED and continues the remote task when the local one is continued', async () => {
    const first = await call(relayEndpoint, 'SendMessage', { message: userMessage('::input-required\nfirst') });
    const local = first.task as Task;
    expect(local.status.state).toBe('TASK_STATE_INPUT_REQUIRED');
    const relayInstance = new URL(relayEndpoint).pathname.split('/').at(-1) ?? '';
    expect(JSON.parse((await gateway.store.getMeta(`relay.task.${relayInstance}.${local.id}`)) ?? '{}')).toMatchObject({
      taskId: expect.any(String) as string,
    });
    expect(local.status.message?.parts[0]?.text).toMatch(/needs more input/);
    const second = await call(relayEndpoint, 'SendMessage', {
      message: userMessage('the answer', { taskId: local.id, contextId: local.contextId }),
    });
    expect(second.task?.id).toBe(local.id);
    expect(second.task?.status.state).toBe('TASK_STATE_COMPLETED');
    expect(artifactText(second.task as Task)).toContain('echo: the answer');
    // The remote ids were kept while the task waited, and are gone now that it has ended.
    const relayId = new URL(relayEndpoint).pathname.split('/').at(-1) ?? '';
    expect(await gateway.store.getMeta(`relay.task.${relayId}.${local.id}`)).toBeUndefined();
    // One remote task served both turns.
    const remoteTask = (await call(`${remote.url}/a2a/default`, 'ListTasks', { pageSize: 1 })).tasks[0];
    expect(remoteTask?.status.state).toBe('TASK_STATE_COMPLETED');
    expect(remoteTask?.history?.filter((message) => message.role === 'ROLE_USER')).toHaveLength(2);
  });

  it('mirrors AUTH_REQUIRED, FAILED and REJECTED with the remote status message', async () => {
    const auth = await call(relayEndpoint, 'SendMessage', { message: userMessage('::auth-required') });
    expect(auth.task?.status.state).toBe('TASK_STATE_AUTH_REQUIRED');
    const failed = await call(relayEndpoint, 'SendMessage', { message: userMessage('::fail') });
    expect(failed.task?.status.state).toBe('TASK_STATE_FAILED');
    expect(failed.task?.status.message?.parts[0]?.text).toBe('echo failed as the test directive asked');
    const rejected = await call(relayEndpoint, 'SendMessage', { message: userMessage('::reject') });
    expect(rejected.task?.status.state).toBe('TASK_STATE_REJECTED');
  });

  it('answers with a Message when the remote does', async () => {
    const answer = await call(relayEndpoint, 'SendMessage', { message: userMessage('::message\nhi') });
    expect(answer.task).toBeUndefined();
    expect(answer.message?.parts[0]?.text).toBe('echo: hi');
  });

  it('propagates a local CancelTask to the remote task', async () => {
    const started = await call(relayEndpoint, 'SendMessage', {
      message: userMessage('::slow 100\nlong'),
      configuration: { returnImmediately: true },
    });
    const localId = started.task?.id ?? '';
    // Wait until the remote task exists and reports its first step.
    const remoteTask = await waitFor(
      async () => (await call(`${remote.url}/a2a/default`, 'ListTasks', { pageSize: 1 })).tasks[0],
      (task) => task?.status.message?.parts[0]?.text === 'step 1 of 100',
      'the remote task to start',
    );
    const canceled = await call(relayEndpoint, 'CancelTask', { id: localId });
    expect(canceled.status.state).toBe('TASK_STATE_CANCELED');
    const remoteAfter = await waitFor(
      () => call(`${remote.url}/a2a/default`, 'GetTask', { id: remoteTask?.id ?? '' }),
      (task) => task.status.state !== 'TASK_STATE_WORKING',
      'the remote task to end',
    );
    expect(remoteAfter.status.state).toBe('TASK_STATE_CANCELED');
  });

  it('fails the task with a clear message while its connection is disabled, and refuses a relay without a connection', async () => {
    await ok(gateway.url, { action: 'outbound.disable', id: outboundId });
    try {
      const { task } = await call(relayEndpoint, 'SendMessage', { message: userMessage('anyone there?') });
      expect(task?.status.state).toBe('TASK_STATE_FAILED');
      expect(task?.status.message?.parts[0]?.text).toMatch(/remote-echo" is disabled/);
    } finally {
      await ok(gateway.url, { action: 'outbound.enable', id: outboundId });
    }
    const missing = await fails(gateway.url, {
      action: 'inbound.create',
      name: 'Lost',
      description: 'no target',
      version: '1.0.0',
      preset: 'relay',
    });
    expect(missing.message).toMatch(/relayTo/);
    const unknown = await fails(gateway.url, {
      action: 'inbound.create',
      name: 'Lost',
      description: 'bad target',
      version: '1.0.0',
      preset: 'relay',
      relayTo: 'out-nope',
    });
    expect(unknown.message).toMatch(/out-nope/);
  });

  it('keeps one remote context per local conversation: a contextId under two tenants is two conversations', async () => {
    const contextId = `ctx-relay-${randomUUID()}`;
    const remoteContextOf = async (tenant: string): Promise<string | undefined> => {
      const { task } = await call(relayEndpoint, 'SendMessage', { tenant, message: userMessage('hello', { contextId }) });
      expect(task?.contextId).toBe(contextId);
      return (await call(`${remote.url}/a2a/default`, 'ListTasks', { pageSize: 1 })).tasks[0]?.contextId;
    };
    const first = await remoteContextOf('tenant-a');
    expect(await remoteContextOf('tenant-a')).toBe(first);
    const other = await remoteContextOf('tenant-b');
    expect(other).toBeDefined();
    expect(other).not.toBe(first);
  });

  it('passes the conformance suite in cooperative mode in front of the echo agent', async () => {
    const { report } = await runConformance(`${relayEndpoint}/agent-card.json`, {
      runs: 10,
      seed: 20261130,
      timeoutMs: 10_000,
      cooperative: true,
      level: 'should',
    });
    const problems = report.results
      .filter((result) => result.verdict === 'FAIL' || result.verdict === 'ERROR')
      .map((result) => `${result.id} ${result.verdict}: ${result.findings.map((finding) => finding.message).join(' | ')}`);
    expect(problems).toEqual([]);
    expect(report.target.mode).toBe('cooperative');
    expect(report.summary.PASS).toBeGreaterThan(50);
  });
});

describe('the relay preset in front of a remote that does not stream', () => {
  let cardServer: Server;
  let endpoint: string;
  beforeAll(async () => {
    // The remote hub's card with streaming turned off: the relay must send and poll.
    const card = (await (await fetch(`${remote.url}/a2a/default/agent-card.json`)).json()) as AgentCard;
    const polled: AgentCard = { ...card, capabilities: { ...card.capabilities, streaming: false } };
    cardServer = createServer((_request, response) =>
      response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(polled)),
    );
    await new Promise<void>((resolve) => cardServer.listen(0, '127.0.0.1', resolve));
    const { port } = cardServer.address() as AddressInfo;
    const created = await ok(gateway.url, {
      action: 'outbound.create',
      name: 'polled-echo',
      agentCardUrl: `http://127.0.0.1:${port}/card.json`,
    });
    endpoint = await createRelay(gateway, 'Polling gateway', created.id ?? '');
  });
  afterAll(() => new Promise<void>((resolve) => cardServer.close(() => resolve())));

  it('mirrors the task from polled snapshots: working steps, the artifact once, then COMPLETED', async () => {
    const { events } = await stream(endpoint, 'SendStreamingMessage', { message: userMessage('::slow 3\npolled text') });
    const frames = events.map((event) => event.frame);
    expect(frames.at(-2)?.statusUpdate?.status.state).toBe('TASK_STATE_COMPLETED');
    expect(frames.at(-1)?.task?.status.state).toBe('TASK_STATE_COMPLETED');
    expect(frames.some((frame) => frame.statusUpdate?.status.state === 'TASK_STATE_WORKING')).toBe(true);
    const text = frames.flatMap((frame) => frame.artifactUpdate?.artifact.parts.map((part) => part.text) ?? []).join('');
    expect(text).toBe('echo: polled text');
    const task = await call(endpoint, 'GetTask', { id: frames[0]?.task?.id ?? '' });
    expect(artifactText(task)).toBe('echo: polled text');
  });

  it('continues a task waiting for input', async () => {
    const first = await call(endpoint, 'SendMessage', { message: userMessage('::input-required') });
    expect(first.task?.status.state).toBe('TASK_STATE_INPUT_REQUIRED');
    const second = await call(endpoint, 'SendMessage', { message: userMessage('::slow 2\nlater', { taskId: first.task?.id }) });
    expect(second.task?.status.state).toBe('TASK_STATE_COMPLETED');
    expect(artifactText(second.task as Task)).toBe('echo: later');
  });
});

describe('the relay preset across a restart of the gateway', () => {
  it('continues a relayed task that was waiting for input: the remote ids are stored', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'a2a-hub-relay-'));
    try {
      let hub = await startTestHub({ dataDir });
      const created = await ok(hub.url, {
        action: 'outbound.create',
        name: 'remote-echo',
        agentCardUrl: `${remote.url}/a2a/default/agent-card.json`,
      });
      const path = new URL(await createRelay(hub, 'Durable gateway', created.id ?? '')).pathname;
      const first = await call(`${hub.url}${path}`, 'SendMessage', { message: userMessage('::input-required\nbefore') });
      expect(first.task?.status.state).toBe('TASK_STATE_INPUT_REQUIRED');
      await hub.close();
      hub = await startTestHub({ dataDir });
      try {
        await waitFor(
          () => snapshot(hub.url),
          (view) => view.outbounds[0]?.state === 'connected',
          'the connection to come back',
        );
        const second = await call(`${hub.url}${path}`, 'SendMessage', { message: userMessage('after', { taskId: first.task?.id }) });
        expect(second.task?.status.state).toBe('TASK_STATE_COMPLETED');
        expect(artifactText(second.task as Task)).toContain('echo: after');
      } finally {
        await hub.close();
      }
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});

describe('the relay preset in front of an @a2a-js/sdk agent', () => {
  let sdk: SdkAgent;
  let endpoint: string;
  beforeAll(async () => {
    sdk = await startSdkAgent();
    const created = await ok(gateway.url, { action: 'outbound.create', name: 'sdk-echo', agentCardUrl: sdk.url });
    endpoint = await createRelay(gateway, 'SDK gateway', created.id ?? '');
  });
  afterAll(() => sdk.close());

  it('relays a message and mirrors the completed task with its artifact', async () => {
    const { task } = await call(endpoint, 'SendMessage', { message: userMessage('hello sdk') });
    expect(task?.status.state).toBe('TASK_STATE_COMPLETED');
    expect(artifactText(task as Task)).toBe('echo: hello sdk');
  });

  it('streams through it', async () => {
    const { events } = await stream(endpoint, 'SendStreamingMessage', { message: userMessage('stream me') });
    const frames = events.map((event) => event.frame);
    expect(frames.at(-2)?.statusUpdate?.status.state).toBe('TASK_STATE_COMPLETED');
    expect(frames.at(-1)?.task?.status.state).toBe('TASK_STATE_COMPLETED');
    expect(frames.flatMap((frame) => frame.artifactUpdate?.artifact.parts.map((part) => part.text) ?? []).join('')).toBe('echo: stream me');
  });
});

describe('the relay preset in front of an A2A 0.3 agent (@a2a-js/sdk 0.3)', () => {
  let sdk03: Sdk03Agent;
  let endpoint: string;
  beforeAll(async () => {
    sdk03 = await startSdk03Agent();
    const created = await ok(gateway.url, { action: 'outbound.create', name: 'sdk03-echo', agentCardUrl: sdk03.url });
    endpoint = await createRelay(gateway, '0.3 gateway', created.id ?? '');
  });
  afterAll(() => sdk03.close());

  it("publishes a 1.0 card with the 0.3 agent's skills", async () => {
    const card = (await (await fetch(`${endpoint}/agent-card.json`, { headers: { 'a2a-version': '1.0' } })).json()) as AgentCard;
    expect(card.skills.map((skill) => skill.id)).toEqual(['chat']);
  });

  it('relays a message, and streams one through with its artifact chunks, in 1.0 to its callers', async () => {
    const { task } = await call(endpoint, 'SendMessage', { message: userMessage('hello 0.3 remote') });
    expect(task?.status.state).toBe('TASK_STATE_COMPLETED');
    expect(artifactText(task as Task)).toBe('echo: hello 0.3 remote');
    const { events } = await stream(endpoint, 'SendStreamingMessage', { message: userMessage('::slow 2\nstream me') });
    const frames = events.map((event) => event.frame);
    expect(frames.some((frame) => frame.statusUpdate?.status.state === 'TASK_STATE_WORKING')).toBe(true);
    expect(frames.at(-1)?.task?.status.state).toBe('TASK_STATE_COMPLETED');
    expect(frames.flatMap((frame) => frame.artifactUpdate?.artifact.parts.map((part) => part.text) ?? []).join('')).toBe('echo: stream me');
  });

  it('continues a task waiting for input on the same remote task', async () => {
    const first = await call(endpoint, 'SendMessage', { message: userMessage('::input-required') });
    expect(first.task?.status.state).toBe('TASK_STATE_INPUT_REQUIRED');
    expect(first.task?.status.message?.parts[0]?.text).toBe('sdk03-echo needs more input: send another message with this taskId');
    const second = await call(endpoint, 'SendMessage', { message: userMessage('later', { taskId: first.task?.id }) });
    expect(second.task?.status.state).toBe('TASK_STATE_COMPLETED');
    expect(artifactText(second.task as Task)).toBe('echo: later');
  });

  it('propagates a local CancelTask to the remote task (tasks/cancel)', async () => {
    const before = sdk03.canceled().length;
    const started = await call(endpoint, 'SendMessage', {
      message: userMessage('::slow 100\nlong'),
      configuration: { returnImmediately: true },
    });
    await new Promise((resolve) => setTimeout(resolve, 300));
    const canceled = await call(endpoint, 'CancelTask', { id: started.task?.id ?? '' });
    expect(canceled.status.state).toBe('TASK_STATE_CANCELED');
    await waitFor(
      () => Promise.resolve(sdk03.canceled().length),
      (count) => count > before,
      'the 0.3 agent to be asked to cancel',
    );
  });
});

describe.each([
  { how: 'streaming', streaming: true },
  { how: 'not streaming (polled)', streaming: false },
])('the relay preset in front of a REST-only @a2a-js/sdk agent, $how', ({ streaming }) => {
  let sdk: SdkAgent;
  let observer: A2AClient;
  let endpoint: string;
  beforeAll(async () => {
    sdk = await startSdkAgent({ bindings: ['HTTP+JSON'], streaming });
    observer = await A2AClient.connect(sdk.url);
    const created = await ok(gateway.url, {
      action: 'outbound.create',
      name: `sdk-rest-${String(streaming)}`,
      agentCardUrl: sdk.url,
      pollIntervalMs: 50,
    });
    endpoint = await createRelay(gateway, 'REST gateway', created.id ?? '');
  });
  afterAll(() => sdk.close());

  it('relays a message, and streams it through with its artifact chunks', async () => {
    const { task } = await call(endpoint, 'SendMessage', { message: userMessage('hello rest sdk') });
    expect(task?.status.state).toBe('TASK_STATE_COMPLETED');
    expect(artifactText(task as Task)).toBe('echo: hello rest sdk');
    const { events } = await stream(endpoint, 'SendStreamingMessage', { message: userMessage('::slow 2\nstream me') });
    const frames = events.map((event) => event.frame);
    expect(frames.some((frame) => frame.statusUpdate?.status.state === 'TASK_STATE_WORKING')).toBe(true);
    expect(frames.at(-1)?.task?.status.state).toBe('TASK_STATE_COMPLETED');
    expect(frames.flatMap((frame) => frame.artifactUpdate?.artifact.parts.map((part) => part.text) ?? []).join('')).toBe('echo: stream me');
  });

  it('continues a task waiting for input on the same remote task', async () => {
    const first = await call(endpoint, 'SendMessage', { message: userMessage('::input-required') });
    expect(first.task?.status.state).toBe('TASK_STATE_INPUT_REQUIRED');
    const second = await call(endpoint, 'SendMessage', { message: userMessage('later', { taskId: first.task?.id }) });
    expect(second.task?.status.state).toBe('TASK_STATE_COMPLETED');
    expect(artifactText(second.task as Task)).toContain('echo: later');
  });

  it('propagates a local CancelTask to the remote task', async () => {
    const started = await call(endpoint, 'SendMessage', {
      message: userMessage('::slow 100\nlong'),
      configuration: { returnImmediately: true },
    });
    const remoteTask = await waitFor(
      async () => (await observer.listTasks({ status: 'TASK_STATE_WORKING' })).tasks[0],
      (task) => task !== undefined,
      'the remote task to start',
    );
    const canceled = await call(endpoint, 'CancelTask', { id: started.task?.id ?? '' });
    expect(canceled.status.state).toBe('TASK_STATE_CANCELED');
    const remoteAfter = await waitFor(
      () => observer.getTask({ id: remoteTask?.id ?? '' }),
      (task) => task.status.state !== 'TASK_STATE_WORKING',
      'the remote task to end',
    );
    expect(remoteAfter.status.state).toBe('TASK_STATE_CANCELED');
  });
});
