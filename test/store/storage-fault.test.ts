import Database from 'better-sqlite3';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { storageFaultOf, type StorageFault } from '../../src/store/storage-fault.js';

/** An error as a driver throws it: a message and, when the driver sets one, a code. */
function driverError(message: string, code?: string, cause?: unknown): Error {
  const error = new Error(message, cause === undefined ? {} : { cause }) as Error & { code?: string };
  if (code !== undefined) error.code = code;
  return error;
}

/**
 * Which failures are the storage's (answered as StorageFullError or StorageUnavailableError, and
 * turning readiness 503) and which are the request's own (a constraint, a syntax error: never
 * reported as storage trouble, or a bad request would mark the hub not ready).
 */
const CASES: readonly { given: string; error: unknown; want: StorageFault['kind'] | undefined }[] = [
  { given: 'SQLite: disk full', error: driverError('database or disk is full', 'SQLITE_FULL'), want: 'full' },
  { given: 'SQLite: an extended I/O error', error: driverError('disk I/O error', 'SQLITE_IOERR_WRITE'), want: 'unavailable' },
  { given: 'SQLite: a read-only file', error: driverError('attempt to write a readonly database', 'SQLITE_READONLY'), want: 'unavailable' },
  { given: 'SQLite: busy past the timeout', error: driverError('database is locked', 'SQLITE_BUSY'), want: 'unavailable' },
  { given: 'SQLite: a constraint', error: driverError('UNIQUE constraint failed', 'SQLITE_CONSTRAINT_PRIMARYKEY'), want: undefined },
  { given: 'SQLite: a syntax error', error: driverError('near "SELEC": syntax error', 'SQLITE_ERROR'), want: undefined },
  { given: 'PostgreSQL: disk full', error: driverError('could not extend file', '53100'), want: 'full' },
  {
    given: 'PostgreSQL: backend terminated',
    error: driverError('terminating connection due to administrator command', '57P01'),
    want: 'unavailable',
  },
  { given: 'PostgreSQL: cannot connect now', error: driverError('the database system is starting up', '57P03'), want: 'unavailable' },
  { given: 'PostgreSQL: connection failure', error: driverError('connection failure', '08006'), want: 'unavailable' },
  { given: 'PostgreSQL: too many connections', error: driverError('sorry, too many clients already', '53300'), want: 'unavailable' },
  { given: 'PostgreSQL: a unique violation', error: driverError('duplicate key value', '23505'), want: undefined },
  {
    given: 'PostgreSQL: an invalid byte sequence',
    error: driverError('invalid byte sequence for encoding "UTF8": 0x00', '22021'),
    want: undefined,
  },
  { given: 'PostgreSQL: a serialization failure', error: driverError('could not serialize access', '40001'), want: undefined },
  { given: 'node-postgres: a lost connection', error: driverError('Connection terminated unexpectedly'), want: 'unavailable' },
  { given: 'node-postgres: a pool timeout', error: driverError('timeout exceeded when trying to connect'), want: 'unavailable' },
  { given: 'Node: no space on the device', error: driverError('ENOSPC: no space left on device', 'ENOSPC'), want: 'full' },
  { given: 'Node: connection refused', error: driverError('connect ECONNREFUSED 127.0.0.1:5432', 'ECONNREFUSED'), want: 'unavailable' },
  { given: 'Node: a missing file', error: driverError('ENOENT: no such file', 'ENOENT'), want: undefined },
  { given: 'a fault wrapped as the cause', error: driverError('commit failed', undefined, driverError('x', 'SQLITE_FULL')), want: 'full' },
  { given: 'a message that only mentions a fault', error: driverError('the user wrote "Connection terminated"'), want: undefined },
  { given: 'a thrown string', error: 'SQLITE_FULL', want: undefined },
  { given: 'a plain programming error', error: new TypeError('cannot read properties of undefined'), want: undefined },
];

describe('storageFaultOf', () => {
  it.each(CASES)('$given → $want', ({ error, want }) => {
    expect(storageFaultOf(error)?.kind).toBe(want);
  });

  it('names the driver’s code, so the log and the failure metric say which cause it was', () => {
    expect(storageFaultOf(driverError('terminating connection', '57P01'))).toEqual({
      kind: 'unavailable',
      code: '57P01',
      detail: 'terminating connection',
    });
    expect(storageFaultOf(driverError('Connection terminated unexpectedly'))?.code).toBe('connection');
  });

  describe('on what SQLite itself throws', () => {
    const folder = mkdtempSync(join(tmpdir(), 'a2a-hub-storage-fault-'));
    afterAll(() => rmSync(folder, { recursive: true, force: true }));

    it('takes a real SQLITE_FULL (a database at its page limit) as full, and a constraint as the request’s own', () => {
      const db = new Database(join(folder, 'small.db'));
      try {
        db.exec('CREATE TABLE t (id INTEGER PRIMARY KEY, body TEXT)');
        db.pragma(`max_page_count = ${db.pragma('page_count', { simple: true }) as number}`);
        const full = thrownBy(() => db.prepare('INSERT INTO t (body) VALUES (?)').run('x'.repeat(64 * 1024)));
        expect((full as { code?: string }).code).toBe('SQLITE_FULL');
        expect(storageFaultOf(full)?.kind).toBe('full');

        db.pragma('max_page_count = 1000000');
        db.prepare('INSERT INTO t (id, body) VALUES (1, ?)').run('a');
        const duplicate = thrownBy(() => db.prepare('INSERT INTO t (id, body) VALUES (1, ?)').run('b'));
        expect(storageFaultOf(duplicate)).toBeUndefined();
      } finally {
        db.close();
      }
    });
  });
});

function thrownBy(run: () => unknown): unknown {
  try {
    run();
  } catch (error) {
    return error;
  }
  throw new Error('expected a throw');
}
