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
    const [first, second] = hashes(key);
    for (let probe = 0; probe < PROBES; probe += 1) {
      const bit = ((first + probe * second) >>> 0) & this.#mask;
      this.#bits[bit >>> 5] = (this.#bits[bit >>> 5] ?? 0) | (1 << (bit & 31));
    }
    this.#size += 1;
  }

  mightContain(key: string): boolean {
    const [first, second] = hashes(key);
    for (let probe = 0; probe < PROBES; probe += 1) {
      const bit = ((first + probe * second) >>> 0) & this.#mask;
      if (((this.#bits[bit >>> 5] ?? 0) & (1 << (bit & 31))) === 0) return false;
    }
    return true;
  }
}

const PROBES = 7;

/** Two 32-bit FNV-1a hashes with different offsets, combined by double hashing (Kirsch–Mitzenmacher). */
function hashes(key: string): [number, number] {
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
