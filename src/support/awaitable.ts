/**
 * A value, or a promise of it: what an interface returns when some implementations answer at
 * once and others must wait (the task store: SQLite answers synchronously, PostgreSQL does not),
 * so that the synchronous ones cost their callers no promise. Await it either way.
 */
export type Awaitable<T> = T | Promise<T>;
