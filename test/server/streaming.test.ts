import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { StreamResponse } from '../../generated/a2a/1.0/types.js';
import { testDirectiveMetadata } from '../../generated/hub/test-directives.js';
import { call, expectErrorResponse, rpc, stream, userMessage, type SseEvent } from '../helpers/a2a-client.js';
import { MemoryTaskStore } from '../../src/store/memory-store.js';
import type { TaskStore } from '../../src/store/task-store.js';
import { deferredStore } from '../helpers/deferred-store.js';
import { POSTGRES_AVAILABLE, sharedTestPostgres } from '../helpers/postgres.js';
import { PostgresTaskStore } from '../../src/store/postgres-store.js';
import { startTestHub, type TestHub } from '../helpers/hub.js';
import { restStream } from '../helpers/rest-client.js';
import { artifactText } from '../helpers/tasks.js';
import { waitFor } from '../helpers/wait.js';

const slow = (steps: number, stepMs = 40) => testDirectiveMetadata({ steps, stepMs });

function states(events: SseEvent[]): string[] {
  return events.flatMap((event) =>
    event.frame.statusUpdate ? [event.frame.statusUpdate.status.state] : event.frame.task ? [`task:${event.frame.task.status.state}`] : [],
  );
}

function assembled(frames: StreamResponse[]): string {
  return frames.flatMap((frame) => frame.artifactUpdate?.artifact.parts.map((part) => part.text ?? '') ?? []).join('');
}

/**
 * Every case runs on the default SQLite store and on one that answers later, as a store on a
 * database server does: a stream's snapshot read then overlaps the task's first commits.
 */
const postgres = sharedTestPostgres();

const STORES: { name: string; taskStore: () => Promise<TaskStore | undefined> }[] = [
  { name: 'SQLite', taskStore: () => Promise.resolve(undefined) },
  { name: 'a store that answers later', taskStore: () => Promise.resolve(deferredStore(new MemoryTaskStore())) },
  ...(POSTGRES_AVAILABLE
    ? [{ name: 'PostgreSQL', taskStore: async () => PostgresTaskStore.open({ url: await postgres.databaseUrl() }) }]
    : []),
];

