import { a2aError, isA2AError, type A2AError } from '../protocol/a2a-error.js';
import { storageFaultOf, type StorageFault } from '../store/storage-fault.js';
import type { FailedWrite } from '../store/store-ops.js';

/** How long a client is told to wait before it sends again a request the unavailable store failed. */
export const STORAGE_RETRY_AFTER_SECONDS = 2;

/**
 * The wire error of a request whose writes (or reads) the storage failed: StorageFullError or
 * StorageUnavailableError, which say what happened without naming the data dir or the database
 * (those are the operator's, and are logged). `what` says what was not stored or read.
 */
export function storageError(fault: StorageFault, what: string, metadata: Readonly<Record<string, string>> = {}): A2AError {
  if (fault.kind === 'full') {
    return a2aError(
      'StorageFullError',
      `${what}: the hub's task store is out of space, so nothing of this request was stored; send it again once the operator has freed space`,
      { metadata },
    );
  }
  return a2aError(
    'StorageUnavailableError',
    `${what}: the hub's task store is unavailable, so nothing of this request was stored; send it again in a few seconds (with the same messageId, a message is not processed twice)`,
    { metadata, retryAfterSeconds: STORAGE_RETRY_AFTER_SECONDS },
  );
}

/**
 * The error for a write that failed: a storage error when the storage failed, else an
 * InternalError that says what was not stored (the cause is logged, never sent).
 */
export function writeFailedError(outcome: FailedWrite, what: string, metadata: Readonly<Record<string, string>> = {}): A2AError {
  if (outcome.fault !== undefined) return storageError(outcome.fault, what, metadata);
  return a2aError('InternalError', `${what}: the task store failed the write; it has been logged`, { metadata });
}

/** A thrown store error as the wire error it stands for (a storage fault), or the error itself. */
export function asStorageError(error: unknown, what: string): unknown {
  if (isA2AError(error)) return error;
  const fault = storageFaultOf(error);
  return fault === undefined ? error : storageError(fault, what);
}
