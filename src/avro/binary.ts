// Avro's binary primitives on Uint8Array. The reader names the file offset of any problem and never
// allocates from a length it has not checked against the bytes that remain. 64-bit longs are decoded into
// two 32-bit words, so a BigInt64Array fills without a BigInt per value.
import { AvaError } from "../errors.js";
import { GrowableBytes } from "../util/growable-bytes.js";

const decoder = new TextDecoder("utf-8", { fatal: true });
const encoder = new TextEncoder();

export class ByteReader {
  pos = 0;
  #view: DataView;
  /** The zigzag-decoded halves of the last long read by `longWords`. */
  lo = 0;
  hi = 0;
  /** Set when a read ran past the end: with more input to come, that means "wait", not "corrupt". */
  truncated = false;

  constructor(
    readonly bytes: Uint8Array,
    /** The file offset of bytes[0], for messages. */
    readonly base = 0,
  ) {
    this.#view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  }

  get remaining(): number {
    return this.bytes.length - this.pos;
  }

  corrupt(detail: string, at = this.pos): AvaError {
    return new AvaError("AVRO_CORRUPT", `${detail} at byte ${this.base + at}`);
  }

  #truncation(detail: string, at = this.pos): AvaError {
    this.truncated = true;
    return this.corrupt(`truncated ${detail}`, at);
  }

