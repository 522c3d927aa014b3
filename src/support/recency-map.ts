interface Entry<K, V> {
  readonly key: K;
  value: V;
  older: Entry<K, V> | undefined;
  newer: Entry<K, V> | undefined;
}

/**
 * A map that keeps its entries in the order they were last set or touched, for caches that
 * drop their least recently used entries.
 *
 * A plain `Map` keeps insertion order too (delete and set again to move a key to the end),
 * but V8 leaves each deleted entry's slot in its table until the table is rebuilt, and
 * iteration walks past them: finding the oldest entry of a 10,000-entry map that evicts one
 * entry per insert cost 9 µs, because it stepped over thousands of deleted slots. Here the
 * order is a linked list, so moving and evicting are constant time.
 */
export class RecencyMap<K, V> {
  readonly #entries = new Map<K, Entry<K, V>>();
  #oldest: Entry<K, V> | undefined;
  #newest: Entry<K, V> | undefined;

  get size(): number {
    return this.#entries.size;
  }

  has(key: K): boolean {
    return this.#entries.has(key);
  }

  /** The value, without changing its place in the order. */
  get(key: K): V | undefined {
    return this.#entries.get(key)?.value;
  }

  /** Sets the value and makes the entry the most recent. */
  set(key: K, value: V): void {
    const entry = this.#entries.get(key);
    if (entry === undefined) {
      const added: Entry<K, V> = { key, value, older: this.#newest, newer: undefined };
      if (this.#newest === undefined) this.#oldest = added;
      else this.#newest.newer = added;
      this.#newest = added;
      this.#entries.set(key, added);
      return;
    }
    entry.value = value;
    this.#makeNewest(entry);
  }

  /** Makes an entry the most recent; false if there is none. */
  touch(key: K): boolean {
    const entry = this.#entries.get(key);
    if (entry === undefined) return false;
    this.#makeNewest(entry);
    return true;
  }

  delete(key: K): boolean {
    const entry = this.#entries.get(key);
    if (entry === undefined) return false;
    this.#entries.delete(key);
    this.#unlink(entry);
    return true;
  }

  clear(): void {
    this.#entries.clear();
    this.#oldest = undefined;
    this.#newest = undefined;
  }

  /** Entries from the least to the most recent. Deleting the entry just yielded is safe. */
  *oldestFirst(): IterableIterator<[K, V]> {
    let entry = this.#oldest;
    while (entry !== undefined) {
      const next = entry.newer;
      yield [entry.key, entry.value];
      entry = next;
    }
  }

  /** Drops least recent entries until at most `limit` are left. */
  trimTo(limit: number): void {
    while (this.#entries.size > limit && this.#oldest !== undefined) this.delete(this.#oldest.key);
  }

  #makeNewest(entry: Entry<K, V>): void {
    if (entry === this.#newest) return;
    this.#unlink(entry);
    entry.older = this.#newest;
    entry.newer = undefined;
    if (this.#newest === undefined) this.#oldest = entry;
    else this.#newest.newer = entry;
    this.#newest = entry;
  }

  #unlink(entry: Entry<K, V>): void {
    if (entry.older === undefined) this.#oldest = entry.newer;
    else entry.older.newer = entry.newer;
    if (entry.newer === undefined) this.#newest = entry.older;
    else entry.newer.older = entry.older;
    entry.older = undefined;
    entry.newer = undefined;
  }
}
