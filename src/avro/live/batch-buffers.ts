// Reused memory for a live stream's batch files. Each cut batch is copied out of the writer's block buffer
// (which the writer reuses at once) into memory of its own, kept until the batch has left the outbox. A
// fresh multi-megabyte buffer a batch costs more than the copy itself — in Node, a 4.2 MB batch copied by
// `slice()` took 1.0–3.8 ms of CPU against 0.23–0.53 ms into a buffer already touched (new pages fault in,
// and the external memory sets off collections; min and median of 7, a loaded machine) — so a batch's
// buffer is given back once the sender has removed the batch, and the next batch is copied into it.
//
// Free buffers are kept in one pool for the whole thread, not per stream, and as many as a burst used: an
// app that runs ahead of the network has a batch buffer for every batch waiting (maxBufferedBatches) and
// in a memory outbox (its byte cap), ~35 with the defaults, each first touched when it is cut. On the
// 2-core VM the benches run on, first-touching memory costs ~6 ms of CPU per MB (a 3.5 MB batch ~21 ms,
// against ~0.1 ms to copy into a buffer already touched), so a burst's buffers that came back are kept for
// the next burst (after an outage) and for the next stream, and let go after BATCH_MEMORY_IDLE_MS unused.
//
// A buffer is given back only when nothing else can still hold it: the outbox removed the batch (a memory
// outbox kept the very bytes until then, and hands out copies on read), and the transport is one of the
// stream's own, which keep nothing once a batch is acknowledged. A transport function of the app's may
// keep `batch.bytes`: then `recycle` is false and every batch gets fresh memory, as before.
import { BufferPool } from "../../util/buffer-pool.js";
import type { AvroSink } from "../writer.js";

/** Free batch memory kept per thread: the defaults' burst (64 MiB of memory outbox and 16 batches waiting), with room. */
const BATCH_MEMORY_BYTES = 160 * 2 ** 20;
/** Free batch memory is let go once no stream of this thread has cut or sent a batch for this long. */
export const BATCH_MEMORY_IDLE_MS = 10_000;
const sharedBatchMemory = new BufferPool(BATCH_MEMORY_BYTES, BATCH_MEMORY_IDLE_MS);

/** A sink whose file so far is `bytes()`: a view of the buffer that is later given back. */
export interface BatchSink extends AvroSink {
  bytes(): Uint8Array;
}

export class BatchBuffers {
  readonly #recycle: boolean;
  /** Buffers free for the next batch: the thread's, unless a test gives its own. */
  readonly #pool: BufferPool;
  /** The buffer under each batch handed out and not yet given back, oldest first (at most `maxLent`). */
  readonly #lent = new Map<string, ArrayBuffer>();
  readonly #maxLent: number;

  constructor(recycle: boolean, maxLent: number, pool: BufferPool = sharedBatchMemory) {
    this.#recycle = recycle;
    this.#maxLent = maxLent;
    this.#pool = pool;
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
          if (buf) {
            next.set(buf.subarray(0, length));
            this.release(buf); // nothing but this sink has seen it
          }
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
    return this.#recycle ? this.#pool.take(n, n + (n >> 3) + 1024) : new Uint8Array(n);
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
    this.#pool.giveBack(new Uint8Array(buffer));
  }

  /** These batches left some other way (dropped): someone may still read them, so they are not reused. */
  forget(ids: readonly string[]): void {
    for (const id of ids) this.#lent.delete(id);
  }
}
