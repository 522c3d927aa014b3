import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { pino, type Logger } from 'pino';
import { afterAll, describe, expect, it } from 'vitest';
import type { ActionSuccess, Snapshot } from '../../generated/control/types.js';
import { testDirectiveMetadata } from '../../generated/hub/test-directives.js';
import { call, expectRpcError, stream, userMessage } from '../helpers/a2a-client.js';
import { spawnHub } from '../helpers/child-hub.js';
import { startTestHub } from '../helpers/hub.js';
import { storeOnMissingPreset } from '../helpers/missing-preset.js';
import { expectJsonRpcError, expectRestError, post, send } from '../helpers/raw-http.js';

const LIST_TASKS = '{"jsonrpc":"2.0","id":1,"method":"ListTasks"}';
const JSON_HEADERS = { 'content-type': 'application/json', 'a2a-version': '1.0' };

const dirs: string[] = [];
function freshDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'a2a-hub-restart-'));
  dirs.push(dir);
  return dir;
}
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

describe('a restart keeps what the hub promised', () => {
  it('tasks, context bindings, idempotency, instances and the event log survive', async () => {
    const dataDir = freshDir();
    const first = await startTestHub({ dataDir });
    const contextId = 'ctx-restart';
    const completedMessage = userMessage('before restart', { contextId });
    const completed = await call(first.endpoint, 'SendMessage', { message: completedMessage });
    const waiting = await call(first.endpoint, 'SendMessage', { message: userMessage('::input-required', { contextId }) });
    const reports = await first.inbounds.create({ name: 'Reports', description: 'reporting agent', version: '0.1.0' });
    await first.close();

    const second = await startTestHub({ dataDir });
    try {
      const again = await call(second.endpoint, 'GetTask', { id: completed.task?.id ?? '' });
      expect(again).toEqual(completed.task);
      const resent = await call(second.endpoint, 'SendMessage', { message: completedMessage });
      expect(resent.task?.id).toBe(completed.task?.id);
      expect(resent.task?.history?.filter((message) => message.role === 'ROLE_USER')).toHaveLength(1);
      const listed = await call(second.endpoint, 'ListTasks', { contextId });
      expect(listed.totalSize).toBe(2);
      // The replay of the waiting task; with Last-Event-ID it resumes the turn that ended waiting, so it ends there.
      const replay = await stream(
        second.endpoint,
        'SubscribeToTask',
        { id: waiting.task?.id ?? '' },
        { headers: { 'last-event-id': '0' } },
      );
      expect(replay.events[0]?.frame.task?.status.state).toBe('TASK_STATE_INPUT_REQUIRED');
      const replayed = replay.events.slice(1).filter((event) => event.frame.artifactUpdate === undefined);
      expect(replayed.map((event) => event.frame.statusUpdate?.status.state)).toEqual(['TASK_STATE_WORKING', 'TASK_STATE_INPUT_REQUIRED']);
      const resumed = await call(second.endpoint, 'SendMessage', {
        message: userMessage('here is more', { taskId: waiting.task?.id ?? '' }),
      });
      expect(resumed.task?.status.state).toBe('TASK_STATE_COMPLETED');
      expect(resumed.task?.contextId).toBe(contextId);
      const card = await fetch(`${second.url}/a2a/${reports.id}/agent-card.json`);
      expect(card.status).toBe(200);
      expect(((await card.json()) as { name: string }).name).toBe('Reports');
    } finally {
      await second.close();
    }
  });

  it('does not recreate the default agent after it was removed', async () => {
    const dataDir = freshDir();
    const first = await startTestHub({ dataDir });
    await first.inbounds.remove('default');
    await first.close();
    const second = await startTestHub({ dataDir });
    try {
      expect(second.inbounds.get('default')).toBeUndefined();
      expect((await fetch(`${second.url}/.well-known/agent-card.json`)).status).toBe(404);
    } finally {
      await second.close();
    }
  });
});

