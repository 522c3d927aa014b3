import type pg from 'pg';

/**
 * Runs `work` on a connection of the pool and gives it back. A connection checked out of a
 * node-postgres pool has no 'error' listener of the pool's (that one covers idle connections
 * only), so the server ending it mid-use (a restart, pg_terminate_backend: 57P01) would be an
 * unhandled 'error' event that ends the process. Here it is listened to for as long as `work`
 * holds it, and a connection that broke, or whose ROLLBACK failed, is destroyed on release
 * rather than handed to the next caller.
 */
export async function withPooledClient<T>(
  pool: pg.Pool,
  work: (client: pg.PoolClient, broken: (error: unknown) => void) => Promise<T>,
): Promise<T> {
  let failure: Error | undefined;
  const broken = (error: unknown): void => {
    failure ??= error instanceof Error ? error : new Error(String(error));
  };
  // The callback form, so that the listener is on before anything else runs: the server ending a
  // connection right after accepting it sends its error in the same read as the readiness to
  // query, before a promise's continuation could attach a listener.
  const client = await new Promise<pg.PoolClient>((resolve, reject) =>
    pool.connect((error, connected) => {
      if (connected === undefined) return reject(error instanceof Error ? error : new Error('the pool gave no connection'));
      connected.on('error', broken);
      resolve(connected);
    }),
  );
  try {
    return await work(client, broken);
  } finally {
    client.off('error', broken);
    client.release(failure);
  }
}

/**
 * Runs `work` inside BEGIN (with `begin`'s options) … COMMIT on one pooled connection; rolls back
 * when it throws. With `pipelined`, the work's statements are sent behind BEGIN without waiting
 * for its answer.
 */
export async function inTransaction<T>(
  pool: pg.Pool,
  begin: string,
  work: (client: pg.PoolClient) => Promise<T>,
  pipelined = false,
): Promise<T> {
  return withPooledClient(pool, async (client, broken) => {
    try {
      let result: T;
      if (pipelined) {
        const begun = client.query(begin);
        begun.catch(() => undefined);
        result = await work(client);
        await begun;
      } else {
        await client.query(begin);
        result = await work(client);
      }
      await client.query('COMMIT');
      return result;
    } catch (error) {
      // A connection that cannot even roll back is not given to anyone else.
      await client.query('ROLLBACK').catch(broken);
      throw error;
    }
  });
}
