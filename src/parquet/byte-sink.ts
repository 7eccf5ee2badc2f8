// A growable byte buffer for building Parquet pages and Thrift structs: appends only (growth in
// util/growable-bytes.ts, shared with the Avro writer).
import { GrowableBytes } from "../util/growable-bytes.js";

export class ByteSink extends GrowableBytes {
  constructor(capacity: number | Uint8Array = 256) {
    super(capacity);
  }

  byte(b: number): void {
    this.reserve(1);
    this.buf[this.length++] = b;
  }

  /** Unsigned LEB128 of a safe integer. */
  varint(v: number): void {
    this.reserve(8);
    while (v >= 0x80) {
      this.buf[this.length++] = (v % 0x80) | 0x80;
      v = Math.floor(v / 0x80);
    }
    this.buf[this.length++] = v;
  }

  uint32(v: number): void {
    this.reserve(4);
    this.data.setUint32(this.length, v, true);
    this.length += 4;
  }
}
