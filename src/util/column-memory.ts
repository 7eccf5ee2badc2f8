// The buffers of one operation's Arrow columns, taken from a BufferPool and given back together once
// nothing reads the columns (nor any view of them): for an ingest that decodes a file of a few megabytes,
// writes it and drops it, fresh buffers for every file set off a full garbage collection about once a
// file ("external memory pressure" in V8). Without a pool every buffer is simply new.
import type { BufferPool } from "./buffer-pool.js";

export class ColumnMemory {
  readonly #taken: Uint8Array[] = [];

  constructor(readonly pool?: BufferPool) {}

  /** `bytes` bytes (at offset 0 of the buffer); `zeroed` for columns filled by setting bits. */
  take(bytes: number, zeroed = false): ArrayBuffer {
    if (!this.pool) return new ArrayBuffer(bytes);
    const buf = this.pool.take(bytes);
    this.#taken.push(buf);
    if (zeroed) buf.fill(0, 0, bytes);
    return buf.buffer as ArrayBuffer;
  }

  /** Every buffer taken goes back to the pool: nothing may read the columns made in them afterwards. */
  release(): void {
    for (const buf of this.#taken.splice(0)) this.pool?.giveBack(buf);
  }
}
