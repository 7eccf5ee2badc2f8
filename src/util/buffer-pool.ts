// Large buffers given back once done with and handed out again, bounded in bytes, per thread. For buffers
// of a few megabytes made once per request (a decompressed Avro block, a Parquet file on its way to disk):
// a fresh one is zeroed and paged in on first touch, and enough of them in a row make V8 collect for
// "external memory pressure" — measured on the ingest endpoint as a large part of its CPU (its garbage
// collector alone was a fifth). A buffer is given back only by the code that took it, once nothing reads it.

export class BufferPool {
  readonly #free: Uint8Array[] = [];
  #freeBytes = 0;

  constructor(readonly maxBytes: number) {}

  /** A free buffer of at least `n` bytes (its contents are whatever was last written), or a new one. */
  take(n: number): Uint8Array {
    let best = -1;
    for (let i = 0; i < this.#free.length; i++) {
      const length = this.#free[i]!.length;
      if (length >= n && (best < 0 || length < this.#free[best]!.length)) best = i;
    }
    return best < 0 ? new Uint8Array(n) : this.#takeAt(best);
  }

  /** The largest free buffer (or an empty one): for a ScratchBytes, which grows it as it needs. */
  takeLargest(): Uint8Array {
    let best = -1;
    for (let i = 0; i < this.#free.length; i++)
      if (best < 0 || this.#free[i]!.length > this.#free[best]!.length) best = i;
    return best < 0 ? new Uint8Array(0) : this.#takeAt(best);
  }

  #takeAt(i: number): Uint8Array {
    const [buf] = this.#free.splice(i, 1);
    this.#freeBytes -= buf!.length;
    return buf!;
  }

  /** `buf` (a whole buffer from `take`, or a grown replacement) is free again; kept if under the bound. */
  giveBack(buf: Uint8Array): void {
    if (buf.length === 0 || this.#freeBytes + buf.length > this.maxBytes) return;
    this.#free.push(buf);
    this.#freeBytes += buf.length;
  }
}
