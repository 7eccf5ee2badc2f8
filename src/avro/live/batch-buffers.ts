// Reused memory for a live stream's batch files. Each cut batch is copied out of the writer's block buffer
// (which the writer reuses at once) into memory of its own, kept until the batch has left the outbox. A
// fresh multi-megabyte buffer a batch costs more than the copy itself — in Node, a 4.2 MB batch copied by
// `slice()` took 1.0–3.8 ms of CPU against 0.23–0.53 ms into a buffer already touched (new pages fault in,
// and the external memory sets off collections; min and median of 7, a loaded machine) — so a batch's
// buffer is given back once the sender has removed the batch, and the next batch is copied into it.
//
// A buffer is given back only when nothing else can still hold it: the outbox removed the batch (a memory
// outbox kept the very bytes until then, and hands out copies on read), and the transport is one of the
// stream's own, which keep nothing once a batch is acknowledged. A transport function of the app's may
// keep `batch.bytes`: then `recycle` is false and every batch gets fresh memory, as before.
import type { AvroSink } from "../writer.js";

/** A sink whose file so far is `bytes()`: a view of the buffer that is later given back. */
export interface BatchSink extends AvroSink {
  bytes(): Uint8Array;
}

export class BatchBuffers {
  readonly #recycle: boolean;
  /** Buffers free for the next batch (at most `maxFree`). */
  readonly #free: Uint8Array[] = [];
  readonly #maxFree: number;
  /** The buffer under each batch handed out and not yet given back, oldest first (at most `maxLent`). */
  readonly #lent = new Map<string, ArrayBuffer>();
  readonly #maxLent: number;

  constructor(recycle: boolean, maxFree: number, maxLent: number) {
    this.#recycle = recycle;
    this.#maxFree = maxFree;
    this.#maxLent = maxLent;
  }

  /** Free buffers now (for tests). */
  get free(): number {
    return this.#free.length;
  }

  /** A sink for one batch file: its writes are copied into one buffer, a free one when there is one. */
  sink(): BatchSink {
    let buf: Uint8Array | undefined;
    let length = 0;
    return {
      write: async (bytes) => {
        const needed = length + bytes.length;
        if (!buf || needed > buf.length) {
          const next = this.#take(needed);
          if (buf) next.set(buf.subarray(0, length));
          buf = next;
        }
        buf.set(bytes, length);
        length = needed;
      },
      bytes: () => (buf ?? new Uint8Array(0)).subarray(0, length),
    };
  }

  /** A free buffer of at least `n` bytes, or a new one with room for batches a little larger. */
  #take(n: number): Uint8Array {
    const i = this.#free.findIndex((b) => b.length >= n);
    if (i >= 0) return this.#free.splice(i, 1)[0]!;
    return new Uint8Array(this.#recycle ? n + (n >> 3) + 1024 : n);
  }

  /** Batch `id`'s file is `bytes` (from a sink of this pool): its buffer comes back by `giveBack`. */
  lend(id: string, bytes: Uint8Array): void {
    if (!this.#recycle || bytes.byteLength === 0) return;
    this.#lent.set(id, bytes.buffer as ArrayBuffer);
    // Batches sent by another stream's sender (one outbox, two streams) are never given back by this one:
    // the oldest are forgotten (their memory is left to the garbage collector).
    if (this.#lent.size > this.#maxLent) this.#lent.delete(this.#lent.keys().next().value!);
  }

  /** These batches left the outbox, removed by this stream's sender: their buffers are free again. */
  giveBack(ids: readonly string[]): void {
    for (const id of ids) {
      const buffer = this.#lent.get(id);
      if (!buffer) continue;
      this.#lent.delete(id);
      this.#reuse(buffer);
    }
  }

  /** Nothing holds `bytes` any more (a batch the outbox wrote to disk and nobody keeps for its send). */
  release(bytes: Uint8Array): void {
    if (this.#recycle && bytes.byteLength > 0) this.#reuse(bytes.buffer as ArrayBuffer);
  }

  #reuse(buffer: ArrayBuffer): void {
    if (this.#free.length < this.#maxFree) this.#free.push(new Uint8Array(buffer));
  }

  /** These batches left some other way (dropped): someone may still read them, so they are not reused. */
  forget(ids: readonly string[]): void {
    for (const id of ids) this.#lent.delete(id);
  }
}
