import { KeyFilter } from './key-filter.js';
import type { Statements } from './sqlite-statements.js';

/** The smallest idempotency filter: room for 200,000 keys in 256 KiB. */
const MESSAGE_KEYS_CAPACITY = 200_000;

/**
 * The idempotency keys stored, as a Bloom filter: a new messageId then costs no B-tree
 * search. Sound only with exclusive locking, where no other connection can add keys unseen.
 * It holds messageIds without their targets: a key stored before schema 8 answers for any
 * target, and a messageId reused for another target only costs the search it would anyway.
 */
export class MessageKeys {
  #filter: KeyFilter;

  constructor(private readonly sql: Statements) {
    this.#filter = this.#load(0);
  }

  /** False only for a key never stored. */
  mightBeStored(instanceId: string, messageId: string): boolean {
    return this.#filter.mightContain(messageKey(instanceId, messageId));
  }

  /** Call once the key's row is written. */
  add(instanceId: string, messageId: string): void {
    // A key of a transaction that rolls back stays in the filter: a false positive, harmless.
    this.#filter.add(messageKey(instanceId, messageId));
    // Past its capacity the filter errs more often: rebuilt twice as large (this key included).
    if (this.#filter.size > this.#filter.capacity) this.#filter = this.#load(2 * this.#filter.capacity);
  }

  /** A filter of every stored key, with room for at least `atLeast` of them. */
  #load(atLeast: number): KeyFilter {
    const stored = this.sql.idempotentCount.get() ?? 0;
    const filter = new KeyFilter(Math.max(MESSAGE_KEYS_CAPACITY, 2 * stored, atLeast));
    for (const row of this.sql.idempotentKeys.iterate()) filter.add(messageKey(row.instance_id, row.message_id));
    return filter;
  }
}

function messageKey(instanceId: string, messageId: string): string {
  return `${instanceId}\u0000${messageId}`;
}
