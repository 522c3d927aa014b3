import { accessSync, constants, existsSync, statSync } from 'node:fs';
import { dirname } from 'node:path';

/**
 * Errors of opening a store in terms of its path: SQLite says "unable to open database file"
 * or "disk I/O error" without naming the file, and the likely cause (a folder this user may
 * not write, a read-only file) is only found by looking at the file system afterwards.
 */

/** A store that could not be opened, for a reason in the file system that the message names. */
export class StoreOpenError extends Error {
  constructor(message: string, options: { cause: unknown }) {
    super(message, options);
    this.name = 'StoreOpenError';
  }
}

/** The error of creating `dir` (as `what`, e.g. "the data dir") with the path and its cause; errors of another kind unchanged. */
export function folderError(error: unknown, dir: string, what: string): Error {
  const code = (error as { code?: unknown }).code;
  switch (code) {
    case 'EEXIST':
    case 'ENOTDIR': {
      const file = firstFileOnPath(dir) ?? dir;
      return new StoreOpenError(`cannot use ${dir} as ${what}: ${file === dir ? 'it' : file} is a file, not a folder`, { cause: error });
    }
    case 'EACCES':
    case 'EPERM':
      return new StoreOpenError(
        `cannot create ${what} ${dir}: permission denied: this user may not create folders in ${nearestExisting(dir)}`,
        {
          cause: error,
        },
      );
    case 'EROFS':
      return new StoreOpenError(`cannot create ${what} ${dir}: the file system is read-only`, { cause: error });
    case 'ENOSPC':
      return new StoreOpenError(`cannot create ${what} ${dir}: the disk is full`, { cause: error });
    default:
      return error as Error;
  }
}

/** The error of opening the SQLite database at `path` with the path and its likely cause; errors of another kind unchanged. */
export function databaseError(error: unknown, path: string): Error {
  const code = (error as { code?: unknown }).code;
  if (typeof code !== 'string' || !/^SQLITE_(CANTOPEN|READONLY|IOERR|PERM|AUTH|NOTADB|FULL)/.test(code)) return error as Error;
  return new StoreOpenError(`cannot open the database ${path}: ${databaseCause(code, path, (error as Error).message)}`, { cause: error });
}

function databaseCause(code: string, path: string, message: string): string {
  if (code === 'SQLITE_NOTADB')
    return 'it is not an SQLite database (another program’s file by that name?); move it away or choose another folder';
  if (code === 'SQLITE_FULL') return 'the disk is full';
  const dir = dirname(path);
  if (existsSync(path) && statSync(path).isDirectory()) return 'it is a folder, not a database file';
  // SQLite keeps its write-ahead log and shared-memory index beside the database and must write all three.
  for (const file of [path, `${path}-wal`, `${path}-shm`]) {
    if (existsSync(file) && !mayAccess(file, constants.R_OK | constants.W_OK)) {
      return `${file === path ? 'the file' : file} is read-only for this user: give it write permission (chmod u+w) or run the hub as its owner`;
    }
  }
  if (!mayAccess(dir, constants.W_OK | constants.X_OK)) {
    return existsSync(path)
      ? `this user may not write in ${dir}, where SQLite keeps its journal beside the database`
      : `this user may not create files in ${dir}`;
  }
  return `${message} (${code})`;
}

function mayAccess(path: string, mode: number): boolean {
  try {
    accessSync(path, mode);
    return true;
  } catch {
    return false;
  }
}

/** The first ancestor of `dir` (or `dir` itself) that exists and is not a folder. */
function firstFileOnPath(dir: string): string | undefined {
  const ancestors: string[] = [];
  for (let current = dir; !ancestors.includes(current); current = dirname(current)) ancestors.unshift(current);
  return ancestors.find((path) => existsSync(path) && !statSync(path).isDirectory());
}

function nearestExisting(dir: string): string {
  let current = dir;
  while (!existsSync(current) && dirname(current) !== current) current = dirname(current);
  return current;
}
