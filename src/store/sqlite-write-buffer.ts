import { isTerminalState } from '../../generated/a2a/1.0/task-states.js';
import type { Artifact, Message, Part, StreamResponse, TaskStatus } from '../../generated/a2a/1.0/types.js';
import { changesHeader, headerOf, mergeHeader, type ArtifactHeader } from './artifact-chunks.js';
import { fromJson, toJson } from './json.js';
import { isConstraintError, type Statements, type TaskRow } from './sqlite-statements.js';
import { TaskKeys } from './sqlite-task-keys.js';
import { DuplicateKeyError, EVENT_LOG_LIMIT, tenantOf, UnknownTaskError, type NewTask } from './task-store.js';
import { statusMillis, timestampMillis } from './timestamps.js';

/** A task created in the open transaction: its row is written once, when the transaction ends. */
interface PendingTask {
  readonly key: number;
  /** The row but its status, which is written as the last one set in the transaction. */
  readonly row: Omit<TaskRow, 'key' | 'last_event_seq' | 'status_version' | 'state' | 'status_json' | 'status_ts'>;
  readonly status: TaskStatus;
  /** Where that status places the task (checked when the task was created). */
  readonly statusTs: number;
  readonly messages: string[];
  /** Artifacts given to it so far, so that the next one's position needs no query. */
  artifacts: number;
}

/**
 * An artifact written in the open transaction: what it will be once the transaction ends, so
 * that the chunks of one burst become one row.
 */
interface PendingArtifact {
  readonly key: number;
  readonly artifactId: string;
  /** new: no row yet; append: parts go to a chunk row; replace: the row is rewritten. */
  mode: 'new' | 'append' | 'replace';
  /** The position of a new artifact of a task created in this transaction (else counted by SQL). */
  readonly ord?: number;
  header: ArtifactHeader;
  headerChanged: boolean;
  readonly parts: Part[];
}

interface PendingFrame {
  readonly taskId: string;
  readonly key: number;
  readonly seq: number;
  readonly frame: StreamResponse;
}

/**
 * The task writes of the SQLite store. Inside a transaction they are held in memory and
 * written when it ends: no reader can see what a later write of the same transaction
 * replaced. A task created and finished in one group commit is then one row with its final
 * status, its messages and one row per artifact; and the frames of a task that ends in the
 * transaction are not logged at all, since no replay serves a terminal task.
 *
 * The store says when a transaction ends (commit, rollBack, endTransaction) and calls flush
 * before a read, which must see the transaction's writes.
 */
export class WriteBuffer {
  readonly #keys: TaskKeys;
  readonly #tasks = new Map<string, PendingTask>();
  /** The last status set per task in the transaction. */
  readonly #statuses = new Map<string, TaskStatus>();
  readonly #artifacts = new Map<string, PendingArtifact>();
  #frames: PendingFrame[] = [];
  readonly #created = new Set<string>();
  /** Each task's last event sequence number within the transaction, by key. */
  readonly #eventSeqs = new Map<number, number>();
  /**
   * The newest status version, read once per transaction, counted up in memory, and written
   * back to status_clock when the transaction ends. Only set inside a transaction.
   */
  #lastVersion: number | undefined;

  constructor(
    private readonly sql: Statements,
    private readonly eventLogSize: number = EVENT_LOG_LIMIT,
  ) {
    this.#keys = new TaskKeys(sql);
  }

