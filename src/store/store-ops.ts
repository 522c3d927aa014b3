import type { Artifact, Message, StreamResponse, TaskStatus } from '../../generated/a2a/1.0/types.js';
import type { PushAttempt, PushConfigRecord, PushHealth, StoredPushConfig } from './push-store.js';
import { storageFaultOf, type StorageFault } from './storage-fault.js';
import { StaleWriteError, type IdempotentResult, type MessageKey, type NewTask, type Transactional } from './task-store.js';

/**
 * A task write as plain data rather than a closure, so that what a batch will do is visible in one
 * place: the write queue batches them and applies them in one transaction.
 */
export type StoreOp =
  | { readonly op: 'createTask'; readonly task: NewTask }
  | { readonly op: 'setStatus'; readonly taskId: string; readonly status: TaskStatus }
  | { readonly op: 'appendMessage'; readonly taskId: string; readonly message: Message }
  | { readonly op: 'putArtifact'; readonly taskId: string; readonly artifact: Artifact; readonly append: boolean }
  | { readonly op: 'appendEvent'; readonly taskId: string; readonly frame: StreamResponse }
  | { readonly op: 'recordIdempotent'; readonly instanceId: string; readonly key: MessageKey; readonly result: IdempotentResult }
  | { readonly op: 'touchContext'; readonly instanceId: string; readonly tenant: string; readonly contextId: string; readonly at: string }
  | { readonly op: 'putPushConfig'; readonly config: StoredPushConfig }
  | { readonly op: 'enqueueDelivery'; readonly taskId: string; readonly configId: string; readonly frame: StreamResponse }
  | { readonly op: 'setPushHealth'; readonly taskId: string; readonly configId: string; readonly health: PushHealth }
  | { readonly op: 'rescheduleConfig'; readonly taskId: string; readonly configId: string; readonly dueAt: number }
  | { readonly op: 'completeDelivery'; readonly deliveryId: number }
  | { readonly op: 'retryDelivery'; readonly deliveryId: number; readonly dueAt: number }
  | { readonly op: 'recordAttempt'; readonly attempt: PushAttempt; readonly keep: number }
  /**
   * A guard: the write fails with StaleWriteError unless the config is stored with exactly these
   * secrets, i.e. it is the config the write was computed from (not deleted, not re-created).
   */
  | { readonly op: 'expectPushConfig'; readonly taskId: string; readonly configId: string; readonly secrets: string }
  /**
   * A guard: the write fails with StaleWriteError unless the task's current status is still the
   * one of `version` (TaskInfo.statusVersion), i.e. no status was written since the read the
   * write was computed from. Replicas sharing a store take a task from a status this way (a
   * message answering INPUT_REQUIRED): of two that read the same status, one wins.
   */
  | { readonly op: 'expectStatus'; readonly taskId: string; readonly version: number };

/**
 * A store that applies ops with synchronous calls inside a synchronous transaction (SQLite,
 * memory): what `applyOps` and `applyBatch` drive. A store that talks to a server implements
 * `commit` its own way.
 */
export interface SyncOpTarget extends Transactional {
  createTask(task: NewTask): void;
  setStatus(taskId: string, status: TaskStatus): void;
  appendMessage(taskId: string, message: Message): void;
  putArtifact(taskId: string, artifact: Artifact, append: boolean): void;
  appendEvent(taskId: string, frame: StreamResponse): number;
  recordIdempotent(instanceId: string, key: MessageKey, result: IdempotentResult): void;
  touchContext(instanceId: string, contextId: string, at: string, tenant?: string): void;
  putPushConfig(config: StoredPushConfig): void;
  getPushConfig(taskId: string, configId: string): PushConfigRecord | undefined;
  enqueueDelivery(taskId: string, configId: string, frame: StreamResponse): void;
  setPushHealth(taskId: string, configId: string, health: PushHealth): void;
  rescheduleConfig(taskId: string, configId: string, dueAt: number): void;
  completeDelivery(deliveryId: number): void;
  retryDelivery(deliveryId: number, dueAt: number): void;
  recordAttempt(attempt: PushAttempt, keep: number): void;
  /** Throws StaleWriteError unless the task's current status has this version (StoreOp `expectStatus`). */
  expectStatus(taskId: string, version: number): void;
}

