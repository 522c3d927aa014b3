import { createHash } from 'node:crypto';
import type pg from 'pg';
import type { Sql } from './postgres-writes.js';

const names = new Map<string, string>();

/**
 * The name of a fixed statement's prepared form. PostgreSQL parses and plans an unnamed
 * statement on every call; a named one is prepared once per connection and then only bound
 * and executed. Only for statements whose text is fixed: each distinct text stays prepared on
 * every connection that ran it.
 */
export function statementName(text: string): string {
  let name = names.get(text);
  if (name === undefined) {
    name = `a2a_${createHash('sha1').update(text).digest('hex').slice(0, 20)}`;
    names.set(text, name);
  }
  return name;
}

/** Runs fixed statements on `client` as prepared statements. */
export function preparedSql(client: pg.ClientBase): Sql {
  return {
    query: <R extends object>(text: string, values?: readonly unknown[]) =>
      client.query<R & pg.QueryResultRow>({ name: statementName(text), text, values: values === undefined ? [] : [...values] }),
  };
}