  /** Only inside a transaction. */
  createTask(task: NewTask): void {
    // A stored task with this id is caught by the unique index when the row is written.
    if (this.#tasks.has(task.id)) throw new DuplicateKeyError(`task ${task.id} already exists`);
    const key = this.#keys.next();
    this.#tasks.set(task.id, {
      key,
      row: {
        id: task.id,
        instance_id: task.instanceId,
        tenant: tenantOf(task),
        context_id: task.contextId,
        skill: task.skill,
        created_at: task.createdAt,
        metadata_json: task.metadata === undefined ? null : toJson(task.metadata),
      },
      status: task.status,
      statusTs: statusMillis(task.status, timestampMillis(task.createdAt)),
      messages: [toJson(task.message)],
      artifacts: 0,
    });
    this.#created.add(task.id);
  }

  /** Only inside a transaction; outside one, writeStatus. */
  setStatus(taskId: string, status: TaskStatus): void {
    // An unknown task must fail here, at its call, not at the end of someone else's batch.
    if (!this.#statuses.has(taskId) && !this.#tasks.has(taskId)) this.#keyOf(taskId);
    this.#statuses.set(taskId, status);
  }

  appendMessage(taskId: string, message: Message): void {
    const pending = this.#tasks.get(taskId);
    if (pending !== undefined) {
      pending.messages.push(toJson(message));
      return;
    }
    this.sql.insertMessage.run({ task: this.#keyOf(taskId), json: toJson(message) });
  }

  /** Only inside a transaction. */
  putArtifact(taskId: string, artifact: Artifact, append: boolean): void {
    const key = this.#keyOf(taskId);
    const { artifactId } = artifact;
    const slot = `${key}\u0000${artifactId}`;
    const pending = this.#artifacts.get(slot);
    if (pending !== undefined) {
      if (append) {
        if (changesHeader(artifact)) {
          pending.header = mergeHeader(pending.header, artifact);
          pending.headerChanged = true;
        }
        pending.parts.push(...artifact.parts);
      } else {
        pending.header = headerOf(artifact);
        pending.parts.splice(0, pending.parts.length, ...artifact.parts);
        if (pending.mode === 'append') pending.mode = 'replace';
      }
      return;
    }
    // A task created in this transaction has no stored artifacts to look up.
    const pendingTask = this.#tasks.get(taskId);
    const stored = pendingTask === undefined ? this.sql.artifactHeader.get(key, artifactId) : undefined;
    const parts = [...artifact.parts];
    if (stored === undefined) {
      const ord = pendingTask === undefined ? undefined : (pendingTask.artifacts += 1);
      this.#artifacts.set(slot, {
        key,
        artifactId,
        mode: 'new',
        ...(ord === undefined ? {} : { ord }),
        header: headerOf(artifact),
        headerChanged: false,
        parts,
      });
    } else if (append) {
      const changed = changesHeader(artifact);
      const header = changed ? mergeHeader(fromJson<ArtifactHeader>(stored), artifact) : fromJson<ArtifactHeader>(stored);
      this.#artifacts.set(slot, { key, artifactId, mode: 'append', header, headerChanged: changed, parts });
    } else {
      this.#artifacts.set(slot, { key, artifactId, mode: 'replace', header: headerOf(artifact), headerChanged: true, parts });
    }
  }

  /** Only inside a transaction. */
  appendEvent(taskId: string, frame: StreamResponse): number {
    const key = this.#keyOf(taskId);
    const seq = this.#lastEventSeq(taskId, key) + 1;
    this.#eventSeqs.set(key, seq);
    // A replay never sends chunks (the snapshot holds the assembled artifacts): number them only.
    if (frame.artifactUpdate === undefined) this.#frames.push({ taskId, key, seq, frame });
    return seq;
  }

  lastEventSeq(taskId: string): number {
    const key = this.findKey(taskId);
    return key === undefined ? 0 : this.#lastEventSeq(taskId, key);
  }

  #lastEventSeq(taskId: string, key: number): number {
    return this.#eventSeqs.get(key) ?? (this.#tasks.has(taskId) ? 0 : (this.sql.lastEventSeq.get(key) ?? 0));
  }

  /**
   * Writes a status straight away: the one path by which a status is recorded, for setStatus
   * outside a transaction, settleUnfinished, and the statuses a transaction held.
   */
  writeStatus(taskId: string, status: TaskStatus, knownKey?: number): void {
    const key = knownKey ?? this.#keyOf(taskId);
    const previous = status.timestamp === undefined ? (this.sql.statusTs.get(key) ?? 0) : 0;
    const json = toJson(status);
    const ts = statusMillis(status, previous);
    const version = this.#nextVersion();
    this.sql.supersede.run(version, key);
    this.sql.updateStatus.run(status.state, json, ts, version, key);
  }

  /**
   * The version of the task's current status, or undefined when the open transaction set or
   * created it (it gets its version when the transaction ends, newer than any read before).
   */
  statusVersion(taskId: string): number | undefined {
    if (this.#statuses.has(taskId) || this.#tasks.has(taskId)) return undefined;
    return this.sql.statusVersion.get(this.#keyOf(taskId));
  }

  /** The newest status version handed out (status_clock, or the open transaction's count). */
  watermark(): number {
    return this.#lastVersion ?? this.sql.clock.get() ?? 0;
  }

  #nextVersion(): number {
    this.#lastVersion ??= this.watermark();
    this.#lastVersion += 1;
    return this.#lastVersion;
  }

  findKey(taskId: string): number | undefined {
    const pending = this.#tasks.get(taskId);
    if (pending !== undefined) return pending.key;
    return this.#keys.find(taskId);
  }

  /** The key of a task that must exist: writes to an unknown task throw UnknownTaskError. */
  #keyOf(taskId: string): number {
    const key = this.findKey(taskId);
    if (key === undefined) throw new UnknownTaskError(taskId);
    return key;
  }

  /** A task deleted (retention): its key is not to be found again. */
  forgetTask(taskId: string): void {
    this.#keys.forget(taskId);
  }

  /** A read inside the transaction must see its writes. */
  flush(): void {
    if (
      this.#tasks.size > 0 ||
      this.#statuses.size > 0 ||
      this.#artifacts.size > 0 ||
      this.#frames.length > 0 ||
      this.#eventSeqs.size > 0
    ) {
      this.#write();
      this.#clear();
    }
  }

  /** Writes what the transaction holds, as the last step of its work. */
  commit(): void {
    this.#write();
    if (this.#lastVersion !== undefined) this.sql.setClock.run(this.#lastVersion);
  }

  /** The transaction rolled back: the keys of the tasks it created are free again. */
  rollBack(): void {
    for (const taskId of this.#created) this.#keys.forget(taskId);
  }

  /** After commit or rollBack: nothing of the transaction is left for the next one. */
  endTransaction(): void {
    this.#clear();
    this.#created.clear();
    this.#lastVersion = undefined;
    this.#keys.endTransaction();
  }

  #clear(): void {
    this.#tasks.clear();
    this.#statuses.clear();
    this.#artifacts.clear();
    this.#frames = [];
    this.#eventSeqs.clear();
  }

  /** Parents before children. */
  #write(): void {
    const endedNow = new Set<string>();
    for (const [taskId, status] of this.#statuses) if (isTerminalState(status.state)) endedNow.add(taskId);
    for (const [taskId, pending] of this.#tasks) {
      this.#insertTask(pending, this.#statuses.get(taskId));
      this.#statuses.delete(taskId);
      // A task that ended here will hardly be written again: its key is not worth a cache slot.
      if (!endedNow.has(taskId)) this.#keys.remember(taskId, pending.key);
    }
    for (const [taskId, status] of this.#statuses) this.writeStatus(taskId, status);
    for (const artifact of this.#artifacts.values()) this.#writeArtifact(artifact);
    for (const { taskId, key, seq, frame } of this.#frames) {
      if (endedNow.has(taskId)) continue;
      this.sql.insertEvent.run(key, seq, toJson(frame));
      if (seq > this.eventLogSize) this.sql.pruneEvents.run(key, seq - this.eventLogSize);
    }
    for (const [key, seq] of this.#eventSeqs) this.sql.setLastEventSeq.run(seq, key);
  }

  /** Inserts a task created in this transaction, with the last status it was given, and its messages. */
  #insertTask(pending: PendingTask, status: TaskStatus | undefined): void {
    const { key, row } = pending;
    const current = status ?? pending.status;
    const { state } = current;
    const statusJson = toJson(current);
    const statusTs = status === undefined ? pending.statusTs : statusMillis(status, pending.statusTs);
    const version = this.#nextVersion();
    const lastEventSeq = this.#eventSeqs.get(key) ?? 0;
    this.#eventSeqs.delete(key);
    try {
      this.sql.insertTask.run(
        key,
        row.id,
        row.instance_id,
        row.tenant,
        row.context_id,
        row.skill,
        row.created_at,
        row.metadata_json,
        state,
        statusJson,
        statusTs,
        version,
        lastEventSeq,
      );
    } catch (error) {
      throw isConstraintError(error, 'SQLITE_CONSTRAINT_UNIQUE') ? new DuplicateKeyError(`task ${row.id} already exists`) : error;
    }
    for (let index = 0; index < pending.messages.length; index += 1)
      this.sql.insertMessageAt.run(key, index + 1, pending.messages[index] ?? '');
  }

  #writeArtifact(artifact: PendingArtifact): void {
    const { key, artifactId } = artifact;
    switch (artifact.mode) {
      case 'new':
        if (artifact.ord === undefined)
          this.sql.insertArtifact.run({ task: key, artifact: artifactId, meta: toJson(artifact.header), parts: toJson(artifact.parts) });
        else this.sql.insertArtifactAt.run(key, artifactId, artifact.ord, toJson(artifact.header), toJson(artifact.parts));
        return;
      case 'replace':
        this.sql.replaceArtifact.run(toJson(artifact.header), toJson(artifact.parts), key, artifactId);
        this.sql.deleteChunks.run(key, artifactId);
        return;
      case 'append':
        if (artifact.headerChanged) this.sql.updateArtifactHeader.run(toJson(artifact.header), key, artifactId);
        if (artifact.parts.length > 0) this.sql.appendChunk.run({ task: key, artifact: artifactId, json: toJson(artifact.parts) });
        return;
    }
  }
}
