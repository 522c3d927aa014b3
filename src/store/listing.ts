import type { Task, TaskState } from '../../generated/a2a/1.0/types.js';
import { decodeCursor, encodeCursor, filterKey, type CursorState, type ListPosition } from './cursor.js';
import { tenantOf, type TaskPage, type TaskQuery } from './task-store.js';
import { timestampMillisCeil } from './timestamps.js';

/**
 * ListTasks, apart from how a store finds rows. A walk through the pages reads one snapshot:
 * the first page takes the store's change watermark, the cursor carries it, and later pages
 * see each task with the status it had at that watermark (tasks created after it not at all).
 * Stores record a watermark with every status; a monotonic counter rather than a clock, so
 * two changes in one millisecond, or caller timestamps from another clock, cannot blur it.
 */

/** The filters of a query, normalised; the cursor is bound to exactly these. */
export interface ListFilter {
  readonly instanceId: string;
  /** '' for no tenant: a walk sees one tenant's tasks (or those of none), never another's. */
  readonly tenant: string;
  readonly contextId?: string | undefined;
  readonly state?: TaskState | undefined;
  /** The lowest status timestamp included, in ms. */
  readonly since?: number | undefined;
}

export interface ListRequest {
  readonly filter: ListFilter;
  readonly pageSize: number;
  /** Rows to fetch: one more than a page, to learn whether another page follows. */
  readonly fetch: number;
  /** Set when the query continues a walk. */
  readonly resume?: CursorState | undefined;
  readonly key: string;
}

/** What a store contributes to ListTasks. */
export interface ListSource {
  /** The store's current change watermark: a walk starting now sees every change up to it. */
  watermark(): number;
  /** How many tasks match the filter now. */
  count(filter: ListFilter): number;
  /**
   * Up to `request.fetch` tasks matching the filter as of `asOf`, in list order, each at its
   * status timestamp as of `asOf`; only those after `request.resume.after` when resuming.
   */
  positions(request: ListRequest, asOf: number): ListPosition[];
  /** The task with its current data, trimmed by the query's view. */
  load(taskId: string): Task | undefined;
}

export function readQuery(instanceId: string, query: TaskQuery): ListRequest {
  const filter: ListFilter = {
    instanceId,
    tenant: tenantOf(query),
    contextId: query.contextId,
    state: query.state,
    since: query.statusTimestampAfter === undefined ? undefined : timestampMillisCeil(query.statusTimestampAfter),
  };
  const key = filterKey([filter.instanceId, filter.tenant, filter.contextId ?? null, filter.state ?? null, filter.since ?? null]);
  const resume = query.cursor === undefined || query.cursor === '' ? undefined : decodeCursor(query.cursor, key);
  return { filter, pageSize: query.pageSize, fetch: query.pageSize + 1, resume, key };
}

export function listTasks(instanceId: string, query: TaskQuery, source: ListSource): TaskPage {
  const request = readQuery(instanceId, query);
  // On a first page the count is taken at the same moment as the watermark (the store is
  // synchronous), so it counts exactly the tasks the walk will visit; later pages reuse it.
  const asOf = request.resume?.asOf ?? source.watermark();
  const total = request.resume?.total ?? source.count(request.filter);
  const positions = source.positions(request, asOf);
  const tasks = positions.slice(0, request.pageSize).flatMap((position) => source.load(position.id) ?? []);
  return pageOf(request, { asOf, total }, positions, tasks);
}

/** What a store that answers later contributes to ListTasks. */
export interface LaterListSource {
  /** A first page's watermark and count, read in one snapshot, so that the count is what the walk visits. */
  start(filter: ListFilter): Promise<{ readonly asOf: number; readonly total: number }>;
  positions(request: ListRequest, asOf: number): Promise<ListPosition[]>;
  load(taskId: string): Promise<Task | undefined>;
}

/** ListTasks over a store that answers later: the same walk as listTasks. */
export async function listTasksLater(instanceId: string, query: TaskQuery, source: LaterListSource): Promise<TaskPage> {
  const request = readQuery(instanceId, query);
  const walk = request.resume ?? (await source.start(request.filter));
  const positions = await source.positions(request, walk.asOf);
  const loaded = await Promise.all(positions.slice(0, request.pageSize).map((position) => source.load(position.id)));
  return pageOf(
    request,
    walk,
    positions,
    loaded.filter((task) => task !== undefined),
  );
}

/** The page of `positions` (one more than a page was fetched), and the cursor to the next when there is one. */
function pageOf(
  request: ListRequest,
  walk: { readonly asOf: number; readonly total: number },
  positions: readonly ListPosition[],
  tasks: Task[],
): TaskPage {
  const last = positions.slice(0, request.pageSize).at(-1);
  const more = positions.length > request.pageSize && last !== undefined;
  return {
    tasks,
    totalSize: walk.total,
    nextCursor: more ? encodeCursor({ asOf: walk.asOf, after: last, total: walk.total }, request.key) : '',
  };
}

/** Whether a task, seen at `state` and `ts`, passes the filter (its instance and tenant aside). */
export function matchesFilter(filter: ListFilter, contextId: string, state: TaskState, ts: number): boolean {
  return (
    (filter.contextId === undefined || filter.contextId === contextId) &&
    (filter.state === undefined || filter.state === state) &&
    (filter.since === undefined || ts >= filter.since)
  );
}

/** Negative when `a` is listed before `b`. */
export function compareListOrder(a: ListPosition, b: ListPosition): number {
  return b.ts - a.ts || compareIds(b.id, a.id);
}

/** Below U+D800 code units and code points order alike, so the cheap comparison is exact. */
const BEYOND_SURROGATES = /[\uD800-\uFFFF]/;

/**
 * Ids in SQLite's BINARY order, which compares UTF-8 bytes, i.e. code points. JavaScript's
 * `<` compares UTF-16 code units, which disagrees above U+FFFF; both stores must agree.
 */
export function compareIds(a: string, b: string): number {
  if (!BEYOND_SURROGATES.test(a) && !BEYOND_SURROGATES.test(b)) return a < b ? -1 : a > b ? 1 : 0;
  return Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8'));
}
