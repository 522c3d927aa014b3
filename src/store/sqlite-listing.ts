import type { ListFilter, ListRequest } from './listing.js';

/**
 * The ListTasks statements of the SQL stores. The text is SQL both SQLite and PostgreSQL run;
 * they differ only in how a status history row names its task (`statusJoin`), and PostgreSQL
 * takes positional parameters (`positional`).
 */
export interface ListingDialect {
  /** Joins the history rows `s` to their tasks `t`. */
  readonly statusJoin: string;
}

export const SQLITE_LISTING: ListingDialect = { statusJoin: 'JOIN tasks t ON t.key = s.task_key' };

/** One ListTasks statement: its text depends only on which filters are set, so it caches well. */
export interface SqlQuery {
  readonly sql: string;
  readonly params: Readonly<Record<string, string | number>>;
}

type Params = Record<string, string | number>;

/** The filter's conditions on the columns that hold the state and status timestamp to judge by. */
function filterTerms(filter: ListFilter, state: string, ts: string, params: Params): string[] {
  params['instance'] = filter.instanceId;
  params['tenant'] = filter.tenant;
  const terms = ['t.instance_id = @instance', 't.tenant = @tenant'];
  if (filter.contextId !== undefined) {
    params['context'] = filter.contextId;
    terms.push('t.context_id = @context');
  }
  if (filter.state !== undefined) {
    params['state'] = filter.state;
    terms.push(`${state} = @state`);
  }
  if (filter.since !== undefined) {
    params['since'] = filter.since;
    terms.push(`${ts} >= @since`);
  }
  return terms;
}

/** How many tasks match now. Only a first page counts, and then "now" is its watermark. */
export function countQuery(filter: ListFilter): SqlQuery {
  const params: Params = {};
  const terms = filterTerms(filter, 't.state', 't.status_ts', params);
  return { sql: `SELECT count(*) AS n FROM tasks t WHERE ${terms.join(' AND ')}`, params };
}

/**
 * The positions of one page as of the watermark `asOf`, in list order. Two arms:
 *
 * - tasks whose current status is no newer than the watermark (nearly all of them), judged
 *   by their current columns and read straight off the filter's index in list order, so a
 *   page costs the same at any depth.
 * - tasks whose status changed after the watermark (few), each judged by the status it had
 *   then: the history row replaced after the watermark but set at or before it. Those rows
 *   are a range of the history's key; tasks created after the watermark have none.
 */
export function pageQuery(request: ListRequest, asOf: number, dialect: ListingDialect = SQLITE_LISTING): SqlQuery {
  const params: Params = { asOf, fetch: request.fetch };
  const unchanged = filterTerms(request.filter, 't.state', 't.status_ts', params);
  const changed = filterTerms(request.filter, 's.state', 's.ts', params);
  if (request.resume !== undefined) {
    params['afterTs'] = request.resume.after.ts;
    params['afterId'] = request.resume.after.id;
    unchanged.push('(t.status_ts, t.id) < (@afterTs, @afterId)');
    changed.push('(s.ts, t.id) < (@afterTs, @afterId)');
  }
  const sql = `
    SELECT id, ts FROM (
      SELECT t.id AS id, t.status_ts AS ts FROM tasks t
      WHERE ${unchanged.join(' AND ')} AND t.status_version <= @asOf
      ORDER BY t.status_ts DESC, t.id DESC LIMIT @fetch
    ) AS unchanged
    UNION ALL
    SELECT id, ts FROM (
      SELECT t.id AS id, s.ts AS ts FROM task_status s
      ${dialect.statusJoin}
      WHERE ${changed.join(' AND ')} AND s.superseded_by > @asOf AND s.version <= @asOf
    ) AS changed
    ORDER BY ts DESC, id DESC LIMIT @fetch`;
  return { sql, params };
}

/** The statement with `$1, $2, …` for its `@name` parameters, as PostgreSQL takes them. */
export function positional(query: SqlQuery): [string, unknown[]] {
  const order: string[] = [];
  const text = query.sql.replace(/@(\w+)/g, (_match, name: string) => {
    let index = order.indexOf(name);
    if (index < 0) index = order.push(name) - 1;
    return `$${index + 1}`;
  });
  return [text, order.map((name) => query.params[name])];
}
