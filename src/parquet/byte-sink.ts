// A growable byte buffer for building Parquet pages and Thrift structs: appends only, doubling capacity.

export class ByteSink {
  #buf: Uint8Array;
  #view: DataView;
  length = 0;

  constructor(capacity = 256) {
    this.#buf = new Uint8Array(capacity);
    this.#view = new DataView(this.#buf.buffer);
  }

  /** Room for `n` more bytes. */
  reserve(n: number): void {
    if (this.length + n <= this.#buf.length) return;
    let cap = this.#buf.length * 2;
    while (cap < this.length + n) cap *= 2;
    const next = new Uint8Array(cap);
    next.set(this.#buf.subarray(0, this.length));
    this.#buf = next;
    this.#view = new DataView(next.buffer);
  }

  byte(b: number): void {
    this.reserve(1);
    this.#buf[this.length++] = b;
  }

  /** Unsigned LEB128 of a safe integer. */
  varint(v: number): void {
    this.reserve(8);
    while (v >= 0x80) {
      this.#buf[this.length++] = (v % 0x80) | 0x80;
      v = Math.floor(v / 0x80);
    }
    this.#buf[this.length++] = v;
  }

  uint32(v: number): void {
    this.reserve(4);
    this.#view.setUint32(this.length, v, true);
    this.length += 4;
  }

  append(bytes: Uint8Array): void {
    this.reserve(bytes.length);
    this.#buf.set(bytes, this.length);
    this.length += bytes.length;
  }

  /** The bytes written so far (a view: valid until the next write). */
  bytes(): Uint8Array {
    return this.#buf.subarray(0, this.length);
  }
}
