// Just enough protobuf to write a message: varints (32- and 64-bit), fixed64 doubles, strings, packed
// doubles and nested messages. A nested message is written in place after a one-byte hole for its length;
// most (a point, a timestamp) fit under 128 bytes and need nothing more, the few large ones (a series) are
// moved right by the extra length bytes once — no writer per message, no second pass to compute sizes.
const WIRE_VARINT = 0;
const WIRE_FIXED64 = 1;
const WIRE_LENGTH = 2;

const utf8 = new TextEncoder();

export class ProtoWriter {
  #buf = new Uint8Array(1024);
  #view = new DataView(this.#buf.buffer);
  #at = 0;

  #ensure(n: number): void {
    if (this.#at + n <= this.#buf.length) return;
    const grown = new Uint8Array(Math.max(this.#buf.length * 2, this.#at + n));
    grown.set(this.#buf.subarray(0, this.#at));
    this.#buf = grown;
    this.#view = new DataView(grown.buffer);
  }

  get length(): number {
    return this.#at;
  }

  /** An unsigned value below 2^32. */
  #varint32(v: number): void {
    this.#ensure(5);
    while (v > 0x7f) {
      this.#buf[this.#at++] = (v & 0x7f) | 0x80;
      v >>>= 7;
    }
    this.#buf[this.#at++] = v;
  }

  #tag(field: number, wire: number): void {
    this.#varint32((field << 3) | wire);
  }

  /** int32 / uint32 / enum. Negative int32s take ten bytes, as in every protobuf encoder. */
  int32(field: number, v: number): void {
    if (v < 0) {
      this.int64(field, BigInt(v));
      return;
    }
    this.#tag(field, WIRE_VARINT);
    this.#varint32(v >>> 0);
  }

  /** int64, two's complement. */
  int64(field: number, v: bigint): void {
    this.#tag(field, WIRE_VARINT);
    let u = BigInt.asUintN(64, v);
    this.#ensure(10);
    while (u > 0x7fn) {
      this.#buf[this.#at++] = Number(u & 0x7fn) | 0x80;
      u >>= 7n;
    }
    this.#buf[this.#at++] = Number(u);
  }

  double(field: number, v: number): void {
    this.#tag(field, WIRE_FIXED64);
    this.#ensure(8);
    this.#view.setFloat64(this.#at, v, true);
    this.#at += 8;
  }

  string(field: number, s: string): void {
    this.#tag(field, WIRE_LENGTH);
    // At most 3 bytes per UTF-16 unit; write after a 5-byte hole for the length, then close the gap.
    this.#ensure(5 + s.length * 3);
    const start = this.#at + 5;
    const { written } = utf8.encodeInto(s, this.#buf.subarray(start));
    this.#varint32(written);
    this.#buf.copyWithin(this.#at, start, start + written);
    this.#at += written;
  }

  /** repeated double, packed (proto3's default). */
  packedDoubles(field: number, values: ArrayLike<number>): void {
    this.#tag(field, WIRE_LENGTH);
    this.#varint32(values.length * 8);
    this.#ensure(values.length * 8);
    for (let i = 0; i < values.length; i++) {
      this.#view.setFloat64(this.#at, values[i]!, true);
      this.#at += 8;
    }
  }

  /** A nested message, written by `write` into this writer. */
  message(field: number, write: (w: ProtoWriter) => void): void {
    this.#tag(field, WIRE_LENGTH);
    this.#ensure(1);
    const hole = this.#at++;
    write(this);
    const length = this.#at - hole - 1;
    if (length < 0x80) {
      this.#buf[hole] = length;
      return;
    }
    let extra = 0;
    for (let v = length >>> 7; v > 0; v >>>= 7) extra++;
    this.#ensure(extra);
    this.#buf.copyWithin(hole + 1 + extra, hole + 1, this.#at);
    const end = this.#at + extra;
    this.#at = hole;
    this.#varint32(length);
    this.#at = end;
  }

  bytes(field: number, bytes: Uint8Array): void {
    this.#tag(field, WIRE_LENGTH);
    this.#varint32(bytes.length);
    this.#ensure(bytes.length);
    this.#buf.set(bytes, this.#at);
    this.#at += bytes.length;
  }

  finish(): Uint8Array {
    return this.#buf.subarray(0, this.#at);
  }
}