  #need(n: number, what: string): void {
    if (n > this.remaining) throw this.#truncation(`${what}: needs ${n} bytes, ${this.remaining} left`);
  }

  /** Reads a zigzag varint long into `lo`/`hi` (two's-complement words). */
  longWords(): void {
    const start = this.pos;
    let lo = 0;
    let hi = 0;
    for (let k = 0; ; k++) {
      if (this.pos >= this.bytes.length) throw this.#truncation("long", start);
      const b = this.bytes[this.pos++]!;
      const bits = b & 0x7f;
      if (k < 4) lo |= bits << (7 * k);
      else if (k === 4) {
        lo |= bits << 28;
        hi |= bits >>> 4;
      } else if (k < 10) hi |= bits << (7 * k - 32);
      if (!(b & 0x80)) {
        if (k === 9 && b > 1) throw this.corrupt("long longer than 64 bits", start);
        break;
      }
      if (k === 9) throw this.corrupt("long longer than 10 bytes", start);
    }
    const sign = -(lo & 1);
    this.lo = ((lo >>> 1) | (hi << 31)) ^ sign;
    this.hi = (hi >>> 1) ^ sign;
  }

  /**
   * `n` longs into `words` (a BigInt64Array's Int32Array view) from index `start`: the hot loop of a
   * timestamp array, with cursor and words in locals. Near the end of the bytes it defers to longWords(),
   * which reports truncation.
   */
  longsInto(words: Int32Array, start: number, n: number): void {
    const bytes = this.bytes;
    const safeEnd = bytes.length - 10;
    let pos = this.pos;
    for (let i = start; i < start + n; i++) {
      if (pos > safeEnd) {
        this.pos = pos;
        this.longWords();
        words[2 * i] = this.lo;
        words[2 * i + 1] = this.hi;
        pos = this.pos;
        continue;
      }
      const at = pos;
      // The low word's four whole 7-bit groups, then the group that straddles both words, then the high
      // word's groups: two short loops with one test a byte (epoch-ns timestamps take 9 bytes each).
      let b = bytes[pos++]!;
      let lo = b & 0x7f;
      let hi = 0;
      for (let shift = 7; b > 0x7f && shift < 28; shift += 7) {
        b = bytes[pos++]!;
        lo |= (b & 0x7f) << shift;
      }
      if (b > 0x7f) {
        b = bytes[pos++]!;
        lo |= b << 28; // its low 4 bits
        hi = (b & 0x7f) >>> 4;
        for (let shift = 3; b > 0x7f && shift < 31; shift += 7) {
          b = bytes[pos++]!;
          hi |= (b & 0x7f) << shift;
        }
        if (b > 0x7f) {
          b = bytes[pos++]!; // the tenth byte holds bit 63 alone
          if (b > 0x7f) throw this.corrupt("long longer than 10 bytes", at);
          if (b > 1) throw this.corrupt("long longer than 64 bits", at);
          hi |= b << 31;
        }
      }
      const sign = -(lo & 1);
      words[2 * i] = ((lo >>> 1) | (hi << 31)) ^ sign;
      words[2 * i + 1] = (hi >>> 1) ^ sign;
    }
    this.pos = pos;
  }

  /**
   * Up to `n` doubles that each follow the one-byte union branch `tag`, into `out` from `start`. Stops at
   * the first other branch or near the end of the bytes; returns how many it read.
   */
  branchedDoublesInto(out: Float64Array, start: number, n: number, tag: number): number {
    const bytes = this.bytes;
    const view = this.#view;
    const last = bytes.length - 9;
    let pos = this.pos;
    let i = 0;
    for (; i < n && pos <= last && bytes[pos] === tag; i++) {
      out[start + i] = view.getFloat64(pos + 1, true);
      pos += 9;
    }
    this.pos = pos;
    return i;
  }

  /** A long as a number; refused (not rounded) when it is beyond 2^53. */
  long(): number {
    const start = this.pos;
    this.longWords();
    const value = this.hi * 4294967296 + (this.lo >>> 0);
    if (!Number.isSafeInteger(value)) throw this.corrupt(`length or count ${value} is out of range`, start);
    return value;
  }

  longBig(): bigint {
    this.longWords();
    return (BigInt(this.hi) << 32n) | BigInt(this.lo >>> 0);
  }

  double(): number {
    this.#need(8, "double");
    const v = this.#view.getFloat64(this.pos, true);
    this.pos += 8;
    return v;
  }

  /** A length-prefixed byte run, checked against what remains before any allocation. */
  bytesField(what: string): Uint8Array {
    const start = this.pos;
    const n = this.long();
    if (n < 0) throw this.corrupt(`negative ${what} length ${n}`, start);
    this.#need(n, what);
    const out = this.bytes.subarray(this.pos, this.pos + n);
    this.pos += n;
    return out;
  }

  string(what = "string"): string {
    const start = this.pos;
    const raw = this.bytesField(what);
    try {
      return decoder.decode(raw);
    } catch {
      throw this.corrupt(`${what} is not valid UTF-8`, start);
    }
  }

  fixed(n: number, what: string): Uint8Array {
    this.#need(n, what);
    const out = this.bytes.subarray(this.pos, this.pos + n);
    this.pos += n;
    return out;
  }

  /**
   * The item count of the next block of an array or map (0 ends it). A negative count is followed by
   * the block's size in bytes. Counts are bounded by the bytes left (each item takes at least `minItemBytes`).
   */
  blockCount(what: string, minItemBytes: number): number {
    const start = this.pos;
    let count = this.long();
    if (count < 0) {
      count = -count;
      const size = this.long();
      if (size < 0) throw this.corrupt(`negative ${what} block size`, start);
    }
    if (count * minItemBytes > this.remaining) {
      // Within a whole block this is corruption; in a header still arriving it means "wait for more bytes".
      throw this.#truncation(
        `${what}: the block claims ${count} items but only ${this.remaining} bytes remain`,
        start,
      );
    }
    return count;
  }
}

/** Strings up to this long are tried as ASCII first (see ByteWriter.string). */
const ASCII_FAST_MAX = 256;

export class ByteWriter extends GrowableBytes {
  /** `capacity`: the expected size, when known, so that the buffer need not grow (each growth copies). */
  constructor(capacity = 1024) {
    super(Math.max(16, capacity));
  }

  /** A long given as two's-complement 32-bit words (zigzag + varint, as Avro writes it). */
  longWords(lo: number, hi: number): void {
    this.reserve(10);
    const sign = hi >> 31;
    let zlo = ((lo << 1) ^ sign) >>> 0;
    let zhi = (((hi << 1) | (lo >>> 31)) ^ sign) >>> 0;
    while (zhi !== 0 || zlo > 0x7f) {
      this.buf[this.length++] = (zlo & 0x7f) | 0x80;
      zlo = ((zlo >>> 7) | (zhi << 25)) >>> 0;
      zhi >>>= 7;
    }
    this.buf[this.length++] = zlo;
  }

