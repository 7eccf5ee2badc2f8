// The growing buffer under every append-only byte writer (the Avro ByteWriter, the Parquet ByteSink, the
// in-memory Avro sink): one copy of the growth rule. Writers call `reserve(n)` once for a whole run of
// bytes and then write into `buf` directly; the check is inlined, the copy is out of line.

export class GrowableBytes {
  /** The buffer; replaced when it grows, so read it after `reserve`, never keep it across one. */
  buf: Uint8Array;
  /** A DataView of `buf` (little-endian numbers), replaced with it. */
  data: DataView;
  length = 0;

  /** A new buffer of `capacity` bytes, or `initial` to write over (a pooled one: its old bytes are not read). */
  constructor(capacity: number | Uint8Array) {
    this.buf = typeof capacity === "number" ? new Uint8Array(capacity) : capacity;
    this.data = new DataView(this.buf.buffer);
  }

  /** Room for `n` more bytes. */
  reserve(n: number): void {
    if (this.length + n > this.buf.length) this.#grow(this.length + n);
  }

  /**
   * At least doubles (amortized O(1) copies per byte), or jumps straight to what one large append needs:
   * a multi-megabyte block appended to a small header is copied once, into a buffer of its size (rounding
   * up to a power of two would leave most of a fresh, zeroed buffer untouched).
   */
  #grow(needed: number): void {
    const next = new Uint8Array(Math.max(needed, this.buf.length * 2));
    next.set(this.buf.subarray(0, this.length));
    this.buf = next;
    this.data = new DataView(next.buffer);
  }

  append(bytes: Uint8Array): void {
    this.reserve(bytes.length);
    this.buf.set(bytes, this.length);
    this.length += bytes.length;
  }

  /** Bytes it holds before it has to grow. */
  get capacity(): number {
    return this.buf.length;
  }

  /** The bytes written so far (a view: valid until the next write). */
  bytes(): Uint8Array {
    return this.buf.subarray(0, this.length);
  }
}
