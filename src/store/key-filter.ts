/**
 * A Bloom filter over strings: `mightContain` is false only for a key never added, and true
 * for a key never added with a probability of about 1 % while it holds no more than its
 * capacity. The SQLite store asks it before looking up a messageId, so a new message (almost
 * every message) costs no B-tree search.
 */
export class KeyFilter {
  readonly capacity: number;
  readonly #bits: Uint32Array;
  readonly #mask: number;
  #size = 0;

  constructor(capacity: number) {
    this.capacity = Math.max(1024, Math.ceil(capacity));
    // At least ~9.6 bits and 7 probes per key: at most ~1 % false positives at capacity. A
    // power of two, so that a probe is a mask and an odd step visits 7 distinct bits.
    this.#mask = 2 ** Math.ceil(Math.log2(this.capacity * 9.6)) - 1;
    this.#bits = new Uint32Array((this.#mask + 1) / 32);
  }

  /** Keys added so far (a key added twice counts twice). */
  get size(): number {
    return this.#size;
  }

  add(key: string): void {
    this.addHashed(hashes(key));
  }

  mightContain(key: string): boolean {
    return this.mightContainHashed(hashes(key));
  }

  /** add, for a key whose hashes were computed once for several filters. */
  addHashed([first, second]: KeyHashes): void {
    for (let probe = 0; probe < PROBES; probe += 1) {
      const bit = ((first + probe * second) >>> 0) & this.#mask;
      this.#bits[bit >>> 5] = (this.#bits[bit >>> 5] ?? 0) | (1 << (bit & 31));
    }
    this.#size += 1;
  }

  mightContainHashed([first, second]: KeyHashes): boolean {
    for (let probe = 0; probe < PROBES; probe += 1) {
      const bit = ((first + probe * second) >>> 0) & this.#mask;
      if (((this.#bits[bit >>> 5] ?? 0) & (1 << (bit & 31))) === 0) return false;
    }
    return true;
  }
}

/**
 * Key filters that grow without being rebuilt: when the newest is full, a new one twice its
 * capacity takes the new keys, and a key is asked of all of them. Rebuilding one larger filter
 * meant reading every stored key again, in one synchronous pass: at 200,000 keys that held the
 * event loop for about 250 ms (docs/performance.md). The price is a false-positive rate of
 * about 1 % per filter, and the filters are few: n keys need ceil(log2(n / first capacity + 1)).
 */
export class GrowingKeyFilter {
  readonly #filters: KeyFilter[];

  constructor(firstCapacity: number) {
    this.#filters = [new KeyFilter(firstCapacity)];
  }

  /** Keys added so far, over all filters. */
  get size(): number {
    return this.#filters.reduce((sum, filter) => sum + filter.size, 0);
  }

  /** How many filters it holds (each one added when the one before was full). */
  get filters(): number {
    return this.#filters.length;
  }

  add(key: string): void {
    let newest = this.#filters[this.#filters.length - 1] as KeyFilter;
    if (newest.size >= newest.capacity) {
      newest = new KeyFilter(2 * newest.capacity);
      this.#filters.push(newest);
    }
    newest.addHashed(hashes(key));
  }

  mightContain(key: string): boolean {
    const keyHashes = hashes(key);
    return this.#filters.some((filter) => filter.mightContainHashed(keyHashes));
  }
}

const PROBES = 7;

type KeyHashes = readonly [number, number];

/** Two 32-bit FNV-1a hashes with different offsets, combined by double hashing (Kirsch–Mitzenmacher). */
function hashes(key: string): KeyHashes {
  let first = 0x811c9dc5;
  let second = 0x01000193 ^ 0x5bd1e995;
  for (let index = 0; index < key.length; index += 1) {
    const code = key.charCodeAt(index);
    first = Math.imul(first ^ code, 0x01000193);
    second = Math.imul(second ^ code, 0x5bd1e995);
  }
  // Odd, hence coprime with the power-of-two table: the probes of a key never repeat a bit.
  return [first >>> 0, (second >>> 0) | 1];
}
