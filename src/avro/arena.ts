// Typed arrays for decoded records, handed out as views into larger shared buffers. Allocating one
// ArrayBuffer per record was most of the cost of reading in Chromium, whose ArrayBuffer allocations cost
// far more than Node's (avsc read faster than us there until this). A record keeps its views; a consumer
// that needs an array of its own copies it. A reader asked to reuse buffers rewinds the arena at each
// record, so that a whole file is decoded in memory that is already paged in.

const CHUNK = 65_536;

export class TypedArena {
  #longs = new BigInt64Array(0);
  #longsAt = 0;
  #doubles = new Float64Array(0);
  #doublesAt = 0;

  /** Hands out the current buffers again from their start: views given out before are overwritten. */
  rewind(): void {
    this.#longsAt = 0;
    this.#doublesAt = 0;
  }

  longs(n: number): BigInt64Array {
    if (this.#longsAt + n > this.#longs.length) {
      this.#longs = new BigInt64Array(Math.max(n, CHUNK));
      this.#longsAt = 0;
    }
    const out = this.#longs.subarray(this.#longsAt, this.#longsAt + n);
    this.#longsAt += n;
    return out;
  }

  doubles(n: number): Float64Array {
    if (this.#doublesAt + n > this.#doubles.length) {
      this.#doubles = new Float64Array(Math.max(n, CHUNK));
      this.#doublesAt = 0;
    }
    const out = this.#doubles.subarray(this.#doublesAt, this.#doublesAt + n);
    this.#doublesAt += n;
    return out;
  }
}
