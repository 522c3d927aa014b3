import { GrowingKeyFilter } from './key-filter.js';
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
  readonly #filter: GrowingKeyFilter;

  constructor(sql: Statements) {
    // Every stored key, read once at open, with room for as many again before the filter grows.
    const stored = sql.idempotentCount.get() ?? 0;
    this.#filter = new GrowingKeyFilter(Math.max(MESSAGE_KEYS_CAPACITY, 2 * stored));
    for (const row of sql.idempotentKeys.iterate()) this.#filter.add(messageKey(row.instance_id, row.message_id));
  }

  /** False only for a key never stored. */
  mightBeStored(instanceId: string, messageId: string): boolean {
    return this.#filter.mightContain(messageKey(instanceId, messageId));
  }

  /**
   * Call once the key's row is written. A key of a transaction that rolls back stays in the
   * filter: a false positive, harmless.
   */
  add(instanceId: string, messageId: string): void {
    this.#filter.add(messageKey(instanceId, messageId));
  }
}

function messageKey(instanceId: string, messageId: string): string {
  return `${instanceId}\u0000${messageId}`;
}