describe.each(STORES)('on $name', ({ taskStore }) => {
  let hub: TestHub;
  let store: TaskStore | undefined;
  beforeAll(async () => {
    store = await taskStore();
    hub = await startTestHub(store === undefined ? {} : { taskStore: store });
  });
  afterAll(async () => {
    await hub?.dispose();
    await store?.close();
  });

  describe('SendStreamingMessage', () => {
    it('streams the Task first, then status and artifact frames in order, each with an SSE id, the final Task, and closes', async () => {
      const result = await stream(hub.endpoint, 'SendStreamingMessage', { message: userMessage('hello stream\n::chunks 4') });
      expect(result.status).toBe(200);
      expect(result.headers.get('content-type')).toMatch(/^text\/event-stream/);
      expect(result.headers.get('a2a-version')).toBe('1.0');
      const first = result.events[0];
      const updates = result.events.slice(1, -1);
      const last = result.events.at(-1);
      expect(first?.frame.task?.status.state).toBe('TASK_STATE_SUBMITTED');
      const taskId = first?.frame.task?.id;
      expect(states(result.events)).toEqual([
        'task:TASK_STATE_SUBMITTED',
        'TASK_STATE_WORKING',
        'TASK_STATE_COMPLETED',
        'task:TASK_STATE_COMPLETED',
      ]);
      const chunks = updates.filter((event) => event.frame.artifactUpdate);
      expect(chunks).toHaveLength(4);
      expect(chunks.map((event) => [event.frame.artifactUpdate?.append ?? false, event.frame.artifactUpdate?.lastChunk ?? false])).toEqual([
        [false, false],
        [true, false],
        [true, false],
        [true, true],
      ]);
      expect(new Set(chunks.map((event) => event.frame.artifactUpdate?.artifact.artifactId)).size).toBe(1);
      expect(assembled(updates.map((event) => event.frame))).toBe('echo: hello stream');
      for (const event of updates) {
        const update = event.frame.statusUpdate ?? event.frame.artifactUpdate;
        expect(update?.taskId).toBe(taskId);
        expect(update?.contextId).toBe(first?.frame.task?.contextId);
      }
      // The final Task is the task as stored, and repeats the id of the status update it follows.
      expect(last?.frame.task).toEqual(await call(hub.endpoint, 'GetTask', { id: taskId ?? '' }));
      expect(artifactText(last?.frame.task ?? {})).toBe('echo: hello stream');
      expect(last?.id).toBe(updates.at(-1)?.id);
      const ids = result.events.slice(0, -1).map((event) => Number(event.id));
      expect(ids.every((id) => Number.isInteger(id))).toBe(true);
      expect([...ids].sort((a, b) => a - b)).toEqual(ids);
      expect(new Set(ids.slice(1)).size).toBe(ids.length - 1);
      expect(updates.at(-1)?.frame.statusUpdate?.status.state).toBe('TASK_STATE_COMPLETED');
    });

    it('sends no final Task after an interrupted state', async () => {
      const result = await stream(hub.endpoint, 'SendStreamingMessage', { message: userMessage('::input-required') });
      expect(result.events.at(-1)?.frame.statusUpdate?.status.state).toBe('TASK_STATE_INPUT_REQUIRED');
    });

    it('closes the stream at an interrupted state', async () => {
      const result = await stream(hub.endpoint, 'SendStreamingMessage', { message: userMessage('::input-required') });
      expect(states(result.events).at(-1)).toBe('TASK_STATE_INPUT_REQUIRED');
      expect(result.events.at(-1)?.frame.statusUpdate?.status.message?.role).toBe('ROLE_AGENT');
    });

    it('streams a follow-up to an interrupted task from its snapshot to the end of the resumed run', async () => {
      const waiting = await call(hub.endpoint, 'SendMessage', { message: userMessage('::input-required') });
      const taskId = waiting.task?.id ?? '';
      const result = await stream(hub.endpoint, 'SendStreamingMessage', { message: userMessage('more input', { taskId }) });
      // The snapshot already shows the task working on the answer, not the question it asked:
      // a client may close a stream at an interrupted state (spec §11.7).
      expect(result.events[0]?.frame.task?.status.state).toBe('TASK_STATE_WORKING');
      expect(result.events[0]?.frame.task?.history?.at(-1)?.parts[0]?.text).toBe('more input');
      expect(states(result.events)).toEqual(['task:TASK_STATE_WORKING', 'TASK_STATE_COMPLETED', 'task:TASK_STATE_COMPLETED']);
      expect(assembled(result.events.map((event) => event.frame))).toBe('echo: more input');
    });

    it('sends exactly one message frame for a direct reply, then closes', async () => {
      const result = await stream(hub.endpoint, 'SendStreamingMessage', { message: userMessage('::message\nhi') });
      expect(result.events).toHaveLength(1);
      expect(result.events[0]?.frame.message?.role).toBe('ROLE_AGENT');
      expect(result.events[0]?.frame.message?.parts[0]?.text).toBe('echo: hi');
    });

    it('reports errors found before the stream starts as a plain JSON-RPC error', async () => {
      const response = await rpc(
        hub.endpoint,
        'SendStreamingMessage',
        { message: userMessage('x', { taskId: 'no-such-task' }) },
        { headers: { accept: 'text/event-stream' } },
      );
      expectErrorResponse(response, 'TaskNotFoundError');
    });

    it('keeps the task running when the client disconnects', async () => {
      const message = userMessage('still here', { metadata: slow(4) });
      const cut = await stream(
        hub.endpoint,
        'SendStreamingMessage',
        { message },
        { until: (event) => event.frame.statusUpdate?.status.state === 'TASK_STATE_WORKING' },
      );
      const taskId = cut.events[0]?.frame.task?.id ?? '';
      const task = await waitFor(
        () => call(hub.endpoint, 'GetTask', { id: taskId }),
        (current) => current.status.state === 'TASK_STATE_COMPLETED',
        'the task to complete',
      );
      expect(artifactText(task)).toBe('echo: still here');
    });
  });

  describe('SubscribeToTask', () => {
    async function slowTask(steps: number, stepMs = 40): Promise<string> {
      const result = await call(hub.endpoint, 'SendMessage', {
        message: userMessage('slow', { metadata: slow(steps, stepMs) }),
        configuration: { returnImmediately: true },
      });
      return result.task?.id ?? '';
    }

    it('starts with the Task snapshot and gives concurrent subscribers the same frames in the same order', async () => {
      const taskId = await slowTask(6);
      const [one, two] = await Promise.all([
        stream(hub.endpoint, 'SubscribeToTask', { id: taskId }),
        stream(hub.endpoint, 'SubscribeToTask', { id: taskId }),
      ]);
      for (const result of [one, two]) {
        expect(result.events[0]?.frame.task?.id).toBe(taskId);
        expect(states(result.events).slice(-2)).toEqual(['TASK_STATE_COMPLETED', 'task:TASK_STATE_COMPLETED']);
      }
      const after = Math.max(Number(one.events[0]?.id), Number(two.events[0]?.id));
      const live = (events: SseEvent[]) =>
        events
          .slice(1)
          .filter((event) => Number(event.id) > after)
          .map((event) => JSON.stringify([event.id, event.frame]));
      expect(live(one.events)).toEqual(live(two.events));
      expect(live(one.events).length).toBeGreaterThan(3);
    });

    it('one subscriber leaving does not disturb another', async () => {
      const taskId = await slowTask(5);
      const [leaver, stayer] = await Promise.all([
        stream(hub.endpoint, 'SubscribeToTask', { id: taskId }, { until: (event) => event.frame.statusUpdate !== undefined }),
        stream(hub.endpoint, 'SubscribeToTask', { id: taskId }),
      ]);
      expect(leaver.events.length).toBeLessThan(stayer.events.length);
      expect(states(stayer.events).slice(-2)).toEqual(['TASK_STATE_COMPLETED', 'task:TASK_STATE_COMPLETED']);
    });

    it('with Last-Event-ID sends the snapshot and replays only the status frames after that id', async () => {
      const taskId = await slowTask(8, 30);
      const first = await stream(
        hub.endpoint,
        'SubscribeToTask',
        { id: taskId },
        { until: (event) => Number(event.id) >= 3 && event.frame.statusUpdate !== undefined },
      );
      const lastSeen = Number(first.events.at(-1)?.id);
      await new Promise((resolve) => setTimeout(resolve, 120));
      const resumed = await stream(hub.endpoint, 'SubscribeToTask', { id: taskId }, { headers: { 'last-event-id': String(lastSeen) } });
      const [snapshot, ...frames] = resumed.events;
      expect(snapshot?.frame.task?.id).toBe(taskId);
      // The snapshot carries the id the client resumed from, so a client cut off again right
      // after it resumes from the same place; every frame after it is later, one by one.
      expect(Number(snapshot?.id)).toBe(lastSeen);
      const ids = frames.slice(0, -1).map((event) => Number(event.id)); // the closing Task repeats its status frame's id
      expect(ids).toEqual(ids.map((_, index) => lastSeen + 1 + index));
      // What happened while the client was away is replayed as status frames (the artifacts are in the snapshot).
      const replayed = frames.filter((event) => Number(event.id) <= Number(first.events.at(-1)?.id) + 3);
      expect(replayed.length).toBeGreaterThan(0);
      expect(replayed.every((event) => event.frame.statusUpdate !== undefined)).toBe(true);
      expect(states(resumed.events).slice(-2)).toEqual(['TASK_STATE_COMPLETED', 'task:TASK_STATE_COMPLETED']);
    });

    it('ignores a Last-Event-ID that is not a decimal integer, on both bindings, as if it were absent', async () => {
      const taskId = await slowTask(8, 30);
      // Frames 1 to 3 exist before the subscriptions below, so reading any of these ids as a
      // number (parseInt read '1abc' as 1) would replay some of them.
      await stream(hub.endpoint, 'SubscribeToTask', { id: taskId }, { until: (event) => Number(event.id) >= 3 });
      const garbage = ['1abc', '1e0', '1.5', '0x1', '+1', '-1', '1 2'];
      const resumed = await Promise.all(
        garbage.flatMap((lastEventId) => {
          const headers = { 'last-event-id': lastEventId };
          return [
            stream(hub.endpoint, 'SubscribeToTask', { id: taskId }, { headers }),
            restStream(hub.endpoint, 'SubscribeToTask', { id: taskId }, { headers }),
          ];
        }),
      );
      for (const [index, { events }] of resumed.entries()) {
        const label = `${index % 2 === 0 ? 'JSON-RPC' : 'HTTP+JSON'} Last-Event-ID: ${garbage[Math.floor(index / 2)]}`;
        const [snapshot, ...frames] = events;
        expect(snapshot?.frame.task?.id, label).toBe(taskId);
        expect(
          frames.filter((event) => Number(event.id) <= Number(snapshot?.id)),
          label,
        ).toEqual([]);
      }
    });

    it('with Last-Event-ID on a task that has since stopped for input: the snapshot, the missed statuses, then the stream ends', async () => {
      // A resume continues the turn whose stream dropped, and that turn ended at INPUT_REQUIRED.
      const waiting = await call(hub.endpoint, 'SendMessage', {
        message: userMessage('resume me', { metadata: testDirectiveMetadata({ outcome: 'input-required', steps: 2, stepMs: 5 }) }),
      });
      const taskId = waiting.task?.id ?? '';
      expect(waiting.task?.status.state).toBe('TASK_STATE_INPUT_REQUIRED');
      const resumed = await stream(hub.endpoint, 'SubscribeToTask', { id: taskId }, { headers: { 'last-event-id': '1' } });
      expect(states(resumed.events)).toEqual([
        'task:TASK_STATE_INPUT_REQUIRED',
        'TASK_STATE_WORKING',
        'TASK_STATE_WORKING',
        'TASK_STATE_INPUT_REQUIRED',
      ]);
    });

    it('answers a terminal task with UnsupportedOperation and an unknown one with TaskNotFound', async () => {
      const done = await call(hub.endpoint, 'SendMessage', { message: userMessage('done') });
      const terminal = await rpc(
        hub.endpoint,
        'SubscribeToTask',
        { id: done.task?.id ?? '' },
        { headers: { accept: 'text/event-stream' } },
      );
      expectErrorResponse(terminal, 'UnsupportedOperationError');
      const unknown = await rpc(hub.endpoint, 'SubscribeToTask', { id: 'nope' }, { headers: { accept: 'text/event-stream' } });
      expectErrorResponse(unknown, 'TaskNotFoundError');
    });

    /** Subscribes to the task and resolves `opened` once its snapshot has arrived. */
    function subscribeWhenOpened(endpoint: string, taskId: string, options: { onComment?: () => void } = {}) {
      let opened: () => void = () => undefined;
      const snapshotSeen = new Promise<void>((resolve) => (opened = resolve));
      const result = stream(
        endpoint,
        'SubscribeToTask',
        { id: taskId },
        {
          ...options,
          until: () => {
            opened();
            return false;
          },
        },
      );
      return { snapshotSeen, result };
    }

    it('a task waiting for input: the snapshot, then the stream stays open and follows the resumed turn to its terminal state', async () => {
      const waiting = await call(hub.endpoint, 'SendMessage', { message: userMessage('::input-required') });
      const taskId = waiting.task?.id ?? '';
      const subscription = subscribeWhenOpened(hub.endpoint, taskId);
      await subscription.snapshotSeen;
      await call(hub.endpoint, 'SendMessage', { message: userMessage('the answer', { taskId }) });
      const result = await subscription.result;
      expect(states(result.events)).toEqual([
        'task:TASK_STATE_INPUT_REQUIRED',
        'TASK_STATE_WORKING',
        'TASK_STATE_COMPLETED',
        'task:TASK_STATE_COMPLETED',
      ]);
      expect(assembled(result.events.map((event) => event.frame))).toBe('echo: the answer');
    });

    it('a task waiting for input that asks again: the stream ends at the next interrupted state, not the one it started in', async () => {
      const waiting = await call(hub.endpoint, 'SendMessage', { message: userMessage('::input-required') });
      const taskId = waiting.task?.id ?? '';
      const subscription = subscribeWhenOpened(hub.endpoint, taskId);
      await subscription.snapshotSeen;
      await call(hub.endpoint, 'SendMessage', { message: userMessage('::input-required', { taskId }) });
      const result = await subscription.result;
      expect(states(result.events)).toEqual(['task:TASK_STATE_INPUT_REQUIRED', 'TASK_STATE_WORKING', 'TASK_STATE_INPUT_REQUIRED']);
    });

    it('a task waiting for input that is canceled: the stream ends with the canceled status', async () => {
      const waiting = await call(hub.endpoint, 'SendMessage', { message: userMessage('::auth-required') });
      const taskId = waiting.task?.id ?? '';
      const subscription = subscribeWhenOpened(hub.endpoint, taskId);
      await subscription.snapshotSeen;
      await call(hub.endpoint, 'CancelTask', { id: taskId });
      const result = await subscription.result;
      expect(states(result.events)).toEqual(['task:TASK_STATE_AUTH_REQUIRED', 'TASK_STATE_CANCELED', 'task:TASK_STATE_CANCELED']);
    });

    it('a task waiting for input that gets no follow-up: heartbeats keep the stream open, and shutdown ends it cleanly', async () => {
      const quiet = await startTestHub({ sseHeartbeatMs: 20, store: 'memory' });
      let disposed = false;
      try {
        const waiting = await call(quiet.endpoint, 'SendMessage', { message: userMessage('::input-required') });
        let heartbeat: () => void = () => undefined;
        const heartbeatSeen = new Promise<void>((resolve) => (heartbeat = resolve));
        const subscription = subscribeWhenOpened(quiet.endpoint, waiting.task?.id ?? '', { onComment: () => heartbeat() });
        await subscription.snapshotSeen;
        await heartbeatSeen;
        expect(quiet.streams.count).toBe(1);
        await quiet.dispose();
        disposed = true;
        // The response ends: the read resolves instead of failing with a reset connection.
        const result = await subscription.result;
        expect(states(result.events)).toEqual(['task:TASK_STATE_INPUT_REQUIRED']);
        expect(result.comments).toBeGreaterThanOrEqual(1);
      } finally {
        if (!disposed) await quiet.dispose();
      }
    });
  });

  describe('streamFinalTask: false', () => {
    let plain: TestHub;
    beforeAll(async () => {
      plain = await startTestHub({ streamFinalTask: false, store: 'memory' });
    });
    afterAll(() => plain.dispose());

    it('ends streams and subscriptions at the terminal status update', async () => {
      const sent = await stream(plain.endpoint, 'SendStreamingMessage', { message: userMessage('no final task') });
      expect(states(sent.events)).toEqual(['task:TASK_STATE_SUBMITTED', 'TASK_STATE_WORKING', 'TASK_STATE_COMPLETED']);
      const running = await call(plain.endpoint, 'SendMessage', {
        message: userMessage('slow', { metadata: slow(3) }),
        configuration: { returnImmediately: true },
      });
      const subscribed = await stream(plain.endpoint, 'SubscribeToTask', { id: running.task?.id ?? '' });
      expect(states(subscribed.events).at(-1)).toBe('TASK_STATE_COMPLETED');
    });
  });
});
