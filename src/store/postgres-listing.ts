import type { ListPosition } from './cursor.js';
import type { ListFilter, ListRequest } from './listing.js';
import type { Sql } from './postgres-writes.js';
import { countQuery, pageQuery, positional, type ListingDialect } from './sqlite-listing.js';

/** PostgreSQL's history rows name their task by id (SQLite's by its integer key). */
const POSTGRES_LISTING: ListingDialect = { statusJoin: 'JOIN tasks t ON t.id = s.task_id' };

/** How many tasks match now (a first page's total, read in the snapshot its watermark is read in). */
export async function taskCount(sql: Sql, filter: ListFilter): Promise<number> {
  const [text, values] = positional(countQuery(filter));
  const { rows } = await sql.query<{ n: number | string }>(text, values);
  return Number(rows[0]?.n ?? 0);
}

/** The positions of one page as of the watermark, by the same statement the SQLite store runs (sqlite-listing.ts). */
export async function pagePositions(sql: Sql, request: ListRequest, asOf: number): Promise<ListPosition[]> {
  const [text, values] = positional(pageQuery(request, asOf, POSTGRES_LISTING));
  const { rows } = await sql.query<{ id: string; ts: number | string }>(text, values);
  return rows.map((row) => ({ id: row.id, ts: Number(row.ts) }));
}