  /**
   * `n` longs given as a BigInt64Array's Int32Array view (little-endian word pairs), written in one pass
   * with one reservation: the hot loop of a timestamp array.
   */
  longsFromWords(words: Int32Array, n: number): void {
    this.reserve(10 * n);
    const buf = this.buf;
    let at = this.length;
    for (let i = 0; i < n; i++) {
      const lo = words[2 * i]!;
      const hi = words[2 * i + 1]!;
      const sign = hi >> 31;
      const zlo = ((lo << 1) ^ sign) >>> 0;
      const zhi = (((hi << 1) | (lo >>> 31)) ^ sign) >>> 0;
      if (zhi === 0) {
        let v = zlo;
        for (; v > 0x7f; v >>>= 7) buf[at++] = (v & 0x7f) | 0x80;
        buf[at++] = v;
        continue;
      }
      // Past 32 bits (epoch-ns timestamps take 9 bytes): the low 28 bits are four whole groups, written
      // without a loop; the remaining 36 bits go 7 at a time from one 32-bit word.
      buf[at++] = (zlo & 0x7f) | 0x80;
      buf[at++] = ((zlo >>> 7) & 0x7f) | 0x80;
      buf[at++] = ((zlo >>> 14) & 0x7f) | 0x80;
      buf[at++] = ((zlo >>> 21) & 0x7f) | 0x80;
      let group = (zlo >>> 28) | ((zhi & 0x7) << 4);
      for (let rest = zhi >>> 3; rest !== 0; rest >>>= 7) {
        buf[at++] = group | 0x80;
        group = rest & 0x7f;
      }
      buf[at++] = group;
    }
    this.length = at;
  }

  /** Doubles, each preceded by the same union branch index (< 64, so one zigzag byte). */
  branchedDoubles(branch: number, values: Float64Array): void {
    this.reserve(9 * values.length);
    const buf = this.buf;
    const view = this.data;
    const tag = branch << 1;
    let at = this.length;
    for (let i = 0; i < values.length; i++) {
      buf[at] = tag;
      view.setFloat64(at + 1, values[i]!, true);
      at += 9;
    }
    this.length = at;
  }

  long(v: number | bigint): void {
    if (typeof v === "bigint") {
      const u = BigInt.asUintN(64, v);
      this.longWords(Number(u & 0xffffffffn) | 0, Number(u >> 32n) | 0);
    } else {
      const hi = Math.floor(v / 4294967296);
      this.longWords((v - hi * 4294967296) | 0, hi | 0);
    }
  }

  double(v: number): void {
    this.reserve(8);
    this.data.setFloat64(this.length, v, true);
    this.length += 8;
  }

  raw(bytes: Uint8Array): void {
    this.append(bytes);
  }

  bytesField(bytes: Uint8Array): void {
    this.long(bytes.length);
    this.raw(bytes);
  }

  string(s: string): void {
    // Short ASCII text (channels, tag keys and values) goes straight into the buffer: TextEncoder.encode
    // allocates an ArrayBuffer per call, which in Chromium cost more than encoding a block's points.
    const n = s.length;
    if (n <= ASCII_FAST_MAX) {
      const start = this.length;
      this.long(n);
      this.reserve(n);
      const buf = this.buf;
      let at = this.length;
      let i = 0;
      for (; i < n; i++) {
        const c = s.charCodeAt(i);
        if (c >= 0x80) break;
        buf[at++] = c;
      }
      if (i === n) {
        this.length = at;
        return;
      }
      this.length = start; // not ASCII: its UTF-8 length differs from its length
    }
    this.bytesField(encoder.encode(s));
  }

  /** Leaves `n` bytes to be filled or closed up later by `closeGap` (reserves them now). */
  skip(n: number): void {
    this.reserve(n);
    this.length += n;
  }

  /**
   * Writes `prefix` at `at`, at the start of a `gap`-byte hole left by skip(), and moves what follows the
   * hole back to meet it: a block's byte count is known only after its records are written.
   */
  closeGap(at: number, gap: number, prefix: Uint8Array): void {
    if (prefix.length > gap)
      throw new RangeError(`a ${prefix.length}-byte prefix does not fit a ${gap}-byte gap`);
    this.buf.set(prefix, at);
    this.buf.copyWithin(at + prefix.length, at + gap, this.length);
    this.length -= gap - prefix.length;
  }

  /** The bytes written so far (a view: copy before writing more if kept). */
  view(): Uint8Array {
    return this.bytes();
  }

  /** Starts over in the same buffer. */
  reset(): void {
    this.length = 0;
  }
}
