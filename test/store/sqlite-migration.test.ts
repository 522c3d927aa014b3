import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { MIGRATIONS, SCHEMA_VERSION } from '../../src/store/sqlite-schema.js';
import { SqliteTaskStore } from '../../src/store/sqlite-store.js';
import { UnknownTaskError } from '../../src/store/task-store.js';

const dir = mkdtempSync(join(tmpdir(), 'a2a-hub-migration-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const status = (state: string, second: number) => JSON.stringify({ state, timestamp: `2026-01-01T00:00:0${second}.000Z` });

/** A data dir as schema version 2 left it: task tables keyed by the task UUID. */
function schemaTwoDatabase(path: string): void {
  const db = new Database(path);
  for (const sql of MIGRATIONS.slice(0, 2)) db.exec(sql);
  db.pragma('user_version = 2');
  db.exec(`
    INSERT INTO tasks VALUES ('t-old', 'default', 'c-1', 'chat', '2026-01-01T00:00:00.000Z', NULL, 'TASK_STATE_INPUT_REQUIRED', '${status('TASK_STATE_INPUT_REQUIRED', 2)}', 1767225602000, 2);
    INSERT INTO tasks VALUES ('t-done', 'default', 'c-1', 'chat', '2026-01-01T00:00:00.000Z', '{"k":"v"}', 'TASK_STATE_COMPLETED', '${status('TASK_STATE_COMPLETED', 3)}', 1767225603000, 4);
    INSERT INTO task_status VALUES (1, 't-old', 'TASK_STATE_SUBMITTED', '${status('TASK_STATE_SUBMITTED', 0)}', 1767225600000);
    INSERT INTO task_status VALUES (2, 't-old', 'TASK_STATE_INPUT_REQUIRED', '${status('TASK_STATE_INPUT_REQUIRED', 2)}', 1767225602000);
    INSERT INTO task_status VALUES (3, 't-done', 'TASK_STATE_SUBMITTED', '${status('TASK_STATE_SUBMITTED', 0)}', 1767225600000);
    INSERT INTO task_status VALUES (4, 't-done', 'TASK_STATE_COMPLETED', '${status('TASK_STATE_COMPLETED', 3)}', 1767225603000);
    INSERT INTO task_messages VALUES ('t-done', 1, '{"messageId":"m1","role":"ROLE_USER","parts":[{"text":"hi"}]}');
    INSERT INTO task_artifacts VALUES ('t-done', 'a1', 1, '{"artifactId":"a1","name":"echo"}');
    INSERT INTO artifact_parts VALUES ('t-done', 'a1', 1, '{"text":"echo: "}');
    INSERT INTO artifact_parts VALUES ('t-done', 'a1', 2, '{"text":"hi"}');
    INSERT INTO task_events VALUES ('t-done', 1, '{"statusUpdate":{"taskId":"t-done","contextId":"c-1","status":{"state":"TASK_STATE_COMPLETED"}}}');
    INSERT INTO idempotency VALUES ('default', 'm1', 't-done', NULL);
    INSERT INTO contexts VALUES ('default', 'c-1', '2026-01-01T00:00:00.000Z', '2026-01-01T00:00:03.000Z');
  `);
  db.close();
}

describe('SQLite schema 3: integer task keys', () => {
  it('migrates a schema 2 data dir with every task, status, message, artifact and event intact', () => {
    const path = join(dir, 'v2.sqlite');
    schemaTwoDatabase(path);
    const store = SqliteTaskStore.open(path);
    try {
      const done = store.getTask('default', 't-done');
      expect(done).toEqual({
        id: 't-done',
        contextId: 'c-1',
        status: JSON.parse(status('TASK_STATE_COMPLETED', 3)) as unknown,
        history: [{ messageId: 'm1', role: 'ROLE_USER', parts: [{ text: 'hi' }] }],
        artifacts: [{ artifactId: 'a1', name: 'echo', parts: [{ text: 'echo: ' }, { text: 'hi' }] }],
        metadata: { k: 'v' },
      });
      expect(store.eventsAfter('t-done', 0).map((event) => event.seq)).toEqual([1]);
      expect(store.findIdempotent('default', { messageId: 'm1' })).toEqual({ kind: 'task', taskId: 't-done' });
      expect(store.getContext('default', 'c-1')).toEqual({
        instanceId: 'default',
        tenant: '',
        contextId: 'c-1',
        createdAt: '2026-01-01T00:00:00.000Z',
        lastActiveAt: '2026-01-01T00:00:03.000Z',
      });
      // Schema 5: a migrated artifact takes appends as chunk rows.
      store.putArtifact('t-done', { artifactId: 'a1', parts: [{ text: '!' }] }, true);
      expect(store.getTask('default', 't-done')?.artifacts?.[0]?.parts).toEqual([{ text: 'echo: ' }, { text: 'hi' }, { text: '!' }]);
      const page = store.listTasks('default', { pageSize: 10 });
      expect(page.tasks.map((task) => task.id)).toEqual(['t-done', 't-old']);
      expect(store.listTasks('default', { pageSize: 10, state: 'TASK_STATE_INPUT_REQUIRED' }).tasks.map((task) => task.id)).toEqual([
        't-old',
      ]);
      // The migrated tasks take writes under their new keys.
      store.setStatus('t-old', { state: 'TASK_STATE_WORKING', timestamp: '2026-01-01T00:00:05.000Z' });
      expect(
        store.appendEvent('t-old', { statusUpdate: { taskId: 't-old', contextId: 'c-1', status: { state: 'TASK_STATE_WORKING' } } }),
      ).toBe(1);
      expect(store.getTaskInfo('t-old')?.state).toBe('TASK_STATE_WORKING');
    } finally {
      store.close();
    }
    const raw = new Database(path, { readonly: true });
    try {
      expect(raw.pragma('user_version', { simple: true })).toBe(SCHEMA_VERSION);
      expect(raw.pragma('foreign_key_check')).toEqual([]);
      expect(
        raw
          .prepare(
            "SELECT count(*) FROM sqlite_master WHERE name LIKE '%_v3' OR name LIKE '%_v5' OR name LIKE '%_v6' OR name = 'tasks_by_version'",
          )
          .pluck()
          .get(),
      ).toBe(0);
      expect(raw.prepare('SELECT parts_json FROM task_artifacts').pluck().all()).toEqual(['[{"text":"echo: "},{"text":"hi"}]']);
      expect(raw.prepare('SELECT parts_json FROM artifact_chunks').pluck().all()).toEqual(['[{"text":"!"}]']);
      expect(raw.prepare('SELECT task_key FROM task_events ORDER BY task_key').pluck().all()).toEqual([1, 2]);
      // Schema 6: the history holds replaced statuses only, each under the version that
      // replaced it (5 is t-old's WORKING, set above); the clock holds the newest version.
      expect(raw.prepare('SELECT superseded_by, version, state FROM task_status ORDER BY superseded_by').all()).toEqual([
        { superseded_by: 2, version: 1, state: 'TASK_STATE_SUBMITTED' },
        { superseded_by: 4, version: 3, state: 'TASK_STATE_SUBMITTED' },
        { superseded_by: 5, version: 2, state: 'TASK_STATE_INPUT_REQUIRED' },
      ]);
      expect(raw.prepare('SELECT version FROM status_clock').pluck().get()).toBe(5);
      // Schema 7: the list indexes are ascending.
      expect(
        raw.prepare("SELECT sql FROM sqlite_master WHERE type = 'index' AND name LIKE 'tasks_by_%' AND sql LIKE '%DESC%'").all(),
      ).toEqual([]);
    } finally {
      raw.close();
    }
  });

  it('schema 8: an idempotency key stored before it, whose target is unknown, still answers its resend, whatever target it names', () => {
    const path = join(dir, 'v7.sqlite');
    const db = new Database(path);
    for (const sql of MIGRATIONS.slice(0, 7)) db.exec(sql);
    db.pragma('user_version = 7');
    db.exec(`
      INSERT INTO idempotency VALUES ('default', 'm-task', 't-1', NULL);
      INSERT INTO idempotency VALUES ('default', 'm-reply', NULL, '{"messageId":"r","role":"ROLE_AGENT","parts":[{"text":"hi"}]}');
    `);
    db.close();
    const store = SqliteTaskStore.open(path, { exclusive: true });
    try {
      for (const key of [{ messageId: 'm-task' }, { messageId: 'm-task', taskId: 't-1' }, { messageId: 'm-task', contextId: 'c-9' }])
        expect(store.findIdempotent('default', key)).toEqual({ kind: 'task', taskId: 't-1' });
      expect(store.findIdempotent('default', { messageId: 'm-reply', contextId: 'c-1' })).toEqual({
        kind: 'message',
        message: { messageId: 'r', role: 'ROLE_AGENT', parts: [{ text: 'hi' }] },
      });
      // A key written now has its target, and wins over the old one for that target alone.
      store.recordIdempotent('default', { messageId: 'm-task', taskId: 't-2' }, { kind: 'task', taskId: 't-2' });
      expect(store.findIdempotent('default', { messageId: 'm-task', taskId: 't-2' })).toEqual({ kind: 'task', taskId: 't-2' });
      expect(store.findIdempotent('default', { messageId: 'm-task' })).toEqual({ kind: 'task', taskId: 't-1' });
      expect(store.findIdempotent('default', { messageId: 'm-other' })).toBeUndefined();
    } finally {
      store.close();
    }
  });

  it('schema 9: what was stored before tenants is of no tenant, and a tenant sees none of it', () => {
    const path = join(dir, 'v8.sqlite');
    schemaTwoDatabase(path);
    const db = new Database(path);
    for (const sql of MIGRATIONS.slice(2, 8)) db.exec(sql);
    db.pragma('user_version = 8');
    db.close();
    const store = SqliteTaskStore.open(path, { exclusive: true });
    try {
      expect(store.getTaskInfo('t-done')?.tenant).toBe('');
      expect(store.getTask('default', 't-done')?.id).toBe('t-done');
      expect(store.getTask('default', 't-done', { tenant: 'acme' })).toBeUndefined();
      expect(store.listTasks('default', { pageSize: 10 }).totalSize).toBe(2);
      expect(store.listTasks('default', { pageSize: 10, tenant: 'acme' }).totalSize).toBe(0);
      expect(store.findIdempotent('default', { messageId: 'm1' })).toEqual({ kind: 'task', taskId: 't-done' });
      expect(store.findIdempotent('default', { messageId: 'm1', tenant: 'acme' })).toBeUndefined();
      expect(store.getContext('default', 'c-1')?.tenant).toBe('');
      expect(store.getContext('default', 'c-1', 'acme')).toBeUndefined();
    } finally {
      store.close();
    }
  });

  it('forgets the key of a task whose creation was rolled back, though SQLite gives the key out again', () => {
    const store = SqliteTaskStore.open(':memory:');
    const task = (id: string) => ({
      id,
      instanceId: 'default',
      contextId: 'c',
      skill: 'chat',
      createdAt: '2026-01-01T00:00:00.000Z',
      status: { state: 'TASK_STATE_SUBMITTED' as const, timestamp: '2026-01-01T00:00:00.000Z' },
      message: { messageId: `m-${id}`, role: 'ROLE_USER' as const, parts: [{ text: id }] },
    });
    try {
      expect(() =>
        store.transaction(() => {
          store.createTask(task('rolled-back'));
          throw new Error('abandoned');
        }),
      ).toThrow('abandoned');
      store.createTask(task('kept'));
      expect(() => store.appendMessage('rolled-back', { messageId: 'x', role: 'ROLE_USER', parts: [{ text: 'lost' }] })).toThrow(
        UnknownTaskError,
      );
      expect(store.getTask('default', 'kept')?.history).toHaveLength(1);
    } finally {
      store.close();
    }
  });
});
