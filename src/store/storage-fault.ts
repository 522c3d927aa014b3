/**
 * A failure of the storage itself, as opposed to a refusal of the request (an unknown task, a
 * duplicate key, a stale write): the disk is full, or the database cannot be reached or failed.
 * Such a failure says nothing about the request, which may succeed when sent again; the hub
 * answers it with StorageFullError or StorageUnavailableError, marks itself not ready, and logs
 * the cause once (storage-health.ts).
 */
export interface StorageFault {
  /** full: no space for the write; unavailable: the database did not answer, or failed the statement. */
  readonly kind: 'full' | 'unavailable';
  /** The driver's code (SQLITE_FULL, 57P01, ECONNREFUSED, …), for the log and the metrics. */
  readonly code: string;
  /** The driver's message, for the log only: it may name paths and hosts. */
  readonly detail: string;
}

/** PostgreSQL SQLSTATEs (and their classes) that mean the storage failed, not the statement. */
const POSTGRES_FULL = new Set(['53100']);
const POSTGRES_UNAVAILABLE_CLASSES = ['08', '57', '58', '53', 'XX'];

/** SQLite result codes (better-sqlite3's `code`, extended codes included) that mean the storage failed. */
const SQLITE_FULL = new Set(['SQLITE_FULL']);
const SQLITE_UNAVAILABLE_PREFIXES = ['SQLITE_IOERR', 'SQLITE_CANTOPEN', 'SQLITE_READONLY', 'SQLITE_CORRUPT', 'SQLITE_NOTADB'];
const SQLITE_UNAVAILABLE = new Set(['SQLITE_BUSY', 'SQLITE_LOCKED', 'SQLITE_NOMEM', 'SQLITE_PROTOCOL', 'SQLITE_NOLFS']);

/** Node's system errors on the way to a database server or a file. */
const SYSTEM_FULL = new Set(['ENOSPC', 'EDQUOT']);
const SYSTEM_UNAVAILABLE = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EIO',
  'EROFS',
]);

/**
 * node-postgres reports a lost or unusable connection as a plain Error, by message only. Matched
 * at the start of the message, never as a pattern that could backtrack.
 */
const POSTGRES_CONNECTION_MESSAGES = [
  'Connection terminated',
  'timeout exceeded when trying to connect',
  'Client has encountered a connection error',
  'Client was closed and is not queryable',
  'Query read timeout',
  'Cannot use a pool after calling end',
  'The database connection is not open',
];

/** The storage fault `error` (or an error in its cause chain) is, or undefined when it is none. */
export function storageFaultOf(error: unknown): StorageFault | undefined {
  for (let current = error, depth = 0; current instanceof Error && depth < 5; current = current.cause, depth += 1) {
    const fault = faultOf(current);
    if (fault !== undefined) return fault;
  }
  return undefined;
}

function faultOf(error: Error): StorageFault | undefined {
  const code = (error as { code?: unknown }).code;
  const detail = error.message;
  if (typeof code === 'string') {
    const kind = kindOfCode(code);
    if (kind !== undefined) return { kind, code, detail };
  }
  if (POSTGRES_CONNECTION_MESSAGES.some((start) => detail.startsWith(start))) return { kind: 'unavailable', code: 'connection', detail };
  return undefined;
}

function kindOfCode(code: string): StorageFault['kind'] | undefined {
  if (SQLITE_FULL.has(code) || SYSTEM_FULL.has(code) || POSTGRES_FULL.has(code)) return 'full';
  if (code.startsWith('SQLITE_'))
    return SQLITE_UNAVAILABLE.has(code) || SQLITE_UNAVAILABLE_PREFIXES.some((prefix) => code.startsWith(prefix))
      ? 'unavailable'
      : undefined;
  if (SYSTEM_UNAVAILABLE.has(code)) return 'unavailable';
  // A SQLSTATE is five characters; its first two name the class.
  if (code.length === 5 && POSTGRES_UNAVAILABLE_CLASSES.includes(code.slice(0, 2))) return 'unavailable';
  return undefined;
}
