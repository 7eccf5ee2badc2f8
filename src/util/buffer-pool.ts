// Large buffers given back once done with and handed out again, bounded in bytes, per thread. For buffers
// of a few megabytes made once per request (a decompressed Avro block, a Parquet file on its way to disk):
// a fresh one is zeroed and paged in on first touch, and enough of them in a row make V8 collect for
// "external memory pressure" — measured on the ingest endpoint as a large part of its CPU (its garbage
// collector alone was a fifth). A buffer is given back only by the code that took it, once nothing reads it.
//
// A pool made with `idleMs` lets go of its free buffers once none was taken or given back for that long:
// it may then hold a burst's worth of memory (a live stream's batches after an outage) without keeping it
// for the life of the process.

export class BufferPool {
  readonly #free: Uint8Array[] = [];
  #freeBytes = 0;
  #lastUse = 0;
  #timer: ReturnType<typeof setTimeout> | undefined;

  constructor(
    readonly maxBytes: number,
    readonly idleMs?: number,
  ) {}

  /** Bytes held free now. */
  get freeBytes(): number {
    return this.#freeBytes;
  }

  /**
   * A free buffer of at least `n` bytes (its contents are whatever was last written), or a new one of
   * `fresh` bytes (at least `n`: room for a slightly larger request next time it comes back).
   */
  take(n: number, fresh = n): Uint8Array {
    let best = -1;
    for (let i = 0; i < this.#free.length; i++) {
      const length = this.#free[i]!.length;
      if (length >= n && (best < 0 || length < this.#free[best]!.length)) best = i;
    }
    return best < 0 ? new Uint8Array(Math.max(n, fresh)) : this.#takeAt(best);
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
    this.#used();
    return buf!;
  }

  /** `buf` (a whole buffer from `take`, or a grown replacement) is free again; kept if under the bound. */
  giveBack(buf: Uint8Array): void {
    if (buf.length === 0 || this.#freeBytes + buf.length > this.maxBytes) return;
    this.#free.push(buf);
    this.#freeBytes += buf.length;
    this.#used();
  }

  #used(): void {
    if (this.idleMs === undefined) return;
    this.#lastUse = Date.now();
    if (this.#timer === undefined && this.#free.length > 0) this.#arm(this.idleMs);
  }

  /** One timer at a time, pushed back while the pool is in use; it never keeps a process alive. */
  #arm(ms: number): void {
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      const idle = Date.now() - this.#lastUse;
      if (idle >= this.idleMs!) {
        this.#free.length = 0;
        this.#freeBytes = 0;
      } else if (this.#free.length > 0) this.#arm(this.idleMs! - idle);
    }, ms);
    (this.#timer as { unref?: () => void }).unref?.();
  }
}