/** Applies the ops in order and returns the event-log sequence number of the last appendEvent, if any. */
export function applyOps(store: SyncOpTarget, ops: readonly StoreOp[]): number | undefined {
  let seq: number | undefined;
  for (const op of ops) {
    switch (op.op) {
      case 'createTask':
        store.createTask(op.task);
        break;
      case 'setStatus':
        store.setStatus(op.taskId, op.status);
        break;
      case 'appendMessage':
        store.appendMessage(op.taskId, op.message);
        break;
      case 'putArtifact':
        store.putArtifact(op.taskId, op.artifact, op.append);
        break;
      case 'appendEvent':
        seq = store.appendEvent(op.taskId, op.frame);
        break;
      case 'recordIdempotent':
        store.recordIdempotent(op.instanceId, op.key, op.result);
        break;
      case 'touchContext':
        store.touchContext(op.instanceId, op.contextId, op.at, op.tenant);
        break;
      case 'putPushConfig':
        store.putPushConfig(op.config);
        break;
      case 'enqueueDelivery':
        store.enqueueDelivery(op.taskId, op.configId, op.frame);
        break;
      case 'setPushHealth':
        store.setPushHealth(op.taskId, op.configId, op.health);
        break;
      case 'rescheduleConfig':
        store.rescheduleConfig(op.taskId, op.configId, op.dueAt);
        break;
      case 'completeDelivery':
        store.completeDelivery(op.deliveryId);
        break;
      case 'retryDelivery':
        store.retryDelivery(op.deliveryId, op.dueAt);
        break;
      case 'recordAttempt':
        store.recordAttempt(op.attempt, op.keep);
        break;
      case 'expectPushConfig':
        if (store.getPushConfig(op.taskId, op.configId)?.secrets !== op.secrets)
          throw new StaleWriteError(`push config ${op.configId} of task ${op.taskId} changed since it was read`);
        break;
      case 'expectStatus':
        store.expectStatus(op.taskId, op.version);
        break;
    }
  }
  return seq;
}

/**
 * What became of one write of a batch: the sequence number its frame got, or why it failed
 * (`stale` when a guard found the data changed since the write was computed; `fault` when the
 * storage itself failed, a full disk or a database out of reach, rather than the write).
 */
export type WriteOutcome = { readonly ok: true; readonly seq?: number } | FailedWrite;

export interface FailedWrite {
  readonly ok: false;
  readonly error: string;
  readonly stale: boolean;
  readonly fault?: StorageFault;
}

/** The outcome of a write that threw `error`. */
export function failedWrite(error: unknown): FailedWrite {
  const fault = storageFaultOf(error);
  return { ok: false, error: String(error), stale: error instanceof StaleWriteError, ...(fault === undefined ? {} : { fault }) };
}

/**
 * Applies a batch of writes in one transaction. If the batch fails, each write is applied in a
 * transaction of its own, so that one bad write does not take the others with it.
 */
export function applyBatch(store: SyncOpTarget, batch: readonly (readonly StoreOp[])[]): WriteOutcome[] {
  try {
    return store.transaction(() => batch.map((ops) => succeeded(applyOps(store, ops))));
  } catch (error) {
    // A batch of one write has failed on its own already.
    if (batch.length === 1) return [failedWrite(error)];
    // So has every write of a batch the storage itself refused: trying each alone would only
    // repeat the failure once per write, on the event loop.
    const fault = storageFaultOf(error);
    if (fault !== undefined) return batch.map(() => failedWrite(error));
    return batch.map((ops): WriteOutcome => {
      try {
        return succeeded(store.transaction(() => applyOps(store, ops)));
      } catch (error) {
        return failedWrite(error);
      }
    });
  }
}

/** Shared by the writes that log no frame, which are most of them. */
const SUCCEEDED: WriteOutcome = Object.freeze({ ok: true });

function succeeded(seq: number | undefined): WriteOutcome {
  return seq === undefined ? SUCCEEDED : { ok: true, seq };
}
