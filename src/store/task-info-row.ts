import type { TaskState } from '../../generated/a2a/1.0/types.js';
import type { TaskInfo } from './task-store.js';
import { millisToTimestamp } from './timestamps.js';

/** The columns of a task row TaskInfo is made of, named alike in the SQLite and PostgreSQL schemas. */
export interface TaskInfoRow {
  readonly id: string;
  readonly instance_id: string;
  readonly tenant: string;
  readonly context_id: string;
  readonly skill: string;
  readonly created_at: string;
  readonly state: TaskState;
  readonly status_ts: number;
  readonly status_version: number;
}

export function infoOf(row: TaskInfoRow): TaskInfo {
  return {
    id: row.id,
    instanceId: row.instance_id,
    tenant: row.tenant,
    contextId: row.context_id,
    skill: row.skill,
    state: row.state,
    createdAt: row.created_at,
    updatedAt: millisToTimestamp(row.status_ts),
    statusVersion: row.status_version,
  };
}