describe('a stored instance whose preset this hub does not have', () => {
  /** The log lines of a hub, as parsed pino records. */
  function capturedLogger(): { logger: Logger; lines: Record<string, unknown>[] } {
    const lines: Record<string, unknown>[] = [];
    const sink = new Writable({
      write(chunk: Buffer, _encoding, done) {
        for (const line of chunk.toString('utf8').split('\n').filter(Boolean)) lines.push(JSON.parse(line) as Record<string, unknown>);
        done();
      },
    });
    return { logger: pino({ level: 'warn' }, sink), lines };
  }

  async function act(base: string, action: Record<string, unknown>): Promise<ActionSuccess> {
    const response = await send(`${base}/a2a/api`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(action),
    });
    expect(response.status, response.text).toBe(200);
    return JSON.parse(response.text) as ActionSuccess;
  }

  const snapshotOf = async (base: string): Promise<Snapshot> => JSON.parse((await send(`${base}/a2a/api`)).text) as Snapshot;

  it('does not stop the hub: the others are served, it is unavailable with the reason, and the control API fixes or removes it', async () => {
    const dataDir = freshDir();
    const [shouter, spare] = await storeOnMissingPreset(dataDir, ['shouter', 'spare']);
    if (shouter === undefined || spare === undefined) throw new Error('two instances were stored');

    const { logger, lines } = capturedLogger();
    const second = await startTestHub({ dataDir, logger });
    try {
      expect((await call(second.endpoint, 'SendMessage', { message: userMessage('still here') })).task?.status.state).toBe(
        'TASK_STATE_COMPLETED',
      );
      const endpoint = `${second.url}${shouter.endpointPath}`;
      const refused = expectJsonRpcError(
        await post(endpoint, '{"jsonrpc":"2.0","id":1,"method":"ListTasks"}', { 'content-type': 'application/json', 'a2a-version': '1.0' }),
        'AgentUnavailableError',
        { httpStatus: 503 },
      );
      expect(refused.error.message).toContain('shout');
      expectRestError(await send(`${endpoint}/agent-card.json`), 'AgentUnavailableError');

      const warned = lines.filter((line) => line['instance'] === shouter.id);
      expect(warned).toHaveLength(1);
      expect(warned[0]).toMatchObject({ level: 40, preset: 'shout', dataDir });

      const rows = (await snapshotOf(second.url)).inbounds;
      expect(rows.find((row) => row.id === 'default')).toMatchObject({ status: 'available' });
      expect(rows.find((row) => row.id === shouter.id)).toMatchObject({ status: 'unavailable', preset: 'shout' });
      expect(rows.find((row) => row.id === shouter.id)?.unavailableReason).toMatch(/preset "shout" is not registered/);

      await act(second.url, { action: 'inbound.update', id: shouter.id, preset: 'echo' });
      expect((await call(endpoint, 'SendMessage', { message: userMessage('back') })).task?.status.state).toBe('TASK_STATE_COMPLETED');
      expect((await snapshotOf(second.url)).inbounds.find((row) => row.id === shouter.id)).toMatchObject({ status: 'available' });
      expect((await snapshotOf(second.url)).inbounds.find((row) => row.id === shouter.id)).not.toHaveProperty('unavailableReason');

      await act(second.url, { action: 'inbound.remove', id: spare.id });
      expect(second.inbounds.get(spare.id)).toBeUndefined();
      expect((await send(`${second.url}${spare.endpointPath}/agent-card.json`)).status).toBe(404);
    } finally {
      await second.close();
    }
  });

  it('can be disabled, protected and renamed as it is; its endpoint checks the rate limit and the token first and names no preset', async () => {
    const dataDir = freshDir();
    const [shouter] = await storeOnMissingPreset(dataDir, ['shouter']);
    if (shouter === undefined) throw new Error('an instance was stored');
    const hub = await startTestHub({ dataDir, rateLimit: { perSecond: 0.001, burst: 3 } });
    try {
      const endpoint = `${hub.url}${shouter.endpointPath}`;
      const rowOf = async () => (await snapshotOf(hub.url)).inbounds.find((row) => row.id === shouter.id);
      await act(hub.url, { action: 'inbound.setAuth', id: shouter.id, token: 's3cr3t' });
      await act(hub.url, { action: 'inbound.update', id: shouter.id, name: 'Shouter, renamed', version: '1.0.1' });
      expect(await rowOf()).toMatchObject({ name: 'Shouter, renamed', version: '1.0.1', status: 'unavailable' });
      // Only a registered preset makes it available; another missing one is refused as before.
      const refusedPreset = await send(`${hub.url}/a2a/api`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ action: 'inbound.update', id: shouter.id, preset: 'whisper' }),
      });
      expect(refusedPreset.status).toBe(409);
      expect((JSON.parse(refusedPreset.text) as { message: string }).message).toMatch(/^unknown preset "whisper"/);

      await act(hub.url, { action: 'inbound.disable', id: shouter.id });
      expect((await post(endpoint, LIST_TASKS, JSON_HEADERS)).status, 'a disabled instance answers 404').toBe(404);
      await act(hub.url, { action: 'inbound.enable', id: shouter.id });
      expect(await rowOf()).toMatchObject({ enabled: true, status: 'unavailable' });

      expect((await send(endpoint)).status, 'like any endpoint, only POST').toBe(405);
      expectJsonRpcError(await post(endpoint, LIST_TASKS, JSON_HEADERS), 'UnauthenticatedError', { httpStatus: 401 });
      const withToken = { ...JSON_HEADERS, authorization: 'Bearer s3cr3t' };
      const refused = expectJsonRpcError(await post(endpoint, LIST_TASKS, withToken), 'AgentUnavailableError', { httpStatus: 503 });
      // The reason (and the presets this hub has) is for the operator: log, snapshot, control API.
      expect(refused.error.message).not.toMatch(/preset|registered|echo/);
      expect((await rowOf())?.unavailableReason).toMatch(/preset "shout" is not registered/);
      expectJsonRpcError(await post(endpoint, LIST_TASKS, withToken), 'AgentUnavailableError', { httpStatus: 503 });
      // The three calls above took the bucket's burst.
      expectJsonRpcError(await post(endpoint, LIST_TASKS, withToken), 'RateLimitedError', { httpStatus: 429 });
    } finally {
      await hub.close();
    }
  });
});

