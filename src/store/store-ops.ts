import type { Artifact, Message, StreamResponse, TaskStatus } from '../../generated/a2a/1.0/types.js';
import type { PushConfigs, PushOutbox, StoredPushConfig } from './push-store.js';
import type {
  ContextBindings,
  EventLog,
  IdempotencyIndex,
  IdempotentResult,
  MessageKey,
  NewTask,
  TaskWrites,
  Transactional,
} from './task-store.js';

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
  | { readonly op: 'enqueueDelivery'; readonly taskId: string; readonly configId: string; readonly frame: StreamResponse };

/** What a batch of ops writes to. */
export type OpTarget = Transactional &
  Omit<TaskWrites, 'settleUnfinished'> &
  Pick<EventLog, 'appendEvent'> &
  Pick<IdempotencyIndex, 'recordIdempotent'> &
  Pick<ContextBindings, 'touchContext'> &
  Pick<PushConfigs, 'putPushConfig'> &
  Pick<PushOutbox, 'enqueueDelivery'>;

/** Applies the ops in order and returns the event-log sequence number of the last appendEvent, if any. */
export function applyOps(store: OpTarget, ops: readonly StoreOp[]): number | undefined {
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
    }
  }
  return seq;
}

/** What became of one write of a batch: the sequence number its frame got, or why it failed. */
export type WriteOutcome = { readonly ok: true; readonly seq?: number } | { readonly ok: false; readonly error: string };

/**
 * Applies a batch of writes in one transaction. If the batch fails, each write is applied in a
 * transaction of its own, so that one bad write does not take the others with it.
 */
export function applyBatch(store: OpTarget, batch: readonly (readonly StoreOp[])[]): WriteOutcome[] {
  try {
    return store.transaction(() => batch.map((ops) => succeeded(applyOps(store, ops))));
  } catch {
    return batch.map((ops): WriteOutcome => {
      try {
        return succeeded(store.transaction(() => applyOps(store, ops)));
      } catch (error) {
        return { ok: false, error: String(error) };
      }
    });
  }
}

/** Shared by the writes that log no frame, which are most of them. */
const SUCCEEDED: WriteOutcome = Object.freeze({ ok: true });

function succeeded(seq: number | undefined): WriteOutcome {
  return seq === undefined ? SUCCEEDED : { ok: true, seq };
}
