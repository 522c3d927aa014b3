import type { ResolvedHubConfig } from './config.js';
import { openTaskStore, storeLocation } from './hub.js';
import { prunes, type RetentionRule } from './store/retention.js';
import { RetentionSweeper } from './tasks/retention-sweeper.js';

/** What `a2a-hub db prune` deletes: one instance's or every instance's tasks, by a rule given or by their stored retention. */
export interface PruneRequest {
  readonly instanceId?: string;
  /** Applied instead of the instances' own retention (both members of it, as given). */
  readonly rule?: RetentionRule;
}

export interface PruneReport {
  /** Where the tasks were: the data dir, or the database without its password. */
  readonly store: string;
  /** Tasks deleted, by instance. */
  readonly pruned: Readonly<Record<string, number>>;
  /** Instances looked at that keep every task (no retention, and no rule given). */
  readonly keptAll: readonly string[];
  /** Instances whose sweep stopped because another replica's sweep held the database (run again later). */
  readonly heldElsewhere: readonly string[];
}

/**
 * One retention sweep over the store the configuration names, run to its end: the one-off run
 * behind `a2a-hub db prune`. A SQLite data dir a running hub holds cannot be opened (the hub's
 * control API action task.prune does the same there); PostgreSQL can be pruned beside running
 * replicas, which then skip their own sweep while this one holds the store.
 */
export async function pruneStore(config: ResolvedHubConfig, request: PruneRequest, now: () => number = Date.now): Promise<PruneReport> {
  const store = await openTaskStore(config);
  try {
    const instances = (await store.loadInstances()).filter((row) => request.instanceId === undefined || row.id === request.instanceId);
    if (request.instanceId !== undefined && instances.length === 0) throw new Error(`no inbound instance has id "${request.instanceId}"`);
    const rules = instances.map((row) => ({
      instanceId: row.id,
      rule: request.rule ?? (row.config['retention'] as RetentionRule | undefined),
    }));
    const pruned: Record<string, number> = {};
    const heldElsewhere: string[] = [];
    for (const { instanceId, rule } of rules) {
      if (!prunes(rule)) continue;
      // One sweeper per instance, so the report can say how many of each it deleted.
      const sweeper = new RetentionSweeper({ store, rules: () => [{ instanceId, rule }], now });
      pruned[instanceId] = await sweeper.sweep();
      if (sweeper.heldElsewhere) heldElsewhere.push(instanceId);
    }
    const keptAll = rules.filter(({ rule }) => !prunes(rule)).map(({ instanceId }) => instanceId);
    return { store: storeLocation(config), pruned, keptAll, heldElsewhere };
  } finally {
    await store.close();
  }
}
