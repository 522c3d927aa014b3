import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import fc from 'fast-check';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { isTerminalState } from '../../generated/a2a/1.0/task-states.js';
import type { Artifact, Message, StreamResponse, TaskState, TaskStatus } from '../../generated/a2a/1.0/types.js';
import { readQuery } from '../../src/store/listing.js';
import { MemoryTaskStore } from '../../src/store/memory-store.js';
import { PostgresTaskStore } from '../../src/store/postgres-store.js';
import { countQuery, pageQuery, type SqlQuery } from '../../src/store/sqlite-listing.js';
import { SqliteTaskStore } from '../../src/store/sqlite-store.js';
import type { StoreOp } from '../../src/store/store-ops.js';
import { SCHEMA_VERSION } from '../../src/store/sqlite-schema.js';
import {
  DuplicateKeyError,
  EVENT_LOG_LIMIT,
  InvalidCursorError,
  UnknownTaskError,
  type NewTask,
  type TaskPage,
  type TaskQuery,
  type TaskStore,
} from '../../src/store/task-store.js';
import { POSTGRES_AVAILABLE, sharedTestPostgres, withClient } from '../helpers/postgres.js';

/**
 * The stores that answer synchronously, whose `transaction(work)` runs synchronous work: the
 * tests of that (and of SQLite's files and queries) read their answers directly. The contract
 * itself allows promises (a store on a database server answers later), so its tests await.
 */
type SyncTaskStore = MemoryTaskStore | SqliteTaskStore;

const postgres = sharedTestPostgres();

