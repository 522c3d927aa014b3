import type { PushAttemptRow, PushConfigRow, PushSummary, TaskPushView } from '../../generated/control/types.js';
import type { PushAttempt, PushConfigRecord } from '../store/push-store.js';
import type { TaskInfo } from '../store/task-store.js';
import { CONTROL } from '../protocol/control-schema.js';
import { schemaAt } from '../protocol/json-schema.js';
import type { PushControlStore } from './control-deps.js';

/** Most unhealthy configs one snapshot lists, as spec/control caps PushSummary.unhealthy; the counts cover all of them. */
const UNHEALTHY_LISTED = unhealthyCap();

/**
 * One config as the control API shows it. The row is built member by member from the stored
 * record, never spread from it: the record also carries the sealed secrets, and a spread would
 * put them on the wire the day the store or the record grows a member.
 */
export function pushConfigRow(record: PushConfigRecord, pendingDeliveries: number): PushConfigRow {
  const { config, health } = record;
  const scheme = config.authentication?.scheme;
  return {
    taskId: record.taskId,
    configId: record.id,
    url: config.url,
    ...(scheme === undefined || scheme === '' ? {} : { authenticationScheme: scheme }),
    createdAt: record.createdAt,
    state: health.state,
    consecutiveFailures: health.consecutiveFailures,
    ...(health.lastError === undefined ? {} : { lastError: health.lastError }),
    ...(health.lastAttemptAt === undefined ? {} : { lastAttemptAt: health.lastAttemptAt }),
    ...(health.lastSuccessAt === undefined ? {} : { lastSuccessAt: health.lastSuccessAt }),
    pendingDeliveries,
  };
}

export function pushAttemptRow(attempt: PushAttempt): PushAttemptRow {
  return {
    configId: attempt.configId,
    deliveryId: attempt.deliveryId,
    at: attempt.at,
    attempt: attempt.attempt,
    outcome: attempt.outcome,
    ...(attempt.status === undefined ? {} : { status: attempt.status }),
    latencyMs: attempt.latencyMs,
    ...(attempt.error === undefined ? {} : { error: attempt.error }),
  };
}

/** A task's configs with their health and backlog, and its newest `attemptLimit` attempts over all of them. */
export async function taskPushView(store: PushControlStore, info: TaskInfo, attemptLimit: number): Promise<TaskPushView> {
  const records = await store.listPushConfigs(info.id);
  // The store keeps attempts per config; the newest `attemptLimit` of the task are among each config's newest as many.
  const [perConfig, pending] = await Promise.all([
    Promise.all(records.map(async (record) => store.listAttempts(info.id, record.id, attemptLimit))),
    Promise.all(records.map(async (record) => store.pendingDeliveries(info.id, record.id))),
  ]);
  const attempts = perConfig.flat().sort(newestFirst).slice(0, attemptLimit);
  return {
    taskId: info.id,
    serverId: info.instanceId,
    ...(info.tenant === '' ? {} : { tenant: info.tenant }),
    configs: records.map((record, index) => pushConfigRow(record, pending[index] ?? 0)),
    attempts: attempts.map(pushAttemptRow),
  };
}

/** The snapshot's push part: the whole backlog and every config that is not active. */
export async function pushSummary(store: PushControlStore): Promise<PushSummary> {
  const [counts, pendingDeliveries, unhealthy] = await Promise.all([
    store.unhealthyPushConfigCounts(),
    store.pendingDeliveries(),
    store.unhealthyPushConfigs(UNHEALTHY_LISTED),
  ]);
  const pending = await Promise.all(unhealthy.map(async (record) => store.pendingDeliveries(record.taskId, record.id)));
  return {
    pendingDeliveries,
    failingConfigs: counts.failing,
    disabledConfigs: counts.disabled,
    unhealthy: unhealthy.map((record, index) => pushConfigRow(record, pending[index] ?? 0)),
  };
}

/** Newest first: by start time, then (for attempts of one millisecond) by delivery and attempt number. */
function newestFirst(a: PushAttempt, b: PushAttempt): number {
  if (a.at !== b.at) return a.at < b.at ? 1 : -1;
  return b.deliveryId - a.deliveryId || b.attempt - a.attempt;
}

function unhealthyCap(): number {
  const cap = schemaAt(CONTROL.document, 'PushSummary', '/unhealthy')?.['maxItems'];
  if (typeof cap !== 'number') throw new Error('spec/control: PushSummary.unhealthy declares no maxItems');
  return cap;
}