describe('crash and shutdown, with the real a2a-hub process', () => {
  it('after kill -9 mid-task, settled tasks are intact and the interrupted one is FAILED', async () => {
    const dataDir = freshDir();
    const hub = await spawnHub(dataDir);
    const endpoint = `${hub.url}/a2a/default`;
    const done = await call(endpoint, 'SendMessage', { message: userMessage('safe and sound') });
    const neverFinishes = userMessage('never finishes', { metadata: testDirectiveMetadata({ steps: 200, stepMs: 50 }) });
    const running = await call(endpoint, 'SendMessage', { message: neverFinishes, configuration: { returnImmediately: true } });
    await new Promise((resolve) => setTimeout(resolve, 150));
    hub.process.kill('SIGKILL');
    expect(await hub.exited).toBe('SIGKILL');

    const restarted = await spawnHub(dataDir);
    try {
      const url = `${restarted.url}/a2a/default`;
      expect(await call(url, 'GetTask', { id: done.task?.id ?? '' })).toEqual(done.task);
      const failed = await call(url, 'GetTask', { id: running.task?.id ?? '' });
      expect(failed.status.state).toBe('TASK_STATE_FAILED');
      expect(failed.status.message?.parts[0]?.text).toMatch(
        /process running this task stopped before the task ended; .* with a new messageId/,
      );
      // The advice holds: the same messageId gives the failed task back, a new one runs again.
      expect((await call(url, 'SendMessage', { message: neverFinishes })).task).toEqual(failed);
      const retried = await call(url, 'SendMessage', {
        message: { ...neverFinishes, messageId: `${neverFinishes.messageId}-retry` },
        configuration: { returnImmediately: true },
      });
      expect(retried.task?.id).not.toBe(failed.id);
      expect(retried.task?.status.state).not.toBe('TASK_STATE_FAILED');
      await call(url, 'CancelTask', { id: retried.task?.id ?? '' });
      await expectRpcError(
        url,
        'SendMessage',
        { message: userMessage('x', { taskId: running.task?.id ?? '' }) },
        'UnsupportedOperationError',
      );
    } finally {
      restarted.process.kill('SIGTERM');
      await restarted.exited;
    }
  });

  it('SIGTERM lets a short task finish, fails one that outlives the grace period, and ends its stream', async () => {
    const dataDir = freshDir();
    const config = join(dataDir, 'hub.json');
    writeFileSync(config, JSON.stringify({ shutdownGraceMs: 600 }));
    const hub = await spawnHub(dataDir, ['--config', config]);
    const endpoint = `${hub.url}/a2a/default`;
    const short = await call(endpoint, 'SendMessage', {
      message: userMessage('short', { metadata: testDirectiveMetadata({ steps: 3, stepMs: 50 }) }),
      configuration: { returnImmediately: true },
    });
    const long = userMessage('long', { metadata: testDirectiveMetadata({ steps: 500, stepMs: 50 }) });
    const watching = stream(endpoint, 'SendStreamingMessage', { message: long });
    await new Promise((resolve) => setTimeout(resolve, 100));
    hub.process.kill('SIGTERM');
    const streamed = await watching;
    expect(streamed.events.at(-2)?.frame.statusUpdate?.status.state).toBe('TASK_STATE_FAILED');
    expect(streamed.events.at(-1)?.frame.task?.status.state).toBe('TASK_STATE_FAILED');
    expect(await hub.exited).toBe(0);
    expect(hub.output()).toMatch(/SIGTERM: shutting down/);

    const restarted = await spawnHub(dataDir);
    try {
      const url = `${restarted.url}/a2a/default`;
      expect((await call(url, 'GetTask', { id: short.task?.id ?? '' })).status.state).toBe('TASK_STATE_COMPLETED');
      const longTask = await call(url, 'GetTask', { id: streamed.events[0]?.frame.task?.id ?? '' });
      expect(longTask.status.state).toBe('TASK_STATE_FAILED');
      expect(longTask.status.message?.parts[0]?.text).toMatch(/shut down before the task finished; .* with a new messageId/);
      expect((await call(url, 'SendMessage', { message: long })).task?.id).toBe(longTask.id);
    } finally {
      restarted.process.kill('SIGTERM');
      await restarted.exited;
    }
  });
});
