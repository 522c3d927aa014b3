import type { InstanceConfigs, MetaStore, OutboundConfigs, StoredInstance, StoredOutbound } from './task-store.js';

/** Instances and outbound connections are persisted alike: an id and a configuration opaque to the store. */
export type StoredConfig = StoredInstance & StoredOutbound;

/** Where a store keeps its meta pairs; a `Map<string, string>` is one. */
export interface MetaTable {
  get(key: string): string | undefined;
  set(key: string, value: string): unknown;
  delete(key: string): unknown;
}

/**
 * Where a store keeps one kind of configuration: `all` returns copies of every record, ordered
 * by id; `save` inserts or replaces the record with its id.
 */
export interface ConfigTable {
  all(): StoredConfig[];
  save(record: StoredConfig): void;
  remove(id: string): void;
}

/**
 * The configuration and flag slices of the store contract, written once for every store: they
 * differ only in where the rows live, which each store names with its three tables.
 */
export abstract class StoredSettings implements InstanceConfigs, OutboundConfigs, MetaStore {
  protected abstract readonly instanceTable: ConfigTable;
  protected abstract readonly outboundTable: ConfigTable;
  protected abstract readonly metaTable: MetaTable;

  loadInstances(): StoredInstance[] {
    return this.instanceTable.all();
  }

  loadOutbounds(): StoredOutbound[] {
    return this.outboundTable.all();
  }

  saveInstance(instance: StoredInstance): void {
    this.instanceTable.save(instance);
  }

  saveOutbound(outbound: StoredOutbound): void {
    this.outboundTable.save(outbound);
  }

  deleteInstance(id: string): void {
    this.instanceTable.remove(id);
  }

  deleteOutbound(id: string): void {
    this.outboundTable.remove(id);
  }

  getMeta(key: string): string | undefined {
    return this.metaTable.get(key);
  }

  setMeta(key: string, value: string): void {
    this.metaTable.set(key, value);
  }

  deleteMeta(key: string): void {
    this.metaTable.delete(key);
  }
}