const scratch = mkdtempSync(join(tmpdir(), 'a2a-hub-store-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

let databases = 0;
function databasePath(): string {
  return join(scratch, `store-${++databases}.db`);
}

type StoreOptions = { readonly eventLogSize?: number };
const SYNC_IMPLEMENTATIONS = [
  { name: 'MemoryTaskStore', open: (options: StoreOptions = {}): SyncTaskStore => new MemoryTaskStore(options) },
  { name: 'SqliteTaskStore', open: (options: StoreOptions = {}): SyncTaskStore => SqliteTaskStore.open(databasePath(), options) },
  // As the hub opens it: exclusive locking, and idempotency lookups behind a key filter.
  {
    name: 'SqliteTaskStore (exclusive)',
    open: (options: StoreOptions = {}): SyncTaskStore => SqliteTaskStore.open(databasePath(), { exclusive: true, ...options }),
  },
];
/** Every store, each open on an empty database of its own (for PostgreSQL, a fresh schema of the shared test cluster). */
/** The database of the PostgreSQL store opened last: what `crash` reaches into. */
let postgresUrl = '';
const IMPLEMENTATIONS: {
  name: string;
  open: (options?: StoreOptions) => TaskStore | Promise<TaskStore>;
  /**
   * What a crash of the process that ran the store's unfinished tasks leaves: nothing to do for a
   * store one process owns; the running tasks' leases lapse for one replicas share.
   */
  crash?: () => Promise<void>;
}[] = [
  ...SYNC_IMPLEMENTATIONS,
  ...(POSTGRES_AVAILABLE
    ? [
        {
          name: 'PostgresTaskStore',
          open: async (options: StoreOptions = {}): Promise<TaskStore> => {
            postgresUrl = await postgres.databaseUrl();
            return PostgresTaskStore.open({ url: postgresUrl, ...options });
          },
          crash: async (): Promise<void> => {
            await withClient(postgresUrl, (client) => client.query('UPDATE tasks SET lease_until = 1 WHERE lease_until IS NOT NULL'));
          },
        },
      ]
    : []),
];

const INSTANCE = 'instance-a';
const OTHER_INSTANCE = 'instance-b';
const EPOCH = Date.parse('2025-01-01T00:00:00.000Z');

/** The instant `seconds` after a fixed epoch, as the RFC 3339 string the hub would write. */
function at(seconds: number): string {
  return new Date(EPOCH + seconds * 1000).toISOString();
}

function message(id: string, role: Message['role'] = 'ROLE_USER'): Message {
  return { messageId: id, role, parts: [{ text: `text of ${id}` }] };
}

function status(state: TaskState, seconds: number): TaskStatus {
  return { state, timestamp: at(seconds) };
}

function newTask(id: string, overrides: Partial<NewTask> = {}): NewTask {
  return {
    id,
    instanceId: INSTANCE,
    contextId: 'context-1',
    skill: 'echo',
    status: status('TASK_STATE_SUBMITTED', 0),
    message: message(`${id}-m1`),
    createdAt: at(0),
    ...overrides,
  };
}

function artifact(id: string, texts: string[], header: Partial<Artifact> = {}): Artifact {
  return { artifactId: id, ...header, parts: texts.map((text) => ({ text })) };
}

function frame(n: number): StreamResponse {
  return {
    statusUpdate: {
      taskId: 'task-1',
      contextId: 'context-1',
      status: { state: 'TASK_STATE_WORKING', message: message(`frame-${n}`, 'ROLE_AGENT') },
    },
  };
}

/** An artifact chunk of task-1's artifact `a`, as a stream frame. */
function chunk(text: string): StreamResponse {
  return { artifactUpdate: { taskId: 'task-1', contextId: 'context-1', artifact: artifact('a', [text]), append: true } };
}

function ids(page: TaskPage): string[] {
  return page.tasks.map((task) => task.id);
}

/** Every page of a walk, following nextCursor to the end. */
async function walk(store: TaskStore, query: TaskQuery): Promise<TaskPage[]> {
  const pages = [await store.listTasks(INSTANCE, query)];
  for (let last = pages[0]; last !== undefined && last.nextCursor !== ''; last = pages.at(-1)) {
    pages.push(await store.listTasks(INSTANCE, { ...query, cursor: last.nextCursor }));
  }
  return pages;
}

describe.each(IMPLEMENTATIONS)('$name', ({ open, crash = () => Promise.resolve() }) => {
  let store: TaskStore;
  beforeEach(async () => {
    store = await open();
  });
  afterEach(async () => {
    await store.close();
  });

  describe('tasks', () => {
    it('returns a created task as the wire shows it', async () => {
      await store.createTask(newTask('task-1', { metadata: { origin: 'test', nested: { n: 1 } } }));
      const task = await store.getTask(INSTANCE, 'task-1');
      expect(task).toStrictEqual({
        id: 'task-1',
        contextId: 'context-1',
        status: status('TASK_STATE_SUBMITTED', 0),
        history: [message('task-1-m1')],
        metadata: { origin: 'test', nested: { n: 1 } },
      });
    });

    it('hides a task from other instances and answers undefined for unknown ids', async () => {
      await store.createTask(newTask('task-1'));
      expect(await store.getTask(OTHER_INSTANCE, 'task-1')).toBeUndefined();
      expect(await store.getTask(INSTANCE, 'no-such-task')).toBeUndefined();
      expect(await store.getTaskInfo('no-such-task')).toBeUndefined();
    });

    it('hides a task from every other tenant and from no tenant; no tenant and the empty tenant are one', async () => {
      await store.createTask(newTask('task-a', { tenant: 'tenant-a' }));
      await store.createTask(newTask('task-none', { tenant: '' }));
      await store.createTask(newTask('task-unset'));
      expect((await store.getTask(INSTANCE, 'task-a', { tenant: 'tenant-a' }))?.id).toBe('task-a');
      expect(await store.getTask(INSTANCE, 'task-a', { tenant: 'tenant-b' })).toBeUndefined();
      expect(await store.getTask(INSTANCE, 'task-a')).toBeUndefined();
      expect(await store.getTask(INSTANCE, 'task-a', { tenant: '' })).toBeUndefined();
      // The tenant does not cross instances either.
      expect(await store.getTask(OTHER_INSTANCE, 'task-a', { tenant: 'tenant-a' })).toBeUndefined();
      for (const id of ['task-none', 'task-unset']) {
        expect((await store.getTask(INSTANCE, id))?.id).toBe(id);
        expect((await store.getTask(INSTANCE, id, { tenant: '' }))?.id).toBe(id);
        expect(await store.getTask(INSTANCE, id, { tenant: 'tenant-a' })).toBeUndefined();
      }
      expect((await store.getTaskInfo('task-a'))?.tenant).toBe('tenant-a');
      expect((await store.getTaskInfo('task-unset'))?.tenant).toBe('');
    });

    it('never emits empty metadata', async () => {
      await store.createTask(newTask('task-1', { metadata: {} }));
      await store.createTask(newTask('task-2'));
      expect(await store.getTask(INSTANCE, 'task-1')).not.toHaveProperty('metadata');
      expect(await store.getTask(INSTANCE, 'task-2')).not.toHaveProperty('metadata');
    });

    it('refuses a second task with the same id', async () => {
      await store.createTask(newTask('task-1'));
      await expect(async () => store.createTask(newTask('task-1', { contextId: 'other' }))).rejects.toThrow(DuplicateKeyError);
      expect((await store.getTask(INSTANCE, 'task-1'))?.contextId).toBe('context-1');
    });

    it('keeps the bookkeeping in TaskInfo, with the status timestamp normalised', async () => {
      await store.createTask(newTask('task-1', { status: { state: 'TASK_STATE_SUBMITTED', timestamp: '2025-01-01T02:00:00+02:00' } }));
      expect(await store.getTaskInfo('task-1')).toStrictEqual({
        id: 'task-1',
        instanceId: INSTANCE,
        tenant: '',
        contextId: 'context-1',
        skill: 'echo',
        state: 'TASK_STATE_SUBMITTED',
        createdAt: at(0),
        updatedAt: '2025-01-01T00:00:00.000Z',
        statusVersion: expect.any(Number) as number,
      });
      const before = (await store.getTaskInfo('task-1'))?.statusVersion ?? Infinity;
      await store.setStatus('task-1', status('TASK_STATE_WORKING', 5));
      const after = await store.getTaskInfo('task-1');
      expect(after).toMatchObject({ state: 'TASK_STATE_WORKING', updatedAt: at(5) });
      expect(after?.statusVersion).toBeGreaterThan(before);
    });

    it('makes a new status current without touching the history', async () => {
      await store.createTask(newTask('task-1'));
      const done: TaskStatus = { state: 'TASK_STATE_COMPLETED', timestamp: at(9), message: message('done', 'ROLE_AGENT') };
      await store.setStatus('task-1', status('TASK_STATE_WORKING', 3));
      await store.setStatus('task-1', done);
      const task = await store.getTask(INSTANCE, 'task-1');
      expect(task?.status).toStrictEqual(done);
      expect(task?.history).toStrictEqual([message('task-1-m1')]);
    });

    it('keeps the place of a task whose new status has no timestamp', async () => {
      await store.createTask(newTask('task-1', { status: status('TASK_STATE_SUBMITTED', 4), createdAt: at(1) }));
      await store.setStatus('task-1', { state: 'TASK_STATE_WORKING' });
      expect(await store.getTaskInfo('task-1')).toMatchObject({ state: 'TASK_STATE_WORKING', updatedAt: at(4) });
      await store.createTask(newTask('task-2', { status: { state: 'TASK_STATE_SUBMITTED' }, createdAt: at(2) }));
      expect((await store.getTaskInfo('task-2'))?.updatedAt).toBe(at(2));
    });

    it('refuses timestamps that are not RFC 3339, changing nothing', async () => {
      await store.createTask(newTask('task-1'));
      await expect(async () => store.createTask(newTask('task-2', { createdAt: 'yesterday' }))).rejects.toThrow(RangeError);
      await expect(async () =>
        store.setStatus('task-1', { state: 'TASK_STATE_WORKING', timestamp: '2025-02-30T00:00:00Z' }),
      ).rejects.toThrow(RangeError);
      await expect(async () =>
        store.setStatus('task-1', { state: 'TASK_STATE_WORKING', timestamp: '2025-01-01T00:00:00' }),
      ).rejects.toThrow(RangeError);
      await expect(async () =>
        store.setStatus('task-1', { state: 'TASK_STATE_WORKING', timestamp: '2025-01-01T24:00:00Z' }),
      ).rejects.toThrow(RangeError);
      await expect(async () =>
        store.setStatus('task-1', { state: 'TASK_STATE_WORKING', timestamp: '2025-01-01T00:00:00+24:00' }),
      ).rejects.toThrow(RangeError);
      expect(await store.getTaskInfo('task-2')).toBeUndefined();
      expect((await store.getTaskInfo('task-1'))?.state).toBe('TASK_STATE_SUBMITTED');
    });

    it('throws UnknownTaskError for writes to a task it does not hold, and reads return nothing', async () => {
      await expect(async () => store.setStatus('ghost', status('TASK_STATE_WORKING', 1))).rejects.toThrow(UnknownTaskError);
      await expect(async () => store.appendMessage('ghost', message('m'))).rejects.toThrow(UnknownTaskError);
      await expect(async () => store.putArtifact('ghost', artifact('a', ['x']), false)).rejects.toThrow(UnknownTaskError);
      await expect(async () => store.appendEvent('ghost', frame(1))).rejects.toThrow(UnknownTaskError);
      expect(await store.eventsAfter('ghost', 0)).toEqual([]);
      expect(await store.lastEventSeq('ghost')).toBe(0);
    });

    it('round-trips every JSON value exactly', async () => {
      const rich: Message = {
        messageId: 'rich',
        role: 'ROLE_USER',
        contextId: 'context-1',
        parts: [
          { data: { list: [1, 2.5, -0.125, null, true, 'ü ✓ 😀'], empty: {}, deep: { a: [{ b: [] }] } }, mediaType: 'application/json' },
          { raw: 'AAEC/w==', filename: 'bytes.bin', metadata: { k: 'v' } },
          { url: 'https://example.com/x?y=1', mediaType: 'text/plain' },
        ],
        metadata: { 'key with space': [null], unicode: '\u0000\u2028' },
        extensions: ['https://example.com/ext'],
        referenceTaskIds: ['task-0'],
      };
      const richStatus: TaskStatus = { state: 'TASK_STATE_INPUT_REQUIRED', timestamp: '2025-01-01T00:00:00.123456Z', message: rich };
      const richArtifact = artifact('art', ['a'], { name: 'n', description: 'd', metadata: { x: { y: [1] } }, extensions: ['e'] });
      await store.createTask(newTask('task-1', { message: rich, status: richStatus, metadata: { deep: { list: [{}] } } }));
      await store.putArtifact('task-1', richArtifact, false);
      await store.appendEvent('task-1', { task: { id: 'task-1', status: richStatus, history: [rich] } });
      expect(await store.getTask(INSTANCE, 'task-1')).toStrictEqual({
        id: 'task-1',
        contextId: 'context-1',
        status: richStatus,
        artifacts: [richArtifact],
        history: [rich],
        metadata: { deep: { list: [{}] } },
      });
      expect(await store.eventsAfter('task-1', 0)).toStrictEqual([
        { seq: 1, frame: { task: { id: 'task-1', status: richStatus, history: [rich] } } },
      ]);
    });

    it('hands out copies: changing what went in or came out changes nothing stored', async () => {
      const first = message('task-1-m1');
      await store.createTask(newTask('task-1', { message: first }));
      first.parts.push({ text: 'added by the caller later' });
      const task = await store.getTask(INSTANCE, 'task-1');
      task?.history?.[0]?.parts.push({ text: 'added to the copy' });
      expect((await store.getTask(INSTANCE, 'task-1'))?.history).toStrictEqual([message('task-1-m1')]);
    });
  });

  describe('history and views', () => {
    beforeEach(async () => {
      await store.createTask(newTask('task-1'));
      for (const n of [2, 3, 4]) await store.appendMessage('task-1', message(`task-1-m${n}`, n % 2 === 0 ? 'ROLE_AGENT' : 'ROLE_USER'));
    });

    const history = async (length?: number): Promise<string[] | undefined> =>
      (await store.getTask(INSTANCE, 'task-1', length === undefined ? {} : { historyLength: length }))?.history?.map((m) => m.messageId);

    it('keeps messages in the order they were added and returns them all by default', async () => {
      expect(await history()).toEqual(['task-1-m1', 'task-1-m2', 'task-1-m3', 'task-1-m4']);
    });

    it('returns the N most recent messages for historyLength N', async () => {
      expect(await history(2)).toEqual(['task-1-m3', 'task-1-m4']);
      expect(await history(1)).toEqual(['task-1-m4']);
      expect(await history(10)).toEqual(['task-1-m1', 'task-1-m2', 'task-1-m3', 'task-1-m4']);
    });

    it('omits the history member for historyLength 0', async () => {
      expect(await store.getTask(INSTANCE, 'task-1', { historyLength: 0 })).not.toHaveProperty('history');
    });

    it('omits artifacts when excluded or when there are none', async () => {
      expect(await store.getTask(INSTANCE, 'task-1')).not.toHaveProperty('artifacts');
      await store.putArtifact('task-1', artifact('a', ['x']), false);
      expect((await store.getTask(INSTANCE, 'task-1'))?.artifacts).toHaveLength(1);
      expect((await store.getTask(INSTANCE, 'task-1', { includeArtifacts: true }))?.artifacts).toHaveLength(1);
      expect(await store.getTask(INSTANCE, 'task-1', { includeArtifacts: false })).not.toHaveProperty('artifacts');
    });
  });

  describe('artifacts', () => {
    beforeEach(async () => {
      await store.createTask(newTask('task-1'));
    });
    const artifacts = async (): Promise<Artifact[] | undefined> => (await store.getTask(INSTANCE, 'task-1'))?.artifacts;

    it('appends parts after those stored and updates only the header members a chunk gives', async () => {
      await store.putArtifact('task-1', artifact('a', ['1', '2'], { name: 'first', description: 'kept', metadata: { v: 1 } }), false);
      await store.putArtifact('task-1', artifact('a', ['3']), true);
      await store.putArtifact('task-1', artifact('a', ['4', '5'], { name: 'renamed', metadata: { v: 2 }, extensions: ['x'] }), true);
      expect(await artifacts()).toStrictEqual([
        artifact('a', ['1', '2', '3', '4', '5'], { name: 'renamed', description: 'kept', metadata: { v: 2 }, extensions: ['x'] }),
      ]);
    });

    it('replaces an artifact stored without append, keeping its place', async () => {
      await store.putArtifact('task-1', artifact('a', ['1', '2'], { name: 'old', description: 'old' }), false);
      await store.putArtifact('task-1', artifact('b', ['b1']), false);
      await store.putArtifact('task-1', artifact('a', ['new'], { name: 'new' }), false);
      expect(await artifacts()).toStrictEqual([artifact('a', ['new'], { name: 'new' }), artifact('b', ['b1'])]);
    });

    it('keeps artifacts in the order they were first created', async () => {
      for (const id of ['c', 'a', 'b']) await store.putArtifact('task-1', artifact(id, [id]), false);
      await store.putArtifact('task-1', artifact('a', ['a2']), true);
      expect((await artifacts())?.map((a) => a.artifactId)).toEqual(['c', 'a', 'b']);
    });

    it('takes an append to an artifact it does not hold as the first chunk', async () => {
      await store.putArtifact('task-1', artifact('a', ['1'], { name: 'n' }), true);
      expect(await artifacts()).toStrictEqual([artifact('a', ['1'], { name: 'n' })]);
    });

    it('stores chunks alike whatever lastChunk said: the store sees only append', async () => {
      const events = [
        { append: false, lastChunk: false, parts: ['1'] },
        { append: true, lastChunk: true, parts: ['2'] },
        { append: true, lastChunk: false, parts: ['3'] },
        { append: true, lastChunk: true, parts: ['4'] },
      ];
      for (const event of events) await store.putArtifact('task-1', artifact('a', event.parts), event.append);
      expect(await artifacts()).toStrictEqual([artifact('a', ['1', '2', '3', '4'])]);
    });
  });

  describe('event log', () => {
    beforeEach(async () => {
      await store.createTask(newTask('task-1'));
      await store.createTask(newTask('task-2'));
    });

    it('numbers frames 1, 2, 3… per task and replays those after a sequence number', async () => {
      expect(await store.lastEventSeq('task-1')).toBe(0);
      const seqs: number[] = [];
      for (const n of [1, 2, 3]) seqs.push(await store.appendEvent('task-1', frame(n)));
      expect(seqs).toEqual([1, 2, 3]);
      expect(await store.appendEvent('task-2', frame(9))).toBe(1);
      expect(await store.lastEventSeq('task-1')).toBe(3);
      expect(await store.eventsAfter('task-1', 1)).toStrictEqual([
        { seq: 2, frame: frame(2) },
        { seq: 3, frame: frame(3) },
      ]);
      expect(await store.eventsAfter('task-1', 3)).toEqual([]);
    });

    it('keeps the newest eventLogSize frames when opened with one', async () => {
      const small = await open({ eventLogSize: 3 });
      try {
        await small.createTask(newTask('task-1'));
        for (let n = 1; n <= 10; n++) await small.appendEvent('task-1', frame(n));
        expect((await small.eventsAfter('task-1', 0)).map((event) => event.seq)).toEqual([8, 9, 10]);
        expect(await small.lastEventSeq('task-1')).toBe(10);
      } finally {
        await small.close();
      }
    });

    it(`keeps the newest ${EVENT_LOG_LIMIT} frames and keeps counting past the pruned ones`, async () => {
      for (let n = 1; n <= 250; n++) expect(await store.appendEvent('task-1', frame(n))).toBe(n);
      const kept = await store.eventsAfter('task-1', 0);
      expect(kept).toHaveLength(EVENT_LOG_LIMIT);
      expect(kept[0]).toStrictEqual({ seq: 51, frame: frame(51) });
      expect(kept.at(-1)?.seq).toBe(250);
      expect((await store.eventsAfter('task-1', 240)).map((event) => event.seq)).toEqual([
        241, 242, 243, 244, 245, 246, 247, 248, 249, 250,
      ]);
      expect(await store.lastEventSeq('task-1')).toBe(250);
      expect(await store.appendEvent('task-1', frame(251))).toBe(251);
      expect((await store.eventsAfter('task-1', 0))[0]?.seq).toBe(52);
      expect(await store.lastEventSeq('task-2')).toBe(0);
    });

    it('numbers artifact frames, and logs them only when replicas share the store: a replay sends artifacts in its snapshot', async () => {
      // A replica following a task another one runs reads its chunks from the log.
      const shared = store.signals !== undefined;
      expect(await store.appendEvent('task-1', frame(1))).toBe(1);
      expect(
        await store.commit([
          [
            { op: 'appendEvent', taskId: 'task-1', frame: chunk('x') },
            { op: 'appendEvent', taskId: 'task-1', frame: chunk('y') },
          ],
        ]),
      ).toEqual([{ ok: true, seq: 3 }]);
      expect(await store.lastEventSeq('task-1')).toBe(3);
      expect(await store.appendEvent('task-1', frame(4))).toBe(4);
      expect(await store.lastEventSeq('task-1')).toBe(4);
      expect((await store.eventsAfter('task-1', 0)).map((event) => event.seq)).toEqual(shared ? [1, 2, 3, 4] : [1, 4]);
      expect(await store.appendEvent('task-1', chunk('z'))).toBe(5);
      expect(await store.lastEventSeq('task-1')).toBe(5);
      expect((await store.eventsAfter('task-1', 0)).map((event) => event.seq)).toEqual(shared ? [1, 2, 3, 4, 5] : [1, 4]);
      if (shared) expect((await store.eventsAfter('task-1', 4))[0]?.frame).toStrictEqual(chunk('z'));
    });
  });

  describe('batches', () => {
    it('keeps the writes of a batch around one that fails, and nothing of the one that failed', async () => {
      await store.createTask(newTask('task-1'));
      const outcomes = await store.commit([
        [
          { op: 'setStatus', taskId: 'task-1', status: status('TASK_STATE_WORKING', 1) },
          { op: 'appendEvent', taskId: 'task-1', frame: frame(1) },
        ],
        // Fails after a statement that succeeded: the event of the unknown task is not kept either.
        [
          { op: 'appendEvent', taskId: 'task-1', frame: frame(2) },
          { op: 'setStatus', taskId: 'ghost', status: status('TASK_STATE_WORKING', 2) },
        ],
        // An op whose statements wait for each other, failing, between two that succeed.
        [{ op: 'putArtifact', taskId: 'ghost', artifact: artifact('a', ['lost']), append: false }],
        [
          { op: 'putArtifact', taskId: 'task-1', artifact: artifact('a', ['kept']), append: false },
          { op: 'appendMessage', taskId: 'task-1', message: message('task-1-m2') },
          { op: 'appendEvent', taskId: 'task-1', frame: frame(3) },
        ],
      ]);
      expect(outcomes.map((outcome) => outcome.ok)).toEqual([true, false, false, true]);
      expect(outcomes[0]).toStrictEqual({ ok: true, seq: 1 });
      expect(outcomes[3]).toStrictEqual({ ok: true, seq: 2 });
      const task = await store.getTask(INSTANCE, 'task-1');
      expect(task?.status.state).toBe('TASK_STATE_WORKING');
      expect(task?.artifacts?.map((one) => one.parts)).toStrictEqual([[{ text: 'kept' }]]);
      expect(task?.history?.map((one) => one.messageId)).toEqual(['task-1-m1', 'task-1-m2']);
      expect((await store.eventsAfter('task-1', 0)).map((event) => event.frame)).toStrictEqual([frame(1), frame(3)]);
      expect(await store.getTaskInfo('ghost')).toBeUndefined();
    });

    it('applies a write guarded by a status version only while that status is current, and none of one computed from an older status', async () => {
      await store.createTask(newTask('task-1'));
      const versionOf = async (): Promise<number> => (await store.getTaskInfo('task-1'))?.statusVersion ?? -1;
      const take = (version: number, id: string, state: TaskState): StoreOp[] => [
        { op: 'expectStatus', taskId: 'task-1', version },
        { op: 'appendMessage', taskId: 'task-1', message: message(id) },
        { op: 'setStatus', taskId: 'task-1', status: status(state, 1) },
      ];
      const submitted = await versionOf();
      expect(await store.commit([take(submitted, 'first', 'TASK_STATE_WORKING')])).toStrictEqual([{ ok: true }]);
      // A second writer that read the same status loses, and nothing of its write is kept.
      const [late] = await store.commit([take(submitted, 'late', 'TASK_STATE_WORKING')]);
      expect(late).toMatchObject({ ok: false, stale: true, error: expect.stringContaining('task-1') as string });
      // Back in a state it was in before is still a newer status: the guard is a version, not a state.
      await store.setStatus('task-1', status('TASK_STATE_INPUT_REQUIRED', 2));
      const asked = await versionOf();
      await store.setStatus('task-1', status('TASK_STATE_WORKING', 3));
      await store.setStatus('task-1', status('TASK_STATE_INPUT_REQUIRED', 4));
      expect((await store.commit([take(asked, 'answer-to-the-old-question', 'TASK_STATE_WORKING')]))[0]).toMatchObject({ stale: true });
      // Of two guarded writes in one batch, the second sees the status the first set.
      const current = await versionOf();
      const outcomes = await store.commit([take(current, 'answer', 'TASK_STATE_WORKING'), take(current, 'twin', 'TASK_STATE_WORKING')]);
      expect(outcomes.map((outcome) => outcome.ok)).toEqual([true, false]);
      expect((await store.getTask(INSTANCE, 'task-1'))?.history?.map((one) => one.messageId)).toEqual(['task-1-m1', 'first', 'answer']);
      expect((await store.commit([[{ op: 'expectStatus', taskId: 'ghost', version: current }]]))[0]).toMatchObject({
        ok: false,
        stale: false,
      });
    });
  });

  describe('idempotency', () => {
    it('records the task or the direct reply a message got, per instance', async () => {
      expect(await store.findIdempotent(INSTANCE, { messageId: 'm1' })).toBeUndefined();
      await store.recordIdempotent(INSTANCE, { messageId: 'm1' }, { kind: 'task', taskId: 'task-1' });
      await store.recordIdempotent(INSTANCE, { messageId: 'm2' }, { kind: 'message', message: message('reply', 'ROLE_AGENT') });
      expect(await store.findIdempotent(INSTANCE, { messageId: 'm1' })).toStrictEqual({ kind: 'task', taskId: 'task-1' });
      expect(await store.findIdempotent(INSTANCE, { messageId: 'm2' })).toStrictEqual({
        kind: 'message',
        message: message('reply', 'ROLE_AGENT'),
      });
      expect(await store.findIdempotent(OTHER_INSTANCE, { messageId: 'm1' })).toBeUndefined();
    });

    it('refuses to record a key twice, keeping the first result', async () => {
      await store.recordIdempotent(INSTANCE, { messageId: 'm1' }, { kind: 'task', taskId: 'task-1' });
      await expect(async () => store.recordIdempotent(INSTANCE, { messageId: 'm1' }, { kind: 'task', taskId: 'task-2' })).rejects.toThrow(
        DuplicateKeyError,
      );
      expect(await store.findIdempotent(INSTANCE, { messageId: 'm1' })).toStrictEqual({ kind: 'task', taskId: 'task-1' });
      await store.recordIdempotent(OTHER_INSTANCE, { messageId: 'm1' }, { kind: 'task', taskId: 'task-9' });
      expect(await store.findIdempotent(OTHER_INSTANCE, { messageId: 'm1' })).toStrictEqual({ kind: 'task', taskId: 'task-9' });
    });

    it('keys a message by its messageId and the target it names as sent: a reused id with another target is another key', async () => {
      const targets = [
        { messageId: 'm1' },
        { messageId: 'm1', taskId: 'task-a' },
        { messageId: 'm1', contextId: 'context-1' },
        { messageId: 'm1', contextId: 'context-2' },
        { messageId: 'm1', taskId: 'task-a', contextId: 'context-1' },
        // Absent and empty are different targets.
        { messageId: 'm1', taskId: '' },
        { messageId: 'm1', contextId: '' },
        // No two targets share a key, whatever the ids hold.
        { messageId: 'm1', taskId: '","' },
        { messageId: 'm1', taskId: '', contextId: ',' },
      ];
      for (const [n, key] of targets.entries()) {
        expect(await store.findIdempotent(INSTANCE, key), JSON.stringify(key)).toBeUndefined();
        await store.recordIdempotent(INSTANCE, key, { kind: 'task', taskId: `task-${n}` });
      }
      for (const [n, key] of targets.entries()) {
        expect(await store.findIdempotent(INSTANCE, key), JSON.stringify(key)).toStrictEqual({ kind: 'task', taskId: `task-${n}` });
      }
      // A member set to undefined is an absent one, as JSON has it.
      expect(await store.findIdempotent(INSTANCE, { messageId: 'm1', taskId: undefined, contextId: undefined })).toStrictEqual({
        kind: 'task',
        taskId: 'task-0',
      });
      await expect(async () =>
        store.recordIdempotent(INSTANCE, { messageId: 'm1', taskId: 'task-a' }, { kind: 'task', taskId: 'task-x' }),
      ).rejects.toThrow(DuplicateKeyError);
      expect(await store.findIdempotent(INSTANCE, { messageId: 'm1', taskId: 'task-b' })).toBeUndefined();
      expect(await store.findIdempotent(INSTANCE, { messageId: 'm2', taskId: 'task-a' })).toBeUndefined();
    });

    it('keys a message by its tenant too: the same message under another tenant, or none, is another key', async () => {
      const tenants = [undefined, 'tenant-a', 'tenant-b'];
      for (const [n, tenant] of tenants.entries()) {
        expect(await store.findIdempotent(INSTANCE, { messageId: 'm1', tenant }), String(tenant)).toBeUndefined();
        await store.recordIdempotent(INSTANCE, { messageId: 'm1', tenant }, { kind: 'task', taskId: `task-${n}` });
      }
      for (const [n, tenant] of tenants.entries()) {
        expect(await store.findIdempotent(INSTANCE, { messageId: 'm1', tenant })).toStrictEqual({ kind: 'task', taskId: `task-${n}` });
      }
      expect(await store.findIdempotent(INSTANCE, { messageId: 'm1', tenant: '' })).toStrictEqual({ kind: 'task', taskId: 'task-0' });
      await expect(async () =>
        store.recordIdempotent(INSTANCE, { messageId: 'm1', tenant: '' }, { kind: 'task', taskId: 'task-x' }),
      ).rejects.toThrow(DuplicateKeyError);
      expect(await store.findIdempotent(OTHER_INSTANCE, { messageId: 'm1', tenant: 'tenant-a' })).toBeUndefined();
    });
  });

  describe('contexts', () => {
    it('creates a binding on first use and moves only lastActiveAt afterwards', async () => {
      expect(await store.getContext(INSTANCE, 'context-1')).toBeUndefined();
      await store.touchContext(INSTANCE, 'context-1', at(1));
      expect(await store.getContext(INSTANCE, 'context-1')).toStrictEqual({
        instanceId: INSTANCE,
        tenant: '',
        contextId: 'context-1',
        createdAt: at(1),
        lastActiveAt: at(1),
      });
      await store.touchContext(INSTANCE, 'context-1', at(7));
      expect(await store.getContext(INSTANCE, 'context-1')).toStrictEqual({
        instanceId: INSTANCE,
        tenant: '',
        contextId: 'context-1',
        createdAt: at(1),
        lastActiveAt: at(7),
      });
      expect(await store.getContext(OTHER_INSTANCE, 'context-1')).toBeUndefined();
    });

    it('binds a contextId per tenant: under another tenant it is another conversation', async () => {
      await store.touchContext(INSTANCE, 'context-1', at(1), 'tenant-a');
      expect(await store.getContext(INSTANCE, 'context-1', 'tenant-a')).toStrictEqual({
        instanceId: INSTANCE,
        tenant: 'tenant-a',
        contextId: 'context-1',
        createdAt: at(1),
        lastActiveAt: at(1),
      });
      expect(await store.getContext(INSTANCE, 'context-1')).toBeUndefined();
      expect(await store.getContext(INSTANCE, 'context-1', 'tenant-b')).toBeUndefined();
      await store.touchContext(INSTANCE, 'context-1', at(3));
      expect((await store.getContext(INSTANCE, 'context-1', ''))?.createdAt).toBe(at(3));
      expect((await store.getContext(INSTANCE, 'context-1', 'tenant-a'))?.lastActiveAt).toBe(at(1));
    });
  });

  describe('instances and meta', () => {
    it('saves instances by id, replacing on save and forgetting on delete', async () => {
      expect(await store.loadInstances()).toEqual([]);
      await store.saveInstance({ id: 'b', config: { skills: ['echo'], nested: { n: 1 } } });
      await store.saveInstance({ id: 'a', config: {} });
      await store.saveInstance({ id: 'b', config: { skills: [] } });
      expect(await store.loadInstances()).toStrictEqual([
        { id: 'a', config: {} },
        { id: 'b', config: { skills: [] } },
      ]);
      await store.deleteInstance('a');
      await store.deleteInstance('never-saved');
      expect(await store.loadInstances()).toStrictEqual([{ id: 'b', config: { skills: [] } }]);
    });

    it('keeps a small key/value area, whose keys can be deleted', async () => {
      expect(await store.getMeta('setup')).toBeUndefined();
      await store.setMeta('setup', 'done');
      await store.setMeta('setup', 'again');
      expect(await store.getMeta('setup')).toBe('again');
      await store.deleteMeta('setup');
      await store.deleteMeta('never-set');
      expect(await store.getMeta('setup')).toBeUndefined();
    });
  });

  describe('retention (pruneTasks)', () => {
    /** A task of `instance` settled in `state` at `seconds`, with a message, an artifact, logged frames, a push config, an attempt and its idempotency record. */
    async function settledTask(id: string, seconds: number, state: TaskState = 'TASK_STATE_COMPLETED', instance = INSTANCE): Promise<void> {
      await store.createTask(newTask(id, { instanceId: instance }));
      await store.recordIdempotent(instance, { messageId: `${id}-m1` }, { kind: 'task', taskId: id });
      await store.setStatus(id, status('TASK_STATE_WORKING', seconds - 1));
      await store.appendEvent(id, frame(1));
      await store.putArtifact(id, artifact('a', ['x']), false);
      await store.putArtifact(id, artifact('a', ['y']), true);
      await store.appendMessage(id, message(`${id}-m2`));
      await store.putPushConfig({
        taskId: id,
        id: 'hook',
        config: { id: 'hook', taskId: id, url: 'https://hooks.example.test/h' },
        secrets: 's',
        createdAt: at(0),
      });
      await store.recordAttempt(
        { taskId: id, configId: 'hook', deliveryId: 1, at: at(seconds), attempt: 1, outcome: 'delivered', status: 200, latencyMs: 1 },
        10,
      );
      await store.setStatus(id, status(state, seconds));
    }

    async function exists(id: string, instance = INSTANCE): Promise<boolean> {
      return (await store.getTask(instance, id)) !== undefined;
    }

    it('deletes the terminal tasks older than maxAgeMs with all that belongs to them, oldest first, and keeps the rest', async () => {
      await settledTask('old-1', 10);
      await settledTask('old-2', 20, 'TASK_STATE_FAILED');
      await settledTask('new', 100, 'TASK_STATE_CANCELED');
      await store.createTask(newTask('running', { status: status('TASK_STATE_WORKING', 1) }));
      await store.createTask(newTask('waiting', { status: status('TASK_STATE_INPUT_REQUIRED', 1) }));
      const pruned = await store.pruneTasks(INSTANCE, { maxAgeMs: 50_000 }, EPOCH + 90_000, 10);
      expect(pruned).toEqual(['old-1', 'old-2']);
      expect(await Promise.all(['old-1', 'old-2', 'new', 'running', 'waiting'].map((id) => exists(id)))).toEqual([
        false,
        false,
        true,
        true,
        true,
      ]);
      // Nothing of a pruned task is left to find.
      expect(await store.getTaskInfo('old-1')).toBeUndefined();
      expect(await store.eventsAfter('old-1', 0)).toEqual([]);
      expect(await store.listPushConfigs('old-1')).toEqual([]);
      expect(await store.listAttempts('old-1', 'hook', 10)).toEqual([]);
      expect(await store.findIdempotent(INSTANCE, { messageId: 'old-1-m1' })).toBeUndefined();
      const listed = await store.listTasks(INSTANCE, { pageSize: 10 });
      expect(ids(listed).sort()).toEqual(['new', 'running', 'waiting']);
      expect(listed.totalSize).toBe(3);
      // The kept task is whole.
      expect((await store.getTask(INSTANCE, 'new'))?.artifacts?.[0]?.parts).toEqual([{ text: 'x' }, { text: 'y' }]);
    });

    it('keeps only the newest maxTasks terminal tasks, deleting in batches of at most `limit`', async () => {
      for (let n = 1; n <= 5; n += 1) await settledTask(`t${n}`, n * 10);
      expect(await store.pruneTasks(INSTANCE, { maxTasks: 2 }, EPOCH + 1_000_000, 2)).toEqual(['t1', 't2']);
      expect(await store.pruneTasks(INSTANCE, { maxTasks: 2 }, EPOCH + 1_000_000, 2)).toEqual(['t3']);
      expect(await store.pruneTasks(INSTANCE, { maxTasks: 2 }, EPOCH + 1_000_000, 2)).toEqual([]);
      expect(await Promise.all(['t4', 't5'].map((id) => exists(id)))).toEqual([true, true]);
    });

    it('touches no other instance, and keeps a task whose webhook deliveries are pending until they are done', async () => {
      await settledTask('mine', 10);
      await settledTask('theirs', 10, 'TASK_STATE_COMPLETED', OTHER_INSTANCE);
      await settledTask('pending', 5);
      await store.enqueueDelivery('pending', 'hook', frame(2));
      expect(await store.pruneTasks(INSTANCE, { maxAgeMs: 60_000 }, EPOCH + 1_000_000, 10)).toEqual(['mine']);
      expect(await exists('theirs', OTHER_INSTANCE)).toBe(true);
      expect(await exists('pending')).toBe(true);
      for (const delivery of await store.dueDeliveries(Number.MAX_SAFE_INTEGER, 10)) await store.completeDelivery(delivery.id);
      expect(await store.pruneTasks(INSTANCE, { maxAgeMs: 60_000 }, EPOCH + 1_000_000, 10)).toEqual(['pending']);
    });

    it('a pruned task id is unknown to writes, and a new task may take its place', async () => {
      await settledTask('gone', 10);
      await store.pruneTasks(INSTANCE, { maxTasks: 1 }, EPOCH, 10);
      await settledTask('other', 20);
      expect(await store.pruneTasks(INSTANCE, { maxTasks: 1 }, EPOCH, 10)).toEqual(['gone']);
      await expect(async () => store.setStatus('gone', status('TASK_STATE_WORKING', 30))).rejects.toThrow(UnknownTaskError);
      await store.createTask(newTask('gone'));
      expect(await store.getTask(INSTANCE, 'gone')).toMatchObject({ id: 'gone', status: { state: 'TASK_STATE_SUBMITTED' } });
    });
  });

  describe('settleUnfinished', () => {
    it('gives every SUBMITTED or WORKING task the status the callback returns, and nothing else', async () => {
      const states: TaskState[] = ['TASK_STATE_SUBMITTED', 'TASK_STATE_WORKING', 'TASK_STATE_INPUT_REQUIRED', 'TASK_STATE_COMPLETED'];
      for (const [n, state] of states.entries()) await store.createTask(newTask(`task-${n}`, { status: status(state, n) }));
      await crash();
      const seen: string[] = [];
      const settled = await store.settleUnfinished((info) => {
        seen.push(`${info.id}:${info.state}`);
        return { state: 'TASK_STATE_FAILED', timestamp: at(100), message: message(`restart-${info.id}`, 'ROLE_AGENT') };
      });
      expect(settled).toEqual(['task-0', 'task-1']);
      expect(seen).toEqual(['task-0:TASK_STATE_SUBMITTED', 'task-1:TASK_STATE_WORKING']);
      expect((await store.getTask(INSTANCE, 'task-1'))?.status).toStrictEqual({
        state: 'TASK_STATE_FAILED',
        timestamp: at(100),
        message: message('restart-task-1', 'ROLE_AGENT'),
      });
      const after: (TaskState | undefined)[] = [];
      for (const n of states.keys()) after.push((await store.getTaskInfo(`task-${n}`))?.state);
      expect(after).toEqual(['TASK_STATE_FAILED', 'TASK_STATE_FAILED', 'TASK_STATE_INPUT_REQUIRED', 'TASK_STATE_COMPLETED']);
      expect(await store.settleUnfinished(() => status('TASK_STATE_FAILED', 200))).toEqual([]);
    });

    it('records the settled status in the status history, like setStatus', async () => {
      await store.createTask(newTask('task-1', { status: status('TASK_STATE_WORKING', 2) }));
      await store.createTask(newTask('task-2', { status: status('TASK_STATE_WORKING', 1) }));
      await crash();
      const first = await store.listTasks(INSTANCE, { state: 'TASK_STATE_WORKING', pageSize: 1 });
      await store.settleUnfinished(() => status('TASK_STATE_FAILED', 50));
      // A walk begun before the restart still sees task-2 as WORKING: the history kept both statuses.
      const second = await store.listTasks(INSTANCE, { state: 'TASK_STATE_WORKING', pageSize: 1, cursor: first.nextCursor });
      expect([...ids(first), ...ids(second)]).toEqual(['task-1', 'task-2']);
      expect(second.tasks[0]?.status.state).toBe('TASK_STATE_FAILED');
    });
  });

  describe('listTasks', () => {
    /** Creates tasks whose status timestamps are the given seconds, ids task-00, task-01… */
    async function seed(seconds: number[], overrides: (n: number) => Partial<NewTask> = () => ({})): Promise<void> {
      for (const [n, second] of seconds.entries()) {
        const id = `task-${String(n).padStart(2, '0')}`;
        await store.createTask(newTask(id, { status: status('TASK_STATE_SUBMITTED', second), ...overrides(n) }));
      }
    }

    it('lists only the tasks of the instance asked about', async () => {
      await seed([1, 2, 3], (n) => (n === 1 ? { instanceId: OTHER_INSTANCE } : {}));
      const page = await store.listTasks(INSTANCE, { pageSize: 10 });
      expect(ids(page)).toEqual(['task-02', 'task-00']);
      expect(page.totalSize).toBe(2);
      expect(ids(await store.listTasks(OTHER_INSTANCE, { pageSize: 10 }))).toEqual(['task-01']);
      expect(await store.listTasks('nobody', { pageSize: 10 })).toStrictEqual({ tasks: [], totalSize: 0, nextCursor: '' });
    });

    it('lists only the tasks of the tenant asked about, and under no tenant only those of none', async () => {
      await seed([1, 2, 3, 4], (n) => ({ tenant: ['tenant-a', '', 'tenant-b', 'tenant-a'][n] ?? '' }));
      const inA = await store.listTasks(INSTANCE, { pageSize: 10, tenant: 'tenant-a' });
      expect(ids(inA)).toEqual(['task-03', 'task-00']);
      expect(inA.totalSize).toBe(2);
      expect(ids(await store.listTasks(INSTANCE, { pageSize: 10, tenant: 'tenant-b' }))).toEqual(['task-02']);
      expect(ids(await store.listTasks(INSTANCE, { pageSize: 10 }))).toEqual(['task-01']);
      expect(ids(await store.listTasks(INSTANCE, { pageSize: 10, tenant: '' }))).toEqual(['task-01']);
      expect(ids(await store.listTasks(INSTANCE, { pageSize: 10, tenant: 'tenant-a', contextId: 'context-1' }))).toEqual([
        'task-03',
        'task-00',
      ]);
      expect((await store.listTasks(OTHER_INSTANCE, { pageSize: 10, tenant: 'tenant-a' })).totalSize).toBe(0);
      // A walk pages through its tenant's tasks only.
      expect((await walk(store, { pageSize: 1, tenant: 'tenant-a' })).flatMap(ids)).toEqual(['task-03', 'task-00']);
    });

    it('orders by status timestamp, newest first, ties by task id descending', async () => {
      await seed([5, 9, 5, 1, 9]);
      expect(ids(await store.listTasks(INSTANCE, { pageSize: 10 }))).toEqual(['task-04', 'task-01', 'task-02', 'task-00', 'task-03']);
    });

    it('orders by the current status: a status change moves the task', async () => {
      await seed([5, 6, 7]);
      await store.setStatus('task-00', status('TASK_STATE_WORKING', 8));
      expect(ids(await store.listTasks(INSTANCE, { pageSize: 10 }))).toEqual(['task-00', 'task-02', 'task-01']);
    });

    it('filters by contextId, state and status timestamp, and counts the matches in totalSize', async () => {
      const states: TaskState[] = ['TASK_STATE_SUBMITTED', 'TASK_STATE_WORKING', 'TASK_STATE_COMPLETED'];
      await seed([0, 1, 2, 3, 4, 5], (n) => ({
        contextId: `context-${n % 2}`,
        status: status(states[n % 3] ?? 'TASK_STATE_SUBMITTED', n),
      }));
      const list = async (query: Omit<TaskQuery, 'pageSize'>): Promise<[string[], number]> => {
        const page = await store.listTasks(INSTANCE, { ...query, pageSize: 10 });
        return [ids(page), page.totalSize];
      };
      expect(await list({ contextId: 'context-1' })).toEqual([['task-05', 'task-03', 'task-01'], 3]);
      expect(await list({ state: 'TASK_STATE_WORKING' })).toEqual([['task-04', 'task-01'], 2]);
      expect(await list({ statusTimestampAfter: at(3) })).toEqual([['task-05', 'task-04', 'task-03'], 3]);
      expect(await list({ contextId: 'context-0', state: 'TASK_STATE_COMPLETED' })).toEqual([['task-02'], 1]);
      expect(await list({ contextId: 'context-0', state: 'TASK_STATE_COMPLETED', statusTimestampAfter: at(3) })).toEqual([[], 0]);
      expect(await list({ contextId: 'no-such-context' })).toEqual([[], 0]);
    });

    it('compares statusTimestampAfter as an instant: offsets count, and finer than a millisecond rounds up', async () => {
      await seed([10, 11]);
      expect(ids(await store.listTasks(INSTANCE, { statusTimestampAfter: '2025-01-01T02:00:11+02:00', pageSize: 10 }))).toEqual([
        'task-01',
      ]);
      expect(ids(await store.listTasks(INSTANCE, { statusTimestampAfter: '2025-01-01T00:00:10.000Z', pageSize: 10 }))).toEqual([
        'task-01',
        'task-00',
      ]);
      expect(ids(await store.listTasks(INSTANCE, { statusTimestampAfter: '2025-01-01T00:00:10.0000001Z', pageSize: 10 }))).toEqual([
        'task-01',
      ]);
      expect(ids(await store.listTasks(INSTANCE, { statusTimestampAfter: '2025-01-01T00:00:10.000000Z', pageSize: 10 }))).toEqual([
        'task-01',
        'task-00',
      ]);
      await expect(async () => store.listTasks(INSTANCE, { statusTimestampAfter: 'not a time', pageSize: 10 })).rejects.toThrow(RangeError);
    });

    it('pages by pageSize and ends with an empty nextCursor', async () => {
      await seed([1, 2, 3, 4, 5]);
      const pages = await walk(store, { pageSize: 2 });
      expect(pages.map(ids)).toEqual([['task-04', 'task-03'], ['task-02', 'task-01'], ['task-00']]);
      expect(pages.map((page) => page.totalSize)).toEqual([5, 5, 5]);
      expect(pages.map((page) => page.nextCursor === '')).toEqual([false, false, true]);
    });

    it('ends on an exactly full page when nothing follows, and takes a changed pageSize mid-walk', async () => {
      await seed([1, 2, 3, 4]);
      const pages = await walk(store, { pageSize: 2 });
      expect(pages.map(ids)).toEqual([
        ['task-03', 'task-02'],
        ['task-01', 'task-00'],
      ]);
      expect(pages[1]?.nextCursor).toBe('');
      const first = await store.listTasks(INSTANCE, { pageSize: 1 });
      expect(ids(await store.listTasks(INSTANCE, { pageSize: 3, cursor: first.nextCursor }))).toEqual(['task-02', 'task-01', 'task-00']);
      expect((await store.listTasks(INSTANCE, { pageSize: 4, cursor: '' })).nextCursor).toBe('');
    });

    it('applies the view to every task of the page', async () => {
      await seed([1, 2]);
      await store.appendMessage('task-00', message('second'));
      await store.putArtifact('task-00', artifact('a', ['x']), false);
      const [withAll, latest] = (await store.listTasks(INSTANCE, { pageSize: 10 })).tasks.reverse();
      expect(withAll?.history?.map((m) => m.messageId)).toEqual(['task-00-m1', 'second']);
      expect(withAll?.artifacts).toHaveLength(1);
      expect(latest).not.toHaveProperty('artifacts');
      const trimmed = (await store.listTasks(INSTANCE, { pageSize: 10, historyLength: 1, includeArtifacts: false })).tasks;
      expect(trimmed.map((task) => task.history?.map((m) => m.messageId))).toEqual([['task-01-m1'], ['second']]);
      expect(trimmed.some((task) => 'artifacts' in task)).toBe(false);
      expect((await store.listTasks(INSTANCE, { pageSize: 10, historyLength: 0 })).tasks.some((task) => 'history' in task)).toBe(false);
    });

    it('walks the tasks as they were at its first page, returning their current data', async () => {
      await seed([10, 20, 30, 40]);
      const first = await store.listTasks(INSTANCE, { pageSize: 2, state: 'TASK_STATE_SUBMITTED' });
      expect(ids(first)).toEqual(['task-03', 'task-02']);
      // task-00 jumps ahead of the cursor and leaves the filter; task-01 falls behind… and new tasks arrive.
      await store.setStatus('task-00', status('TASK_STATE_WORKING', 99));
      await store.setStatus('task-03', status('TASK_STATE_COMPLETED', 5));
      await store.createTask(newTask('task-new', { status: status('TASK_STATE_SUBMITTED', 15) }));
      const second = await store.listTasks(INSTANCE, { pageSize: 2, state: 'TASK_STATE_SUBMITTED', cursor: first.nextCursor });
      expect(ids(second)).toEqual(['task-01', 'task-00']);
      expect(second.totalSize).toBe(4);
      expect(second.nextCursor).toBe('');
      expect(second.tasks[1]?.status).toStrictEqual(status('TASK_STATE_WORKING', 99));
      // A new walk sees the present.
      expect(ids(await store.listTasks(INSTANCE, { pageSize: 10, state: 'TASK_STATE_SUBMITTED' }))).toEqual([
        'task-02',
        'task-01',
        'task-new',
      ]);
    });

    it('refuses cursors it did not issue, or issued for other filters or another instance', async () => {
      await seed([1, 2, 3]);
      const { nextCursor } = await store.listTasks(INSTANCE, { pageSize: 1, contextId: 'context-1' });
      expect(ids(await store.listTasks(INSTANCE, { pageSize: 1, contextId: 'context-1', cursor: nextCursor }))).toEqual(['task-01']);
      const forged = Buffer.from(JSON.stringify({ v: 2, asOf: 1, ts: 0, id: 'x', total: 1, f: 'x' })).toString('base64url');
      const refused: [string, Omit<TaskQuery, 'pageSize' | 'cursor'>][] = [
        ['not a cursor!', { contextId: 'context-1' }],
        [Buffer.from('{"truncated').toString('base64url'), { contextId: 'context-1' }],
        [Buffer.from('[1,2]').toString('base64url'), { contextId: 'context-1' }],
        [forged, { contextId: 'context-1' }],
        [nextCursor, {}],
        [nextCursor, { contextId: 'context-2' }],
        [nextCursor, { contextId: 'context-1', state: 'TASK_STATE_WORKING' }],
        [nextCursor, { contextId: 'context-1', statusTimestampAfter: at(0) }],
      ];
      for (const [cursor, filters] of refused) {
        await expect(async () => store.listTasks(INSTANCE, { ...filters, pageSize: 1, cursor }), cursor).rejects.toThrow(
          InvalidCursorError,
        );
      }
      await expect(async () =>
        store.listTasks(OTHER_INSTANCE, { pageSize: 1, contextId: 'context-1', cursor: nextCursor }),
      ).rejects.toThrow(InvalidCursorError);
      // A cursor is valid only under the tenant it was issued for, and one of no tenant under no other.
      await expect(async () =>
        store.listTasks(INSTANCE, { pageSize: 1, contextId: 'context-1', tenant: 'tenant-a', cursor: nextCursor }),
      ).rejects.toThrow(InvalidCursorError);
      expect(ids(await store.listTasks(INSTANCE, { pageSize: 1, contextId: 'context-1', tenant: '', cursor: nextCursor }))).toEqual([
        'task-01',
      ]);
    });

    it('visits every task that matched at the first page exactly once, whatever happens between pages', async () => {
      const STATES: TaskState[] = ['TASK_STATE_SUBMITTED', 'TASK_STATE_WORKING', 'TASK_STATE_COMPLETED'];
      // Few distinct seconds, contexts and tenants, so that ties and filter churn are common.
      const spec = fc.record({
        tenant: fc.constantFrom('', 'ta'),
        context: fc.constantFrom('c0', 'c1'),
        state: fc.constantFrom(...STATES),
        second: fc.integer({ min: 0, max: 6 }),
      });
      const operation = fc.oneof(
        fc.record({ kind: fc.constant('create' as const), task: spec }),
        fc.record({
          kind: fc.constant('change' as const),
          pick: fc.nat(),
          state: fc.constantFrom(...STATES),
          second: fc.integer({ min: 0, max: 6 }),
        }),
        fc.record({ kind: fc.constant('page' as const) }),
      );
      const filters = fc.record(
        {
          tenant: fc.constantFrom('', 'ta'),
          contextId: fc.constantFrom('c0', 'c1'),
          state: fc.constantFrom(...STATES),
          statusTimestampAfter: fc.integer({ min: 0, max: 6 }).map(at),
        },
        { requiredKeys: [] },
      );
      type Spec = { tenant: string; context: string; state: TaskState; second: number };

      await fc.assert(
        fc.asyncProperty(
          fc.array(spec, { maxLength: 14 }),
          filters,
          fc.integer({ min: 1, max: 4 }),
          fc.array(operation, { maxLength: 30 }),
          async (initial, filter, pageSize, operations) => {
            const walker = await open();
            try {
              const model = new Map<string, Spec>();
              const create = async (task: Spec): Promise<void> => {
                const id = `t${model.size}`;
                await walker.createTask(
                  newTask(id, { tenant: task.tenant, contextId: task.context, status: status(task.state, task.second) }),
                );
                model.set(id, task);
              };
              for (const task of initial) await create(task);
              const then = new Map(model);
              const matching = [...then]
                .filter(([, task]) => (filter.tenant ?? '') === task.tenant)
                .filter(([, task]) => (filter.contextId ?? task.context) === task.context && (filter.state ?? task.state) === task.state)
                .filter(([, task]) => filter.statusTimestampAfter === undefined || at(task.second) >= filter.statusTimestampAfter)
                .map(([id]) => id);

              const seen: string[] = [];
              let page = await walker.listTasks(INSTANCE, { ...filter, pageSize });
              const total = page.totalSize;
              const take = (taken: TaskPage): void => {
                expect(taken.totalSize).toBe(total);
                expect(taken.tasks.length).toBeLessThanOrEqual(pageSize);
                for (const task of taken.tasks) {
                  const now = model.get(task.id);
                  expect(task.status).toStrictEqual(now && status(now.state, now.second));
                  seen.push(task.id);
                }
              };
              const next = async (): Promise<void> => {
                page = await walker.listTasks(INSTANCE, { ...filter, pageSize, cursor: page.nextCursor });
                take(page);
              };
              take(page);
              for (const op of operations) {
                if (op.kind === 'create') await create(op.task);
                if (op.kind === 'change' && model.size > 0) {
                  const id = `t${op.pick % model.size}`;
                  const before = model.get(id);
                  // A terminal status is final (a store replicas share refuses to change it).
                  if (before !== undefined && !isTerminalState(before.state)) {
                    await walker.setStatus(id, status(op.state, op.second));
                    model.set(id, { ...before, state: op.state, second: op.second });
                  }
                }
                if (op.kind === 'page' && page.nextCursor !== '') await next();
              }
              while (page.nextCursor !== '') await next();

              expect(new Set(seen).size).toBe(seen.length);
              expect([...seen].sort()).toEqual([...matching].sort());
              expect(total).toBe(matching.length);
              // In list order as of the first page: timestamps descending, ties by id descending.
              const order = seen.map((id) => `${at(then.get(id)?.second ?? -1)} ${id}`);
              expect(order).toEqual([...order].sort().reverse());
            } finally {
              await walker.close();
            }
          },
        ),
        { numRuns: 150 },
      );
    });
  });
});

/** What only the synchronous stores have: `transaction(work)`, whose work runs synchronous store calls. */
describe.each(SYNC_IMPLEMENTATIONS)('$name', ({ open }) => {
  let store: SyncTaskStore;
  beforeEach(() => {
    store = open();
  });
  afterEach(() => {
    store.close();
  });

  describe('event log', () => {
    beforeEach(() => {
      store.createTask(newTask('task-1'));
      store.createTask(newTask('task-2'));
    });

    it('numbers artifact frames without logging them: a replay sends artifacts in its snapshot', () => {
      expect(store.appendEvent('task-1', frame(1))).toBe(1);
      expect(
        store.transaction(() => [
          store.appendEvent('task-1', chunk('x')),
          store.appendEvent('task-1', chunk('y')),
          store.lastEventSeq('task-1'),
        ]),
      ).toEqual([2, 3, 3]);
      expect(store.appendEvent('task-1', frame(4))).toBe(4);
      expect(store.lastEventSeq('task-1')).toBe(4);
      expect(store.eventsAfter('task-1', 0).map((event) => event.seq)).toEqual([1, 4]);
      expect(store.appendEvent('task-1', chunk('z'))).toBe(5);
      expect(store.lastEventSeq('task-1')).toBe(5);
    });
  });

  describe('transactions', () => {
    it('returns what the work returns and keeps its writes', () => {
      const result = store.transaction(() => {
        store.createTask(newTask('task-1'));
        store.setMeta('k', 'v');
        return 42;
      });
      expect(result).toBe(42);
      expect(store.getTaskInfo('task-1')).toBeDefined();
      expect(store.getMeta('k')).toBe('v');
    });

    it('undoes every write of work that throws, and rethrows', () => {
      store.setMeta('k', 'before');
      store.createTask(newTask('task-0'));
      const failure = new Error('boom');
      expect(() =>
        store.transaction(() => {
          store.createTask(newTask('task-1'));
          store.setStatus('task-0', status('TASK_STATE_WORKING', 5));
          store.appendEvent('task-0', frame(1));
          store.putArtifact('task-0', artifact('a', ['x']), false);
          store.recordIdempotent(INSTANCE, { messageId: 'm1' }, { kind: 'task', taskId: 'task-1' });
          store.touchContext(INSTANCE, 'context-1', at(1));
          store.saveInstance({ id: 'i', config: {} });
          store.setMeta('k', 'after');
          throw failure;
        }),
      ).toThrow(failure);
      expect(store.getTaskInfo('task-1')).toBeUndefined();
      expect(store.getTask(INSTANCE, 'task-0')).toStrictEqual(store.getTask(INSTANCE, 'task-0', { includeArtifacts: true }));
      expect(store.getTask(INSTANCE, 'task-0')).not.toHaveProperty('artifacts');
      expect(store.getTaskInfo('task-0')?.state).toBe('TASK_STATE_SUBMITTED');
      expect(store.lastEventSeq('task-0')).toBe(0);
      expect(store.findIdempotent(INSTANCE, { messageId: 'm1' })).toBeUndefined();
      expect(store.getContext(INSTANCE, 'context-1')).toBeUndefined();
      expect(store.loadInstances()).toEqual([]);
      expect(store.getMeta('k')).toBe('before');
      expect(store.listTasks(INSTANCE, { pageSize: 10 }).totalSize).toBe(1);
    });

    it('joins a nested transaction to the outer one: a failure anywhere inside undoes all of it', () => {
      expect(() =>
        store.transaction(() => {
          store.setMeta('outer', '1');
          store.transaction(() => store.setMeta('committed-inner', '1'));
          store.transaction(() => {
            store.setMeta('inner', '1');
            throw new Error('inner fails');
          });
        }),
      ).toThrow('inner fails');
      expect([store.getMeta('outer'), store.getMeta('committed-inner'), store.getMeta('inner')]).toEqual([undefined, undefined, undefined]);

      store.transaction(() => {
        store.setMeta('a', '1');
        store.transaction(() => store.setMeta('b', '1'));
      });
      expect([store.getMeta('a'), store.getMeta('b')]).toEqual(['1', '1']);
    });

    it('refuses asynchronous work and keeps none of its writes', () => {
      expect(() =>
        store.transaction(() => {
          store.setMeta('k', 'v');
          return Promise.resolve();
        }),
      ).toThrow(TypeError);
      expect(store.getMeta('k')).toBeUndefined();
    });
  });
});

describe('SqliteTaskStore on disk', () => {
  it('creates missing directories and keeps everything across close and reopen', () => {
    const path = join(scratch, 'nested', 'deeper', 'hub.db');
    const first = SqliteTaskStore.open(path);
    first.createTask(newTask('task-1', { metadata: { m: [1] } }));
    first.createTask(newTask('task-2', { status: status('TASK_STATE_WORKING', 3) }));
    first.createTask(newTask('task-t', { tenant: 'tenant-a' }));
    first.setStatus('task-1', status('TASK_STATE_INPUT_REQUIRED', 4));
    first.appendMessage('task-1', message('second'));
    first.putArtifact('task-1', artifact('a', ['1'], { name: 'n' }), false);
    first.putArtifact('task-1', artifact('a', ['2']), true);
    for (let n = 1; n <= 3; n++) first.appendEvent('task-1', frame(n));
    first.recordIdempotent(INSTANCE, { messageId: 'm1' }, { kind: 'task', taskId: 'task-1' });
    first.recordIdempotent(INSTANCE, { messageId: 'm2' }, { kind: 'message', message: message('reply', 'ROLE_AGENT') });
    first.recordIdempotent(INSTANCE, { messageId: 'm1', tenant: 'tenant-a' }, { kind: 'task', taskId: 'task-t' });
    first.touchContext(INSTANCE, 'context-1', at(2));
    first.touchContext(INSTANCE, 'context-1', at(3), 'tenant-a');
    first.saveInstance({ id: INSTANCE, config: { skills: ['echo'] } });
    first.setMeta('setup', 'done');
    const snapshot = (store: SyncTaskStore) => ({
      task: store.getTask(INSTANCE, 'task-1'),
      info: store.getTaskInfo('task-2'),
      list: store.listTasks(INSTANCE, { pageSize: 10 }),
      tenantList: store.listTasks(INSTANCE, { pageSize: 10, tenant: 'tenant-a' }),
      tenantInfo: store.getTaskInfo('task-t'),
      events: store.eventsAfter('task-1', 0),
      idempotent: [
        store.findIdempotent(INSTANCE, { messageId: 'm1' }),
        store.findIdempotent(INSTANCE, { messageId: 'm2' }),
        store.findIdempotent(INSTANCE, { messageId: 'm1', tenant: 'tenant-a' }),
      ],
      context: store.getContext(INSTANCE, 'context-1'),
      tenantContext: store.getContext(INSTANCE, 'context-1', 'tenant-a'),
      instances: store.loadInstances(),
      meta: store.getMeta('setup'),
    });
    const before = snapshot(first);
    first.close();

    const reopened = SqliteTaskStore.open(path);
    try {
      expect(snapshot(reopened)).toStrictEqual(before);
      expect(before.tenantList.tasks.map((task) => task.id)).toEqual(['task-t']);
      expect(before.tenantInfo?.tenant).toBe('tenant-a');
      expect(reopened.appendEvent('task-1', frame(4))).toBe(4);
      // Settling after a crash is for every tenant's tasks.
      expect(reopened.settleUnfinished(() => status('TASK_STATE_FAILED', 9))).toEqual(['task-2', 'task-t']);
    } finally {
      reopened.close();
    }
  });

  it('exclusive: finds idempotency keys stored before it opened, and after its key filter outgrew its first size', () => {
    const path = databasePath();
    const first = SqliteTaskStore.open(path, { exclusive: true });
    first.recordIdempotent(INSTANCE, { messageId: 'before' }, { kind: 'task', taskId: 'task-before' });
    first.close();
    const store = SqliteTaskStore.open(path, { exclusive: true });
    try {
      expect(store.findIdempotent(INSTANCE, { messageId: 'before' })).toEqual({ kind: 'task', taskId: 'task-before' });
      expect(store.findIdempotent(OTHER_INSTANCE, { messageId: 'before' })).toBeUndefined();
      // Past the filter's first capacity (200,000 keys) it is rebuilt larger from the table.
      const total = 200_050;
      store.transaction(() => {
        for (let n = 0; n < total; n += 1)
          store.recordIdempotent(INSTANCE, { messageId: `bulk-${n}` }, { kind: 'task', taskId: `task-${n}` });
      });
      for (const n of [0, 1, 99_999, 199_999, 200_000, total - 1])
        expect(store.findIdempotent(INSTANCE, { messageId: `bulk-${n}` })).toEqual({ kind: 'task', taskId: `task-${n}` });
      expect(store.findIdempotent(INSTANCE, { messageId: 'before' })).toEqual({ kind: 'task', taskId: 'task-before' });
      expect(store.findIdempotent(INSTANCE, { messageId: `bulk-${total}` })).toBeUndefined();
    } finally {
      store.close();
    }
  });

  it('sets up WAL, foreign keys and the current schema version, and refuses a newer schema', () => {
    const path = databasePath();
    SqliteTaskStore.open(path).close();
    const raw = new Database(path);
    try {
      expect(raw.pragma('journal_mode', { simple: true })).toBe('wal');
      expect(raw.pragma('user_version', { simple: true })).toBe(SCHEMA_VERSION);
      raw.pragma('user_version = 99');
    } finally {
      raw.close();
    }
    expect(() => SqliteTaskStore.open(path)).toThrow(/schema version 99/);
  });

  it('works in memory too', () => {
    const store = SqliteTaskStore.open(':memory:');
    store.createTask(newTask('task-1'));
    expect(store.getTaskInfo('task-1')?.state).toBe('TASK_STATE_SUBMITTED');
    store.close();
  });

  it('writes incrementally: a status files the one it replaces as one history row, a chunk adds only its parts', () => {
    const path = databasePath();
    const store = SqliteTaskStore.open(path);
    const raw = new Database(path, { readonly: true });
    const count = (sql: string): unknown => raw.prepare(sql).pluck().get();
    try {
      store.createTask(newTask('task-1'));
      store.setStatus('task-1', status('TASK_STATE_WORKING', 1));
      store.setStatus('task-1', status('TASK_STATE_COMPLETED', 2));
      // The current status lives on the task's row; the history holds the two it replaced.
      expect(raw.prepare('SELECT state FROM task_status ORDER BY superseded_by').pluck().all()).toEqual([
        'TASK_STATE_SUBMITTED',
        'TASK_STATE_WORKING',
      ]);
      expect(count("SELECT state FROM tasks WHERE id = 'task-1'")).toBe('TASK_STATE_COMPLETED');
      expect(count("SELECT status_version = (SELECT max(superseded_by) FROM task_status) FROM tasks WHERE id = 'task-1'")).toBe(1);
      expect(count('SELECT version FROM status_clock')).toBe(count("SELECT status_version FROM tasks WHERE id = 'task-1'"));
      store.putArtifact('task-1', artifact('a', ['1', '2']), false);
      const created = raw.prepare('SELECT meta_json, parts_json FROM task_artifacts').all();
      expect(created).toHaveLength(1);
      store.putArtifact('task-1', artifact('a', ['3']), true);
      store.putArtifact('task-1', artifact('a', ['4']), true);
      // Each append is one row of its own; the artifact's row is not rewritten.
      expect(raw.prepare('SELECT meta_json, parts_json FROM task_artifacts').all()).toEqual(created);
      expect(raw.prepare('SELECT parts_json FROM artifact_chunks ORDER BY seq').pluck().all()).toHaveLength(2);
      expect(store.getTask(INSTANCE, 'task-1')?.artifacts?.[0]?.parts.map((part) => part.text)).toEqual(['1', '2', '3', '4']);
      // Chunks appended in one transaction share one row.
      store.transaction(() => {
        store.putArtifact('task-1', artifact('a', ['5']), true);
        store.putArtifact('task-1', artifact('a', ['6']), true);
      });
      expect(count('SELECT count(*) FROM artifact_chunks')).toBe(3);
      expect(store.getTask(INSTANCE, 'task-1')?.artifacts?.[0]?.parts.map((part) => part.text)).toEqual(['1', '2', '3', '4', '5', '6']);
      store.putArtifact('task-1', artifact('a', ['only']), false);
      expect(count('SELECT count(*) FROM artifact_chunks')).toBe(0);
      expect(store.getTask(INSTANCE, 'task-1')?.artifacts?.[0]?.parts.map((part) => part.text)).toEqual(['only']);
    } finally {
      raw.close();
      store.close();
    }
  });

  it('exclusive: holds the database until it closes, and a second opener fails with a clear error', () => {
    const path = databasePath();
    const first = SqliteTaskStore.open(path, { exclusive: true });
    try {
      first.createTask(newTask('task-1'));
      expect(() => SqliteTaskStore.open(path, { exclusive: true })).toThrow(/in use by another process/);
      expect(first.getTaskInfo('task-1')?.state).toBe('TASK_STATE_SUBMITTED');
    } finally {
      first.close();
    }
    const second = SqliteTaskStore.open(path, { exclusive: true });
    expect(second.getTaskInfo('task-1')?.state).toBe('TASK_STATE_SUBMITTED');
    second.close();
  });

  it('does not log the frames of a task that ends in the transaction that logged them, but numbers them', () => {
    const path = databasePath();
    const store = SqliteTaskStore.open(path);
    const raw = new Database(path, { readonly: true });
    const statusFrame = (state: TaskState): StreamResponse => ({
      statusUpdate: { taskId: 'task-1', contextId: 'context-1', status: { state } },
    });
    try {
      store.transaction(() => {
        store.createTask(newTask('task-1'));
        store.setStatus('task-1', status('TASK_STATE_INPUT_REQUIRED', 1));
        store.appendEvent('task-1', statusFrame('TASK_STATE_INPUT_REQUIRED'));
      });
      // Interrupted: a client may still subscribe and replay.
      expect(store.eventsAfter('task-1', 0).map((event) => event.seq)).toEqual([1]);
      store.transaction(() => {
        store.setStatus('task-1', status('TASK_STATE_WORKING', 2));
        store.appendEvent('task-1', statusFrame('TASK_STATE_WORKING'));
        store.setStatus('task-1', status('TASK_STATE_COMPLETED', 3));
        store.appendEvent('task-1', statusFrame('TASK_STATE_COMPLETED'));
      });
      expect(store.eventsAfter('task-1', 0).map((event) => event.seq)).toEqual([1]);
      expect(store.lastEventSeq('task-1')).toBe(3);
      expect(raw.prepare('SELECT count(*) FROM task_events').pluck().get()).toBe(1);
      // Outside such a transaction a frame is logged as usual.
      store.appendEvent('task-1', statusFrame('TASK_STATE_COMPLETED'));
      expect(store.eventsAfter('task-1', 0).map((event) => event.seq)).toEqual([1, 4]);
    } finally {
      raw.close();
      store.close();
    }
  });

  it('stores only the last of several statuses set in one transaction, and reads inside it see that one', () => {
    const path = databasePath();
    const store = SqliteTaskStore.open(path);
    const raw = new Database(path, { readonly: true });
    const count = (sql: string): unknown => raw.prepare(sql).pluck().get();
    try {
      store.transaction(() => {
        store.createTask(newTask('task-1'));
        store.setStatus('task-1', status('TASK_STATE_WORKING', 1));
        expect(store.getTaskInfo('task-1')?.state).toBe('TASK_STATE_WORKING');
        store.setStatus('task-1', status('TASK_STATE_INPUT_REQUIRED', 2));
        store.setStatus('task-1', status('TASK_STATE_COMPLETED', 3));
        expect(() => store.setStatus('ghost', status('TASK_STATE_WORKING', 3))).toThrow(UnknownTaskError);
      });
      // WORKING (written because a read needed it) was replaced by COMPLETED, the current
      // status. SUBMITTED and INPUT_REQUIRED were never visible: each was replaced within the
      // transaction that set it.
      expect(raw.prepare('SELECT state FROM task_status ORDER BY superseded_by').pluck().all()).toEqual(['TASK_STATE_WORKING']);
      expect(count("SELECT status_version = (SELECT superseded_by FROM task_status) FROM tasks WHERE id = 'task-1'")).toBe(1);
      expect(store.getTask(INSTANCE, 'task-1')?.status.state).toBe('TASK_STATE_COMPLETED');
      // A failed transaction leaves no deferred status behind for the next one.
      expect(() =>
        store.transaction(() => {
          store.setStatus('task-1', status('TASK_STATE_FAILED', 4));
          throw new Error('abandoned');
        }),
      ).toThrow('abandoned');
      store.transaction(() => store.appendMessage('task-1', message('after')));
      expect(store.getTaskInfo('task-1')?.state).toBe('TASK_STATE_COMPLETED');
    } finally {
      raw.close();
      store.close();
    }
  });

  it('pages through 20,000 tasks with index searches only', async () => {
    const path = databasePath();
    const store = SqliteTaskStore.open(path);
    const states: TaskState[] = ['TASK_STATE_SUBMITTED', 'TASK_STATE_WORKING', 'TASK_STATE_COMPLETED'];
    store.transaction(() => {
      for (let n = 0; n < 20_000; n++) {
        const task = newTask(`task-${n}`, {
          contextId: `context-${n % 20}`,
          status: status(states[n % 3] ?? 'TASK_STATE_SUBMITTED', n % 500),
        });
        store.createTask(task);
      }
    });
    const raw = new Database(path, { readonly: true });
    try {
      const pages = await walk(store, { pageSize: 100, historyLength: 0 });
      expect(pages).toHaveLength(200);
      expect(pages.at(-1)?.nextCursor).toBe('');
      expect(new Set(pages.flatMap(ids)).size).toBe(20_000);

      const plan = (query: SqlQuery): string[] =>
        raw
          .prepare<[SqlQuery['params']], { detail: string }>(`EXPLAIN QUERY PLAN ${query.sql}`)
          .all(query.params)
          .map((row) => row.detail);
      const variants: [Omit<TaskQuery, 'pageSize'>, string][] = [
        [{}, 'tasks_by_time'],
        [{ contextId: 'context-3' }, 'tasks_by_context'],
        [{ state: 'TASK_STATE_WORKING' }, 'tasks_by_state'],
      ];
      for (const [filters, index] of variants) {
        const first = readQuery(INSTANCE, { ...filters, pageSize: 100 });
        const { nextCursor } = store.listTasks(INSTANCE, { ...filters, pageSize: 100 });
        const later = readQuery(INSTANCE, { ...filters, pageSize: 100, cursor: nextCursor });
        // A page walks the filter's index in list order from the cursor; the count may use any index of the instance.
        const pages = [pageQuery(first, 20_000), pageQuery(later, later.resume?.asOf ?? 0)].map(plan);
        for (const details of pages) {
          expect(details, details.join('\n')).toContainEqual(
            expect.stringMatching(new RegExp(`^SEARCH t USING INDEX ${index} \\(instance_id=\\?`)),
          );
        }
        const count = plan(countQuery(first.filter));
        expect(count, count.join('\n')).toContainEqual(
          expect.stringMatching(/^SEARCH t USING (COVERING )?INDEX tasks_by_\w+ \(instance_id=\?/),
        );
        for (const details of [...pages, count]) {
          expect(
            details.filter((detail) => /^SCAN (t|s|tasks|task_status)\b/.test(detail)),
            details.join('\n'),
          ).toEqual([]);
        }
        // The first arm reads its index in list order (backwards), so it stops after a page
        // instead of sorting every matching task; only the two arms' few rows are sorted.
        const steps = raw
          .prepare<[SqlQuery['params']], { id: number; parent: number; detail: string }>(
            `EXPLAIN QUERY PLAN ${pageQuery(first, 20_000).sql}`,
          )
          .all(pageQuery(first, 20_000).params);
        const firstArm = steps.find((step) => step.detail.startsWith('CO-ROUTINE'));
        expect(firstArm, steps.map((step) => step.detail).join('\n')).toBeDefined();
        expect(steps.filter((step) => step.parent === firstArm?.id).map((step) => step.detail)).toEqual([
          expect.stringMatching(new RegExp(`^SEARCH t USING INDEX ${index} `)),
        ]);
      }
    } finally {
      raw.close();
      store.close();
    }
  });
});
