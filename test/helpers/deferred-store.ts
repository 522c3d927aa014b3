import type { TaskStore } from '../../src/store/task-store.js';

/**
 * Members that stay synchronous: the instance, outbound and meta tables (their contract is
 * synchronous until the registries load asynchronously) and the in-memory push hint.
 */
const AT_ONCE = new Set<PropertyKey>([
  'mayHavePushConfigs',
  'loadInstances',
  'saveInstance',
  'deleteInstance',
  'loadOutbounds',
  'saveOutbound',
  'deleteOutbound',
  'getMeta',
  'setMeta',
  'deleteMeta',
  'transaction',
]);

/**
 * A store that answers as one on a database server does: every task, event, idempotency and
 * push method does its work at once but resolves on a later turn of the event loop, so other
 * requests run in between. What the hub does between a read and its answer (a commit, a publish,
 * a second identical request) is exercised without a server.
 */
export function deferredStore<S extends TaskStore>(inner: S): S {
  return new Proxy(inner, {
    get(target, property, receiver) {
      const value: unknown = Reflect.get(target, property, receiver);
      if (typeof value !== 'function' || AT_ONCE.has(property)) return value;
      const method = value as (...args: unknown[]) => unknown;
      return (...args: unknown[]) => {
        let outcome: { ok: true; value: unknown } | { ok: false; error: unknown };
        try {
          outcome = { ok: true, value: method.apply(target, args) };
        } catch (error) {
          outcome = { ok: false, error };
        }
        return new Promise((resolve, reject) =>
          setImmediate(() =>
            outcome.ok ? resolve(outcome.value) : reject(outcome.error instanceof Error ? outcome.error : new Error(String(outcome.error))),
          ),
        );
      };
    },
  });
}
